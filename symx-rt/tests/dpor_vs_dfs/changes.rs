//! The smallest generated programs that disagreed on the code a thread runs after an operation
//! or a wake-up (`Arc` references dropped, counts read): acquisitions after a critical section
//! with such a step inside (`races::inside_critical_sections`), and the changes a woken thread
//! makes, raced and slept with (`dpor::woken`).

use super::*;

/// A step inside a critical section that conflicts, on another object than the lock, with the
/// code after a later acquisition of it: thread 1 drops its reference to an `Arc` inside one,
/// thread 2 reads its count inside one. The acquisition cannot move before the drop alone, so
/// the race to reverse is the two acquisitions' (`races::inside_critical_sections`); reversed
/// as a race of its own, thread 2's acquisition was put where thread 1 held the lock and slept
/// there, and thread 2 never took the lock first (seed 1149 of the larger `Family::Woken`
/// programs, shrunk; 1025 and 1337 too).
#[test]
fn an_acquisition_after_a_critical_section_that_drops_what_it_reads() {
    use random_programs::AtomicOp::*;
    let locked = |add, body| Op::Locked {
        mutex: 0,
        add,
        body,
    };
    assert_agrees_with_one_lock(vec![
        vec![locked(
            1,
            vec![Op::Atomic(Store(0, 2)), Op::Release { arc: 1 }],
        )],
        vec![locked(2, vec![Op::Count { arc: 1 }])],
    ]);
}

/// A sleeping step whose thread waited after it, in the branch it stands for, until another
/// thread's end: taken after that end, the step joins at once and drops its thread's references
/// in its own step. Thread 1 spawns a child that `try_lock`s, stores, joins it; thread 2 reads
/// an `Arc`'s count in a critical section. Thread 1's store slept through its child's end and
/// thread 2's count, and the outcome where the count sees thread 1's reference went unexplored;
/// it sleeps on with the drops as its own now (`woken::record_waits`; seed 1308 of the larger
/// `Family::Woken` programs, shrunk; 1530 and 1869 too).
#[test]
fn a_sleeping_step_whose_thread_waited_after_it_sleeps_with_its_changes() {
    use random_programs::AtomicOp::*;
    assert_agrees_with_one_lock(vec![
        vec![Op::SpawnJoin {
            child: vec![Op::TryLocked {
                mutex: 0,
                add: 2,
                body: vec![],
            }],
            between: vec![Op::Atomic(Store(0, 2))],
        }],
        vec![Op::Locked {
            mutex: 0,
            add: 1,
            body: vec![Op::Count { arc: 1 }],
        }],
    ]);
}

/// A critical section that a `try_lock` opened, with a step inside it that conflicts, on
/// another object than the lock, with the code after a later blocking acquisition: thread 1
/// `try_lock`s, loads and drops its reference to an `Arc` inside, thread 2 reads the count in
/// a critical section. As for a section a `lock` opened
/// (`an_acquisition_after_a_critical_section_that_drops_what_it_reads`), the acquisition cannot
/// move before the drop alone; the section's `try_lock` was not taken for its acquisition, the
/// drop's race was reversed instead, and thread 2 never took the lock first: DFS ran 3 traces,
/// the DPOR one of them twice (seed 7,000,467 of `Family::Woken` at 5,000 interleavings,
/// shrunk; `races::inside_critical_sections`).
#[test]
fn an_acquisition_after_a_section_a_try_lock_opened() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Op::TryLocked {
                mutex: 0,
                add: 1,
                body: vec![Op::Atomic(Load(0)), Op::Release { arc: 0 }],
            }],
            vec![Op::Locked {
                mutex: 0,
                add: 2,
                body: vec![Op::Count { arc: 0 }],
            }],
        ],
    };
    assert_agrees_counting(&p, (3, 3));
}

/// A race of a woken thread's change (`woken::woken_races`) is no edge of happens-before, so
/// `notdep` kept the steps that come after its second event in happens-before, before it: thread
/// 2's `lock` in front of thread 3's `unlock` it waits for. The sequence's thread was blocked
/// where it stood, the sequence was abandoned for the first thread awake, the same execution ran
/// again and its race planted the same sequence again, for ever (seed 7001432 of the larger
/// `Family::Woken` programs, shrunk: the DPOR ran to the cap of 200,000 executions against the
/// DFS's 310, and missed final states). The reversal leaves them out now, as the paper's does
/// (there the race is an edge): every trace, within a small cap.
#[test]
fn a_woken_race_whose_reversal_kept_what_waits_for_its_second_event() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Op::SpawnJoin {
                child: vec![Op::Atomic(FetchAdd(1, 2))],
                between: vec![Op::Atomic(Swap(1, 3))],
            }],
            vec![
                Op::Atomic(FetchAdd(1, 1)),
                Op::Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![],
                },
            ],
            vec![Op::TryLocked {
                mutex: 0,
                add: 2,
                body: vec![Op::Atomic(Swap(1, 2))],
            }],
        ],
    };
    let counts = |strategy| {
        let builder = Builder::new()
            .shallow_first(false)
            .strategy(strategy)
            .max_executions(Some(1_000));
        take_final();
        let mut forms = HashSet::new();
        let report = explore_observed(
            &builder,
            || run(&p),
            |steps| {
                forms.insert(canonical_with_changes(steps));
                take_final();
            },
        );
        assert!(
            report.complete(),
            "{strategy:?} stopped: {:?}",
            report.stop_reason()
        );
        (report.executions(), forms)
    };
    let (dfs, dfs_forms) = counts(Strategy::Dfs);
    let (dpor, dpor_forms) = counts(Strategy::Dpor);
    assert_eq!((dfs, dfs_forms.len()), (310, 88));
    // Every trace; some twice (the known gap of `dpor`'s module doc).
    assert_eq!(dpor_forms, dfs_forms);
    // 122 before every moved operation whose result may differ carried `Access::Touches` and
    // leaves of wakeup trees stopped covering longer sequences; 129 until a wakeup sequence
    // whose next thread sleeps where it is followed was dropped (session 23, `dpor::node`'s
    // `next_sequence`); 107 until a wakeup sequence's first event, once its step ran, had the
    // changes it made there, not those of the execution it came from (session 24).
    assert_eq!(dpor, 99);
}

/// Thread 1 swaps `y`; thread 2 compare-exchanges `y`; thread 3 spawns a child that loads `x`,
/// compare-exchanges `y` meanwhile, joins it, drops its reference to an `Arc`, swaps `x`. DFS
/// ran 17 traces, the DPOR 15 of them, none of those where main reads the counts after joining
/// threads 1 and 2 before thread 3's drop, the child's load coming after those reads (seed
/// 9,000,702 of `Family::Branching` at 5,000 interleavings, shrunk: a `Family::Woken`
/// program). The child's load, explored first at the root, slept through thread 3's
/// compare-exchange, after which thread 3 waits to join the child: taken there, the load ends
/// the child and wakes thread 3 to drop its reference in the load's step, so it conflicts with
/// main's count read, which woke with thread 1's swap. Asleep as it ran at the root, without
/// the drop, it slept on through the swap, and the race of the count read after joining thread
/// 2 with the drop was dropped against it. A sleeping step that wakes a thread that waits after
/// a step taken while it sleeps sleeps on with that thread's change as its own
/// (`woken::asleep_after`), as a sleeping step whose thread waits does.
#[test]
fn a_drop_after_a_join_that_main_reads_before() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Swap(1, 2))],
            vec![Op::Atomic(Cas(1, 1, 1))],
            vec![
                Op::SpawnJoin {
                    child: vec![Op::Atomic(Load(0))],
                    between: vec![Op::Atomic(Cas(1, 0, 2))],
                },
                Op::Release { arc: 0 },
                Op::Atomic(Swap(0, 2)),
            ],
        ],
    };
    // 29 executions until a wakeup sequence whose next thread sleeps where it is followed was
    // dropped (session 23, `dpor::node`'s `next_sequence`); 27 until a wakeup sequence's first
    // event, once its step ran, had the changes it made there, not those of the execution it
    // came from (session 24, `dpor::node`'s `new_node`). 18 with drops of an `Arc<i64>`
    // commuting across executions too, withdrawn for a miss (`events::count_sensitive`).
    assert_agrees_counting(&p, (17, 21));
}

/// Thread 1 loads `y`, thread 2 adds to `x`, thread 3 compare-exchanges `y`; each then drops its
/// references to the two `Arc<i64>`s, which main counts after each join (seed 9,006,207 of
/// `Family::Branching`, shrunk; session 23's helper doptim found 24 of 39 shrunk programs
/// running a trace twice so). Thread 3's step slept where a reversal took thread 2's first, and
/// both steps drop references to the same `Arc`s. Two such drops compared across executions
/// are dependent (`events::count_sensitive`: after the other, either may free the value and
/// run a destructor the model sees), and wake thread 3 there: 6 executions for 5 traces.
/// Session 24 made drops of an `Arc` whose value has no drop glue (an `i64`) commute across
/// executions too (`Access::ReleasedNoGlue`), which with the node's event refreshed from its
/// step as it ran gave 5 in 5; withdrawn for the miss of the next test.
#[test]
fn drops_of_an_arc_without_drop_glue_are_dependent_across_executions() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Load(1))],
            vec![Op::Atomic(FetchAdd(0, 2))],
            vec![Op::Atomic(Cas(1, 1, 1))],
        ],
    };
    assert_agrees_counting(&p, (5, 6));
}

/// Thread 1 loads `x`, thread 2 loads `y`; thread 3 swaps `x`, compare-exchanges `x`, drops
/// its reference to the second `Arc`, and spawns a child that stores to `x` while it loads `y`
/// and joins it; main counts the `Arc<i64>`s after each join (seed 9,016,202 of
/// `Family::Branching`, fresh, found by the lead in session 24; the shrinker kept only a
/// repeat, so the program is the generated one). With drops of an `Arc` without drop glue
/// commuting across executions too (session 24's first narrowing of `events::count_sensitive`)
/// the optimal DPOR ran 15 of its 16 traces in 19 executions, missing the one where thread 2's
/// drops come first and thread 1's before thread 3's second drop; the narrowing is withdrawn
/// (not understood by the session's end, see `count_sensitive`'s doc). Every trace now.
#[test]
fn a_fresh_program_missed_with_drops_commuting_across_executions() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Load(0))],
            vec![Op::Atomic(Load(1))],
            vec![
                Op::Atomic(Swap(0, 1)),
                Op::Atomic(Cas(0, 0, 1)),
                Op::Release { arc: 1 },
                Op::SpawnJoin {
                    child: vec![Op::Atomic(Store(0, 1))],
                    between: vec![Op::Atomic(Load(1))],
                },
            ],
        ],
    };
    assert_agrees_counting(&p, (16, 23));
}

/// The previous program shrunk (by the check's own shrinker, with the narrowing restored):
/// thread 1 loads `x`, thread 2 loads `y`, thread 3 spawns a child that stores to `x` while it
/// loads `y`, and joins it; main counts the two `Arc<i64>`s after each join. With the drops
/// commuting across executions the optimal DPOR ran 7 of its 8 traces, missing `2` ending
/// (its drops) before main's count after joining `1`, with `1`'s load after the child's store
/// and `3`'s drops after that count. Every trace now (10 executions).
#[test]
fn a_fresh_program_missed_with_drops_commuting_across_executions_shrunk() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Load(0))],
            vec![Op::Atomic(Load(1))],
            vec![Op::SpawnJoin {
                child: vec![Op::Atomic(Store(0, 1))],
                between: vec![Op::Atomic(Load(1))],
            }],
        ],
    };
    assert_agrees_counting(&p, (8, 10));
}

/// Thread 1 spawns a child that adds to `x`, loads `x`, joins the child; thread 2 stores to
/// `y` (seed 7,002,017 of `Family::Woken`, shrunk). Where the child's step ran last, it woke
/// thread 1 waiting to join it, whose code then dropped thread 1's references and woke main to
/// read the counts: changes the child's step carries (`Event::woke`). A reversal put that step
/// first, where it wakes nobody; taken there as the first event of the wakeup sequence, it
/// still carried those changes from the execution it came from, and thread 2's store, asleep
/// there with its own drops, woke on them: 5 executions for 4 traces. Once a step ran, its
/// node's event has the changes it made there, as a step not taken from a wakeup tree has
/// (`dpor::node`'s `new_node`): 4 in 4; 5 with that reverted (checked).
#[test]
fn a_wakeup_sequences_step_has_the_changes_it_made_where_it_ran() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::SpawnJoin {
                child: vec![Op::Atomic(FetchAdd(0, 1))],
                between: vec![Op::Atomic(Load(0))],
            }],
            vec![Op::Atomic(Store(1, 2))],
        ],
    };
    assert_agrees_counting(&p, (4, 4));
}
