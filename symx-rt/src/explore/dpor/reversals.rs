//! Where a finished execution's races become new branches: each race `e_i ⋖ e_j` gives the
//! reversal sequence `notdep(e_i, E).e_j` ([`reversal`]), which goes into the wakeup tree of
//! the node before `e_i` unless a thread sleeping there is a weak initial of it
//! (`Dpor::insert`), or, in a split exploration, to where the sequential exploration would put
//! it (`Dpor::plant`). The module doc of `dpor` says how this departs from the paper.

use std::borrow::Cow;

use super::events::{self, Ev};
use super::races::HappensBefore;
use super::split;
use super::wakeup::{self, is_weak_initial, SeqEv};
use super::Dpor;
use crate::rt::op::{Event, OpKind, ThreadId, WokenChange};

impl Dpor {
    /// Finds every race of the execution (`self.evs`) whose first event comes after the
    /// `fixed` steps and plants its reversal in the wakeup trees.
    ///
    /// The operations left unfinished count as events after the last step (and only as the
    /// second event of a race): a thread blocked for good on a lock another thread holds
    /// never steps, yet its acquisition races with the holder's, and the reversal (it takes
    /// the lock first) is a trace of its own; likewise a store cut off when a read of its
    /// object failed in another thread: the read seeing the store is another trace.
    ///
    /// `trace` is the execution's: what the code of a woken thread changed before its next
    /// operation (`Event::woke`) races apart from the step that woke it ([`woken_races`]).
    pub(super) fn plant_reversals(&mut self, fixed: usize, trace: &[Event]) {
        let mut evs = std::mem::take(&mut self.evs);
        let ran = evs.len();
        evs.append(&mut self.unfinished);
        self.hb.recompute(&evs, self.shared);
        let races = std::mem::take(&mut self.hb.races);
        let woken = woken_races(&evs, &self.hb, trace);
        // Where a woken thread's change races, the reversals' steps bring along what the
        // threads they wake change, as the nodes' events do (`end_execution`), for the sleep
        // sets; happens-before is without them. (In every execution with such changes instead,
        // one program of `bounded_channels.rs` ran past 100,000 executions.)
        let with_woken = (!woken.is_empty()).then(|| {
            let mut all = evs.clone();
            for (ev, step) in all.iter_mut().zip(trace) {
                events::add_woken(ev, step, true, &mut self.names);
            }
            all
        });
        let contents = with_woken.as_deref().unwrap_or(&evs);
        let changes = changes_of(&evs, trace);
        // One buffer for every race's sequence, and one for what comes after its first event.
        let mut v = Vec::new();
        let mut after = Vec::new();
        let all = races.iter().chain(&woken).map(|w| (w.0, w.1));
        for (i, j) in all.filter(|&(i, _)| i >= fixed && i < ran) {
            debug_assert_ne!(evs[i].thread, evs[j].thread);
            if yield_then_solo(trace, &evs, i, j, ran) {
                continue;
            }
            let glued = !changes.is_empty()
                && after_with_changes(&evs, trace, &self.hb, &changes, (i, j), &mut after);
            // Where the changes leave out other events than happens-before does, its
            // reversal too (`after_with_changes`).
            let ti = evs[i].thread;
            let both =
                glued && (i + 1..ran).any(|k| k != j && after[k] != self.hb.before(i, ti, k));
            let orders = [glued.then_some(&after[..]), None];
            for ordered in orders.into_iter().take(1 + usize::from(both)) {
                reversal(
                    contents,
                    &self.hb,
                    (i, j),
                    ran,
                    self.yields,
                    ordered,
                    &mut v,
                );
                // Most reversals start with a thread that already sleeps there.
                let names = &mut self.names;
                let node = &self.nodes[i];
                if node.sleep_at(&node.key).any(|s| {
                    is_weak_initial(s, &v, names)
                        && !moves_a_change((&evs, trace, &changes), (s, i), &v)
                }) {
                    continue;
                }
                if self.peers.is_some() {
                    let from = self.nodes[i].key.clone();
                    self.plant(i, std::mem::take(&mut v), Some(from));
                } else {
                    self.insert(i, &mut v, (&evs, trace, &changes));
                }
            }
        }
        drop(v);
        self.hb.races = races;
        if let Some(peers) = &mut self.peers {
            peers.traces.push(self.hb.trace_hash(&evs, ran));
        }
        evs.truncate(ran);
        self.evs = evs;
    }

    /// Inserts `v` at the state before step `at`: along the current path while its events are
    /// weak initials, then into the wakeup tree of the first node where they are not.
    /// (The caller has checked that no thread sleeping at `at` is a weak initial of `v`.)
    fn insert(
        &mut self,
        at: usize,
        v: &mut Vec<Cow<'_, Ev>>,
        execution: (&[Ev], &[Event], &[Change]),
    ) {
        let mut k = at;
        while k < self.nodes.len() {
            let chosen = &self.nodes[k].chosen;
            if moves_a_change(execution, (chosen, k), v)
                || !wakeup::take_weak_initial(chosen, v, &mut self.names)
            {
                self.nodes[k].wut.insert(v, &mut self.names);
                return;
            }
            if v.is_empty() {
                return;
            }
            k += 1;
        }
        // The whole current execution is a prefix of v's equivalents: already explored.
    }

    /// [`insert`](Self::insert) in a split exploration: `v`, found while exploring the child
    /// at `from` of step `at` (`None`: at a step above), goes where the sequential exploration
    /// would put it (`split::Place`), or to the owner of a node this explorer has a copy of.
    pub(super) fn plant<E: SeqEv>(
        &mut self,
        mut k: usize,
        mut v: Vec<E>,
        mut from: Option<split::Key>,
    ) {
        while k < self.nodes.len() {
            let node = &self.nodes[k];
            if let Some(home) = node.home {
                let v = v.iter().map(|e| e.borrow().clone()).collect();
                return self.forward(home, from, v);
            }
            match node.place(from.as_ref(), true, &mut v, &mut self.names) {
                split::Place::Chosen => {
                    k += 1;
                    from = None;
                }
                place => return self.nodes[k].plant(place, v, &mut self.names),
            }
        }
        // The whole current execution is a prefix of v's equivalents: already explored.
    }
}

/// Whether race `e_i ⋖ e_j` is a yield's with the change that let its thread go, after which
/// only the yielding thread runs, to the end of the execution: its reversal needs no branch.
/// Reversed, the change comes first and the yield after it; no other thread can run then, so a
/// new round lets the yielding thread go at once, into the very state this execution has after
/// the change, and the same steps follow. The races of those steps are this execution's (the
/// thread's own yield orders nothing against its own steps), so the branch would find nothing
/// this one has not. Where another thread runs after the change, the yield's place decides
/// what that thread may interleave, and the reversal stays. (The SPSC queue of `bounded_por.rs`,
/// three items, no bound: 6,144 executions, 4,096 with this; the same 287 traces of the steps
/// other than yields.)
fn yield_then_solo(trace: &[Event], evs: &[Ev], i: usize, j: usize, ran: usize) -> bool {
    let t = evs[i].thread;
    trace[i].kind == OpKind::Yield
        && j < ran
        && trace[j].kind != OpKind::Yield
        && evs[j + 1..].iter().all(|e| e.thread == t)
}

/// The reversal of race `e_i ⋖ e_j` of the execution `evs` (its first `ran` events ran, the
/// rest were left unfinished): the sequence `notdep(e_i, E).e_j`, into `v` (cleared first),
/// borrowed from the trace (events are copied only into a wakeup tree, and only those the
/// tree does not have). `after`, where the execution has changes made by woken threads: the
/// events that happen after `e_i` with those changes as events ([`after_with_changes`]),
/// which `notdep` leaves out; otherwise happens-before's.
///
/// Moved before `e_i`, `e_j` may do something else than it did here, so it is taken as it was
/// known before it ran ([`Ev::unrefined`]); except a barrier arrival, whose count is known
/// where the sequence puts it: the sequence's barrier arrivals carry how many their
/// generation still needs after them, counted from the state before `e_i` (see
/// `events::last_but_one`). An arrival the sequence keeps has as many more to come as
/// arrivals before it were left out (never across a generation's end: the arrivals after a
/// leader that is left out are left out too, since they come after it in happens-before);
/// `e_j`, moved behind the whole sequence, has as many more to come as the arrivals left out
/// before it, less the arrivals kept after it, and `0` makes it the leader. Where a leader
/// stands between (the count would cross a generation), `e_j` stays unrefined. With `let_go`
/// (the fairness object's name, once a thread yielded), `e_j` may be the step that lets a
/// thread that yielded go (`events::let_go_by`).
fn reversal<'a>(
    evs: &'a [Ev],
    hb: &HappensBefore,
    (i, j): (usize, usize),
    ran: usize,
    yields: bool,
    after: Option<&[bool]>,
    v: &mut Vec<Cow<'a, Ev>>,
) {
    v.clear();
    let ti = evs[i].thread;
    let later = |k: usize| after.map_or_else(|| hb.before(i, ti, k), |a| a[k]);
    let kept = |k: usize| k > i && k != j && !later(k);
    let arrival = |k: usize| match evs[k].exact.first() {
        Some(&events::Access::CountDown(o, left)) => Some((o, left)),
        _ => None,
    };
    // Per barrier (this execution's ids): the arrivals left out so far.
    let mut left_out: smallvec::SmallVec<[(events::Canon, u32); 2]> = smallvec::SmallVec::new();
    for (k, ek) in evs.iter().enumerate().take(ran).skip(i) {
        let at = arrival(k).filter(|a| a.1 > 0);
        if !kept(k) {
            if let Some((o, _)) = at {
                match left_out.iter_mut().find(|c| c.0 == o) {
                    Some(c) => c.1 += 1,
                    None => left_out.push((o, 1)),
                }
            }
            continue;
        }
        let mut ev = Cow::Borrowed(ek);
        if let Some((o, left)) = at {
            if let Some(&(_, more)) = left_out.iter().find(|c| c.0 == o) {
                ev.to_mut().set_left(left + more);
            }
        }
        v.push(ev);
    }
    // Copied only where unrefining (or the count below) changes it: most events' accesses are
    // known before they run.
    let mut moved = match evs[j].refined_by_outcome() {
        true => Cow::Owned(evs[j].unrefined()),
        false => Cow::Borrowed(&evs[j]),
    };
    if let Some((o, left)) = arrival(j).filter(|_| j < ran) {
        let mut left = i64::from(left);
        let mut crossed = false;
        for k in (i..ran).filter(|&k| k != j) {
            match arrival(k) {
                Some((p, 0)) if p == o => crossed |= k < j || kept(k),
                Some((p, _)) if p == o && k < j && !kept(k) => left += 1,
                Some((p, _)) if p == o && k > j && kept(k) => left -= 1,
                _ => {}
            }
        }
        if !crossed && left >= 0 {
            moved.to_mut().set_left(left as u32);
        }
    }
    // Once a thread yielded, any step may be the one that lets it go (see the module doc).
    if yields {
        events::let_go_by(moved.to_mut(), true);
    }
    v.push(moved);
}

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
/// afterwards gone first (`tests/dpor_vs_dfs.rs`, `Family::Woken`: 42 of 150 programs missed a
/// final state or a trace, 2 since).
fn woken_races(evs: &[Ev], hb: &HappensBefore, trace: &[Event]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (k, step) in trace.iter().enumerate().filter(|(_, s)| !s.woke.is_empty()) {
        for change in &step.woke {
            let access = events::touched_access(change.obj, change.how);
            let conflicts = |e: usize| conflicts_with(evs, trace, e, change.thread, access);
            earlier_races(evs, hb, k, change, &conflicts, &mut out);
            let woken = named(evs, trace, change.thread);
            later_races(evs, hb, (k, change), woken, &conflicts, &mut out);
        }
    }
    out
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
/// some programs run traces twice, and a pinned count of `tests/primitive_counts.rs` went up,
/// for one program fewer that missed a trace.
fn later_races(
    evs: &[Ev],
    hb: &HappensBefore,
    (k, change): (usize, &WokenChange),
    woken: ThreadId,
    conflicts: &impl Fn(usize) -> bool,
    out: &mut Vec<(usize, usize)>,
) {
    // After the change: the woken thread's own events, and those that conflict with it.
    let after: smallvec::SmallVec<[usize; 4]> = (k + 1..evs.len())
        .filter(|&c| evs[c].thread == woken || conflicts(c))
        .collect();
    let before = std::iter::once(k).chain(change.past.iter().map(|&p| p as usize));
    for x in before.filter(|&x| x <= k) {
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

/// The changes woken threads made in the execution, in the order of their waking steps.
fn changes_of(evs: &[Ev], trace: &[Event]) -> Vec<Change> {
    let mut out = Vec::new();
    for (at, step) in trace.iter().enumerate().filter(|(_, s)| !s.woke.is_empty()) {
        for change in &step.woke {
            out.push(Change {
                at,
                thread: named(evs, trace, change.thread),
                runtime: change.thread,
                past: change.past.clone(),
                access: events::touched_access(change.obj, change.how),
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
/// and taken as explored since the release slept there (`tests/dpor_vs_dfs.rs`,
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
fn after_with_changes(
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
/// (`tests/dpor_vs_dfs.rs`, `Family::Woken`, seed 54).
fn moves_a_change(
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
