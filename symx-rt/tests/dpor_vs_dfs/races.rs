//! Regression tests: the first six disagreements this test found (fixed in 3cccbf2), written
//! out as plain symx programs, on which steps race: a `try_lock` and the lock's other
//! acquisitions and releases, and the first step of a thread whose spawner, or the thread it
//! joins, made no step of its own to order that step after. Each records an outcome per
//! execution; DFS and DPOR must agree on the set of outcomes and the DPOR must run each
//! Mazurkiewicz trace exactly once.

use super::*;

/// Thread 1 takes and releases the lock; thread 2 tries it once. The try fails only inside
/// thread 1's critical section: DFS ran 3 executions, outcomes {true, false}; the DPOR ran 2,
/// both `true`. It took every `try_lock` for a blocking acquisition, which does not race with
/// the `unlock` before it, so that order was never reversed.
#[test]
fn try_lock_failing_against_another_holder() {
    assert_agree(|| {
        let m = Arc::new(Mutex::new(()));
        drop(m.lock().unwrap());
        let m1 = m.clone();
        let t1 = thread::spawn(move || drop(m1.lock().unwrap()));
        let t2 = thread::spawn(move || m.try_lock().is_ok());
        t1.join().unwrap();
        record(format!("try_lock succeeded: {}", t2.join().unwrap()));
    });
}

/// The mirror image: thread 1 tries the lock once, thread 2 takes and releases it. DFS ran 3
/// executions, outcomes {Some(0), None, Some(1)}; the DPOR ran 2 and never the `try_lock`
/// after thread 2's `unlock` (`Some(1)` missing). Same cause.
#[test]
fn try_lock_succeeding_after_another_holder_released() {
    assert_agree(|| {
        let m = Arc::new(Mutex::new(0));
        drop(m.lock().unwrap());
        let m1 = m.clone();
        let t1 = thread::spawn(move || m1.try_lock().map(|g| *g).ok());
        let m2 = m.clone();
        let t2 = thread::spawn(move || *m2.lock().unwrap() = 1);
        t2.join().unwrap();
        record(format!("try_lock saw: {:?}", t1.join().unwrap()));
    });
}

/// Two threads try the lock once each: DFS ran 4 executions, outcomes {(true, true), (true,
/// false), (false, true)}; the DPOR ran 2, never with thread 1 winning while thread 2 fails.
/// Same cause.
#[test]
fn two_racing_try_locks() {
    assert_agree(|| {
        let m = Arc::new(Mutex::new(()));
        drop(m.lock().unwrap());
        let m1 = m.clone();
        let t1 = thread::spawn(move || m1.try_lock().is_ok());
        let t2 = thread::spawn(move || m.try_lock().is_ok());
        let (a, b) = (t1.join().unwrap(), t2.join().unwrap());
        record(format!("{a} {b}"));
    });
}

/// Thread 1 holds the lock and tries it again (which fails); thread 2 takes the lock once.
/// DFS ran 2 executions (either critical section first, outcomes {5, 7}); the DPOR ran the
/// thread-1-first trace twice and never thread 2 first (7 missing). Thread 2's `lock` was
/// raced with thread 1's failed `try_lock`, the later of its two conflicts, instead of with
/// thread 1's `lock`: the reversal planted thread 2 where the lock is held, could not run it
/// (a redundant execution), and the real race was never reversed.
#[test]
fn try_lock_of_a_held_lock_inside_the_critical_section() {
    assert_agree(|| {
        let m = Arc::new(Mutex::new(0));
        drop(m.lock().unwrap());
        let m1 = m.clone();
        let t1 = thread::spawn(move || {
            let mut g = m1.lock().unwrap();
            *g = *g * 3 + 1;
            assert!(m1.try_lock().is_err());
            drop(g);
        });
        let m2 = m.clone();
        let t2 = thread::spawn(move || {
            let mut g = m2.lock().unwrap();
            *g = *g * 3 + 2;
        });
        t1.join().unwrap();
        t2.join().unwrap();
        record(format!("{}", *m.lock().unwrap()));
    });
}

/// Main loads an atomic, then spawns a thread that, before any visible step of its own,
/// spawns a grandchild that stores to it. One trace: DFS ran 1 execution, the DPOR 2. The
/// grandchild's first event was enabled by the spawner's last event, and there was none, so
/// nothing ordered it after main's `load`: the DPOR saw a race there and planted a reversal
/// that cannot run.
#[test]
fn nested_spawn_before_the_spawners_first_step() {
    assert_agree(|| {
        let a = Arc::new(AtomicUsize::new(0));
        a.load(SeqCst);
        let a1 = a.clone();
        thread::spawn(move || {
            let a2 = a1.clone();
            thread::spawn(move || a2.store(1, SeqCst)).join().unwrap();
        })
        .join()
        .unwrap();
        record(format!("{}", a.load(SeqCst)));
    });
}

/// A thread makes a step, spawns a child that stores to `a`, stores to `b`, and joins the
/// child; main joins the thread and loads both. One trace: DFS ran 1 execution, the DPOR 2.
/// When the child's exit woke the thread and the thread ended without another step, main
/// (waiting to join it) was enabled by the last event of the trace, the child's `store`,
/// instead of the thread's own last event, its `store` to `b`: main's `load` of `b` looked
/// racy, and the planted reversal could not run.
#[test]
fn join_of_a_thread_that_waited_for_its_child() {
    assert_agree(|| {
        let a = Arc::new(AtomicUsize::new(0));
        let b = Arc::new(AtomicUsize::new(0));
        a.load(SeqCst);
        b.load(SeqCst);
        let (a1, b1) = (a.clone(), b.clone());
        thread::spawn(move || {
            b1.load(SeqCst);
            let a2 = a1.clone();
            let child = thread::spawn(move || a2.store(1, SeqCst));
            b1.store(1, SeqCst);
            child.join().unwrap();
        })
        .join()
        .unwrap();
        record(format!("{} {}", a.load(SeqCst), b.load(SeqCst)));
    });
}
