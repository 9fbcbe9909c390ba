//! symx's test attribute, assertions and instrumentation, in an edition 2015 crate: the
//! explorations run and find what they should.

extern crate symx;
extern crate symx_edition_2015;

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::Arc;
use symx::{thread, Builder, FailureKind};
use symx_edition_2015::{CountdownBarrier, SpinLock};

/// Adds one to `n` under `lock`, with a read and a write that the lock must keep together.
#[symx::instrument]
fn locked_increment(lock: &SpinLock, n: &AtomicUsize) {
    lock.lock();
    let seen = n.load(Ordering::Relaxed);
    n.store(seen + 1, Ordering::Relaxed);
    assert!(n.load(Ordering::Relaxed) == seen + 1);
    lock.unlock();
}

#[symx::test]
fn two_threads_under_the_annotated_lock_add_two() {
    let lock = Arc::new(SpinLock::default());
    let n = Arc::new(AtomicUsize::new(0));
    let (l, m) = (lock.clone(), n.clone());
    let t = thread::spawn(move || locked_increment(&l, &m));
    locked_increment(&lock, &n);
    t.join().unwrap();
    symx::assert_eq!(n.load(Ordering::Relaxed), 2, "both increments");
    symx::assert_ne!(n.load(Ordering::Relaxed), 1);
}

#[symx::test]
fn the_barrier_lets_no_one_out_early() {
    let barrier = CountdownBarrier::new(2);
    let other = barrier.clone();
    let t = thread::spawn(move || other.wait());
    barrier.wait();
    t.join().unwrap();
}

#[test]
fn a_symx_assertion_fails_with_its_text() {
    let report = Builder::new().explore(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let m = n.clone();
        let t = thread::spawn(move || {
            let seen = m.load(Ordering::Relaxed);
            m.store(seen + 1, Ordering::Relaxed);
        });
        let seen = n.load(Ordering::Relaxed);
        n.store(seen + 1, Ordering::Relaxed);
        t.join().unwrap();
        symx::assert_eq!(n.load(Ordering::Relaxed), 2);
    });
    let failure = report.failure().expect("the lost update");
    assert_eq!(failure.kind(), FailureKind::Panic);
    assert!(
        failure
            .message()
            .contains("assertion `left == right` failed\n  left: 1\n right: 2"),
        "{}",
        failure
    );
}

#[test]
fn waiting_for_a_lock_its_holder_never_releases_is_a_deadlock() {
    let report = Builder::new().explore(|| {
        let lock = Arc::new(SpinLock::default());
        let other = lock.clone();
        let t = thread::spawn(move || {
            other.lock();
        });
        // Thread 1 finishes holding the lock, so the last `lock` spins for ever whenever
        // thread 1 got there first.
        if lock.try_lock() {
            lock.unlock();
        }
        t.join().unwrap();
        lock.lock();
    });
    let failure = report.failure().expect("a deadlock");
    assert_eq!(failure.kind(), FailureKind::Deadlock, "{}", failure);
}
