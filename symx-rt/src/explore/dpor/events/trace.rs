//! A finished execution's trace as the reduction's events ([`of_trace_into`]):
//! each step's canonical and exact accesses, its enablers, its access to the fairness object,
//! and what its code touched besides its operation ([`add_touched`]); and, for a trace that
//! repeats the last one's first steps, what stays of the last naming ([`FirstUses`]) and, for
//! the bounded reduction, which changes of the steps not repeated to undo ([`LetGos`]).

use smallvec::SmallVec;

use super::{Access, Canon, Ev, EventKey, Fair, Names};
use crate::rt::execution::location_hash;
use crate::rt::op::{ObjId, Op, OpKind, ThreadId, Touch};

/// The exact accesses (this execution's object ids) of an operation that has not run.
pub(crate) fn exact_of(op: &Op) -> SmallVec<[Access; 3]> {
    // Pushed, not `extend`ed: smallvec's `extend` of an `Option` costs more than the rest.
    let mut out = SmallVec::new();
    for a in exact_parts(op).into_iter().flatten() {
        out.push(a);
    }
    out
}

/// [`exact_of`]'s accesses in its order, one per object of the operation (its own, and the
/// lock a condvar wait releases), without a list: for checking a kept list against an
/// operation without making one (`bounded::ready`).
#[inline]
pub(crate) fn exact_parts(op: &Op) -> [Option<Access>; 2] {
    [
        op.obj.map(|o| Access::of(op.kind, o)),
        op.obj2.map(|o| Access::of(OpKind::Unlock, o)),
    ]
}

/// The object that models the scheduler's fairness rule for the optimal DPOR (a thread that
/// yielded gives way until another thread's step changes something): a yield writes it, a
/// step that changed something reads it (see [`fairness`]). Events carry their access to it
/// apart ([`Ev::fair`]); this id names it in their exact accesses (`races`).
pub(crate) const FAIRNESS: ObjId = ObjId::MAX;

/// The fairness rule's access of a step of `kind` (`quiet`: it changed nothing, `None`: not
/// known yet, taken as a change). Two yields, and a yield and a change of another thread,
/// do not commute: their order decides whether the yielding thread may run next. Two
/// changes commute, and a quiet step commutes with everything. A thread stopping at a
/// recorded context's checkpoint changes nothing and gives no way.
pub(crate) fn fairness(kind: OpKind, quiet: Option<bool>) -> Fair {
    match (kind, quiet) {
        (OpKind::Yield, _) => Fair::Write,
        (_, Some(true)) | (OpKind::Checkpoint, _) | (OpKind::Load, None) => Fair::None,
        _ => Fair::Read,
    }
}

/// Makes `ev` the step that let a thread that yielded run again: it writes the fairness
/// object (it does not commute with another step that changes something, which would have let
/// the thread go in its place); with `exact`, its exact accesses say so too.
pub(crate) fn let_go_by(ev: &mut Ev, exact: bool) {
    ev.fair = Fair::Write;
    if exact {
        match (ev.exact.iter_mut()).find(|a| a.object() == Some(FAIRNESS)) {
            Some(a) => *a = Access::Write(FAIRNESS),
            None => ev.exact.push(Access::Write(FAIRNESS)),
        }
    }
}

/// The events of a finished execution, with everything only known after it ran: canonical and
/// exact accesses, and enablers, into `out`, so that its memory serves every execution.
/// `thread_of` names a thread by its spawn-path key. With `again`
/// (`(shared, uses)`): `out` holds the last execution's events, of which the first `shared`
/// are this one's too (it ran them again under the same schedule). Those stay, only their
/// execution changes, and their objects are named as the last execution named them
/// ([`FirstUses`]): only the events after them are named. An event a later one changed (the
/// step that let a thread that yielded go, see [`let_go_by`]) is no longer the one its step
/// was: the last execution's are named again from the first such, and the first this one
/// changes ends what stays as it was. With `fairness` (`Some(yields)`), events carry their
/// access to the fairness object, and their exact accesses hold it too when `yields`: the
/// caller keeps no events made with another `yields`.
///
/// With a [`FirstUses::undoing`], the first `shared` stay whatever later steps changed: the
/// changes the last execution's steps from `shared` on made to them are undone instead
/// ([`LetGos`]), and this one's made again.
///
/// Returns how many of the first events are the last execution's unchanged (but for their
/// execution number).
pub(crate) fn of_trace_into(
    trace: &[crate::rt::op::Event],
    names: &mut Names,
    thread_of: &mut impl FnMut(u64) -> ThreadId,
    execution: u64,
    fairness: Option<bool>,
    out: &mut Vec<Ev>,
    mut again: Option<(usize, &mut FirstUses)>,
) -> usize {
    let shared = match &again {
        Some((shared, uses)) if uses.undo.is_some() => *shared,
        Some((shared, uses)) => (*shared).min(uses.changed_later),
        None => 0,
    };
    let shared = shared.min(out.len()).min(trace.len());
    // The first event a later one changed.
    let mut changed = usize::MAX;
    if let Some(undo) = again.as_mut().and_then(|(_, uses)| uses.undo.as_mut()) {
        undo.back_to(shared, out);
    }
    out.truncate(shared);
    // At once: doubling copied the events into fresh memory several times in a first
    // execution, where a page touched for the first time costs more than the copy.
    out.reserve(trace.len() - shared);
    // Events per thread so far: an event's index; and per thread and location: its `nth`.
    let mut counts: SmallVec<[u32; 16]> = SmallVec::new();
    let mut occurrences = std::mem::take(&mut names.counted);
    occurrences.clear();
    for (ev, step) in out.iter_mut().zip(trace) {
        ev.execution = execution;
        grow(&mut counts, ev.thread, 0);
        counts[ev.thread] = ev.index + 1;
        let nth = occurrences.count(ev.thread, location_hash(step.location));
        debug_assert_eq!(nth, ev.nth, "a kept event is counted as it was");
    }
    if let Some((_, uses)) = &mut again {
        uses.restart(shared, names);
    }
    // Each runtime thread's name, looked up once (`usize::MAX`: not yet).
    let mut named: SmallVec<[ThreadId; 16]> = SmallVec::new();
    for (k, ev) in trace.iter().enumerate().skip(shared) {
        grow(&mut named, ev.thread, usize::MAX);
        if named[ev.thread] == usize::MAX {
            named[ev.thread] = thread_of(ev.thread_key);
        }
        let thread = named[ev.thread];
        grow(&mut counts, thread, 0);
        let index = counts[thread];
        counts[thread] += 1;
        let location = location_hash(ev.location);
        let nth = occurrences.count(thread, location);
        let at = EventKey {
            thread,
            index,
            nth,
            location,
        };
        let refine = |a: Access| a.refined(ev.kind, ev.outcome, ev.value);
        let mut accesses: SmallVec<[Access; 3]> =
            smallvec::smallvec![refine(names.access(ev.kind, ev.obj, at, 0))];
        if ev.obj2.is_some() {
            accesses.push(names.access(OpKind::Unlock, ev.obj2, at, 1));
        }
        for (slot, &(o, how)) in ev.touched.iter().enumerate() {
            let canon = names.name(o, at, 2 + slot as u8);
            accesses.push(touched_access(canon, how));
        }
        let mut exact: SmallVec<[Access; 3]> = SmallVec::new();
        if let Some(o) = ev.obj {
            exact.push(refine(Access::of(ev.kind, o)));
        }
        if let Some(o) = ev.obj2 {
            exact.push(Access::Unlock(o));
        }
        for &(o, how) in &ev.touched {
            exact.push(touched_access(o, how));
        }
        let mut enablers: SmallVec<[(ThreadId, u32); 2]> = SmallVec::new();
        for &i in &ev.enablers {
            let enabler = &out[i as usize];
            enablers.push((enabler.thread, enabler.index));
        }
        if let Some((_, uses)) = &mut again {
            // The canonical accesses without the operation's `None` line up with the exact.
            let canonical = accesses.iter().filter(|a| **a != Access::None);
            for (e, c) in exact.iter().zip(canonical) {
                if let (Some(o), Some(c)) = (e.object(), c.object()) {
                    uses.note(k, o, c);
                }
            }
        }
        let mut fair = Fair::None;
        if let Some(yields) = fairness {
            fair = self::fairness(ev.kind, Some(ev.quiet));
            // Without a write of the object (no thread yielded yet), its reads order nothing
            // in the execution's happens-before: they stay out of the history.
            if let Some(a) = fair.access(FAIRNESS).filter(|_| yields) {
                exact.push(a); // pushed: smallvec's `extend` of an `Option` costs ~60 more
            }
            if let Some(k) = ev.let_go {
                let (k, by) = (k as usize, out.len());
                let enabler = &mut out[k];
                enablers.push((enabler.thread, enabler.index));
                match again.as_mut().and_then(|(_, uses)| uses.undo.as_mut()) {
                    Some(undo) => undo.let_go(k, by, k < shared, &trace[k], enabler, yields),
                    None => let_go_by(enabler, yields),
                }
                changed = changed.min(k);
            }
        }
        out.push(Ev {
            thread,
            index,
            nth,
            accesses,
            exact,
            execution,
            enablers,
            fair,
        });
    }
    names.counted = occurrences;
    if let Some((_, uses)) = again {
        if let Some(undo) = &uses.undo {
            return undo.unchanged(out, shared);
        }
        uses.changed_later = changed;
    }
    shared.min(changed)
}

/// Makes `v[at]` exist, new items `fill`. Pushed: smallvec's `resize` costs ~60 instructions
/// even when it adds one item.
fn grow<A: smallvec::Array>(v: &mut SmallVec<A>, at: usize, fill: A::Item)
where
    A::Item: Copy,
{
    while v.len() <= at {
        v.push(fill);
    }
}

/// Each object's first access in the last trace [`of_trace_into`] named, in trace order, with
/// the name it got there: what naming a trace's first events again would do to the names of
/// this execution's objects ([`Names::adopt`]), without naming them again.
///
/// Naming is idempotent on a repeated event: each of its keys got a name the last time, in
/// the class of its object's other names then, and the event's object ids are the same (the
/// runtime numbers objects by first use). What naming it again adds to this execution is only
/// the joining of each object's name to whatever named the object already in this execution
/// (a pending operation): one join per object, made by [`restart`](Self::restart).
#[derive(Default)]
pub(crate) struct FirstUses {
    /// (event, runtime object, its name there).
    firsts: Vec<(usize, ObjId, Canon)>,
    /// The first event of the last trace that a later one changed (`usize::MAX`: none), see
    /// [`of_trace_into`]: a trace that repeats it may not change it (the thread it let go
    /// never runs again there), so it is not reused as it was
    /// (`tests/dpor_counts.rs::a_reused_step_that_no_longer_lets_a_yielded_thread_go`).
    changed_later: usize,
    /// `stamp[o] == now`: object `o` is in `firsts` (ids below [`DENSE_OBJECTS`]; the runtime
    /// numbers objects densely from 0, the few others are looked for in `firsts`).
    stamp: Vec<u32>,
    now: u32,
    /// With [`FirstUses::undoing`]: the let-go changes of the last trace, which a trace that
    /// repeats its first steps undoes for the steps it does not repeat.
    undo: Option<LetGos>,
}

const DENSE_OBJECTS: usize = 1 << 16;

impl FirstUses {
    /// First uses that keep the last trace's let-go changes to undo them ([`LetGos`]): a trace
    /// that repeats the last one's first steps then keeps all of their events, where without
    /// it (the optimal DPOR's) it names them again from the first one a later step changed.
    pub(crate) fn undoing() -> FirstUses {
        FirstUses {
            undo: Some(LetGos::default()),
            ..FirstUses::default()
        }
    }

    /// Starts a trace whose first `shared` events are the last one's: keeps their objects'
    /// first uses and names each of those objects as before.
    fn restart(&mut self, shared: usize, names: &mut Names) {
        let keep = self.firsts.partition_point(|f| f.0 < shared);
        self.firsts.truncate(keep);
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.stamp.fill(0);
            self.now = 1;
        }
        for i in 0..self.firsts.len() {
            let (_, o, c) = self.firsts[i];
            self.mark(o);
            names.adopt(o, c);
        }
    }

    /// Event `k` accessed object `o`, named `c` there.
    fn note(&mut self, k: usize, o: ObjId, c: Canon) {
        if self.mark(o) {
            self.firsts.push((k, o, c));
        }
    }

    /// Marks `o` as accessed in this trace; whether it was not before.
    fn mark(&mut self, o: ObjId) -> bool {
        let i = o as usize;
        if i >= DENSE_OBJECTS {
            return !self.firsts.iter().any(|f| f.1 == o);
        }
        if self.stamp.len() <= i {
            self.stamp.resize(i + 1, 0);
        }
        let first = self.stamp[i] != self.now;
        self.stamp[i] = self.now;
        first
    }
}

/// The changes [`let_go_by`] made to a trace's events, in the order the steps that let a
/// thread go came, each with what it replaced: an event a later step changed (the step that
/// let a yielded thread go) is kept by a trace that repeats it though the later step may not
/// come again (`tests/dpor_counts.rs::a_reused_step_that_no_longer_lets_a_yielded_thread_go`),
/// so the changes of the steps not repeated are undone ([`LetGos::back_to`]), and the new steps'
/// made again. A change is one event's fairness access and at most one exact access, so an
/// execution's log is short.
#[derive(Default)]
struct LetGos {
    log: Vec<LetGo>,
    /// The kept events this trace changed (undone or changed again), as the last trace left
    /// them: (event, fairness access, exact accesses), to tell whether they still are.
    was: Vec<(usize, Fair, SmallVec<[Access; 3]>)>,
}

/// Step `by` made event `event` the one that let a thread go; before, the event had `fair`,
/// and `exact` says what happened to its exact accesses.
struct LetGo {
    by: usize,
    event: usize,
    fair: Fair,
    exact: ExactChange,
}

enum ExactChange {
    None,
    /// The access at this position (the fairness object's) was this one.
    Replaced(usize, Access),
    /// The write of the fairness object was put at this position.
    Inserted(usize),
}

impl LetGos {
    /// Undoes the changes made by the last trace's steps from `shared` on to its first
    /// `shared` events (`out`), the ones a trace repeating `shared` steps keeps.
    fn back_to(&mut self, shared: usize, out: &mut [Ev]) {
        self.was.clear();
        while let Some(g) = self.log.pop_if(|g| g.by >= shared) {
            let Some(ev) = out.get_mut(g.event).filter(|_| g.event < shared) else {
                continue;
            };
            remember(&mut self.was, g.event, ev);
            ev.fair = g.fair;
            match g.exact {
                ExactChange::None => {}
                ExactChange::Replaced(at, a) => ev.exact[at] = a,
                ExactChange::Inserted(at) => {
                    ev.exact.remove(at);
                }
            }
        }
    }

    /// [`let_go_by`] of event `k` (`ev`, step `step`'s in the trace; `kept`: one of the last
    /// trace's) by step `by`, logged. A write of the fairness object goes where naming the
    /// event afresh would have put it, after its step's own accesses, before what the caller
    /// adds to them after naming.
    fn let_go(
        &mut self,
        k: usize,
        by: usize,
        kept: bool,
        step: &crate::rt::op::Event,
        ev: &mut Ev,
        exact: bool,
    ) {
        if kept {
            remember(&mut self.was, k, ev);
        }
        let fair = std::mem::replace(&mut ev.fair, Fair::Write);
        let change = match (
            exact,
            ev.exact.iter().position(|a| a.object() == Some(FAIRNESS)),
        ) {
            (false, _) => ExactChange::None,
            (true, Some(at)) => ExactChange::Replaced(
                at,
                std::mem::replace(&mut ev.exact[at], Access::Write(FAIRNESS)),
            ),
            (true, None) => {
                let own = usize::from(step.obj.is_some())
                    + usize::from(step.obj2.is_some())
                    + step.touched.len();
                let at = own.min(ev.exact.len());
                ev.exact.insert(at, Access::Write(FAIRNESS));
                ExactChange::Inserted(at)
            }
        };
        self.log.push(LetGo {
            by,
            event: k,
            fair,
            exact: change,
        });
    }

    /// How many first events of `out` are the last trace's but for their execution: the
    /// first `shared`, unless this trace changed one of them differently.
    fn unchanged(&self, out: &[Ev], shared: usize) -> usize {
        let differs = |(k, fair, exact): &&(usize, Fair, SmallVec<[Access; 3]>)| {
            out[*k].fair != *fair || out[*k].exact != *exact
        };
        (self.was.iter().filter(differs).map(|w| w.0)).fold(shared, usize::min)
    }
}

/// Keeps event `k` (`ev`) as it is now in `was`, unless it is there already.
fn remember(was: &mut Vec<(usize, Fair, SmallVec<[Access; 3]>)>, k: usize, ev: &Ev) {
    if !was.iter().any(|w| w.0 == k) {
        was.push((k, ev.fair, SmallVec::from_slice(&ev.exact)));
    }
}

/// Adds to `ev`, the pending event of a step that has just ended, what its step touched
/// besides its operation's objects (known only now: a drop in the code after the operation),
/// named as [`of_trace_into`] names them. `location` is the hash of the operation's location. A
/// sleeping event must be compared with all the step did, or a thread stays asleep after a
/// step that freed what its drop would have freed.
pub(crate) fn add_touched(
    ev: &mut Ev,
    touched: impl IntoIterator<Item = (ObjId, Touch)>,
    location: u64,
    names: &mut Names,
) {
    let at = EventKey {
        thread: ev.thread,
        index: ev.index,
        nth: ev.nth,
        location,
    };
    for (slot, (o, how)) in touched.into_iter().enumerate() {
        let canon = names.name(o, at, 2 + slot as u8);
        ev.accesses.push(touched_access(canon, how));
    }
}

/// Adds to `ev`, the event of step `step`, what the code of the threads it woke changed
/// ([`Event::woke`](crate::rt::op::Event::woke)), named after the step's own changes: a
/// sleeping event must be compared with those too, or it stays asleep after a step whose
/// woken thread changed what it reads. `exact`: the exact accesses too (`ev` holds them).
pub(crate) fn add_woken(ev: &mut Ev, step: &crate::rt::op::Event, exact: bool, names: &mut Names) {
    let at = EventKey {
        thread: ev.thread,
        index: ev.index,
        nth: ev.nth,
        location: location_hash(step.location),
    };
    for (n, change) in step.woke.iter().enumerate() {
        let canon = names.name(change.obj, at, (2 + step.touched.len() + n) as u8);
        ev.accesses.push(touched_access(canon, change.how));
        if exact {
            ev.exact.push(touched_access(change.obj, change.how));
        }
    }
}

/// The access of a step's change to an object other than its operation's own.
pub(crate) fn touched_access(obj: Canon, how: Touch) -> Access {
    match how {
        Touch::Changed => Access::Other(obj),
        Touch::DroppedSender => Access::DroppedSender(obj),
        Touch::CountedSenders => Access::CountedSenders(obj),
        Touch::Released => Access::Released(obj),
        Touch::ReleasedNoGlue => Access::ReleasedNoGlue(obj),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rt::op::Event;

    fn step(thread: ThreadId, kind: OpKind, obj: Option<ObjId>, let_go: Option<u32>) -> Event {
        Event {
            thread,
            thread_key: thread as u64,
            kind,
            obj,
            obj2: None,
            value: Default::default(),
            order: None,
            location: std::panic::Location::caller(),
            touched: SmallVec::new(),
            joined: SmallVec::new(),
            woke: Vec::new(),
            outcome: Default::default(),
            enablers: SmallVec::new(),
            quiet: kind == OpKind::Load,
            let_go,
            fixed: false,
            blind: false,
        }
    }

    /// A trace that repeats the last one's first steps keeps their events, undoing what the
    /// steps it does not repeat changed (the step that let a yielded thread go: an inserted
    /// write of the fairness object, or a replaced read of it) and making its own steps'
    /// changes: every event is the one naming the trace afresh makes, and what it returns
    /// counts the events the last trace had the same.
    #[test]
    fn kept_events_are_the_fresh_ones_whatever_later_steps_let_go() {
        use OpKind::{Load, Store, Yield};
        let (yield_, x, y) = (step(1, Yield, None, None), Some(1), Some(2));
        // Step 3 lets thread 1 go after its yield: the load (no fairness access) in `a`, the
        // store (a read of it) in `c`; neither in `b` and `d`.
        let a = [
            step(0, Store, x, None),
            yield_.clone(),
            step(0, Load, y, None),
            step(1, Store, x, Some(2)),
        ];
        let mut b = a[..3].to_vec();
        b.extend([step(0, Store, y, None), step(1, Store, x, Some(3))]);
        let mut c = a[..2].to_vec();
        c.extend([step(0, Store, y, None), step(1, Store, x, Some(2))]);
        let d = [c[0].clone(), yield_, c[2].clone(), step(0, Load, x, None)];
        // (trace, steps repeated from the one before, events the one before had the same)
        let runs: [(&[Event], usize, usize); 5] =
            [(&a, 0, 0), (&b, 3, 2), (&a, 3, 2), (&c, 2, 2), (&d, 3, 2)];
        let (mut names, mut uses, mut kept) = (Names::default(), FirstUses::undoing(), vec![]);
        for (n, &(trace, repeated, same)) in runs.iter().enumerate() {
            let execution = 2 * n as u64 + 1;
            names.new_execution();
            let mut threads = |k: u64| k as ThreadId;
            let again = Some((repeated, &mut uses));
            let unchanged = of_trace_into(
                trace,
                &mut names,
                &mut threads,
                execution,
                Some(true),
                &mut kept,
                again,
            );
            assert_eq!(unchanged, same, "run {n}");
            names.new_execution();
            let mut fresh = vec![];
            of_trace_into(
                trace,
                &mut names,
                &mut threads,
                execution + 1,
                Some(true),
                &mut fresh,
                None,
            );
            let view = |e: &Ev| {
                (
                    e.thread,
                    e.index,
                    e.exact.clone(),
                    e.fair,
                    e.enablers.clone(),
                )
            };
            assert_eq!(
                kept.iter().map(view).collect::<Vec<_>>(),
                fresh.iter().map(view).collect::<Vec<_>>(),
                "run {n}"
            );
        }
        assert_eq!(kept[2].fair, Fair::Read, "d's store lets no thread go");
    }
}
