//! The smallest generated programs that disagreed on what a reversal moves and what covers it:
//! a moved operation whose result may differ (`events::Access::Touches`), a sleeper taken for a
//! weak initial (`wakeup::weak_initial`), and a leaf of a wakeup tree taken to cover a longer
//! sequence.

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
    assert_agrees_counting(&p, (15, 20));
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
