//! The bank transfer: a lock-order deadlock found and replayed, and the fix proven.

use getting_started::{transfer, transfer_ordered, Account};
use symx::sync::Arc;
use symx::thread;
use symx::{Builder, FailureKind};

/// Two transfers in opposite directions between the same two accounts, at the same time.
fn opposite_transfers(transfer: fn(&Account, &Account, i64)) {
    let accounts = Arc::new((Account::new(1, 100), Account::new(2, 100)));
    let other = {
        let accounts = accounts.clone();
        thread::spawn(move || transfer(&accounts.1, &accounts.0, 30))
    };
    transfer(&accounts.0, &accounts.1, 50);
    other.join().unwrap();
    // Whatever the order, both transfers happened and no money appeared or vanished.
    assert_eq!(accounts.0.balance(), 80);
    assert_eq!(accounts.1.balance(), 120);
}

fn in_argument_order() {
    opposite_transfers(transfer);
}

fn in_global_order() {
    opposite_transfers(transfer_ordered);
}

#[symx::test]
fn transfers_that_lock_in_id_order_cannot_deadlock() {
    in_global_order();
}

#[test]
fn transfers_that_lock_in_argument_order_deadlock() {
    let report = Builder::new().explore(in_argument_order);
    let failure = report.failure().expect("the deadlock is found");
    assert_eq!(failure.kind(), FailureKind::Deadlock, "{failure}");
    // The report says, per thread, which lock it waits for and who holds that lock: each
    // thread holds the account the other one wants.
    let waits: Vec<&String> = failure
        .details()
        .iter()
        .filter(|d| d.contains("waits to lock"))
        .collect();
    assert_eq!(waits.len(), 2, "{failure}");
    assert!(
        waits.iter().all(|d| d.contains("held by thread")),
        "{failure}"
    );

    let schedule: symx::Schedule = failure.schedule().to_string().parse().unwrap();
    let replay = Builder::new().replay(&schedule, in_argument_order);
    assert_eq!(
        replay.failure().map(|f| f.kind()),
        Some(FailureKind::Deadlock)
    );
}

#[test]
fn transfers_that_lock_in_id_order_are_proven_for_two_threads() {
    let report = Builder::new().explore(in_global_order);
    assert!(report.failure().is_none());
    assert!(report.complete());
}
