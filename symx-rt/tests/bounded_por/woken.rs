//! Programs whose threads' ends wake their joiners (`Family::Woken`: main reads the `Arc`
//! counts after each join, in code of no step) that the reduction once missed a final state of,
//! each pinned with the rule that reaches it: initials that follow the woken changes, changes
//! that race as their pasts, a moved `try_lock` that takes the other path, a join that could
//! have waited (docs/bounded-por.md names the session of each).

use super::*;

/// Larger `Family::Woken` programs (seeds of session 18's search, up to 10,000 interleavings,
/// bounds 0 to 3) on which the bounded reduction missed a final state of the bounded DFS
/// until session 19: a change's races with its past, a race's second event taking its changes
/// along, and sleeping ends carrying their joiners' changes (the three tests above
/// `a_conservative_point_no_cut_needs_is_not_run`, shrunk from these seeds and a fresh one).
#[test]
fn larger_programs_with_woken_changes_once_missed() {
    let mut problems = Vec::new();
    for seed in [20_059, 20_060, 20_120, 20_129] {
        let p = generate(seed, Family::Woken, 10_000.0);
        for bound in 0..=3 {
            let found = compare(&p, Some(bound), false, &mut Stats::default());
            problems.extend(found.into_iter().map(|pr| format!("seed {seed}: {pr}")));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `Family::Woken` programs of the fresh-seed searches (`seed_range` at 5,000 interleavings,
/// bounds 0 to 3 and without a bound with spurious wake-ups) on which the bounded reduction
/// missed a final state of the bounded DFS until session 20: of session 19's (seeds 8,000,000
/// to 8,001,999), 8,001,262 at bounds 2 and 3 and without a bound (2 of 26) and 8,001,284
/// without a bound (1 of 95); of session 20's (8,002,000 to 8,011,999), 8,003,964 without a
/// bound (1 of 57) and 8,006,623 at bound 3 and without a bound (1 of 54). Each was a `try_lock`
/// moved by a reversal, which may get the other result where it lands
/// (`a_moved_try_lock_takes_the_other_path`, shrunk from the first two).
#[test]
fn fresh_programs_with_woken_changes_once_missed() {
    for (seed, bound, states, executions) in [
        (8_001_262, Some(2), 26, (86, 30)),
        (8_001_262, Some(3), 26, (120, 30)),
        (8_001_262, None, 26, (124, 30)),
        (8_001_284, None, 95, (892, 121)),
        (8_003_964, None, 57, (236, 78)),
        (8_006_623, Some(3), 54, (490, 65)),
        (8_006_623, None, 54, (500, 64)),
    ] {
        let p = generate(seed, Family::Woken, 5_000.0);
        reaches_every_state(&p, bound, states, executions);
    }
}

/// A `try_lock` that a reversal moves before an operation on its mutex may get the other
/// result there, and its step's code take the other path: the initials of the reversed
/// sequence take it to change anything such code can (`events::Access::Touches`,
/// `bounded::initials`), as the optimal DPOR's wakeup sequences do. `succeeds`: `t1: x = 1`,
/// `t2: if m.try_lock() { drop(arc0) }; x.cas(0, 3)`, `t3: x.cas(0, 1); lock m {}`. The final
/// state where main reads the counts after `t1`'s end with `t2`'s reference still held and
/// `t2`'s section between `t3`'s compare-exchange and lock needs `t1` at the state after
/// `t3`'s compare-exchange; the race of `t2`'s `try_lock`, failed inside `t3`'s section, with
/// `t3`'s lock took `t2` for an initial of `t1.t2` (as it ran, it dropped nothing), asleep
/// there, for cover. 24 of the DFS's 26 final states before at bound 2 and without a bound
/// (seed 8,001,262, shrunk). `fails`: `t1: x.cas(2, 1)`, `t2: x += 2; spawn c { x = 2 };
/// try_lock m {}; join c`, `t3: lock m { x += 1 }; x.swap(3)`: the `try_lock` that succeeded,
/// moved inside `t3`'s section, fails, and its step joins the child that ended and ends `t2`
/// (dropping its references; main, waiting for it, reads the counts). 91 of 92 without a
/// bound before (seed 8,001,284, shrunk).
#[test]
fn a_moved_try_lock_takes_the_other_path() {
    use random_programs::{AtomicOp::*, Op::*};
    let succeeds = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Atomic(Store(0, 1))],
            vec![
                TryLocked {
                    mutex: 0,
                    add: 1,
                    body: vec![Release { arc: 0 }],
                },
                Atomic(Cas(0, 0, 3)),
            ],
            vec![
                Atomic(Cas(0, 0, 1)),
                Locked {
                    mutex: 0,
                    add: 1,
                    body: vec![],
                },
            ],
        ],
    };
    let fails = Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Atomic(Cas(0, 2, 1))],
            vec![
                Atomic(FetchAdd(0, 2)),
                SpawnJoin {
                    child: vec![Atomic(Store(0, 2))],
                    between: vec![TryLocked {
                        mutex: 0,
                        add: 2,
                        body: vec![],
                    }],
                },
            ],
            vec![
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![Atomic(FetchAdd(0, 1))],
                },
                Atomic(Swap(0, 3)),
            ],
        ],
    };
    reaches_every_state(&succeeds, Some(2), 26, (67, 30));
    reaches_every_state(&succeeds, None, 26, (89, 30));
    reaches_every_state(&fails, None, 92, (892, 121));
}

/// A step whose code joined a thread that had ended and then changed objects could have come to
/// the join before that thread's end and waited, and the switch away from it would then have
/// been free (`bounded::look::Look::joined_earlier`): `t1: x += 1`, `t2: spawn c { load x;
/// x.swap(3) }; y += 1; join c; drop(arc1); y = 2`, bound 0. The final state where main reads
/// the `Arc` counts after `t1`'s end with `t2`'s drop before them and its end after them, and
/// `c`'s load before `t1`'s add, has one schedule within the bound: `t2`'s add, blocking in
/// the join, `c`, whose end wakes `t2` (its drop), then `t1` (free: `c` ended) and `t2`'s
/// store. The race of the drop with main's reads asked for `t2` before `t1` only where `c` had
/// ended already, where `t2` runs on to its end. 3 of the DFS's 4 final states before (seed
/// 8,003,450 of `Family::Woken` at 5,000 interleavings, session 20's fresh-seed search, is this
/// very program); 4 in 5 executions now, as many as the optimal DPOR. With two adds before the
/// join, `t2`'s first add can run after `c`'s end too, and `t2` must be asked for before it:
/// the rule asking only after `t2`'s previous event missed the state there.
#[test]
fn a_join_that_did_not_wait_could_have_waited() {
    use random_programs::{AtomicOp::*, Op::*};
    for adds in [1, 2] {
        let p = Program {
            family: Family::Woken,
            atomics: 2,
            mutexes: 0,
            condvar: false,
            threads: vec![
                vec![Atomic(FetchAdd(0, 1))],
                vec![
                    SpawnJoin {
                        child: vec![Atomic(Load(0)), Atomic(Swap(0, 3))],
                        between: vec![Atomic(FetchAdd(1, 1)); adds],
                    },
                    Release { arc: 1 },
                    Atomic(Store(1, 2)),
                ],
            ],
        };
        reaches_every_state(&p, Some(0), 4, (7, 5));
    }
}

/// `Family::Woken` (each thread holds the two `Arc`s to its end, main reads their counts after
/// each join, in code of no step: on the joined thread's last step as `Event::woke`):
/// `t1: load y`, `t2: x += 1`, `t3: y = 2; load x; y.swap(1)`, bound 1. The final state where
/// main reads the counts after `t1`'s end before `t2` ends needs `t1` right after `t3`'s store;
/// the race of `t3`'s load with `t2`'s add asks there for an initial of `t1.t2`, and `t2`'s end
/// (its drops) comes after main's reads on `t1`'s step, so `t1` is the only one. The initials
/// compared `t2` with `t1`'s step without those reads, took `t2` for one, and its sleep for
/// cover: 11 of the DFS's 12 final states, also without a bound (session 18). Now the events
/// of the reversed sequence come after the woken changes they conflict with
/// (`bounded::look::initials`).
#[test]
fn initials_follow_the_changes_of_woken_threads() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Load(1))],
            vec![Atomic(FetchAdd(0, 1))],
            vec![Atomic(Store(1, 2)), Atomic(Load(0)), Atomic(Swap(1, 1))],
        ],
    };
    for (bound, dfs, bpor) in [(Some(1), 18, 13), (None, 20, 13)] {
        let d = explore(&p, Strategy::Dfs, bound, bound.is_none());
        let b = explore(&p, Strategy::Dpor, bound, bound.is_none());
        assert_eq!(d.states.len(), 12, "bound {bound:?}");
        assert_eq!(b.states, d.states, "bound {bound:?}");
        assert_eq!(
            (d.report.executions(), b.report.executions()),
            (dfs, bpor),
            "bound {bound:?}"
        );
    }
}

/// A change apart from its step's operation comes after the step and after a past: what
/// main's code reads after a join that waited (the `Arc` counts of `Family::Woken`) comes after
/// the step that ended the joined thread and after main's last event; what a step's code
/// changes after joining a thread that had ended, after that thread's last event. An event
/// that conflicts with the change can come before it by coming before that past, and races
/// with it (`bounded::look::Look::races_with_pasts`). `t1: spawn c { load y }; load x;
/// join c`, `t2: y.cas(0, 2)`, bound 1: the final state where main reads the counts after
/// `t2`'s drops (its end), with `c`'s load before the compare-exchange, needs `t1`'s load
/// after `t2`'s end; the history raced `t2`'s drops only with `c`'s load, whose step carries
/// main's reads (`t1`'s end woke main). 2 of the DFS's 3 final states before (session 19, shrunk
/// from seed 20,060 of session 18's search). And `t1: y.cas(0, 2)`, `t2: spawn c { y.cas(2,
/// 1); load x }; y += 2; join c`, bound 2: `t2`'s drops after its join of an ended `c` race
/// with main's reads after `t1`'s end as with `c`'s load too (7 of 8 before).
#[test]
fn a_change_races_as_its_past() {
    use random_programs::{AtomicOp::*, Op::*};
    let woken = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![SpawnJoin {
                child: vec![Atomic(Load(1))],
                between: vec![Atomic(Load(0))],
            }],
            vec![Atomic(Cas(1, 0, 2))],
        ],
    };
    let joined = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Cas(1, 0, 2))],
            vec![SpawnJoin {
                child: vec![Atomic(Cas(1, 2, 1)), Atomic(Load(0))],
                between: vec![Atomic(FetchAdd(1, 2))],
            }],
        ],
    };
    for bound in [Some(1), None] {
        reaches_every_state(&woken, bound, 3, (6, 4));
    }
    for bound in [Some(2), None] {
        reaches_every_state(&joined, bound, 8, (12, 9));
    }
}

/// The race's second event takes the changes glued to its step along (what the code of the
/// threads it woke changes, whose past stays before the race's first event), and so comes after
/// the events of the reversed sequence they conflict with (`bounded::initials`): `t1: y.swap(3)`,
/// `t2: x.cas(2, 1); load y; y.cas(1, 1)`, `t3: x.swap(3)`, bound 1. The final state where main
/// reads the `Arc` counts after `t1`'s end, `t3` ended and `t2` not, with `t2`'s first
/// compare-exchange before `t3`'s swap, needs `t3` and `t1` between `t2`'s first two steps.
/// The race of `t2`'s load with `t1`'s swap, after `t3`'s, asked there for an initial of
/// `t3.t1`, and took `t1` for one, asleep from the branch where it ran first; but `t1`'s step
/// carries main's count reads, which come after `t3`'s drops. 11 of the DFS's 12 final states
/// before, also without a bound (session 19, shrunk from seed 8,000,161 of the fresh-seed
/// search).
#[test]
fn the_second_event_takes_its_woken_changes_along() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Swap(1, 3))],
            vec![Atomic(Cas(0, 2, 1)), Atomic(Load(1)), Atomic(Cas(1, 1, 1))],
            vec![Atomic(Swap(0, 3))],
        ],
    };
    reaches_every_state(&p, Some(1), 12, (18, 13));
    reaches_every_state(&p, None, 12, (20, 13));
}

/// A sleeping event whose thread's end a step it sleeps through made a joiner wait for carries
/// the joiner's changes from that step on (`bounded::waits::Waits`): `t1: y.cas(0, 2)`, `t2:
/// x += 2`, `t3: spawn c { y.cas(2, 1); load x }; y += 2; join c`, bound 2. The final state
/// where main reads the `Arc` counts after `t1`'s end before `t3`'s drops, with `c`'s load
/// before `t2`'s add, needs `c`'s load after `t3`'s add and `t1`'s end: there `c`'s end wakes
/// `t3`, whose drops come after main's reads. `c`'s load slept there, from the branch where it
/// ran right after `c`'s compare-exchange (where `t3`'s join found `c` ended and its drops came
/// in its own step), through `t3`'s add and `t1`'s end, which its event as it ran there commutes
/// with. 26 of the DFS's 27 final states before, also without a bound (session 19, shrunk from
/// seed 20,059 of session 18's search).
#[test]
fn a_sleeping_end_carries_what_its_joiner_changes() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Cas(1, 0, 2))],
            vec![Atomic(FetchAdd(0, 2))],
            vec![SpawnJoin {
                child: vec![Atomic(Cas(1, 2, 1)), Atomic(Load(0))],
                between: vec![Atomic(FetchAdd(1, 2))],
            }],
        ],
    };
    for bound in [Some(2), None] {
        reaches_every_state(&p, bound, 27, (60, 31));
    }
}
