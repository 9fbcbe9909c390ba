//! Acceptance: the classic concurrency bugs are found with the right kind, and every reported
//! failure replays to the same failure.

mod common;

use common::assert_fails;
use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicBool, Ordering};
use symx::sync::{Arc, Condvar, Mutex};
use symx::thread;
use symx::FailureKind;
use symx_test_programs::classic::{bounded_buffer_with_if, lost_update_of_two_workers};

#[test]
fn lost_update_is_a_panic_with_the_racing_interleaving() {
    let f = assert_fails(FailureKind::Panic, lost_update_of_two_workers);
    assert!(f.message().contains("an increment was lost"), "{f}");
    // Both loads must come before both stores for the update to be lost.
    let ops: Vec<&str> = f.steps().iter().map(|s| s.operation.as_str()).collect();
    assert_eq!(ops, ["load", "load", "store", "store", "load"], "{f}");
}

fn philosophers(n: usize) {
    let forks: Arc<Vec<Mutex<()>>> = Arc::new((0..n).map(|_| Mutex::new(())).collect());
    let diners: Vec<_> = (0..n)
        .map(|i| {
            let forks = forks.clone();
            thread::spawn(move || {
                let _left = forks[i].lock().unwrap();
                let _right = forks[(i + 1) % n].lock().unwrap();
            })
        })
        .collect();
    for d in diners {
        d.join().unwrap();
    }
}

#[test]
fn three_dining_philosophers_deadlock() {
    let f = assert_fails(FailureKind::Deadlock, || philosophers(3));
    // Every philosopher holds one fork and waits for the next: three lock steps, one each.
    assert_eq!(f.steps().len(), 3, "{f}");
    assert_eq!(
        f.details()
            .iter()
            .filter(|d| d.contains("waits to lock"))
            .count(),
        3,
        "{f}"
    );
}

fn lock_order_inversion() {
    let a = Arc::new(Mutex::new(0));
    let b = Arc::new(Mutex::new(0));
    let (a2, b2) = (a.clone(), b.clone());
    let t = thread::spawn(move || {
        let _x = a2.lock().unwrap();
        let _y = b2.lock().unwrap();
    });
    {
        let _y = b.lock().unwrap();
        let _x = a.lock().unwrap();
    }
    t.join().unwrap();
}

#[test]
fn lock_order_inversion_deadlocks() {
    let f = assert_fails(FailureKind::Deadlock, lock_order_inversion);
    assert!(
        f.details().iter().any(|d| d.contains("held by thread 1")),
        "{f}"
    );
    assert!(
        f.details().iter().any(|d| d.contains("held by thread 0")),
        "{f}"
    );
}

fn condvar_lost_wakeup() {
    let pair = Arc::new((Mutex::new(()), Condvar::new()));
    let p2 = pair.clone();
    let waiter = thread::spawn(move || {
        let (m, cv) = &*p2;
        let g = m.lock().unwrap();
        // No predicate: a notify that came first is lost.
        let _g = cv.wait(g).unwrap();
    });
    pair.1.notify_one();
    waiter.join().unwrap();
}

#[test]
fn condvar_lost_wakeup_deadlocks() {
    let f = assert_fails(FailureKind::Deadlock, condvar_lost_wakeup);
    assert!(
        f.details()
            .iter()
            .any(|d| d.contains("waits for a notify on Condvar")),
        "{f}"
    );
}

#[test]
fn bounded_buffer_with_if_instead_of_while_panics() {
    let f = assert_fails(FailureKind::Panic, bounded_buffer_with_if);
    assert!(f.message().contains("found the buffer empty"), "{f}");
    let threads: std::collections::BTreeSet<usize> = f.steps().iter().map(|s| s.thread).collect();
    assert!(
        threads.len() >= 3,
        "needs both consumers and the producer: {f}"
    );
}

struct Mailbox {
    data: UnsafeCell<u32>,
    ready: AtomicBool,
}

// SAFETY: the test is about whether this claim holds; symx checks the accesses.
unsafe impl Sync for Mailbox {}

/// A writer fills the mailbox and raises `ready` with `publish`; the main thread loads `ready`
/// with `consume` and, when it is set, reads the data.
fn message_passing(publish: Ordering, consume: Ordering) {
    let mb = Arc::new(Mailbox {
        data: UnsafeCell::new(0),
        ready: AtomicBool::new(false),
    });
    let m2 = mb.clone();
    let writer = thread::spawn(move || {
        m2.data.with_mut(|p| unsafe { *p = 42 });
        m2.ready.store(true, publish);
    });
    if mb.ready.load(consume) {
        assert_eq!(mb.data.with(|p| unsafe { *p }), 42);
    }
    writer.join().unwrap();
}

/// Relaxed on both sides: the flag does not publish the data (Release / Acquire would).
fn message_passing_without_synchronisation() {
    message_passing(Ordering::Relaxed, Ordering::Relaxed);
}

#[test]
fn unsynchronised_message_passing_is_a_data_race_with_both_accesses() {
    let f = assert_fails(
        FailureKind::DataRace,
        message_passing_without_synchronisation,
    );
    let first = f
        .details()
        .iter()
        .find(|d| d.starts_with("first access"))
        .expect("first access");
    let second = f
        .details()
        .iter()
        .find(|d| d.starts_with("second access"))
        .expect("second access");
    assert!(
        first.contains("write by thread 1") && first.contains("bugs_found.rs:"),
        "{f}"
    );
    assert!(
        second.contains("read by thread 0") && second.contains("bugs_found.rs:"),
        "{f}"
    );
}

fn message_passing_with_release_acquire() {
    message_passing(Ordering::Release, Ordering::Acquire);
}

#[test]
fn the_same_message_passing_with_release_acquire_is_clean() {
    let report = common::assert_passes(message_passing_with_release_acquire);
    // The flag load either precedes or follows the store: two executions.
    assert_eq!(report.executions(), 2);
}

fn double_lock_in_match_scrutinee() {
    let cache = Arc::new(Mutex::new(vec![1, 2, 3]));
    let c2 = cache.clone();
    let t = thread::spawn(move || {
        // The guard of the scrutinee lives until the end of the match: the second lock
        // inside an arm is taken by the thread that already holds it.
        match c2.lock().unwrap().first().copied() {
            Some(first) if first > 0 => c2.lock().unwrap().push(first),
            Some(_) => c2.lock().unwrap().clear(),
            None => {}
        }
    });
    t.join().unwrap();
}

#[test]
fn double_lock_in_a_match_scrutinee_is_a_self_deadlock() {
    let f = assert_fails(FailureKind::Deadlock, double_lock_in_match_scrutinee);
    assert!(f.message().contains("already holds"), "{f}");
}
