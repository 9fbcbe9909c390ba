//! The bounded sleep rule: whether a branch, once explored, puts its thread to sleep in the
//! branches after it ([`puts_to_sleep`]) or half to sleep, running only to continue
//! ([`half_sleeps`]), and what counts there as a release of its step: an
//! operation that may let another thread's operation run ([`releases`]), or a thread's end that
//! a join may wait for ([`ends_release`]). Without a bound every branch puts its thread to sleep
//! (Godefroid's sleep sets); the cases here are the bound's.

use smallvec::SmallVec;

use super::backtrack::Lookahead;
use super::node::Node;
use crate::explore::dpor::events::{dependent, Access, Canon, Ev, Names};
use crate::rt::op::{Event, OpKind, ThreadId};

/// Whether the branch just explored at `node` puts its thread to sleep in the branches after
/// it. Without a bound, always (Godefroid's sleep sets). Under a bound, only when its step
/// [`releases`] nothing and the switch away from its thread `p` after it costs nothing the
/// later branches' schedules do not pay: `p` continued the previous step's thread (`last`;
/// before the first step, the main thread, which the scheduler counts as running then: a
/// switch away from it at the first step is a preemption), or `p` cannot run right after its
/// step (`Node::continues` is false: it blocked, or its yield hides it), so that switching
/// away from it there is free. A later branch's schedule `q.w.p.x` (`p` commuting with `q.w`)
/// is then equivalent to `p.q.w.x`, which pays at most as many preemptions, so the branch of
/// `p`, complete for the bound, covers it:
/// - at the front, when `p` is `last`, switching away from `p` costs what switching to `q`
///   did; when `p` is another thread, switching to `p` costs what switching to `q` did
///   (neither is `last`: a node's first branch is `last`'s when it can run, and where it
///   cannot, both switches are free), and the switch from `p` to `q` is free;
/// - taking `p` out of the middle removes switches, adds none;
/// - a switch in `w` away from a thread that blocked stays free, since `p` frees nothing that
///   thread could wait for.
///
/// Otherwise moving `p` to the front can cost the preemption that the bound then cuts off;
/// and moving a release to the front can let a thread in `w` run that blocked there (a lock
/// `p` unlocks), so that the free switch away from it becomes a preemption: such branches keep
/// their thread awake. Why the branch was taken does not matter (a race's point or a
/// conservative one, which until session 15 put nothing to sleep): the argument uses only
/// that its exploration is complete for the bound from the state after `p`.
///
/// Those are the bound's cases: a branch below which the bound hid no enabled thread was
/// explored as without a bound (yields hide threads there too, see [`Node`]'s `cut`),
/// covering every continuation, so its thread sleeps as in Godefroid's sleep sets.
pub(super) fn puts_to_sleep(node: &Node, last: ThreadId, bounded: bool) -> bool {
    !bounded || !node.below || (!node.releases && (last == node.chosen || !node.continues))
}

/// Whether the branch just explored at `node` half-puts its thread `p` to sleep in the
/// branches after it, where [`puts_to_sleep`] does not: under a bound, when the bound hid a
/// thread below it, its step [`releases`] nothing, `p` is not `last` and can run right after
/// its step (`Node::continues`: not blocked, not hidden by its yield). Then in those branches
/// `p` runs only to continue: once run, where it can run right after its step it runs again,
/// and no other thread is tried at the step after (`Node::only`). The schedules left out are
/// `q.w.p.r.x`, `p` commuting with `q.w`, `r` not `p` though `p` could run. Each is
/// equivalent to `p.q.w.r.x`, which pays at most as many preemptions, so the branch of `p`,
/// complete for the bound, covers it. Against [`puts_to_sleep`]'s argument (the front, `q.w`
/// unchanged) two switches differ:
/// - `p` to `q` is a preemption now, since `p` can run after its step; but so is `p` to `r` in
///   the schedule left out;
/// - the last thread of `q.w` (`q` if `w` is empty) switches to `r` instead of `p`: a
///   preemption only if that thread can run there, as the switch to `p` was (`p`, releasing
///   nothing, cannot have let it run), and free if it is `r`.
///
/// Where `p` cannot run right after its step in a later branch (it blocks on what `q.w` did),
/// the switch after it is free and nothing is left out. A node whose other branches were left
/// out counts as cut (the parent's `below`, its deferred conservative points planted): the
/// exploration below it is no longer the unbounded one, which the sleep rule and the
/// deferral take it for (without that, the differentials missed traces: a branch below which
/// only these were left out put its thread fully to sleep).
pub(super) fn half_sleeps(node: &Node, last: ThreadId, bounded: bool) -> bool {
    bounded && node.below && !node.releases && last != node.chosen && node.continues
}

/// Extends [`half_sleeps`]'s continuation down a chain of the half-asleep thread's steps
/// (`Node::only`, set here on the nodes after the first). Say a later branch at node `n` ran
/// `q.w`, then `p` from its half (at node `s`), then `p` again (only `p` is tried there): the
/// schedules left out at the node after are `q.w.p.p2.r.x`, `r` not `p` though `p` could run.
/// Where `p2` releases nothing and commutes with `q.w` (each step of `w` is independent of it),
/// such a schedule is equivalent to `p.p2.q.w.r.x`, which pays at most as many preemptions, so
/// the branch of `p` at `n`, complete for the bound, covers it. The switches differ as in
/// [`half_sleeps`]'s argument: `p2` to `q` (at most one preemption) against `p2` to `r` (one,
/// since `p` can run there); the last thread of `q.w` to `r` against to `p` (a preemption only
/// if that thread can run, which `p.p2`, releasing nothing, cannot have made it); a switch in
/// `w` away from a thread that blocked stays free, for the same reason. By induction the same
/// holds down a chain `p.p2.p3...` of such steps; `p` can run at each node marked (it is the
/// thread chosen there). Every other branch at a node marked is covered, whatever follows, so
/// leaving them out leaves no trace to a sleeper (see `docs/bounded-por.md`, "Session 17");
/// such a node counts as cut, as [`half_sleeps`]'s. `evs` are the execution's events as they
/// ran (a step that woke threads: its node's `event`, with their changes).
pub(super) fn continue_half(nodes: &mut [Box<Node>], evs: &[Ev], names: &mut Names) {
    for k in 1..nodes.len().min(evs.len()) {
        let (p, before) = (nodes[k].chosen, &nodes[k - 1]);
        if nodes[k].only || !before.only || before.chosen != p || before.releases {
            continue;
        }
        // The chain's start `s` ran `p` from its half; `p` was in the half of every node from
        // the one after `n` to `s`, where the steps of `q.w` ran.
        let mut s = k - 1;
        while nodes[s].only {
            s -= 1;
        }
        let mut n = s;
        while n > 0 && nodes[n].half.iter().any(|h| h.thread == p) {
            n -= 1;
        }
        let step = ran(nodes, evs, k - 1);
        let commutes = (n..s).all(|j| !dependent(ran(nodes, evs, j), step, names));
        nodes[k].only = commutes;
    }
}

/// Step `j`'s event as it ran: `evs[j]`, or, where the step woke threads, its node's event
/// with their changes (`Node::woke`).
fn ran<'a>(nodes: &'a [Box<Node>], evs: &'a [Ev], j: usize) -> &'a Ev {
    match nodes[j].woke {
        true => &nodes[j].event,
        false => &evs[j],
    }
}

/// Whether step `ev` may let an operation of another thread run that could not run before:
/// a release of a lock, a send, a disconnect, a notify, a barrier arrival, an unpark, a `Once`
/// completed (anything on an object but reading, writing, acquiring and receiving from an
/// unbounded channel).
pub(super) fn releases(ev: &Ev) -> bool {
    ev.exact.iter().any(|a| {
        !matches!(
            a,
            Access::None
                | Access::Read(_)
                | Access::Write(_)
                | Access::Lock(_)
                | Access::TryLock(_)
                | Access::TryLockOk(_)
                | Access::Shared(_)
                | Access::Took(..)
                | Access::DroppedSender(_)
                | Access::Released(_)
                | Access::ReleasedNoGlue(_)
                | Access::Observe(_)
                | Access::ObserveSignal(_)
        )
    })
}

/// Per thread of `evs`, whether its end (its last step) may let an operation of another thread
/// run that could not run before, as [`releases`] asks of a step: a join waits for it. Not when
/// another thread's event here came after the end (a join), and every such event's thread was
/// waiting for it already before the end (its previous event comes before the end's step; a
/// join that did not wait, or a spawn, is not that): the joining thread holds the handle, so no
/// other thread waits for the end in any execution, and in every continuation of a state before
/// the end it cannot run until the end. Moving the end to the front of a later branch's
/// schedule `q.w.p.x` ([`puts_to_sleep`]) then lets only a thread run early that does not run
/// in `q.w`, which changes no switch there: a switch's cost depends on whether the thread
/// switched away from can run. Not where a thread yielded either: there a thread that can run
/// keeps the scheduler from starting a new round for those that yielded, which `q.w` may need.
///
/// That covers every trace the sleeper stands for, not only the schedules it leaves out (see
/// `docs/bounded-por.md`, "Session 17" and "Session 18"): the end `p` sleeps at state `S`
/// and stands for each trace from `S` with `p` among its initials, and every schedule of such
/// a trace within the bound is some `q.w.p.y` with `p` independent of each step of `q.w`
/// (an initial follows nothing in any of its trace's schedules). Moving `p` to the front
/// keeps every step and the state after `q.w.p`, so it changes only switches: at the front as
/// in [`puts_to_sleep`] (an end cannot run on, so the switch away from it is free), and in
/// `q.w` only where the thread switched away from can run in one order and not in the other.
/// What `p` changes for that: (1) its own accesses, none a release ([`releases`]); (2) the
/// threads that come after it by enabling, its joiners `J`, which at `S` take no step until
/// `p` (checked on this branch's execution: their previous event is before `S`, and a join,
/// or a wait a joiner's chain hangs on, holds until `p`), so none runs in `q.w` and none is
/// switched away from there; (3) what those joiners' code changes when `p` wakes them, run
/// right after `p` in both orders and recorded on `p`'s step (`Event::woke`, in the sleeping
/// event): nothing a thread in `w` blocks on with no step of its own, since that code runs no
/// operation: what it can release is a `Once` it completes (whose waiters each ran a step on
/// the `Once` before waiting, which conflicts with the completion, so such a `w` wakes the
/// sleeper) or the joiner's own end (whose own joiner is then one of `J`, see (2)). So
/// `p.q.w.y` pays at most what `q.w.p.y` does and is within the bound, and `p`'s branch,
/// complete for the bound from `S`, explored its trace. (A targeted search found no trace
/// missed because of it, session 18, in `docs/bounded-por.md`.)
pub(super) fn ends_release(evs: &[Ev], yields: bool) -> SmallVec<[bool; 8]> {
    let threads = threads_in(evs);
    let mut out: SmallVec<[bool; 8]> = smallvec::smallvec![true; threads];
    if yields {
        return out;
    }
    let mut last: SmallVec<[usize; 8]> = smallvec::smallvec![0; threads];
    for (k, e) in evs.iter().enumerate() {
        last[e.thread] = k;
    }
    // Per thread, whether an event came after its end: only by threads waiting for it already.
    let mut joined: SmallVec<[Option<bool>; 8]> = smallvec::smallvec![None; threads];
    let mut previous: SmallVec<[Option<usize>; 8]> = smallvec::smallvec![None; threads];
    for (j, e) in evs.iter().enumerate() {
        for &(t, n) in &e.enablers {
            let Some(&end) = last.get(t) else { continue };
            if t == e.thread || evs[end].index != n {
                continue;
            }
            let waiting = previous[e.thread].is_some_and(|p| p < end);
            joined[t] = Some(joined[t].unwrap_or(true) && waiting);
        }
        previous[e.thread] = Some(j);
    }
    for (o, j) in out.iter_mut().zip(&joined) {
        *o = *j != Some(true);
    }
    out
}

/// How many threads the events `evs` name (names are dense from 0).
pub(super) fn threads_in(evs: &[Ev]) -> usize {
    evs.iter().map(|e| e.thread + 1).max().unwrap_or(0)
}

/// Whether a branch of `p` at node `at` of the execution `evs` just ended, asked for by one of
/// its points, is covered, whatever follows: `p` is half-asleep there ([`half_sleeps`], taken
/// at the node `n` above), can run there, and its run from there to its end, as `evs` shows
/// it, is a chain [`continue_half`] keeps going (each step releases nothing and commutes with
/// every step from `n` to `at`, the `q.w` of the later branch). Such a branch explores
/// exactly the schedules `q.w.p.p2..pk.x` (`pk` `p`'s end; the nodes of the chain are `only`),
/// and each is equivalent to `p.p2..pk.q.w.x`, which pays no more preemptions, so `p`'s
/// branch at `n`, complete for the bound, explored its trace:
/// - at the front, as in [`half_sleeps`]: the switch to `p` costs what the switch to `q` did;
/// - `pk` to `q` is free, since `p` has ended (where [`continue_half`]'s chains pay the
///   switch from a `p` that can still run, here nothing is paid);
/// - the last thread of `q.w` switches to the first of `x` instead of to `p`: a preemption
///   only if that thread can run there, as the switch to `p` was (`p`'s steps, releasing
///   nothing, cannot have let it run), and free if it is that thread;
/// - a switch in `w` away from a thread that blocked stays free, since `p`'s steps release
///   nothing; a thread that joins `p` blocks in neither order within `q.w` (checked below:
///   none comes to its join in `w`).
///
/// `p`'s run there is the one `evs` shows: its events from `at` on read what they read in
/// `evs`, since the last change before each of them of an object it reads (`trace`: the steps'
/// operations; a store reads nothing of its object) is `p`'s own or before `at`, not another
/// thread's in between; none of them waits for another thread's event after `at`; and `p`
/// ended (it is not among the threads left with an operation, `unfinished`). Not where a step
/// woke a thread whose code changed objects (those changes are not checked here), nor where a
/// thread yielded (the caller's: a thread that can run keeps the scheduler from starting a new
/// round for those that yielded, as in [`ends_release`]). The node counts as cut, as
/// `Node::only`'s do: the exploration below it leaves a branch out. A point asks for `p` there
/// when `p` is the thread it would add ([`Node::adds`]); then it is as if `p` were tried there
/// already. What it saves, and which repeats are left: `docs/bounded-por.md`, "Session 19".
pub(super) fn runs_to_its_end(
    nodes: &[Box<Node>],
    evs: &[Ev],
    trace: &[Event],
    at: usize,
    p: ThreadId,
    unfinished: &[Lookahead],
    names: &mut Names,
) -> bool {
    let Some(node) = nodes.get(at) else {
        return false;
    };
    let half = |n: &Node| n.half.iter().any(|h| h.thread == p);
    if !half(node) || !node.ready.contains(&p) || unfinished.iter().any(|l| l.thread == p) {
        return false;
    }
    let mut n = at;
    while n > 0 && half(&nodes[n]) {
        n -= 1;
    }
    let steps = nodes.len().min(evs.len()).min(trace.len());
    let mine: SmallVec<[usize; 8]> = (at..steps).filter(|&t| evs[t].thread == p).collect();
    let Some(&end) = mine.last() else {
        return false;
    };
    let position = |(t, i): (ThreadId, u32)| evs.iter().position(|e| e.thread == t && e.index == i);
    for &t in &mine {
        let e = &evs[t];
        if nodes[t].releases || nodes[t].woke {
            return false;
        }
        if (n..at).any(|j| dependent(ran(nodes, evs, j), e, names)) {
            return false;
        }
        let waits = e
            .enablers
            .iter()
            .any(|&(th, i)| th != p && position((th, i)).is_none_or(|q| q >= at));
        if waits {
            return false;
        }
        // The last change before it of each object it uses is `p`'s own, or before `at`.
        let changes = |s: usize, o: Canon| {
            let change = |a: &Access| !matches!(a, Access::None | Access::Read(_));
            (evs[s].exact.iter()).any(|a| change(a) && a.object() == Some(o))
        };
        // A store reads nothing of its object (its other accesses, drops, are checked).
        let reads =
            |a: &&Access| !(trace[t].kind == OpKind::Store && matches!(a, Access::Write(_)));
        let changed = e
            .exact
            .iter()
            .filter(reads)
            .filter_map(|a| a.object())
            .any(|o| {
                let last = (at..t).rev().find(|&s| nodes[s].woke || changes(s, o));
                last.is_some_and(|s| evs[s].thread != p || nodes[s].woke)
            });
        if changed {
            return false;
        }
    }
    // A thread that joins `p` must not come to the join in `w` (its previous event there).
    let last = (p, evs[end].index);
    evs.iter().enumerate().all(|(j, e)| {
        if e.thread == p || !e.enablers.contains(&last) {
            return true;
        }
        let previous = evs[..j].iter().rposition(|f| f.thread == e.thread);
        previous.is_none_or(|q| q < n || q >= at)
    })
}
