//! Schedules whose constraints no execution meets: what `covering::discharge` proves
//! infeasible, and the deadlocks flagged possibly infeasible on the havocked programs.

use super::*;

/// The pairs `covering::discharge` proves infeasible, with the part of their constraint it
/// proved unreachable at their epoch's start.
fn discharged(exec: &mut dyn Executor, e: &Enumeration) -> Vec<(String, String)> {
    (covering::discharge(exec, e).into_iter())
        .filter_map(|d| Some((e.pair_id(d.pair), d.unreachable?)))
        .collect()
}

#[test]
fn a_havocked_semaphore_count_gives_infeasible_schedules_that_the_discharge_proves() {
    // The count havocked at each boundary: in the loop's epoch E1 half the schedules let
    // T1's wait pass at once (count != 0), which no execution does.
    let opts = Options::default();
    let mut exec = InProcess::new(builder(&opts), programs::semaphore_loops::<true> as fn());
    let e = enumerate(programs::semaphore_loops::<true>);
    assert_eq!(epoch_counts(&e), (4, vec![2, 2, 3, 8]));
    let count_not_zero = "(not (= count@1.s #x00000000))";
    let suspicious: Vec<String> = (0..e.pairs.len())
        .filter(|&i| e.pairs[i].constraint_text.contains(count_not_zero))
        .map(|i| e.pair_id(i))
        .collect();
    assert_eq!(suspicious.len(), 4, "{suspicious:?}");
    // Every schedule into E1 leaves the count at 0 (from E0; and from E1 itself, assuming
    // it was 0 at its start): all four are infeasible, and nothing else is proved so.
    let proved = discharged(&mut exec, &e);
    let ids: Vec<String> = proved.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, suspicious);
    assert!(
        proved.iter().all(|(_, part)| part == count_not_zero),
        "{proved:?}"
    );
    // The deadlock of T1 waiting after T2 has left (E2, count == 0) stays possibly
    // infeasible: the two loop counters are havocked independently, so the model lets T2
    // leave first with the count at 0.
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!(
        (verdicts.deadlocks.len(), verdicts.possibly_infeasible()),
        (1, 1)
    );
    // The count kept exactly (the runtime's own state, not havocked): no such schedules.
    let e = enumerate(programs::semaphore_loops::<false>);
    assert_eq!(epoch_counts(&e), (4, vec![2, 1, 2, 4]));
    assert!(e.pairs.iter().all(|p| !p.constraint_text.contains("count")));
    let mut exec = InProcess::new(builder(&opts), programs::semaphore_loops::<false> as fn());
    assert!(covering::discharge(&mut exec, &e).is_empty());
}

/// Its counts are those of checked arithmetic. A release build wraps: the havocked queue count
/// at `u32::MAX` plus the producer's push is an empty queue, so from E2 the consumer can also
/// wait, or leave if `done` was havocked true, with the producer still in its loop (two more
/// epochs, 5 against 3 for one consumer).
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "pins the epochs of checked arithmetic; a release build wraps and has more"
)]
fn a_pfscan_like_queue_has_possibly_infeasible_deadlocks_some_discharged() {
    let opts = Options::default();
    // One consumer: E0, the consumer at its loop with the producer done (main at the
    // scope's join), and with the producer at its loop. The havocked queue lets the
    // consumer wait for good with `done` false after the producer left: flagged, and proved
    // infeasible (every way into that epoch sets `done`).
    let mut exec = InProcess::new(builder(&opts), programs::pfscan_like::<1> as fn());
    let e = enumerate(programs::pfscan_like::<1>);
    assert_eq!(epoch_counts(&e), (3, vec![2, 2, 3]));
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!(
        (verdicts.deadlocks.len(), verdicts.possibly_infeasible()),
        (1, 1)
    );
    let deadlock = e.pair_id(verdicts.deadlocks[0].0);
    assert_eq!(
        discharged(&mut exec, &e),
        [(deadlock, "(= done@1.s #b0)".to_string())]
    );
    // DPOR for two files alone: 58 executions.
    let two = [("files".to_string(), 2)].into();
    let dpor = Builder::new()
        .inputs(two)
        .explore(programs::pfscan_like::<1>);
    assert_eq!(dpor.executions(), 58);
    // Two consumers: seven epochs, 25 schedules, four deadlocks flagged possibly
    // infeasible, none of which the discharge proves (the state it needs is not read after
    // every boundary); four other schedules it proves infeasible.
    let mut exec = InProcess::new(builder(&opts), programs::pfscan_like::<2> as fn());
    let e = enumerate(programs::pfscan_like::<2>);
    assert_eq!(epoch_counts(&e), (7, vec![2, 2, 3, 3, 5, 5, 5]));
    assert_eq!(e.pairs.len(), 25);
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!(
        (verdicts.deadlocks.len(), verdicts.possibly_infeasible()),
        (4, 4)
    );
    let proved = discharged(&mut exec, &e);
    assert_eq!(proved.len(), 4, "{proved:?}");
    assert!(proved.iter().all(|(id, _)| !verdicts
        .deadlocks
        .iter()
        .any(|(i, _, _)| e.pair_id(*i) == *id)));
}
