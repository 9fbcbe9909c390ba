//! The changes the code of a woken thread makes before its next operation (`Event::woke`,
//! recorded on the step that woke it), as the optimal DPOR sees them: their races
//! ([`woken_races`]: with earlier events as the waking step's, with later ones as the waking
//! step's or the woken thread's past's), and the trace theory with them as events of their
//! own, in which a change runs right after the later of its waking step and its thread's past
//! and so is glued to the waking step wherever that past stays before it: the `notdep` of a
//! reversal in that theory ([`after_with_changes`]), and the weak initials a change's past
//! loses ([`moves_a_change`]). [`Change`] lists an execution's changes once
//! ([`changes_of`]). The module doc of `dpor` says why these are departures from the paper
//! and what they leave open.

use std::borrow::Cow;

use smallvec::SmallVec;

use super::events::{self, Ev, Names};
use super::races::HappensBefore;
use crate::rt::op::{Event, ThreadId, WokenChange};

/// The races of what the code of threads woken by a step changed before their next operation
/// (`Event::woke`, recorded on the waking step `k`), as races `(i, k)`: that code runs right
/// after step `k` but belongs to no step, and comes after the woken thread's past too. A race
/// is an earlier event `i` that conflicts with such a change, happens before neither step `k`
/// nor that past, and before no other such event (the latest, as for any event's races).
/// Reversing it runs step `k`, and with it the woken thread's code, before `i`. Without these,
/// a sender's drop in main after a join that waited, finding the receiver gone, raced with
/// nothing, and the outcome where the receiver's thread saw the disconnect went unexplored
/// (`tests/bounded_channels.rs`, `a_woken_threads_changes_race_apart_from_the_step_that_woke_it`).
///
/// A change conflicts with an event's exact accesses and with the changes of the other threads
/// that event woke (the woken thread's own come after it in program order: main's count reads
/// after two joins that waited raced with each other).
///
/// And races `(k, l)` with later events ([`later_races`]): without them, main reading an
/// `Arc`'s count right after a join that waited never saw a reference another thread drops
/// afterwards gone first (`tests/dpor_vs_dfs/`, `Family::Woken`: 42 of 150 programs missed a
/// final state or a trace, 2 since).
pub(super) fn woken_races(evs: &[Ev], hb: &HappensBefore, trace: &[Event]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (k, step) in trace.iter().enumerate().filter(|(_, s)| !s.woke.is_empty()) {
        for change in &step.woke {
            let access = events::touched_access(change.obj, change.how);
            let conflicts = |e: usize| conflicts_with(evs, trace, e, change.thread, access);
            earlier_races(evs, hb, k, change, &conflicts, &mut out);
            let woken = named(evs, trace, change.thread);
            let before: smallvec::SmallVec<[usize; 3]> = std::iter::once(k)
                .chain(change.past.iter().map(|&p| p as usize))
                .collect();
            later_races(evs, hb, (k, &before), woken, &conflicts, &mut out);
        }
    }
    // Changes after a join that found the joined thread gone (`Event::joined`), in the step's
    // own code: they come after that thread's past too, and a later event may come before
    // them by coming before it, the join then waiting and the change coming with the joined
    // thread's end. Without these, thread 1 joining its child in the code after its first step
    // always read an `Arc`'s count in that step where the child had ended first, never after
    // thread 2's drop (`tests/dpor_vs_dfs/`, `Family::Woken`, seed 1817 of the larger
    // programs).
    for (p, step) in trace.iter().enumerate() {
        for (q, access) in joined_changes(step) {
            let conflicts = |e: usize| conflicts_with(evs, trace, e, step.thread, access);
            let before = [q as usize];
            later_races(evs, hb, (p, &before), evs[p].thread, &conflicts, &mut out);
        }
    }
    out
}

/// The changes `step`'s own code made after each join that found the joined thread gone
/// (`Event::joined`), each with the joined thread's event it comes after.
fn joined_changes(step: &Event) -> impl Iterator<Item = (u32, events::Access)> + '_ {
    (step.joined.iter()).flat_map(move |&(from, q)| {
        let touched = step.touched[usize::from(from)..].iter();
        touched.map(move |&(obj, how)| (q, events::touched_access(obj, how)))
    })
}

/// Whether event `e` (its exact accesses, and the changes of threads other than `woken` that it
/// woke) conflicts with `access`, a change of thread `woken`'s (its runtime id, as the trace's
/// woken changes name it).
fn conflicts_with(
    evs: &[Ev],
    trace: &[Event],
    e: usize,
    woken: ThreadId,
    access: events::Access,
) -> bool {
    let same = &mut |x, y| x == y;
    let woke = trace.get(e).map_or(&[][..], |s| &s.woke[..]);
    let others = woke.iter().filter(|c| c.thread != woken);
    (evs[e].exact.iter().copied())
        .chain(others.map(|c| events::touched_access(c.obj, c.how)))
        .any(|a| events::conflict_by(a, access, same))
}

/// The races `(i, k)` of `change`, recorded on step `k`, with earlier events (see
/// [`woken_races`]).
fn earlier_races(
    evs: &[Ev],
    hb: &HappensBefore,
    k: usize,
    change: &WokenChange,
    conflicts: &impl Fn(usize) -> bool,
    out: &mut Vec<(usize, usize)>,
) {
    let ordered = |i: usize| {
        let ti = evs[i].thread;
        hb.before(i, ti, k) || change.past.iter().any(|&p| hb.before(i, ti, p as usize))
    };
    let conflicting: smallvec::SmallVec<[usize; 4]> =
        (0..k).filter(|&i| conflicts(i) && !ordered(i)).collect();
    for &i in &conflicting {
        let ti = evs[i].thread;
        let covered = (conflicting.iter()).any(|&c| c != i && hb.before(i, ti, c));
        if !covered && !out.contains(&(i, k)) {
            out.push((i, k));
        }
    }
}

/// The races of `change`, a change of thread `woken` recorded on step `k`, with later events
/// (see [`woken_races`]); `evs` holds the unfinished operations after the steps. The change
/// comes after step `k` and after the woken thread's past: a later event `l` may come before it
/// by coming before either, so each of them that does not happen before `l` races with it, as
/// `(k, l)` or `(p, l)`. (Main waits to join thread 2, which waits to join its child: when the
/// child ends, thread 2 drops its references; main's count read after thread 1's last step,
/// `l`, sees them dropped or not. The child's step may come first and thread 2's last step,
/// `p`, after `l`: thread 2 then drops them in its own step, after the count.)
///
/// Such a reversal may still be taken as explored: the events of that past do not carry the
/// change for the sleep sets and wakeup trees, as the waking step's does. Carrying it made
/// some programs run traces twice, and a pinned count of `tests/primitive_counts/` went up,
/// for one program fewer that missed a trace.
fn later_races(
    evs: &[Ev],
    hb: &HappensBefore,
    (k, before): (usize, &[usize]),
    woken: ThreadId,
    conflicts: &impl Fn(usize) -> bool,
    out: &mut Vec<(usize, usize)>,
) {
    // After the change: the woken thread's own events, and those that conflict with it.
    let after: smallvec::SmallVec<[usize; 4]> = (k + 1..evs.len())
        .filter(|&c| evs[c].thread == woken || conflicts(c))
        .collect();
    for x in before.iter().copied().filter(|&x| x <= k) {
        let tx = evs[x].thread;
        for &l in &after {
            let tl = evs[l].thread;
            if tl == woken || tl == tx || hb.before(x, tx, l) {
                continue;
            }
            let covered = (after.iter())
                .take_while(|&&c| c < l)
                .any(|&c| hb.before(c, evs[c].thread, l));
            if !covered && !out.contains(&(x, l)) {
                out.push((x, l));
            }
        }
    }
}

/// The name the events give the thread the runtime calls `runtime` in this execution (a
/// woken change names its thread by runtime id, which follows spawn order; the events' names
/// are stable across executions).
fn named(evs: &[Ev], trace: &[Event], runtime: ThreadId) -> ThreadId {
    let step = (trace.iter().zip(evs)).find(|(s, _)| s.thread == runtime);
    step.map_or(ThreadId::MAX, |(_, e)| e.thread)
}

/// A change made by the code of a thread woken by step `at` ([`Event::woke`]): `thread` (as
/// the events name it; `runtime`, as the trace's woken changes do) ran that code right after
/// step `at`, and after its own `past`.
pub(super) struct Change {
    at: usize,
    thread: ThreadId,
    runtime: ThreadId,
    past: smallvec::SmallVec<[u32; 2]>,
    access: events::Access,
}

/// The changes woken threads made in the execution, in the order of their waking steps; and
/// the changes a step's own code made after a join that found the joined thread gone
/// (`Event::joined`), as changes of the step's thread with the step as the waking one and the
/// joined thread's past as theirs: they too run right after the later of the two, and taking
/// that past first before a sequence that holds the step moves them (`moves_a_change`).
pub(super) fn changes_of(evs: &[Ev], trace: &[Event]) -> Vec<Change> {
    let mut out = Vec::new();
    for (at, step) in trace.iter().enumerate() {
        for change in &step.woke {
            out.push(Change {
                at,
                thread: named(evs, trace, change.thread),
                runtime: change.thread,
                past: change.past.clone(),
                access: events::touched_access(change.obj, change.how),
            });
        }
        for (q, access) in joined_changes(step) {
            out.push(Change {
                at,
                thread: evs[at].thread,
                runtime: step.thread,
                past: smallvec::smallvec![q],
                access,
            });
        }
    }
    out
}

/// Which events of the execution happen after event `i` once the woken threads' changes are
/// events of their own (into `after`, by index; meaningful from `i` on), for the reversal of
/// race `(i, j)`; `false` when `j` needs (happens after, by program order or a step glued to a
/// change) an event that comes after `i` through a change: no sequence of the events this
/// leaves puts `j` first, and the caller keeps happens-before's `notdep` (as before these
/// changes counted), which moves the change along. (Dropping such a race instead, as not one
/// of the trace theory with the changes, lost outcomes: the races of the changes themselves
/// are found in happens-before, not in that theory, and miss some that these stand for.)
///
/// The trace theory here is that of the steps and, as events of the woken thread `W`, the
/// changes `c` its code made after a wait returned: `c` comes after `W`'s past `p` (program
/// order), after the waking step `k` (it could not run before), and after or before the events
/// it conflicts with, as they ran. Happens-before (`races`) has the steps only: the paper's
/// `notdep(e_i, E)`, the events after `e_i` that do not happen after it, must also leave out
/// what comes after `e_i` through a change. And one more edge, which is no edge of the
/// theory but of the runtime: `c` runs right after the later of `p` and `k` (right after the
/// step that ended the wait, or in the step whose code found the joined thread already gone).
/// So where `p` stays before `k` (`p` comes before `e_i`, or in `notdep`, whose order is the
/// execution's), `c` is glued to `k`: a `c` that happens after `e_i` takes `k`, and what
/// happens after `k`, out of `notdep` too. Without that, the race of thread 2's first
/// compare-exchange with thread 3's load, both before thread 1's release that woke main to read
/// the `Arc` counts thread 2's last step and thread 3's dropped, put the release into `notdep`,
/// before the load: a sequence with main's counts before thread 2's drops, not the reversal,
/// and taken as explored since the release slept there (`tests/dpor_vs_dfs/`,
/// `Family::Woken`, seed 51). Where `p` happens after `e_i`, the sequence runs `k` before `p`,
/// `W`'s code finds the wait over and makes `c` in `p`'s step, after `e_i`, as it should.
///
/// A change of a thread `e_i` woke comes after `e_i`; one whose past happens after `e_i` is
/// not glued (its thread waits for that past, and the change comes with it). `j`'s own change
/// glued to it does not count: moved before `e_i`, `j` takes its change along (the race is
/// between the steps, and `j` cannot run before `e_i` without it). An event that conflicts
/// with a change after `e_i`, or is of its thread, happens after it too; the steps taken out
/// only that way are followed through happens-before (`through`). The soundness argument is
/// the paper's, for the theory with the changes as events: a sequence `notdep(e_i, E).e_j`
/// of it is one the runtime can run (no change in it is separated from the step it is glued
/// to), and so stands for the reversed race. The caller plants happens-before's reversal too
/// where its `notdep` differs: this one is shorter, and what the longer one reached first was
/// left to races found below it, which a sleeper there took as covered, circularly (seed 1827
/// of the larger programs: thread 3's store first at the node after thread 1's `Cas` and
/// thread 3's load; the sleeper thread 2's `Swap` a weak initial of every such sequence, and
/// the race that should bring it, in that sleeper's branch, covered by the leaf of thread 3's
/// load a node up). Happens-before's reversal is a sequence the runtime runs (as before these
/// changes counted), and a planted sequence only adds what is explored, so with both every
/// outcome either one reached is reached. The checks: `Family::Woken` in CI, every outcome
/// (4,649 → 4,672 executions with both, traces twice in 13 → 15 programs); its 1,000 larger
/// programs, 9 → 7 miss one (37,150 → 37,415 executions; 1383 and 1827 no longer; the 7 also
/// missed before the changes were glued).
pub(super) fn after_with_changes(
    evs: &[Ev],
    trace: &[Event],
    hb: &HappensBefore,
    changes: &[Change],
    (i, j): (usize, usize),
    after: &mut Vec<bool>,
) -> bool {
    let ti = evs[i].thread;
    after.clear();
    after.resize(evs.len(), false);
    after[i] = true;
    // Events after `i` only through a change (not in happens-before), and changes after `i`.
    let mut through: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
    let mut late: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
    // The changes of threads `i` woke come after it.
    let mut next = changes.partition_point(|c| c.at < i);
    while next < changes.len() && changes[next].at == i {
        late.push(next);
        next += 1;
    }
    let mut j_after = false;
    for m in i + 1..evs.len() {
        let tm = evs[m].thread;
        // `j` is after `i` by their race: whether it is by anything else.
        let ordered = m != j && hb.before(i, ti, m);
        let needs = (through.iter()).any(|&x| hb.before(x, evs[x].thread, m))
            || late.iter().any(|&c| changes[c].thread == tm);
        let through_change = needs
            || (late.iter()).any(|&c| {
                let c = &changes[c];
                conflicts_with(evs, trace, m, c.runtime, c.access)
            });
        if m == j {
            j_after = needs;
        }
        after[m] = ordered || through_change;
        let first = next;
        while next < changes.len() && changes[next].at == m {
            next += 1;
        }
        let mut glue = false;
        for (n, c) in changes.iter().enumerate().take(next).skip(first) {
            let past_after = (c.past.iter()).any(|&p| p as usize >= i && after[p as usize]);
            let c_after = after[m]
                || past_after
                || (i..m).any(|z| after[z] && conflicts_with(evs, trace, z, c.runtime, c.access))
                || late.iter().any(|&d| {
                    let d = &changes[d];
                    let same = &mut |x, y| x == y;
                    d.thread != c.thread && events::conflict_by(d.access, c.access, same)
                });
            if c_after {
                late.push(n);
                glue |= !past_after;
            }
        }
        if glue && !after[m] {
            // Glued to step `m`, which now comes after `i` with every change it wakes.
            after[m] = true;
            for n in first..next {
                if !late.contains(&n) {
                    late.push(n);
                }
            }
        }
        if after[m] && !ordered {
            through.push(m);
        }
    }
    !j_after
}

/// Whether taking `x`, the next event of its thread at step `from` of this execution, before
/// the sequence `v` moves a change made by a woken thread's code past events of `v` it
/// conflicts with: then `x` is no weak initial of `v`, though it commutes with each of `v`'s
/// events.
///
/// A change `c` comes right after the latest of the step `k` that woke its thread and of its
/// thread's past (the thread's last step `p`, the threads it joined): the code runs when the
/// last of them is done (see [`after_with_changes`]). Where `x` is one of that past and `v`
/// holds `k` before `x` (or without `x`), `c` comes at `x`'s place in `v` (or after `v`), or at
/// that of another part of the past later still; with `x` first, at the latest of the others.
/// Same trace only if `c` commutes with the events of `v` between the two places. Without
/// this, thread 2's `Swap` was taken as a weak initial of its child's load then thread 1's
/// store (whose step woke main to read the `Arc` counts), since it commutes with both; but with
/// the `Swap` first, the child's end wakes thread 2 to drop its references before main's count
/// read, not after it as in the sequence, where the drops come in the `Swap`'s step
/// (`tests/dpor_vs_dfs/`, `Family::Woken`, seed 54).
pub(super) fn moves_a_change(
    (evs, trace, changes): (&[Ev], &[Event], &[Change]),
    (x, from): (&Ev, usize),
    v: &[Cow<'_, Ev>],
) -> bool {
    if changes.is_empty() {
        return false;
    }
    // Where an event of this execution is, from step `from` on.
    let step =
        |e: &Ev| (from..evs.len()).find(|&s| evs[s].thread == e.thread && evs[s].index == e.index);
    let Some(p) = step(x) else {
        return false;
    };
    let place = |s: usize| {
        v.iter()
            .position(|e| e.thread == evs[s].thread && e.index == evs[s].index)
    };
    for c in changes
        .iter()
        .filter(|c| c.at >= from && c.past.contains(&(p as u32)))
    {
        let Some(at_k) = place(c.at) else {
            continue;
        };
        // Where `c` comes in `v` (`v.len()`: after it), with or without `x` taken first.
        let at = |without: Option<usize>| {
            let past = c.past.iter().map(|&q| q as usize);
            let parts = past.filter(|&q| q >= from && Some(q) != without);
            parts
                .map(|q| place(q).unwrap_or(v.len()))
                .fold(at_k, usize::max)
        };
        let (was, now) = (at(None), at(Some(p)));
        // An event of `v` (this execution's, perhaps unrefined) and the changes of the other
        // threads its step woke.
        let conflicts = |e: &Ev| {
            let same = &mut |a, b| a == b;
            (e.exact.iter()).any(|&a| events::conflict_by(a, c.access, same))
                || step(e).is_some_and(|s| conflicts_with(evs, trace, s, c.runtime, c.access))
        };
        if now < was && v[now + 1..was.min(v.len())].iter().any(|e| conflicts(e)) {
            return true;
        }
    }
    false
}

/// What the code of a thread that waited after an event made once the step that woke it ran
/// (`Dpor::waits`): by (thread, index) of the event and of the step, with the step's access
/// (its operation's, which must be the same where it is taken again: an arrival at a barrier
/// that was not the last wakes nobody), the changes of `Event::woke` with the event in their
/// past, over canonical names. Sorted by the two keys.
pub(super) type Waits = Vec<(
    (ThreadId, u32),
    (ThreadId, u32),
    events::Access,
    SmallVec<[events::Access; 2]>,
)>;

/// Records, for the sleep sets, each event of a change's past with the step that woke the
/// change's thread, and the change ([`Waits`]).
///
/// The event's thread waited after it (a join of a thread not yet ended, in the code after its
/// operation) until that step, and the change came right after the step. Run after the step
/// instead, the event's own step makes the change: it does more than it did where it ran. A
/// sleep set holds the event as it ran; so, where that step is taken while it sleeps, it sleeps
/// on with the change as its own ([`asleep_after`]), and wakes up at a step that conflicts with
/// the change. Its sleep stays sound: the change comes right after that step where the event
/// ran first (the branch the sleeper stands for), and right after the event where it runs
/// later, and the steps between commute with it. Without this, thread 1's store, explored
/// first before its child's end, slept through the child's end and then thread 2's count of
/// an `Arc`, where it would drop its reference in its own step (`tests/dpor_vs_dfs/`,
/// `Family::Woken`, seed 1308 of the larger programs, shrunk: thread 1 spawns a child that
/// `try_lock`s, stores, joins it; thread 2 reads the count in a critical section).
pub(super) fn record_waits(evs: &[Ev], trace: &[Event], names: &mut Names, waits: &mut Waits) {
    for (k, step) in trace.iter().enumerate().filter(|(_, s)| !s.woke.is_empty()) {
        // The changes over canonical names, as the step's event carries them.
        let mut named = Ev {
            thread: evs[k].thread,
            index: evs[k].index,
            nth: evs[k].nth,
            ..Ev::default()
        };
        events::add_woken(&mut named, step, false, names);
        let at = (evs[k].thread, evs[k].index);
        let main = evs[k].main();
        for (change, &access) in step.woke.iter().zip(&named.accesses) {
            for &p in &change.past {
                let p = (evs[p as usize].thread, evs[p as usize].index);
                let from = waits.partition_point(|w| (w.0, w.1) < (p, at));
                let found = (from..waits.len())
                    .take_while(|&n| (waits[n].0, waits[n].1) == (p, at))
                    .find(|&n| waits[n].2 == main);
                let n = found.unwrap_or_else(|| {
                    waits.insert(from, (p, at, main, SmallVec::new()));
                    from
                });
                if !waits[n].3.contains(&access) {
                    waits[n].3.push(access);
                }
            }
        }
    }
}

/// The sleeping event `s` as it sleeps on after `step` (independent of it): with the changes
/// its thread made where `step` woke it, if any ([`record_waits`]), which are its own from
/// there on; and with the changes `step`'s thread made where it waited after `step` until `s`
/// woke it. (Its exact accesses go: the changes have none of its execution.)
///
/// The second is the same rule the other way round. A change comes right after the later of
/// its past and its waking step: where the sleeper `s` ran first (the branch it stands for),
/// `step`'s thread finds the wait over and makes the change in `step`'s own step; where `s`
/// runs after `step`, that thread waits and `s`'s step wakes it, so the change comes with `s`.
/// The same trace, if `s` carries the change from there on and wakes up at a step that
/// conflicts with it. Without this, a child's load explored first at the root slept as it ran
/// there (waking nobody) through its parent's compare-exchange, after which the parent waited
/// to join it and to drop its reference to an `Arc` in the load's step; then through thread
/// 1's swap, whose step woke main to read the counts, and the race of main's count read after
/// the next join with the drop was taken as covered by the sleeper: the traces where main reads
/// the count first after thread 1's join and last after thread 2's were never run
/// (`tests/dpor_vs_dfs/changes.rs`, `a_drop_after_a_join_that_main_reads_before`, seed 9,000,702 of
/// `Family::Branching`).
pub(super) fn asleep_after(waits: &Waits, s: &Ev, step: &Ev, names: &mut Names) -> Option<Ev> {
    if waits.is_empty() {
        return None;
    }
    let mut same = |x, y| names.find(x) == names.find(y);
    // The change of a thread that waited after `s` until `step`, or after `step` until `s`.
    let mut found = |past: &Ev, waking: &Ev| {
        let key = ((past.thread, past.index), (waking.thread, waking.index));
        let from = waits.partition_point(|w| (w.0, w.1) < key);
        (from..waits.len())
            .take_while(|&n| (waits[n].0, waits[n].1) == key)
            .find(|&n| events::same_access(waits[n].2, waking.main(), &mut same))
    };
    let ns = [found(s, step), found(step, s)];
    if ns.iter().all(Option::is_none) {
        return None;
    }
    let mut s = s.clone();
    for &a in ns.iter().flatten().flat_map(|&n| &waits[n].3) {
        if !s.accesses.contains(&a) {
            s.accesses.push(a);
        }
    }
    s.exact.clear();
    Some(s)
}
