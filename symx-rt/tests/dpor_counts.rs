//! Acceptance: the default DPOR explores exactly one execution per Mazurkiewicz
//! trace on programs whose trace count is known in closed form, and minimal counterexamples.

mod common;

use common::{counters, mutex_counter};

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::{thread, Builder, FailureKind, Strategy};
use symx_test_programs::classic::lost_update;
use symx_test_programs::contexts::two_phases;

/// (N·K)! / (K!)^N: the interleavings of N sequences of K mutually dependent operations.
fn interleavings(n: u64, k: u64) -> u64 {
    let fact = |x: u64| (1..=x).product::<u64>();
    fact(n * k) / fact(k).pow(n as u32)
}

fn dpor(body: impl Fn()) -> symx::Report {
    let report = Builder::new().explore(body);
    assert!(report.failure().is_none() && report.complete(), "{report}");
    report
}

#[test]
fn read_modify_writes_on_one_location_give_one_execution_per_interleaving() {
    for (n, k, expected) in [
        (2, 1, 2),
        (2, 3, 20),
        (3, 1, 6),
        (3, 2, 90),
        (3, 3, 1_680),
        (4, 1, 24),
        (4, 2, 2_520),
    ] {
        assert_eq!(interleavings(n as u64, k as u64), expected);
        assert_eq!(
            dpor(|| counters(n, k)).executions(),
            expected,
            "{n} threads x {k}"
        );
    }
}

#[test]
fn a_mutex_protected_counter_has_the_same_count_as_the_read_modify_writes() {
    // Only the order of the critical sections matters, and every order is possible.
    for (n, k) in [(2, 2), (3, 1), (3, 2), (4, 2)] {
        let expected = interleavings(n as u64, k as u64);
        assert_eq!(
            dpor(|| mutex_counter(n, k)).executions(),
            expected,
            "{n} threads x {k}"
        );
    }
}

fn disjoint_locations() {
    let (a, b) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (a2, b2) = (a.clone(), b.clone());
    let t1 = thread::spawn(move || {
        a2.fetch_add(1, Ordering::SeqCst);
        a2.store(5, Ordering::SeqCst);
    });
    let t2 = thread::spawn(move || {
        b2.fetch_add(1, Ordering::SeqCst);
        b2.load(Ordering::SeqCst);
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

#[test]
fn two_threads_on_disjoint_locations_have_one_execution() {
    assert_eq!(dpor(disjoint_locations).executions(), 1);
    // The unreduced DFS runs all 4!/(2!2!) = 6 interleavings.
    let dfs = Builder::new()
        .strategy(Strategy::Dfs)
        .explore(disjoint_locations);
    assert_eq!(dfs.executions(), 6);
}

fn store_buffering() {
    let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (x1, y1) = (x.clone(), y.clone());
    let t = thread::spawn(move || {
        x1.store(1, Ordering::SeqCst);
        y1.load(Ordering::SeqCst)
    });
    y.store(1, Ordering::SeqCst);
    let r2 = x.load(Ordering::SeqCst);
    let r1 = t.join().unwrap();
    assert!(
        r1 == 1 || r2 == 1,
        "both loads read 0: not sequentially consistent"
    );
}

#[test]
fn store_buffering_with_seqcst_has_three_traces() {
    // The trace is fixed by the order within each pair (w(x), r(x)) and (w(y), r(y)). Both
    // reads before the other's write would need r(y) < w(y) and r(x) < w(x) while program
    // order puts w(x) < r(y) and w(y) < r(x): a cycle. So 3 of the 4 combinations exist,
    // giving (r1, r2) = (1, 1), (0, 1), (1, 0); (0, 0) never happens under SC.
    assert_eq!(dpor(store_buffering).executions(), 3);
}

fn philosophers(n: usize) {
    let forks: Arc<Vec<Mutex<()>>> = Arc::new((0..n).map(|_| Mutex::new(())).collect());
    let hs: Vec<_> = (0..n)
        .map(|i| {
            let forks = forks.clone();
            thread::spawn(move || {
                let _l = forks[i].lock().unwrap();
                let _r = forks[(i + 1) % n].lock().unwrap();
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}

#[test]
fn the_reported_deadlock_has_the_fewest_preemptions_that_show_it() {
    // One preemption suffices, and none does not: philosopher 1 takes fork 0 and is preempted
    // by philosopher n, who takes fork n-1 and blocks on fork 0; every switch after that is
    // from a blocked philosopher (free), each taking its left fork and blocking on the next.
    // Without a preemption the first philosopher to start eats and leaves.
    for n in [3, 5] {
        let f = common::assert_fails(FailureKind::Deadlock, move || philosophers(n));
        assert_eq!(f.preemptions(), 1, "{f}");
        assert!(f.to_string().contains(", 1 preemption,"), "{f}");
        let none = Builder::new()
            .preemption_bound(Some(0))
            .explore(move || philosophers(n));
        assert!(none.failure().is_none() && none.complete());
    }
}

#[test]
fn a_lost_update_is_reported_with_one_preemption() {
    let f = common::assert_fails(FailureKind::Panic, lost_update);
    assert_eq!(f.preemptions(), 1, "{f}");
}

thread_local! {
    static FINAL: std::cell::RefCell<std::collections::BTreeSet<(usize, usize)>> = Default::default();
}

/// Two threads each spawn a child concurrently, so runtime thread ids (spawn order) differ
/// between executions; the reduction must name threads by spawn path to stay sound.
fn concurrent_spawns() {
    let a = Arc::new(AtomicUsize::new(0));
    let log = Arc::new(Mutex::new(0usize));
    let worker = |v: usize| {
        let (a, log) = (a.clone(), log.clone());
        move || {
            a.fetch_add(1, Ordering::SeqCst);
            let (a2, log2) = (a.clone(), log.clone());
            let child = thread::spawn(move || {
                let x = a2.swap(v, Ordering::SeqCst);
                *log2.lock().unwrap() = x * 10 + v;
            });
            child.join().unwrap();
        }
    };
    let t1 = thread::spawn(worker(1));
    let t2 = thread::spawn(worker(2));
    t1.join().unwrap();
    t2.join().unwrap();
    let state = (a.load(Ordering::SeqCst), *log.lock().unwrap());
    FINAL.with(|f| f.borrow_mut().insert(state));
}

#[test]
fn threads_spawned_concurrently_reach_the_same_states_as_under_dfs() {
    let explore = |strategy| {
        FINAL.with(|f| f.borrow_mut().clear());
        let report = Builder::new().strategy(strategy).explore(concurrent_spawns);
        assert!(report.failure().is_none() && report.complete());
        (report.executions(), FINAL.with(|f| f.borrow().clone()))
    };
    let (dfs_runs, dfs_states) = explore(Strategy::Dfs);
    let (dpor_runs, dpor_states) = explore(Strategy::Dpor);
    assert_eq!(dpor_states, dfs_states);
    assert_eq!(dfs_states.len(), 8);
    assert!(dpor_runs < dfs_runs, "{dpor_runs} vs {dfs_runs}");
}

/// Explored from a recorded context, the prefix runs once and the DPOR reorders only what
/// follows the checkpoint. Where a thread stops at the checkpoint is no yield: taken as one
/// (the scheduler's fairness rule, modelled in the DPOR), every change after it would race
/// with it, and this program ran 4 executions instead of 2 (cargo-symx's context tests,
/// which pin the same program's paths, saw 8 instead of 2).
#[test]
fn a_checkpoint_a_context_is_explored_from_is_no_yield() {
    assert_eq!(dpor(two_phases).executions(), interleavings(2, 3));
    let ctx = dpor_from("core", two_phases);
    assert_eq!(ctx.executions(), 2, "{ctx}");
}

fn dpor_from(label: &str, body: impl Fn()) -> symx::Report {
    let report = Builder::new().context(Some(label)).explore(body);
    assert!(report.failure().is_none() && report.complete(), "{report}");
    report
}

/// Thread 1 yields, then takes and releases the lock; thread 2 stores (a change, which lets
/// thread 1 go); thread 3 takes the lock and blocks for good on `assume(false)`, so every
/// execution is discarded, and where thread 3 locks first, thread 1 never runs again. Six
/// traces, one execution each (the DFS runs 7 schedules: thread 2's store and thread 3's lock
/// commute after thread 1's yield when thread 1 never runs again). The first execution
/// (yield, store, lock, unlock, thread 3's lock) marks the store as the step that let thread 1
/// go (a write of the fairness object). The second repeats its first two steps and reuses
/// their events, but thread 1 never runs again there, so nothing lets it go: the reuse stops at
/// the first event a later step of the last execution changed (`FirstUses::changed_later`).
/// Reusing the store's event as it was, it still wrote the fairness object, which conflicts
/// with thread 3's lock (a change, a read of it): a reversal ran yield, thread 3's lock, store,
/// the second execution's trace again (7 executions).
///
/// Since session 14, 3 executions for the 2 traces of the steps other than yields (thread 1
/// locks before thread 3, or blocks behind it): where only thread 1 runs after the store that
/// let it go, the yield's race with that store plants nothing (`reversals::yield_then_solo`: a
/// new round would let thread 1 go at once into the same state). The stale event's race above
/// is no yield's, so it would still add an execution.
#[test]
fn a_reused_step_that_no_longer_lets_a_yielded_thread_go() {
    let report = dpor(|| {
        let m = Arc::new(Mutex::new(()));
        let x = Arc::new(AtomicUsize::new(0));
        let m1 = m.clone();
        thread::spawn(move || {
            thread::yield_now();
            drop(m1.lock().unwrap());
        });
        thread::spawn(move || x.store(1, Ordering::SeqCst));
        thread::spawn(move || {
            let _held = m.lock().unwrap();
            symx::assume(false);
        });
    });
    assert_eq!((report.executions(), report.discarded()), (3, 3));
}
