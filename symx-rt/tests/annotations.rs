//! What the runtime makes of annotated user primitives: blocking built from a try-lock loop,
//! holders that can never release, and barriers used without being announced. Every failure
//! replays to the same failure (`common::assert_fails`).

mod common;

use common::{assert_fails, assert_passes};
use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::Arc;
use symx::thread;
use symx::FailureKind;
use symx_test_programs::annotated::two_arrive_at_an_unannounced_barrier;

/// A lock whose `lock` loops over its own annotated `try_lock`, as many real locks do.
#[derive(Default)]
struct TryLoopLock {
    locked: AtomicBool,
}

impl TryLoopLock {
    #[symx::acquire]
    fn lock(&self) {
        while !self.try_lock() {
            symx::hint::spin_loop();
        }
    }

    #[symx::try_acquire]
    fn try_lock(&self) -> bool {
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    #[symx::release]
    fn unlock(&self) {
        self.locked.store(false, Ordering::Release);
    }
}

/// Two threads take two try-loop locks in opposite orders.
fn try_loop_inversion() {
    let locks = Arc::new((TryLoopLock::default(), TryLoopLock::default()));
    let t = {
        let locks = locks.clone();
        thread::spawn(move || {
            locks.0.lock();
            locks.1.lock();
            locks.1.unlock();
            locks.0.unlock();
        })
    };
    locks.1.lock();
    locks.0.lock();
    locks.0.unlock();
    locks.1.unlock();
    t.join().unwrap();
}

#[test]
fn a_try_lock_spin_inside_an_annotated_acquire_on_a_cycle_is_a_deadlock() {
    let f = assert_fails(FailureKind::Deadlock, try_loop_inversion);
    let details = f.details().join("\n");
    assert!(
        details.contains("thread 0 (main): spins acquiring TryLoopLock")
            && details.contains("spins acquiring TryLoopLock"),
        "{f}"
    );
}

#[test]
fn the_try_loop_lock_taken_in_one_order_is_proven() {
    let report = assert_passes(|| {
        let lock = Arc::new(TryLoopLock::default());
        let n = Arc::new(AtomicUsize::new(0));
        let t = {
            let (lock, n) = (lock.clone(), n.clone());
            thread::spawn(move || {
                lock.lock();
                n.fetch_add(1, Ordering::Relaxed);
                lock.unlock();
            })
        };
        lock.lock();
        n.fetch_add(1, Ordering::Relaxed);
        lock.unlock();
        t.join().unwrap();
        assert_eq!(n.load(Ordering::Relaxed), 2);
    });
    assert!(report.complete());
}

#[test]
fn spinning_on_a_lock_whose_holder_finished_is_a_deadlock() {
    let f = assert_fails(FailureKind::Deadlock, || {
        let lock = Arc::new(TryLoopLock::default());
        let t = {
            let lock = lock.clone();
            // Takes the lock and ends without releasing it: a leaked guard.
            thread::spawn(move || lock.lock())
        };
        t.join().unwrap();
        lock.lock();
    });
    assert!(
        f.details().iter().any(|d| d.contains("thread 1: finished")),
        "{f}"
    );
}

#[test]
fn arriving_at_a_barrier_nobody_announced_is_misuse_that_says_how_to_announce_it() {
    let f = assert_fails(FailureKind::Misuse, two_arrive_at_an_unannounced_barrier);
    assert!(
        f.message().contains("ConstBarrier") && f.message().contains("barrier_init"),
        "{f}"
    );
}

/// The verdict of exploring `body`: the failure kind, if any, and whether the space was
/// exhausted.
fn verdict(body: fn()) -> (Option<FailureKind>, bool) {
    let report = symx::Builder::new().explore(body);
    (report.failure().map(|f| f.kind()), report.complete())
}

/// A program on a hand-written lock, the same on a built-in one, and the verdict expected.
type Pair = (&'static str, fn(), fn(), Option<FailureKind>);

/// The same programs on the annotated hand-written locks and on `symx::sync`'s give the same
/// verdicts: the annotations make a spin lock as visible to symx as a built-in lock.
#[test]
fn hand_written_locks_and_the_built_in_ones_get_the_same_verdicts() {
    use symx::sync::{Mutex, RwLock};
    use symx_test_programs::annotated::*;

    let pairs: [Pair; 5] = [
        (
            "counter",
            counter::<SpinMutex<u32>>,
            counter::<Mutex<u32>>,
            None,
        ),
        (
            "inversion",
            inversion::<SpinMutex<u32>>,
            inversion::<Mutex<u32>>,
            Some(FailureKind::Deadlock),
        ),
        (
            "a reader and a writer",
            reader_and_writer::<SpinRwLock<u32>>,
            reader_and_writer::<RwLock<u32>>,
            None,
        ),
        (
            "readers share",
            readers_share::<SpinRwLock<u32>>,
            readers_share::<RwLock<u32>>,
            None,
        ),
        (
            "read then write",
            read_then_write::<SpinRwLock<u32>>,
            read_then_write::<RwLock<u32>>,
            Some(FailureKind::Deadlock),
        ),
    ];
    for (name, hand_written, built_in, expected) in pairs {
        let (ours, theirs) = (verdict(hand_written), verdict(built_in));
        assert_eq!(ours.0, theirs.0, "{name}: hand-written vs built-in");
        assert_eq!(ours.0, expected, "{name}");
        if expected.is_none() {
            assert!(ours.1 && theirs.1, "{name}: both explored completely");
        }
    }
    // The check-then-set lock is what the counter test tells apart.
    assert_eq!(
        verdict(counter::<CheckThenSet>).0,
        Some(FailureKind::Misuse)
    );
}
