//! A failed `symx::assume` rules its execution out, but it blocks only its own thread: the
//! other threads run on until none can, so that the optimal DPOR sees the races of their later
//! steps and plants the schedules those races call for. Stopping every thread at the failed
//! assumption hid them: a two-thread mutual-exclusion protocol whose waits are bounded by an
//! `assume` (the usual way to keep a spin finite) passed under the DPOR in 5 executions while
//! plain DFS found its bug. Each test compares with DFS, which explores every schedule.

use symx::sync::atomic::{AtomicI32, Ordering::SeqCst};
use symx::sync::Arc;
use symx::{thread, Builder, FailureKind, Report, Strategy};

/// Szymanski's doorway, two threads, each asserting it is alone in the critical section. A
/// wait that does not hold at its first look is cut off by `assume`. Without the entry wait
/// both threads can pass the doorway and meet in the critical section.
fn doorway(entry_wait: bool) {
    let s = Arc::new([0; 3].map(AtomicI32::new)); // flag0, flag1, x
    let threads: Vec<_> = (0..2)
        .map(|me: usize| {
            let s = s.clone();
            thread::spawn(move || {
                let (mine, other) = (&s[me], &s[1 - me]);
                mine.store(1, SeqCst);
                symx::assume(other.load(SeqCst) < 3);
                mine.store(3, SeqCst);
                if other.load(SeqCst) == 1 {
                    mine.store(2, SeqCst);
                    symx::assume(other.load(SeqCst) == 4);
                }
                mine.store(4, SeqCst);
                if entry_wait {
                    symx::assume(other.load(SeqCst) < 2);
                }
                s[2].store(me as i32, SeqCst);
                assert_eq!(s[2].load(SeqCst), me as i32, "mutual exclusion");
                mine.store(0, SeqCst);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

fn doorway_without_entry_wait() {
    doorway(false)
}

fn doorway_with_entry_wait() {
    doorway(true)
}

fn explore(strategy: Strategy, body: impl Fn() + Sync + Send + 'static) -> Report {
    Builder::new().strategy(strategy).explore(body)
}

#[test]
fn the_dpor_finds_the_bug_behind_a_failed_assumption_in_another_order() {
    let dfs = explore(Strategy::Dfs, doorway_without_entry_wait);
    let dpor = explore(Strategy::Dpor, doorway_without_entry_wait);
    for r in [&dfs, &dpor] {
        let f = r.failure().unwrap_or_else(|| panic!("no bug found: {r}"));
        assert_eq!(f.kind(), FailureKind::Panic, "{f}");
        assert!(f.message().contains("mutual exclusion"), "{f}");
    }
    // The DPOR's counterexample replays.
    let f = dpor.failure().unwrap();
    let again = Builder::new().replay(f.schedule(), doorway_without_entry_wait);
    assert_eq!(again.failure().map(|f| f.kind()), Some(FailureKind::Panic));
}

/// The correct protocol, with the entry wait: no interleaving fails under either strategy.
#[test]
fn a_correct_protocol_with_assumed_waits_passes_under_both() {
    for strategy in [Strategy::Dfs, Strategy::Dpor] {
        let r = explore(strategy, doorway_with_entry_wait);
        assert!(r.failure().is_none(), "{r}");
        assert!(r.complete(), "{r}");
        assert!(
            r.discarded() > 0,
            "the bounded waits rule some executions out: {r}"
        );
    }
}

/// A thread whose assumption fails at once, and another that panics: every execution
/// violates the assumption, so none counts, with what the other thread did after it (the
/// assumption states which executions the test is about). The main thread's join of the
/// blocked thread is no deadlock either.
#[test]
fn what_happens_after_a_failed_assumption_is_ruled_out_with_it() {
    let body = || {
        let t = thread::spawn(|| symx::assume(false));
        let u = thread::spawn(|| panic!("after the assumption"));
        t.join().unwrap();
        u.join().unwrap();
    };
    for strategy in [Strategy::Dfs, Strategy::Dpor] {
        let r = explore(strategy, body);
        assert!(r.failure().is_none(), "{r}");
        assert!(r.complete(), "{r}");
        assert_eq!(r.discarded(), r.executions(), "{r}");
    }
}
