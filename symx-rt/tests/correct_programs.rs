//! Acceptance: correct programs are explored exhaustively without a report, with the exact
//! execution counts that hand derivation gives for the unreduced DFS (`dfs`); the default
//! DPOR must agree on the verdict and never run more executions.

mod common;

use common::assert_passes;

/// Explores with the unreduced DFS, whose counts the tests derive by hand, and checks that the
/// default strategy finds no bug either and runs no more executions.
fn dfs(body: fn()) -> symx::Report {
    let report = common::assert_passes_with(Builder::new().strategy(symx::Strategy::Dfs), body);
    assert!(assert_passes(body).executions() <= report.executions());
    report
}
use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::{Arc, Condvar, Mutex};
use symx::{hint, thread, Builder};

fn fetch_adds(threads: usize, each: usize) {
    let counter = Arc::new(AtomicUsize::new(0));
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let c = counter.clone();
            thread::spawn(move || {
                for _ in 0..each {
                    c.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), threads * each);
}

#[test]
fn two_threads_one_fetch_add_each_have_two_executions() {
    // Spawn and join are not scheduling points; the only choice is which add goes first.
    assert_eq!(dfs(|| fetch_adds(2, 1)).executions(), 2);
}

#[test]
fn three_threads_one_fetch_add_each_have_six_executions() {
    assert_eq!(dfs(|| fetch_adds(3, 1)).executions(), 6);
}

#[test]
fn two_threads_two_fetch_adds_each_have_six_executions() {
    // Interleavings of two sequences of two: 4! / (2! 2!) = 6.
    assert_eq!(dfs(|| fetch_adds(2, 2)).executions(), 6);
}

fn mutex_counter() {
    let counter = Arc::new(Mutex::new(0));
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let c = counter.clone();
            thread::spawn(move || *c.lock().unwrap() += 1)
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(*counter.lock().unwrap(), 2);
}

#[test]
fn mutex_counter_passes_with_one_execution_per_lock_order() {
    // While one thread holds the lock the other's `lock` is disabled: only the order of the
    // two critical sections is a choice.
    assert_eq!(dfs(mutex_counter).executions(), 2);
}

struct Peterson {
    flag: [AtomicBool; 2],
    turn: AtomicUsize,
    critical: UnsafeCell<u32>,
}

// SAFETY: Peterson's algorithm serialises the accesses to `critical`; symx checks it.
unsafe impl Sync for Peterson {}

fn peterson() {
    let p = Arc::new(Peterson {
        flag: [AtomicBool::new(false), AtomicBool::new(false)],
        turn: AtomicUsize::new(0),
        critical: UnsafeCell::new(0),
    });
    let hs: Vec<_> = (0..2)
        .map(|me| {
            let p = p.clone();
            thread::spawn(move || {
                let other = 1 - me;
                p.flag[me].store(true, Ordering::SeqCst);
                p.turn.store(other, Ordering::SeqCst);
                while p.flag[other].load(Ordering::SeqCst) && p.turn.load(Ordering::SeqCst) == other
                {
                    hint::spin_loop();
                }
                p.critical.with_mut(|c| unsafe { *c += 1 });
                p.flag[me].store(false, Ordering::SeqCst);
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(p.critical.with(|c| unsafe { *c }), 2);
}

#[test]
fn peterson_with_seqcst_atomics_is_race_free() {
    dfs(peterson);
}

fn condvar_hand_off() {
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let p2 = pair.clone();
    let waiter = thread::spawn(move || {
        let (m, cv) = &*p2;
        let ready = cv.wait_while(m.lock().unwrap(), |ready| !*ready).unwrap();
        assert!(*ready);
    });
    {
        let (m, cv) = &*pair;
        *m.lock().unwrap() = true;
        cv.notify_one();
    }
    waiter.join().unwrap();
}

#[test]
fn condvar_hand_off_with_a_predicate_passes() {
    dfs(condvar_hand_off);
}

#[test]
fn condvar_hand_off_survives_spurious_wakeups() {
    let report =
        common::assert_passes_with(Builder::new().spurious_wakeups(true), condvar_hand_off);
    let without = assert_passes(condvar_hand_off);
    assert!(
        report.executions() > without.executions(),
        "spurious wake-ups add executions"
    );
}

fn scoped_threads_borrow_local_data() {
    let mut totals = [0u32; 3];
    let inputs = [1u32, 2, 3];
    thread::scope(|s| {
        for (slot, input) in totals.iter_mut().zip(&inputs) {
            s.spawn(move || *slot = input * 10);
        }
    });
    assert_eq!(totals, [10, 20, 30]);
}

#[test]
fn scoped_threads_with_borrowed_data_pass() {
    // No visible operations besides spawn/join: a single execution.
    assert_eq!(dfs(scoped_threads_borrow_local_data).executions(), 1);
}

#[test]
fn a_preemption_bound_limits_the_space_and_says_so() {
    let bounded = Builder::new()
        .preemption_bound(Some(0))
        .explore(|| fetch_adds(3, 2));
    let full = Builder::new()
        .strategy(symx::Strategy::Dfs)
        .explore(|| fetch_adds(3, 2));
    assert!(bounded.complete() && full.complete());
    // Without preemptions a thread runs until it finishes: one execution per thread order.
    assert_eq!(bounded.executions(), 6);
    assert_eq!(full.executions(), 90); // 6! / (2! 2! 2!)
    assert!(bounded.to_string().contains("within the preemption bound"));
}

#[test]
fn max_executions_stops_early_and_reports_incomplete() {
    let report = Builder::new()
        .max_executions(Some(5))
        .explore(|| fetch_adds(3, 2));
    assert_eq!(report.executions(), 5);
    assert!(!report.complete());
    assert_eq!(report.stop_reason(), symx::StopReason::MaxExecutions);
}

fn many_threads(n: usize) {
    let cells: Arc<Vec<AtomicUsize>> = Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect());
    let hs: Vec<_> = (0..n)
        .map(|i| {
            let cells = cells.clone();
            thread::spawn(move || cells[i].fetch_add(1, Ordering::SeqCst))
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert!(cells.iter().all(|c| c.load(Ordering::SeqCst) == 1));
}

#[test]
fn there_is_no_fixed_limit_on_threads() {
    // 64 threads on 64 different locations: every interleaving is one trace.
    let report = Builder::new().explore(|| many_threads(64));
    assert!(report.failure().is_none() && report.complete(), "{report}");
    assert_eq!(report.executions(), 1);
    // And sampled without reduction, each execution runs all 64 of them.
    let sampled = Builder::new()
        .strategy(symx::Strategy::Random { seed: 3 })
        .max_executions(Some(20))
        .explore(|| many_threads(64));
    assert!(sampled.failure().is_none());
    assert_eq!(sampled.executions(), 20);
}
