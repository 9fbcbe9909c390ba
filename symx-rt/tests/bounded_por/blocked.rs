//! Threads that block under a bound: a thread waiting for a child, for a lock's release or
//! for good on a failed assume while it holds a lock. Which threads the points of their races
//! ask for, pinned by the smallest programs that once missed a trace without them.

use super::*;

/// Seed 3,799 of `Family::Untouched`, shrunk: the reduction missed one of the bounded DFS's
/// 10 final states at bound 1, also with every object touched first by main (so not a matter
/// of naming objects by first use): thread 1 loads `a` twice (a retry), then `try_lock`s twice;
/// thread 2 spawns a child that adds to `a`, joins it, compare-exchanges `b` (so that its
/// lock's own enabler is not the child's end), then locks. The missed schedule: thread
/// 1's two loads, a preemption to the child, thread 2's critical section (free: the child
/// ended), then thread 1. Thread 2's lock races with thread 1's first `try_lock` only once
/// the child runs after it, where the bound then hides thread 2; its conservative points come
/// before the child let thread 2 go, so they ask for the child there (see `backtrack::race`).
/// (Without the compare-exchange: 15 DFS executions; the reduction's 11 became 12.)
#[test]
fn a_thread_waiting_for_a_child_gets_the_child_at_its_conservative_points() {
    use random_programs::{AtomicOp::*, Op};
    for family in [Family::Untouched, Family::NoFail] {
        let p = Program {
            family,
            atomics: 2,
            mutexes: 1,
            condvar: false,
            threads: vec![
                vec![
                    Op::Retry {
                        atomic: 0,
                        value: 1,
                    },
                    Op::TryLocked {
                        mutex: 0,
                        add: 2,
                        body: vec![Op::Atomic(Load(0))],
                    },
                    Op::TryLocked {
                        mutex: 0,
                        add: 1,
                        body: vec![],
                    },
                ],
                vec![
                    Op::SpawnJoin {
                        child: vec![Op::Atomic(FetchAdd(0, 1))],
                        between: vec![],
                    },
                    Op::Atomic(Cas(1, 0, 2)),
                    Op::Locked {
                        mutex: 0,
                        add: 2,
                        body: vec![],
                    },
                ],
            ],
        };
        let problems = compare(&p, Some(1), false, &mut Stats::default());
        assert!(problems.is_empty(), "{family:?}: {}", problems.join("\n"));
    }
}

/// Found by the `Awaiting` family (seed 106, shrunk): thread 2 takes the lock, loads 2
/// (thread 1's store) and blocks for good on `assume(v != 2)` while holding it, so thread 1's
/// `lock` is never a step and only its pending operation at the end shows the race of the two
/// acquisitions. The reduction once missed the trace where thread 1's critical section comes
/// between thread 2's add and its lock.
#[test]
fn a_thread_blocked_by_its_assume_holding_a_lock_is_explored() {
    runs_every_trace(&lock_held_by_a_failed_assume(false), None, true, (5, 9));
}

/// Thread `waiting_first as usize` adds, locks and waits for good on `assume(v != 2)`; the
/// other stores 2 and takes the same lock.
fn lock_held_by_a_failed_assume(waiting_first: bool) -> Program {
    use random_programs::{AtomicOp::*, Op::*};
    let stores = vec![
        Atomic(Store(0, 2)),
        Locked {
            mutex: 0,
            add: 2,
            body: vec![],
        },
    ];
    let waits = vec![
        Atomic(FetchAdd(0, 1)),
        Locked {
            mutex: 0,
            add: 2,
            body: vec![Await {
                atomic: 0,
                value: 2,
            }],
        },
    ];
    Program {
        family: Family::Awaiting,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: if waiting_first {
            vec![waits, stores]
        } else {
            vec![stores, waits]
        },
    }
}

/// A thread that acquires a lock after another released it, but waits at that release (here
/// for its child's end, `look::Look::blocked_inside`): `t1: spawn-join { swap x }; x += 1;
/// lock m { store x }`, `t2: load x; lock m {}; store x`, bound 1. The trace where `t2`'s store
/// falls inside `t1`'s critical section fits the bound only by preempting `t2` inside its own
/// (before its unlock) for the child, whose end lets `t1` add and then block on `m`, a free
/// switch back. The rule asked for `t1` at the unlock only where `t1` can run there, and it
/// waits for its child: 11 of the 12 traces in 11 executions (found by a search of seeds
/// 21,000 to 21,399 at bounds 0 to 3, session 18; no differential's run had it). Now it asks
/// for the threads whose next events come before the acquisition and that can run there: 12
/// traces in 13 executions (the DFS 15, the unbounded optimal DPOR 13 for its 13 traces).
#[test]
fn a_thread_waiting_at_the_release_gets_what_it_waits_for() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::NoFail,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                SpawnJoin {
                    child: vec![Atomic(Swap(0, 3))],
                    between: vec![],
                },
                Atomic(FetchAdd(0, 1)),
                Locked {
                    mutex: 0,
                    add: 1,
                    body: vec![Atomic(Store(0, 2))],
                },
            ],
            vec![
                Atomic(Load(0)),
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![],
                },
                Atomic(Store(0, 1)),
            ],
        ],
    };
    assert_eq!(three_counts(&p, 1), [(13, 13), (12, 15), (12, 13)], "{p:?}");
}

/// The same program with its threads in the other order, under the optimal DPOR (no bound):
/// thread 1 takes the lock and blocks for good on its assume, so thread 2's `lock` never
/// becomes a step and its race with thread 1's acquisition shows only as the operation it
/// was left waiting to do. The optimal DPOR once ran 4 of the 5 traces here.
#[test]
fn the_optimal_dpor_reverses_races_with_operations_left_waiting() {
    for waiting_first in [true, false] {
        let p = lock_held_by_a_failed_assume(waiting_first);
        assert_eq!(distinct_traces(&p, Strategy::Dfs, None, false), (5, 9));
        assert_eq!(
            distinct_traces(&p, Strategy::Dpor, None, false),
            (5, 5),
            "{p:?}"
        );
    }
}
