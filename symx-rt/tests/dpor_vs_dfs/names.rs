//! Regression tests written out as plain symx programs (fixed in 58ece85, the helper's nested
//! locks and the interpreter's in session 23), on how the DPOR names objects. It names an
//! object by the events that use it, an event being (thread, per-thread index, source
//! location, and since session 23 its thread's count of events at that location before it),
//! and merges two names whenever one such event uses both in two executions. When a thread's
//! control flow depends on the schedule (a `try_lock` that fails, a compare-exchange that
//! fails) and one call site serves two objects (a helper function), its n-th event was one
//! object in one execution and the other in the next, and the two objects became one name.
//! Each test below has a twin with one call site per object. Each records an outcome per
//! execution; DFS and DPOR must agree on the set of outcomes and the DPOR must run each
//! Mazurkiewicz trace exactly once.

use super::*;

/// Locks `m` from one call site, whichever mutex it is.
fn lock_at_one_site(m: &Mutex<i32>) -> symx::sync::MutexGuard<'_, i32> {
    m.lock().unwrap()
}

/// Tries `m` from one call site, whichever mutex it is; the value seen if it got the lock.
fn try_at_one_site(m: &Mutex<i32>) -> Option<i32> {
    m.try_lock().map(|g| *g).ok()
}

/// Thread 1 tries mutex 0 once, then locks 0 and, nested, 1; thread 2 locks 0 and, nested, 1.
/// With the nested locks taken in a helper (`one_site`), thread 1's third event, at the
/// helper's line, is `lock(1)` when its `try_lock` failed and `lock(0)` when it succeeded, so
/// mutexes 0 and 1 get one name. Before 58ece85 the merged name made a release of one mutex
/// order an acquisition of the other, which hid a race: DFS ran 4 traces, the DPOR 3 of them,
/// never thread 2's critical section before a successful `try_lock` (a final state missed).
/// Since then nothing is missed, but one trace still runs twice (5 executions for 4 traces):
/// the two runs differ only in the order of thread 1's failed `try_lock(0)` and thread 2's
/// `lock(1)`/`unlock(1)`, which the merged name makes look dependent.
fn nested_locks_after_a_try_lock(one_site: bool) {
    let m = Arc::new([Mutex::new(0), Mutex::new(0)]);
    drop(m[0].lock().unwrap());
    drop(m[1].lock().unwrap());
    let section = move |m: &[Mutex<i32>; 2], k: i32| {
        let (mut g0, mut g1) = if one_site {
            let g0 = lock_at_one_site(&m[0]);
            (g0, lock_at_one_site(&m[1]))
        } else {
            let g0 = m[0].lock().unwrap();
            (g0, m[1].lock().unwrap())
        };
        *g0 = *g0 * 3 + k;
        *g1 = *g1 * 3 + k;
    };
    let m1 = m.clone();
    let t1 = thread::spawn(move || {
        let seen = m1[0].try_lock().map(|g| *g).ok();
        section(&m1, 1);
        seen
    });
    let m2 = m.clone();
    let t2 = thread::spawn(move || section(&m2, 2));
    let seen = t1.join().unwrap();
    t2.join().unwrap();
    let (a, b) = (*m[0].lock().unwrap(), *m[1].lock().unwrap());
    record(format!("try_lock saw {seen:?}; mutexes {a} {b}"));
}

/// One call site (session 23): 4 traces in 4 executions, as with two. Before, thread 1's
/// event of index 2 at the helper's line was `lock(1)` where the `try_lock` failed and
/// `lock(0)` where it succeeded (an unlock after it), so the two mutexes were one name and
/// one trace ran twice (5 executions); since, an event's key holds its count of events at its
/// line too (`events::names`: `lock(0)` is the first at the helper's line, `lock(1)` the
/// second, so index 2 is keyed apart in the two executions).
#[test]
fn nested_locks_after_a_try_lock_one_call_site() {
    let body = || nested_locks_after_a_try_lock(true);
    assert_agree(body);
    assert_eq!(
        explore(&body, &take_outcome, Strategy::Dpor)
            .report
            .executions(),
        4
    );
}

#[test]
fn nested_locks_after_a_try_lock_two_call_sites() {
    let body = || nested_locks_after_a_try_lock(false);
    assert_agree(body);
    assert_eq!(
        explore(&body, &take_outcome, Strategy::Dpor)
            .report
            .executions(),
        4
    );
}

/// Thread 1 tries mutex 0, then mutex 1; thread 2 tries mutex 0. With both of thread 1's tries
/// in a helper (`one_site`), thread 1's second event is `unlock(0)` or `try_lock(1)`, both at
/// the helper's line, so the two mutexes get one name. Before 58ece85: DFS ran 4 traces, the
/// DPOR 5 executions, one trace twice (differing only in the order of thread 2's `unlock(0)`
/// and thread 1's `try_lock(1)`).
fn two_try_locks(one_site: bool) {
    let m = Arc::new([Mutex::new(0), Mutex::new(0)]);
    drop(m[0].lock().unwrap());
    drop(m[1].lock().unwrap());
    let m1 = m.clone();
    let t1 = thread::spawn(move || {
        if one_site {
            (try_at_one_site(&m1[0]), try_at_one_site(&m1[1]))
        } else {
            let first = m1[0].try_lock().map(|g| *g).ok();
            (first, m1[1].try_lock().map(|g| *g).ok())
        }
    });
    let m2 = m.clone();
    let t2 = thread::spawn(move || m2[0].try_lock().map(|g| *g).ok());
    let (a, b) = (t1.join().unwrap(), t2.join().unwrap());
    record(format!("{a:?} {b:?}"));
}

#[test]
fn two_try_locks_one_call_site() {
    assert_agree(|| two_try_locks(true));
}

#[test]
fn two_try_locks_two_call_sites() {
    assert_agree(|| two_try_locks(false));
}

/// Stores to `a` from one call site, whichever atomic it is.
fn store_at_one_site(a: &AtomicUsize) {
    a.store(1, SeqCst);
}

/// Atomics only: thread 1 stores to `x[1]` only if its compare-exchange on `x[0]` succeeds,
/// then stores to `x[2]`; thread 2 stores to `x[0]` and loads `x[1]`. With both stores in a
/// helper (`one_site`), x[1] and x[2] get one name. Before 58ece85 the DPOR ran a trace twice,
/// the two runs differing only in the order of thread 1's store to x[2] and thread 2's load of
/// x[1].
fn store_after_a_branch(one_site: bool) {
    let x = Arc::new([
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    ]);
    for a in x.iter() {
        a.load(SeqCst);
    }
    let x1 = x.clone();
    let t1 = thread::spawn(move || {
        let won = x1[0].compare_exchange(0, 1, SeqCst, SeqCst).is_ok();
        if one_site {
            if won {
                store_at_one_site(&x1[1]);
            }
            store_at_one_site(&x1[2]);
        } else {
            if won {
                x1[1].store(1, SeqCst);
            }
            x1[2].store(1, SeqCst);
        }
    });
    let x2 = x.clone();
    let t2 = thread::spawn(move || {
        x2[0].store(2, SeqCst);
        x2[1].load(SeqCst)
    });
    t1.join().unwrap();
    let seen = t2.join().unwrap();
    let end: Vec<usize> = x.iter().map(|a| a.load(SeqCst)).collect();
    record(format!("{seen} {end:?}"));
}

#[test]
fn store_after_a_branch_one_call_site() {
    assert_agree(|| store_after_a_branch(true));
}

#[test]
fn store_after_a_branch_two_call_sites() {
    assert_agree(|| store_after_a_branch(false));
}

/// Thread 1 updates `a`, then, holding mutex 1, sets the flag and notifies; thread 2 tries
/// mutex 1 once, stores to `a`, then waits for the flag (`if !flag { wait }`). On ce142b0 DFS
/// ran 7 traces and the DPOR 6 of them (two twice): never thread 2 waiting between thread 1's
/// `lock(1)` and its `lock(flag)`. The re-lock after a wake-up has the `wait`'s source
/// location, and the `try_lock`'s outcome shifts thread 2's event indices, so one (thread,
/// index, location) was the condvar in one execution and the flag's mutex in the next: the two
/// got one name (fixed by 58ece85).
#[test]
fn wait_after_a_try_lock() {
    assert_agree(|| {
        let a = Arc::new(AtomicUsize::new(0));
        let ms = Arc::new([Mutex::new(()), Mutex::new(())]);
        let flag = Arc::new((Mutex::new(false), Condvar::new()));
        a.load(SeqCst);
        drop(ms[1].lock().unwrap());
        drop(flag.0.lock().unwrap());
        flag.1.notify_all();
        let (a1, ms1, flag1) = (a.clone(), ms.clone(), flag.clone());
        let t1 = thread::spawn(move || {
            a1.swap(2, SeqCst);
            let held = ms1[1].lock().unwrap();
            let mut set = flag1.0.lock().unwrap();
            *set = true;
            flag1.1.notify_all();
            drop(set);
            drop(held);
        });
        let (a2, ms2, flag2) = (a.clone(), ms.clone(), flag.clone());
        let t2 = thread::spawn(move || {
            let got = ms2[1].try_lock().is_ok();
            a2.store(2, SeqCst);
            let mut set = flag2.0.lock().unwrap();
            if !*set {
                set = flag2.1.wait(set).unwrap();
            }
            (got, *set)
        });
        t1.join().unwrap();
        let seen = t2.join().unwrap();
        record(format!("{seen:?} {}", a.load(SeqCst)));
    });
}

/// `Family::Deadlocky` seed 9,006,690 shrunk (session 22's note): `t1: lock m0`, `t2: try_lock
/// m1; try_lock m0; lock m0 { lock m1 }`. The interpreter locks every mutex at one line, and
/// the second `try_lock`'s outcome shifts `t2`'s indices: its index 4 at the lock line was
/// `lock m0` where the `try_lock` succeeded (an unlock after it) and `lock m1` where it failed,
/// so `m0` and `m1` were one name (checked with a dump of the joins), `t1`'s section and `t2`'s
/// `try_lock m1` looked dependent and two of the 4 traces ran twice (6 executions). With the
/// count of `t2`'s events at the lock line in the key, `lock m0` is its first there and `lock
/// m1` its second in every execution, so index 4 is keyed apart in the two.
#[test]
fn nested_locks_after_try_locks_at_the_interpreters_lines() {
    let section = |mutex, body| Op::Locked {
        mutex,
        add: 2,
        body,
    };
    let attempt = |mutex| Op::TryLocked {
        mutex,
        add: 2,
        body: vec![],
    };
    let p = Program {
        family: Family::Deadlocky,
        atomics: 1,
        mutexes: 2,
        condvar: false,
        threads: vec![
            vec![section(0, vec![])],
            vec![attempt(1), attempt(0), section(0, vec![section(1, vec![])])],
        ],
    };
    assert_agrees(&p);
    assert_agrees_counting(&p, (4, 4));
}
