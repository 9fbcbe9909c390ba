//! The counter: a lost update found and replayed, and the fix proven.

use getting_started::Counter;
use symx::sync::Arc;
use symx::thread;
use symx::{Builder, FailureKind};

/// Two threads increment once each with `increment`; the total must be 2.
fn two_increments(increment: fn(&Counter)) {
    let counter = Arc::new(Counter::new());
    let other = {
        let counter = counter.clone();
        thread::spawn(move || increment(&counter))
    };
    increment(&counter);
    other.join().unwrap();
    assert_eq!(counter.get(), 2, "an increment was lost");
}

fn racy() {
    two_increments(Counter::increment_racy);
}

fn atomic() {
    two_increments(Counter::increment);
}

/// How you would test your own code: `#[symx::test]` explores every interleaving and fails
/// the test, with the interleaving and a replay token, if any of them fails.
#[symx::test]
fn counter_with_fetch_add_is_exact() {
    atomic();
}

/// The buggy version, turned around into a test that expects the bug: `Builder::explore`
/// returns the failure in a report instead of failing the test.
#[test]
fn counter_with_load_then_store_loses_an_update() {
    let report = Builder::new().explore(racy);
    let failure = report.failure().expect("the lost update is found");
    assert_eq!(failure.kind(), FailureKind::Panic, "{failure}");
    assert!(
        failure.message().contains("an increment was lost"),
        "{failure}"
    );
    // The interleaving: both loads come before both stores.
    let operations: Vec<&str> = failure
        .steps()
        .iter()
        .map(|s| s.operation.as_str())
        .collect();
    assert_eq!(
        operations,
        ["load", "load", "store", "store", "load"],
        "{failure}"
    );

    // The replay token (what the report prints) runs exactly that interleaving again.
    let schedule: symx::Schedule = failure.schedule().to_string().parse().unwrap();
    let replay = Builder::new().replay(&schedule, racy);
    assert_eq!(replay.failure().map(|f| f.kind()), Some(FailureKind::Panic));
}

#[test]
fn counter_with_fetch_add_is_proven_for_two_threads() {
    let report = Builder::new().explore(atomic);
    assert!(report.failure().is_none());
    // Every interleaving was run: for two threads, the counter cannot go wrong.
    assert!(report.complete());
}
