//! Where a finished execution's races become new branches: each race `e_i ⋖ e_j` gives the
//! reversal sequence `notdep(e_i, E).e_j` ([`reversal`]), which goes into the wakeup tree of
//! the node before `e_i` unless a thread sleeping there is a weak initial of it
//! (`Dpor::insert`), or, in a split exploration, to where the sequential exploration would put
//! it (`Dpor::plant`). The module doc of `dpor` says how this departs from the paper.

use std::borrow::Cow;

use super::events::{self, Ev};
use super::split;
use super::wakeup::{self, is_weak_initial, SeqEv};
use super::woken::{
    after_with_changes, changes_of, moves_a_change, record_waits, woken_races, Change,
};
use super::Dpor;
use crate::rt::op::{Event, OpKind};

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
        if !changes.is_empty() {
            record_waits(&evs, trace, &mut self.names, &mut self.waits);
        }
        // One buffer for every race's sequence, and one for what comes after its first event.
        let mut v = Vec::new();
        let mut after = Vec::new();
        let hb_races = races.iter().map(|w| (w.0, w.1, false));
        let all = hb_races.chain(woken.iter().map(|w| (w.0, w.1, true)));
        for (i, j, is_woken) in all.filter(|&(i, ..)| i >= fixed && i < ran) {
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
                let hb = &self.hb;
                // A woken change's race is no edge of happens-before: what happens after `e_j`
                // is left out too, as the paper's `notdep` does (there the race is an edge).
                // Kept, the steps waiting for `e_j` stood before it (a `lock` before the
                // `unlock` it waits for: the sequence was abandoned, the execution ran again
                // and planted it again, for ever).
                let tj = evs[j].thread;
                let later = |k: usize| {
                    ordered.map_or_else(|| hb.before(i, ti, k), |a| a[k])
                        || (is_woken && j < k && hb.before(j, tj, k))
                };
                let kind = trace.get(j).map(|step| step.kind);
                reversal(contents, (i, j), (ran, kind), self.yields, later, &mut v);
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
/// what that thread may interleave, and the reversal stays. (The SPSC queue of `bounded_por/`,
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
/// tree does not have). `later`: whether an event happens after `e_i`, which `notdep` leaves
/// out (happens-before's, or, where the execution has changes made by woken threads, with those
/// changes as events: [`after_with_changes`]).
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
    (i, j): (usize, usize),
    (ran, kind): (usize, Option<OpKind>),
    yields: bool,
    later: impl Fn(usize) -> bool,
    v: &mut Vec<Cow<'a, Ev>>,
) {
    v.clear();
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
    // A barrier arrival whose count is known where it is moved returns what it will there
    // (whether it leads).
    let mut counted = false;
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
            counted = true;
        }
    }
    // Once a thread yielded, any step may be the one that lets it go (see the module doc).
    if yields {
        events::let_go_by(moved.to_mut(), true);
    }
    if !counted && may_take_another_path(kind) {
        moved.to_mut().touches_anything();
    }
    v.push(moved);
}

/// Whether the code after event `ev`'s operation (of `kind`; `None`: it never ran, and its
/// code is unknown) may take another path where a reversal moves it, and change other objects
/// than it did where it ran (`Access::Touches`): every operation whose result may differ
/// there ([`result_may_differ`]), since its thread's code may branch on it before its next
/// operation. A `try_lock` may succeed where it failed, and run its section; a load, a swap, a
/// compare-exchange may read another value, a lock another section's data. Only `try_lock`s
/// were taken so until the random programs branched on other results (`Family::Branching` of
/// `tests/dpor_vs_dfs/`): 7 of 2,000 fresh programs missed a trace, e.g. thread 2 locks
/// and reads an `Arc`'s count if its data is still 0, moved before thread 1's section by a
/// reversal that carried its step as it ran after that section, where it read nothing
/// (`a_lock_moved_before_a_section_runs_other_code`). A barrier arrival whose count the
/// reversal set returns what it will there (whether it leads): the caller leaves it out.
fn may_take_another_path(kind: Option<OpKind>) -> bool {
    kind.is_none_or(result_may_differ)
}

/// Whether what an operation of `kind` returns to its thread may differ where a reversal moves
/// it: everything but the operations whose result is fixed (a store, a release, a notify, an
/// unpark, a yield, a disconnect, a marker).
pub(crate) fn result_may_differ(kind: OpKind) -> bool {
    match kind {
        OpKind::Store
        | OpKind::Unlock
        | OpKind::ReadUnlock
        | OpKind::NotifyOne
        | OpKind::NotifyAll
        | OpKind::Unpark
        | OpKind::Yield
        | OpKind::QueueNotify
        | OpKind::QueueNotifyAll
        | OpKind::SendersGone
        | OpKind::ReceiverGone
        | OpKind::AnnotatedRelease
        | OpKind::AnnotatedReleaseShared
        | OpKind::EpochMarker
        | OpKind::Checkpoint => false,
        OpKind::Load
        | OpKind::Rmw
        | OpKind::CompareExchange
        | OpKind::Lock
        | OpKind::ReadLock
        | OpKind::TryLock
        | OpKind::CondvarWait
        | OpKind::BarrierWait
        | OpKind::Send
        | OpKind::Recv
        | OpKind::Park
        | OpKind::QueueWait
        | OpKind::Once
        | OpKind::SpuriousWake
        | OpKind::AnnotatedAcquire
        | OpKind::AnnotatedAcquireShared => true,
    }
}
