//! The smallest generated programs that disagreed on what a reversal moves and what covers it:
//! a moved operation whose result may differ (`events::Access::Touches`), a sleeper taken for a
//! weak initial (`wakeup::weak_initial`), a leaf of a wakeup tree taken to cover a longer
//! sequence, and a reversal abandoned where its thread did not exist yet.

use super::*;

/// A sleeping `try_lock` that succeeded and read an `Arc`'s count in its step, and a reversal
/// that holds the same `try_lock` as it ran where it failed (another thread held the lock),
/// after thread 2's store whose thread's end drops a reference to that `Arc`: the failed one
/// touches nothing the store does, so the sleeper was taken for a weak initial and the reversal
/// dropped, yet where the reversal puts it the `try_lock` succeeds and reads the count, which the
/// store changed first. Thread 1 never read the count with thread 2 gone while thread 3 took
/// the lock after thread 1's section: DFS ran 15 traces, the DPOR 13 of them (seed 7,000,519 of
/// `Family::Woken` at 5,000 interleavings, shrunk; `wakeup::weak_initial` now tests the
/// sleeping event, as it ran, against what comes before its thread's event in the reversal
/// too).
#[test]
fn a_sleeping_try_lock_that_read_what_a_reversal_changes_first() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                Op::TryLocked {
                    mutex: 0,
                    add: 2,
                    body: vec![Op::Count { arc: 0 }],
                },
                Op::Atomic(Store(1, 2)),
            ],
            vec![Op::Atomic(Store(1, 1))],
            vec![Op::Locked {
                mutex: 0,
                add: 1,
                body: vec![],
            }],
        ],
    };
    // 20 executions until a wakeup sequence whose next thread sleeps where it is followed was
    // dropped (session 23, `dpor::node`'s `next_sequence`). 17 with a wakeup sequence's first
    // event refreshed from its step as it ran (session 24, `dpor::node`'s `new_node`) and
    // drops of an `Arc<i64>` commuting across executions too; 18 with the refresh alone, the
    // commuting withdrawn for a miss (`events::count_sensitive`).
    assert_agrees_counting(&p, (15, 18));
}

/// Thread 1 spawns a child that stores and joins it, threads 2 and 3 `try_lock` the mutex,
/// thread 2 stores after its section. DFS ran 16 traces, the DPOR 15 of them, never the one
/// where main, right after joining thread 1 (its join waited), reads the `Arc` counts with
/// threads 2 and 3 alive, thread 3's `try_lock` having failed inside thread 2's section (seed
/// 7,000,405 of `Family::Woken` at 5,000 interleavings, shrunk). In the branch where thread 2
/// unlocked first, thread 3's `try_lock` succeeded and its step changed nothing; the race of
/// thread 2's unlock with it was reversed as the child's store then that `try_lock`, which was
/// taken as covered by the wakeup tree's `try_lock` alone (the two commute as they ran). Where
/// the reversal puts it, the `try_lock` fails and thread 3's code runs to its end and drops its
/// references, which main's count reads: a moved event's code may change what it did not where
/// it ran (`events::Access::Touches`).
#[test]
fn a_woken_read_before_a_failed_try_lock() {
    use random_programs::AtomicOp::*;
    let try_locked = |add| Op::TryLocked {
        mutex: 0,
        add,
        body: vec![],
    };
    assert_reaches_every_trace(&Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Op::SpawnJoin {
                child: vec![Op::Atomic(Store(0, 1))],
                between: vec![],
            }],
            vec![try_locked(1), Op::Atomic(Store(0, 2))],
            vec![try_locked(2)],
        ],
    });
}

/// Thread 1 locks and then adds, thread 2 adds and reads an `Arc`'s count, thread 3
/// `try_lock`s. DFS ran 12 traces, the DPOR 11 of them, never the one where thread 3's
/// `try_lock` fails inside thread 1's section after thread 2 read the count with thread 3
/// alive (seed 7,001,544 of `Family::Woken` at 5,000 interleavings, shrunk): the moved
/// `try_lock`, as it ran where it succeeded, changed nothing; failing, its step ends thread 3
/// and drops its references (`events::Access::Touches`).
#[test]
fn a_moved_try_lock_that_fails_ends_its_thread() {
    use random_programs::AtomicOp::*;
    assert_reaches_every_trace(&Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                Op::Locked {
                    mutex: 0,
                    add: 1,
                    body: vec![],
                },
                Op::Atomic(FetchAdd(0, 2)),
            ],
            vec![Op::Atomic(FetchAdd(0, 2)), Op::Count { arc: 0 }],
            vec![Op::TryLocked {
                mutex: 0,
                add: 2,
                body: vec![],
            }],
        ],
    });
}

/// Thread 1 locks, thread 2 `try_lock`s and drops its reference to an `Arc` inside the section
/// then loads, thread 3 loads and reads that `Arc`'s count. DFS ran 17 traces, the DPOR 15 of
/// them, never those where thread 3 read the count before thread 2's `try_lock` succeeded and
/// dropped the reference (seed 7,001,762 of `Family::Woken` at 5,000 interleavings, shrunk):
/// the moved `try_lock`, as it ran where it failed, dropped nothing; succeeding, its step does
/// (`events::Access::Touches`).
#[test]
fn a_moved_try_lock_that_succeeds_runs_its_section() {
    use random_programs::AtomicOp::*;
    assert_reaches_every_trace(&Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Op::Locked {
                mutex: 0,
                add: 1,
                body: vec![],
            }],
            vec![
                Op::TryLocked {
                    mutex: 0,
                    add: 1,
                    body: vec![Op::Release { arc: 1 }],
                },
                Op::Atomic(Load(0)),
            ],
            vec![Op::Atomic(Load(0)), Op::Count { arc: 1 }],
        ],
    });
}

/// Thread 1 adds and then spawns a child that stores and swaps, and joins it; thread 2 swaps
/// and loads; thread 3 swaps another atomic. Every trace is reached; but with every moved
/// operation whose result may change (here the swaps and the load) taken to change anything in
/// the code after it (`events::Access::Touches`), not only a `try_lock`, the DPOR missed 3 of 24
/// traces (seed 79 of the CI programs of `dpor_on_programs_with_woken_changes`, shrunk): thread
/// 2's swap moved first was no longer covered by thread 3's branch and became a wakeup leaf of
/// its own, which later covered a longer reversal (thread 2's swap, thread 1's add, thread 2's
/// load, the child's steps); below that leaf, thread 3 slept (explored first at the root) and
/// was a weak initial of the reversal of thread 2's load with the child's store, which did not
/// hold the child's swap, whose woken changes (main's count reads) thread 3's end conflicts
/// with. Since a leaf no longer covers a longer sequence (`dpor::wakeup`'s module doc), the
/// reversal is kept below the leaf and that rule holds: every trace, with both rules.
#[test]
fn a_leaf_that_covers_a_reversal_below_a_sleeper_that_blocks_its_races() {
    use random_programs::AtomicOp::*;
    assert_reaches_every_trace(&Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![
                Op::Atomic(FetchAdd(1, 1)),
                Op::SpawnJoin {
                    child: vec![Op::Atomic(Store(1, 2)), Op::Atomic(Swap(1, 1))],
                    between: vec![],
                },
            ],
            vec![Op::Atomic(Swap(1, 1)), Op::Atomic(Load(1))],
            vec![Op::Atomic(Swap(0, 1))],
        ],
    });
}

/// Thread 1 locks a mutex; thread 2 locks it and, if its data is still 0 (thread 1's section
/// has not run), reads an `Arc`'s count inside the section; thread 3 loads. DFS ran 6 traces,
/// the DPOR 5 of them, never the one where thread 3 ends (dropping its references) before
/// thread 2's section, which runs first and reads the count (seed 9,001,858 of
/// `Family::Branching` at 5,000 interleavings, shrunk). The race of the two acquisitions was
/// reversed with thread 2's lock as it ran after thread 1's section, where it read 1 and read
/// no count: it commuted with thread 3's end, and the sequence with thread 3 first was taken
/// as covered by the one with thread 2's lock alone. Run first, the section reads the count,
/// and its race with thread 3's end was dropped against thread 1, asleep there. A moved
/// operation whose result may differ is taken to change anything in the code after it
/// (`events::Access::Touches`), not only a `try_lock`.
#[test]
fn a_lock_moved_before_a_section_runs_other_code() {
    use random_programs::{AtomicOp::*, Read};
    let p = Program {
        family: Family::Branching,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Op::Locked {
                mutex: 0,
                add: 1,
                body: vec![],
            }],
            vec![Op::Branch {
                read: Read::Guard { mutex: 0, add: 1 },
                value: 0,
                then: vec![Op::Count { arc: 0 }],
                otherwise: vec![],
            }],
            vec![Op::Atomic(Load(0))],
        ],
    };
    assert_agrees_counting(&p, (6, 7));
}

/// Thread 1 `try_lock`s, then reads an `Arc`'s count; thread 2 stores; thread 3 `try_lock`s,
/// then loads. No branch but the `try_lock`s'; DFS ran 18 traces, the DPOR 14 of them (seed
/// 9,000,294 of `Family::Branching` at 5,000 interleavings, shrunk: a `Family::Woken`
/// program). A reversal that reached a leaf of a wakeup tree was taken as covered by it, and
/// the races the exploration below the leaf ran into were dropped against threads asleep there
/// (see `dpor::wakeup`'s module doc): a leaf no longer covers a longer sequence.
#[test]
fn a_longer_reversal_kept_below_a_leaf() {
    use random_programs::AtomicOp::*;
    let try_locked = |add| Op::TryLocked {
        mutex: 0,
        add,
        body: vec![],
    };
    let p = Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![try_locked(1), Op::Count { arc: 0 }],
            vec![Op::Atomic(Store(0, 1))],
            vec![try_locked(2), Op::Atomic(Load(0))],
        ],
    };
    assert_agrees_counting(&p, (18, 18));
}

/// A moved operation whose result may differ carries `Access::Touches` (its code may take
/// another path there), which conflicts with what the code between two operations can
/// change: an `Arc`'s count, a channel, a `Once`, not a condvar (`Access::touchable`). Thread
/// 1 loads `x`, thread 2 notifies all under the lock, thread 3 adds 2 to `x` and notifies all
/// after unlocking. With a condvar's accesses touchable (`Access::Other` and `Access::Observe`
/// before `Access::Signal`), the moved `fetch_add` conflicted with thread 2's notify, and the
/// DPOR ran one of the DFS's 4 traces twice, in 5 executions (seed 1,001,203 of `NoFail` in
/// `dpor_agrees_with_dfs_on_many_random_programs`, shrunk; one of the 51 programs of that run
/// which the `Touches` rule made run a trace twice, all with a condvar).
#[test]
fn a_moved_operation_touches_no_condvar() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::NoFail,
        atomics: 2,
        mutexes: 1,
        condvar: true,
        threads: vec![
            vec![Op::Atomic(Load(0))],
            vec![Op::Signal {
                all: true,
                inside: true,
            }],
            vec![
                Op::Atomic(FetchAdd(0, 2)),
                Op::Signal {
                    all: true,
                    inside: false,
                },
            ],
        ],
    };
    assert_agrees(&p);
    assert_agrees_counting(&p, (4, 4));
}

/// Found by a fresh-seed search (session 22, `SYMX_DIFF_FIRST=9006000 SYMX_DIFF_COUNT=1000
/// SYMX_DIFF_FAMILY=Awaiting SYMX_DIFF_MAX=5000 ... seed_range`: seed 9,006,950, shrunk), the
/// same before and after `Access::Signal`: thread 1 locks `m` and waits for good inside (`x`
/// is 0, `symx::assume(x != 0)`), thread 2's compare-exchange of `x` fails, then it spawns a
/// child that locks `m`. Every execution is discarded (thread 1 blocks); the DFS runs 3
/// traces. The child's lock never runs (thread 1 holds `m`): an unfinished operation, whose
/// event had no enablers, so not the step that spawned the child. Its race with thread 1's
/// lock was reversed without that step where the compare-exchange came after thread 1's load,
/// the sequence was abandoned at the root (no child there yet), the child's lock slept there,
/// and it covered the right reversal, `cas.child's lock`, of the next execution: the DPOR ran
/// 2 of the 3 traces, each twice. An unfinished operation's event now comes after what its
/// thread's next step would (`Chooser::unfinished`'s `after`).
#[test]
fn a_child_blocked_on_a_lock_held_by_a_thread_that_waits_for_good() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Awaiting,
        atomics: 1,
        mutexes: 2,
        condvar: true,
        threads: vec![
            vec![Op::Locked {
                mutex: 1,
                add: 1,
                body: vec![Op::Await {
                    atomic: 0,
                    value: 0,
                }],
            }],
            vec![
                Op::Atomic(Cas(0, 2, 1)),
                Op::SpawnJoin {
                    child: vec![Op::Locked {
                        mutex: 1,
                        add: 1,
                        body: vec![],
                    }],
                    between: vec![],
                },
            ],
        ],
    };
    assert_agrees(&p);
    assert_agrees_counting(&p, (3, 3));
}

/// Thread 1 swaps `y`; thread 2 spawns a child that compare-exchanges `y`, then
/// compare-exchanges `x` and drops its reference to an `Arc` when that fails, and joins (seed
/// 9,006,104 of `Family::Branching`, shrunk; session 23). The race of thread 1's swap with the
/// child's compare-exchange is reversed twice (the woken changes make happens-before's
/// reversal planted too): `child` and `thread 2, child`. The moved compare-exchange carries
/// `Access::Touches`, which conflicts with thread 2's drop, so the child is no weak initial of
/// the second and both went into the root's wakeup tree. The first ran, and the child fell
/// asleep there; the second then took thread 2's step, which commutes with the child's, and
/// followed the sequence into the sleeping child: the trace `child, thread 2, thread 1` ran
/// twice. A sequence whose next thread sleeps where it is followed is dropped
/// (`dpor::node`'s `next_sequence`): 4 executions for the DFS's 4 traces, 5 without (checked).
#[test]
fn a_sequence_that_starts_with_a_sleeper_is_not_followed() {
    use random_programs::{AtomicOp::*, Read};
    let p = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Swap(1, 3))],
            vec![Op::SpawnJoin {
                child: vec![Op::Atomic(Cas(1, 0, 1))],
                between: vec![Op::Branch {
                    read: Read::Atomic(Cas(0, 2, 3)),
                    value: 2,
                    then: vec![],
                    otherwise: vec![Op::Release { arc: 1 }],
                }],
            }],
        ],
    };
    assert_agrees(&p);
    assert_agrees_counting(&p, (4, 4));
}
