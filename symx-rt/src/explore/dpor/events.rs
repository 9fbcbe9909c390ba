//! Events as the partial-order reduction sees them: who (thread and per-thread index), what
//! (an access summary per object), and the dependence relation between them.
//!
//! Objects get canonical names that survive from one execution to the next: the runtime numbers
//! objects by first use, which depends on the interleaving, so names are tied to the events
//! that use them and merged (union-find) whenever two names turn out to denote one object.
//! Merging can only add dependences, which costs reduction, never soundness.
//!
//! Dependence per primitive. Atomics: loads commute with loads. Locks: see [`orders_by`].
//! Channels, `Once`/`OnceLock`, notifies and barrier waits are refined by what the operation
//! did ([`Access::refined`], see [`refined_conflict`]). The arrivals at a barrier before the
//! last commute with each other, and the last (the leader, which the program can see)
//! conflicts with them all ([`Access::CountDown`], which carries how many arrivals are still
//! to come). A `recv_timeout` that found nothing looks
//! at the channel again in its yield step: that step is a receive. `Arc` drops: a drop releases
//! a reference ([`Access::Released`], commuting with its likes) unless it frees a value whose
//! destructor does something the model sees (then it conflicts with the other drops: which
//! thread frees, and runs the destructor, is explored); reads of the count (`strong_count`,
//! `Weak::upgrade`, `into_inner`, ...) conflict with the drops. Left as conflicting with
//! everything on their object, on purpose: a bounded or rendezvous channel's sends and
//! receives (a send may find the channel full, so it conflicts with every receive). Park and
//! unpark: a park conflicts with every unpark of its thread (whether it finds the token); two
//! unparks that found the thread not parked commute (each only sets the token,
//! [`Access::Observe`]); an unpark that wakes the thread conflicts with the others (the woken
//! thread clears the token right after it, and takes happens-before from the unparks before
//! it).
//!
//! Refined accesses compared across executions: a refinement holds where the event ran, and
//! for the event moved earlier (past events it commutes with), not later. Sleep sets and
//! wakeup-tree equivalence compare events of different executions, which may put one after
//! the other. Two `Arc` drops that left a reference then conflict ([`dependent`]), since
//! after the other one the first may free the value; within one execution they commute. Two
//! arrivals at a barrier before the last are compared by their count instead, which every
//! arrival being an event makes exact where the comparison stands: they commute where at
//! least two arrivals are still to come after the one compared against (see
//! [`last_but_one`]); a reversal moves an arrival, the leader too, with the count it has
//! where it is moved to (`dpor::reversal`).
//!
//! A step's changes to objects besides its operation's own (`Touch`) belong to the step
//! whose code made them; the code a new thread runs before its first visible operation
//! belongs to the step that spawned it (it runs right after it in every schedule, and its
//! past is that step's). Changes made by the code a thread runs right after a wake-up, before
//! its next visible operation, belong to no step (a known gap: a drop there is not seen).

mod portable;

pub(crate) use portable::Evidence;
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::rt::execution::location_hash;
use crate::rt::op::{ObjId, Op, OpKind, Outcome, ThreadId, Touch, Value};

/// A canonical object name (an index into the union-find forest).
pub(crate) type Canon = u32;

/// What an event does to one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Access {
    None,
    Read(Canon),
    Write(Canon),
    /// Exclusive acquisition of a lock.
    Lock(Canon),
    /// A `try_lock` (before it runs, or after it failed): never blocks, so unlike an
    /// acquisition it can also come before a release (and fail).
    TryLock(Canon),
    /// A `try_lock` that succeeded: an acquisition that could also have failed.
    TryLockOk(Canon),
    /// Shared acquisition (a read lock).
    Shared(Canon),
    Unlock(Canon),
    /// Release of a shared (read) lock: other readers may acquire before or after it, and the
    /// order decides what happens-before, so it conflicts with shared acquisitions.
    UnlockShared(Canon),
    /// A send on a channel: the n-th message of an unbounded channel once it has run and
    /// queued one (`0` before it runs). Sends conflict with each other (the order of their
    /// messages), with the receiver's going away, and with the receive that took their message.
    Send(Canon, u32),
    /// A receive that took an unbounded channel's n-th message: it commutes with every other
    /// send (appending behind a queued message does not change what the receive takes). A
    /// blocking receive runs only once a message is queued, so the send of its message is one
    /// of its enablers (never reversed).
    Took(Canon, u32),
    /// The last sender went away while the receiver lived (a disconnect).
    SendersGone(Canon),
    /// The receiver went away while a sender lived (a disconnect).
    ReceiverGone(Canon),
    /// A sender was dropped, not the last one: it commutes with everything, but the last
    /// sender's drop comes after it (see [`orders_by`]).
    DroppedSender(Canon),
    /// An operation that turned out only to look at its object: a `Once` found complete (or
    /// a `OnceLock::get`), a notify with nobody waiting; or only to set what any of its likes
    /// sets: an unpark of a thread that was not parked (its token). Two of them commute;
    /// anything else on the object conflicts with them.
    Observe(Canon),
    /// A barrier wait, with the number of arrivals its generation still needs after it where
    /// the event stands (`0`: the last arrival, the leader, which the program can see). Two
    /// arrivals before the last commute where a third is still to come after both (the same
    /// one is last either way, see [`dependent`]); the leader conflicts with every arrival.
    CountDown(Canon, u32),
    /// A reference to an `Arc`'s value went away with no consequence the program can see (see
    /// `Touch::Released`). Two of them commute; anything else on the count (a drop whose
    /// destructor the model sees, a read or increment of the count) conflicts with them. Never
    /// unrefined: a drop moved earlier leaves more references behind, never fewer.
    Released(Canon),
    /// Anything else on an object (condvars, barriers, queues, a receive that found no
    /// message, a send to a bounded channel): conflicts with every other access to it.
    Other(Canon),
}

impl Access {
    fn object(self) -> Option<Canon> {
        match self {
            Access::None => None,
            Access::Read(o)
            | Access::Write(o)
            | Access::Lock(o)
            | Access::TryLock(o)
            | Access::TryLockOk(o)
            | Access::Shared(o)
            | Access::Unlock(o)
            | Access::UnlockShared(o)
            | Access::Send(o, _)
            | Access::Took(o, _)
            | Access::SendersGone(o)
            | Access::ReceiverGone(o)
            | Access::DroppedSender(o)
            | Access::Observe(o)
            | Access::CountDown(o, _)
            | Access::Released(o)
            | Access::Other(o) => Some(o),
        }
    }

    /// What the access is known to be once its operation has run with `outcome` and `value`.
    pub fn refined(self, kind: OpKind, outcome: Outcome, value: Value) -> Access {
        match (self, kind, outcome) {
            (Access::TryLock(o), _, _) if value == Value::Flag(true) => Access::TryLockOk(o),
            (Access::Send(o, _), _, Outcome::Queued(n)) => Access::Send(o, n),
            // A send that queued nothing on an unbounded channel (a bounded channel's, one
            // that found the receiver gone) is taken to conflict with everything.
            (Access::Send(o, _), _, _) => Access::Other(o),
            // A receive, or a `recv_timeout`'s second look (its yield step), that took one.
            (Access::Other(o), OpKind::Recv | OpKind::Yield, Outcome::Took(n)) => {
                Access::Took(o, n)
            }
            (Access::Other(o), OpKind::Disconnect, Outcome::SendersGone) => Access::SendersGone(o),
            (Access::Other(o), OpKind::Disconnect, Outcome::ReceiverGone) => {
                Access::ReceiverGone(o)
            }
            // Two such reads commute; anything else on the object conflicts with them.
            (
                Access::Other(o),
                OpKind::Once | OpKind::NotifyOne | OpKind::NotifyAll,
                Outcome::OnlyRead,
            ) => Access::Observe(o),
            (Access::Other(o), OpKind::BarrierWait, Outcome::Arrived(left)) => {
                Access::CountDown(o, left)
            }
            (Access::Other(o), OpKind::Unpark, Outcome::TokenSet) => Access::Observe(o),
            (a, _, _) => a,
        }
    }

    /// What the access could be before its operation runs: a reversal moves an event before
    /// the one it raced with, where its operation may do something else.
    pub fn unrefined(self) -> Access {
        match self {
            Access::TryLockOk(o) => Access::TryLock(o),
            Access::Send(o, _) => Access::Send(o, 0),
            Access::Took(o, _) | Access::SendersGone(o) | Access::ReceiverGone(o) => {
                Access::Other(o)
            }
            Access::Observe(o) | Access::CountDown(o, _) => Access::Other(o),
            a => a,
        }
    }

    pub fn of(kind: OpKind, obj: Canon) -> Access {
        match kind {
            OpKind::Load => Access::Read(obj),
            // A failed compare-exchange only reads, but whether it fails is not known before it
            // runs; treating it as a write is the sound choice.
            OpKind::Store | OpKind::Rmw | OpKind::CompareExchange => Access::Write(obj),
            OpKind::Lock => Access::Lock(obj),
            OpKind::TryLock => Access::TryLock(obj),
            OpKind::ReadLock => Access::Shared(obj),
            OpKind::Unlock => Access::Unlock(obj),
            OpKind::ReadUnlock => Access::UnlockShared(obj),
            // Only a `recv_timeout` that found nothing yields on an object: the step looks at
            // the channel again (and may take a message), a receive.
            OpKind::Yield => Access::Other(obj),
            OpKind::Send => Access::Send(obj, 0),
            _ => Access::Other(obj),
        }
    }
}

/// Two accesses conflict: their order can change what happens. An unlock conflicts with no
/// lock here (the lock could not have happened before it); the order it imposes is an edge of
/// happens-before instead, see [`orders_by`]. `same` says whether two object names denote one
/// object.
pub(crate) fn conflict_by(
    a: Access,
    b: Access,
    same: &mut impl FnMut(Canon, Canon) -> bool,
) -> bool {
    let (Some(x), Some(y)) = (a.object(), b.object()) else {
        return false;
    };
    if !same(x, y) {
        return false;
    }
    use Access::*;
    if let Some(c) = refined_conflict(a, b) {
        return c;
    }
    matches!(
        (a, b),
        (Read(_), Write(_))
            | (Write(_), Read(_) | Write(_))
            | (Lock(_), Lock(_) | Shared(_))
            | (Shared(_), Lock(_) | UnlockShared(_))
            | (UnlockShared(_), Shared(_))
            | (TryLock(_) | TryLockOk(_), _)
            | (_, TryLock(_) | TryLockOk(_))
            | (Other(_), _)
            | (_, Other(_))
    )
}

/// Whether two accesses to one object conflict, when either is one of the accesses refined by
/// an operation's outcome (`None` otherwise). Channels: a receive that took message n conflicts only with the send of
/// message n; a send with an unknown number (one that has not run) with none that took one,
/// since a message already queued when the send runs comes before the send's own. A sender
/// dropped before the last commutes with everything. The two sides' going away commute: once
/// both are scheduling points, neither changes what the other does (whether each is one was
/// decided by the step before it). Two operations that only looked at a `Once` or a condvar
/// commute with each other and with loads, two counts that went down without reaching
/// their end (see [`Access::CountDown`]) with each other, and so do two `Arc` references that
/// went away unseen ([`Access::Released`]).
fn refined_conflict(a: Access, b: Access) -> Option<bool> {
    use Access::*;
    Some(match (a, b) {
        (DroppedSender(_), _) | (_, DroppedSender(_)) => false,
        (Send(_, m), Took(_, n)) | (Took(_, n), Send(_, m)) => m != 0 && m == n,
        (Send(..) | Took(..), SendersGone(_)) | (SendersGone(_), Send(..) | Took(..)) => false,
        (SendersGone(_), ReceiverGone(_)) | (ReceiverGone(_), SendersGone(_)) => false,
        (Send(..), _) | (_, Send(..)) | (Took(..), _) | (_, Took(..)) => true,
        (SendersGone(_) | ReceiverGone(_), _) | (_, SendersGone(_) | ReceiverGone(_)) => true,
        (Observe(_), Observe(_) | Read(_)) | (Read(_), Observe(_)) => false,
        (Observe(_), _) | (_, Observe(_)) => true,
        (CountDown(_, a), CountDown(_, b)) => a == 0 || b == 0,
        (CountDown(..), _) | (_, CountDown(..)) => true,
        (Released(_), Released(_)) => false,
        (Released(_), _) | (_, Released(_)) => true,
        _ => return Option::None,
    })
}

/// `a` (earlier) orders `b` in happens-before without being reversible: a release followed by
/// an acquisition of the same lock; a send, or a sender dropped, before the last sender's
/// drop (which is the last only because they came first).
pub(crate) fn orders_by(a: Access, b: Access, same: &mut impl FnMut(Canon, Canon) -> bool) -> bool {
    match (a, b) {
        (Access::Unlock(x), Access::Lock(y) | Access::Shared(y))
        | (Access::UnlockShared(x), Access::Lock(y))
        | (Access::Send(x, _) | Access::DroppedSender(x), Access::SendersGone(y)) => same(x, y),
        _ => false,
    }
}

/// An event: the `index`-th visible operation of `thread`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Ev {
    pub thread: ThreadId,
    pub index: u32,
    /// What it does, over canonical object names (comparable across executions): its
    /// operation's access first, then the mutex a condvar wait releases and the objects its
    /// step touched besides.
    pub accesses: SmallVec<[Access; 2]>,
    /// The same accesses over this execution's own object ids, exact within the execution
    /// (empty for an event that has not run). Happens-before is computed from these: a
    /// canonical name may stand for two objects, which is harmless for a conflict but would
    /// invent a release-acquire edge.
    pub exact: SmallVec<[Access; 2]>,
    /// The execution whose trace the event comes from (0: a pending event, never run).
    pub execution: u64,
    /// Events (thread, index) that enabled this one (spawn, wake-up, join).
    pub enablers: SmallVec<[(ThreadId, u32); 2]>,
    /// Its access to the fairness object ([`FAIRNESS`]), apart from `accesses` so that it
    /// costs no room there (there is one such object, the same in every execution and every
    /// explorer: it needs no name). `exact` holds it too, but only once a thread yielded
    /// (`of_trace_into`): before, nothing writes the object, and reads of it order nothing.
    #[serde(default)]
    pub fair: Fair,
}

/// An event's access to the fairness object ([`FAIRNESS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Fair {
    /// A step that changed nothing (a load, a failed compare-exchange), or no fairness model.
    #[default]
    None,
    /// A step that changed something (or, not run yet, may).
    Read,
    /// A yield, or a step that lets (or may let) a thread that yielded go.
    Write,
}

impl Fair {
    /// Whether two events' accesses to the fairness object conflict.
    pub fn conflicts(self, other: Fair) -> bool {
        matches!(
            (self, other),
            (Fair::Write, Fair::Read | Fair::Write) | (Fair::Read, Fair::Write)
        )
    }

    /// The same as an access to object `obj`.
    fn access(self, obj: ObjId) -> Option<Access> {
        match self {
            Fair::None => None,
            Fair::Read => Some(Access::Read(obj)),
            Fair::Write => Some(Access::Write(obj)),
        }
    }
}

/// By hand, because events are copied at every step of every execution (into the nodes of the
/// path, into wakeup sequences): smallvec's derived `clone` goes item by item through
/// `extend`, where its parts, all `Copy`, can be copied whole.
impl Clone for Ev {
    fn clone(&self) -> Ev {
        Ev {
            thread: self.thread,
            index: self.index,
            accesses: SmallVec::from_slice(&self.accesses),
            exact: SmallVec::from_slice(&self.exact),
            execution: self.execution,
            enablers: SmallVec::from_slice(&self.enablers),
            fair: self.fair,
        }
    }

    fn clone_from(&mut self, source: &Ev) {
        self.thread = source.thread;
        self.index = source.index;
        copy_from(&mut self.accesses, &source.accesses);
        copy_from(&mut self.exact, &source.exact);
        self.execution = source.execution;
        copy_from(&mut self.enablers, &source.enablers);
        self.fair = source.fair;
    }
}

/// `to.clone_from(from)` for a small vector of `Copy` items, keeping `to`'s memory if it has
/// any. (Into an inline `to`, a copy of the items whole: `extend_from_slice` costs about a
/// hundred instructions even for one item.)
fn copy_from<A: smallvec::Array>(to: &mut SmallVec<A>, from: &SmallVec<A>)
where
    A::Item: Copy,
{
    if to.spilled() {
        to.clear();
        to.extend_from_slice(from);
    } else {
        *to = SmallVec::from_slice(from);
    }
}

impl Ev {
    /// Whether `ev` is this event, whichever execution each comes from.
    pub fn same_as(&self, ev: &Ev) -> bool {
        self.thread == ev.thread
            && self.index == ev.index
            && self.accesses == ev.accesses
            && self.exact == ev.exact
            && self.enablers == ev.enablers
            && self.fair == ev.fair
    }

    /// Becomes `ev`, copying only what differs: along the path, most nodes' events are those
    /// the last execution ran there, and only the execution they come from changes.
    pub fn update_from(&mut self, ev: &Ev) {
        if self.same_as(ev) {
            self.execution = ev.execution;
        } else {
            self.clone_from(ev);
        }
    }

    pub fn main(&self) -> Access {
        self.accesses.first().copied().unwrap_or(Access::None)
    }

    /// Whether [`unrefined`](Self::unrefined) would change the event: most events' accesses
    /// are known before they run (an atomic's load or write), and need no copy.
    pub fn refined_by_outcome(&self) -> bool {
        (self.accesses.iter().chain(&self.exact)).any(|&a| a.unrefined() != a)
    }

    /// The barrier (canonical name) and how many arrivals its generation still needs after
    /// this event, if it is an arrival that is not the last.
    pub fn arrival(&self) -> Option<(Canon, u32)> {
        match self.main() {
            Access::CountDown(o, left @ 1..) => Some((o, left)),
            _ => None,
        }
    }

    /// Makes the event a barrier arrival that leaves `left` more to come (`0`: the leader), as
    /// it is where a sequence moves it; it must be a barrier wait.
    pub fn set_left(&mut self, left: u32) {
        for a in [self.accesses.first_mut(), self.exact.first_mut()]
            .into_iter()
            .flatten()
        {
            if let Access::CountDown(o, _) | Access::Other(o) = *a {
                *a = Access::CountDown(o, left);
            }
        }
    }

    /// The event as far as it is known before it runs (see [`Access::unrefined`]).
    pub fn unrefined(&self) -> Ev {
        let mut ev = self.clone();
        for a in ev.accesses.iter_mut().chain(ev.exact.iter_mut()) {
            *a = a.unrefined();
        }
        ev
    }
}

/// Dependence for sleep sets and wakeup trees: the two events do not commute. Conservative:
/// release/acquire of one lock and enabling count as dependent.
///
/// The comparison is made where `b` stands: `b` is a step just taken (against a sleeping
/// `a`), an event of a wakeup sequence (against an `a` taken before the whole sequence), or
/// the earlier of two events of one sequence (against the later `a`, moved before it). That
/// matters for barrier arrivals, whose count `b` carries: two arrivals before the last commute
/// where at least two are still to come after `b` (see [`last_but_one`]).
pub(crate) fn dependent(a: &Ev, b: &Ev, names: &mut Names) -> bool {
    if a.thread == b.thread {
        return true;
    }
    if a.enablers.contains(&(b.thread, b.index)) || b.enablers.contains(&(a.thread, a.index)) {
        return true;
    }
    if a.fair.conflicts(b.fair) {
        return true;
    }
    // Two events of one execution are compared by that execution's exact object ids; only
    // events of different executions need the canonical names, which may over-approximate.
    let exact = a.execution == b.execution && !a.exact.is_empty() && !b.exact.is_empty();
    let (xs, ys) = if exact {
        (&a.exact, &b.exact)
    } else {
        (&a.accesses, &b.accesses)
    };
    let mut same = |x: Canon, y: Canon| {
        if exact {
            x == y
        } else {
            names.find(x) == names.find(y)
        }
    };
    for &x in xs {
        for &y in ys {
            if conflict_by(x, y, &mut same)
                || orders_by(x, y, &mut same)
                || orders_by(y, x, &mut same)
                || (!exact && count_sensitive(x, y, &mut same))
                || last_but_one(x, y, &mut same)
            {
                return true;
            }
        }
    }
    false
}

/// Two references to an `Arc`'s value that went away unseen, compared across executions (a
/// sleeping event against the current path, a wakeup sequence against a tree's): each was
/// refined where it ran, not where the comparison puts it. Two drops of an `Arc` that each
/// left a reference where it ran first may still free it when one runs after the other (2
/// references: either frees if second). So they commute only within one execution, where
/// adjacent such events stay what they were in either order; across executions they are
/// dependent. (The count cannot be carried as a barrier's is: clones of an `Arc` are no
/// events, so a count where one drop ran says nothing of the count elsewhere.)
fn count_sensitive(a: Access, b: Access, same: &mut impl FnMut(Canon, Canon) -> bool) -> bool {
    match (a, b) {
        (Access::Released(x), Access::Released(y)) => same(x, y),
        _ => false,
    }
}

/// Two arrivals at one barrier, neither the leader, compared where `b` stands (see
/// [`dependent`]) with `b` the last but one arrival of its generation: `a` put before `b`
/// makes `b` the leader. Every arrival is an event, and so the count where `b` stands is the
/// same in every execution that reaches that state: a sleeping arrival against a step just
/// taken, an arrival taken at a wakeup tree's node before a sequence whose arrivals carry
/// their count from that node (`dpor::reversal` counts them so, and
/// `wakeup::take_weak_initial` keeps them so), are compared exactly. With at least two to
/// come after `b`, both stay arrivals before the last in either order, and `a` stays one
/// after `b` (a sleeper stays asleep through it).
fn last_but_one(a: Access, b: Access, same: &mut impl FnMut(Canon, Canon) -> bool) -> bool {
    match (a, b) {
        (Access::CountDown(x, 1..), Access::CountDown(y, 1)) => same(x, y),
        _ => false,
    }
}

/// What identifies an event across executions, for naming the objects it uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventKey {
    pub thread: ThreadId,
    pub index: u32,
    pub location: u64,
}

/// Canonical object names and how this execution's runtime ids map to them.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(crate) struct Names {
    parent: Vec<Canon>,
    /// Which name the object used by an event had before, keyed by the event (thread, index),
    /// which of its accesses, and its source location (so that two different operations that
    /// happen to be a thread's n-th in two executions are not taken for one).
    by_event: ByEvent,
    /// This execution's runtime ids (none between executions, when a checkpoint is taken).
    #[serde(skip)]
    current: HashMap<ObjId, Canon>,
}

impl Names {
    pub fn new_execution(&mut self) {
        self.current.clear();
    }

    pub fn find(&mut self, mut c: Canon) -> Canon {
        while self.parent[c as usize] != c {
            let grand = self.parent[self.parent[c as usize] as usize];
            self.parent[c as usize] = grand;
            c = grand;
        }
        c
    }

    /// Names runtime object `obj` as `c`, the name an earlier execution gave it at an event
    /// this execution repeats, as naming that event again would (the event's key has a name
    /// in `c`'s class since then): joins it to the object's name so far, if it has one.
    pub fn adopt(&mut self, obj: ObjId, c: Canon) {
        match self.current.get(&obj) {
            Some(&a) => self.union(a, c),
            None => {
                self.current.insert(obj, c);
            }
        }
    }

    fn union(&mut self, a: Canon, b: Canon) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b) as usize] = a.min(b);
        }
    }

    fn fresh(&mut self) -> Canon {
        let c = self.parent.len() as Canon;
        self.parent.push(c);
        c
    }

    /// The canonical name of runtime object `obj` as used by event `(thread, index)`.
    pub fn name(&mut self, obj: ObjId, at: EventKey, slot: u8) -> Canon {
        let key = (at.thread, at.index, slot, at.location);
        let known = self.by_event.get(key);
        match (self.current.get(&obj).copied(), known) {
            (Some(a), Some(b)) => {
                self.union(a, b);
                a
            }
            (Some(a), None) => {
                self.by_event.insert(key, a);
                a
            }
            (None, Some(b)) => {
                self.current.insert(obj, b);
                b
            }
            (None, None) => {
                let c = self.fresh();
                self.current.insert(obj, c);
                self.by_event.insert(key, c);
                c
            }
        }
    }

    /// The event a pending operation will be, as far as it is known before it runs.
    pub fn pending(&mut self, thread: ThreadId, index: u32, op: &Op) -> Ev {
        let at = EventKey {
            thread,
            index,
            location: location_hash(op.location),
        };
        let mut accesses: SmallVec<[Access; 2]> =
            smallvec::smallvec![self.access(op.kind, op.obj, at, 0)];
        if op.obj2.is_some() {
            accesses.push(self.access(OpKind::Unlock, op.obj2, at, 1));
        }
        Ev {
            thread,
            index,
            accesses,
            exact: SmallVec::new(),
            execution: 0,
            enablers: SmallVec::new(),
            fair: Fair::None,
        }
    }

    pub fn access(&mut self, kind: OpKind, obj: Option<ObjId>, at: EventKey, slot: u8) -> Access {
        match obj {
            None => Access::None,
            Some(o) => Access::of(kind, self.name(o, at, slot)),
        }
    }
}

/// A map from (thread, index, slot, location) to a name, stored by thread and index (dense:
/// every execution looks up each of its events, so this is on the hot path). Saved in a
/// checkpoint as the list of its pairs in key order. Threads beyond [`DENSE_THREADS`] (a
/// reduction's placeholder names) are kept in a map.
#[derive(Clone, Default)]
struct ByEvent(Vec<Vec<Slots>>, HashMap<EventSlot, Canon>);

/// The names one event's objects had: (slot, location, name).
type Slots = SmallVec<[(u8, u64, Canon); 1]>;

type EventSlot = (ThreadId, u32, u8, u64);

const DENSE_THREADS: usize = 1 << 16;

impl ByEvent {
    fn get(&self, key @ (t, i, slot, location): EventSlot) -> Option<Canon> {
        if t >= DENSE_THREADS {
            return self.1.get(&key).copied();
        }
        let at = self.0.get(t)?.get(i as usize)?;
        at.iter()
            .find(|e| e.0 == slot && e.1 == location)
            .map(|e| e.2)
    }

    fn insert(&mut self, key @ (t, i, slot, location): EventSlot, c: Canon) {
        if t >= DENSE_THREADS {
            self.1.insert(key, c);
            return;
        }
        if self.0.len() <= t {
            self.0.resize(t + 1, Vec::new());
        }
        let per_thread = &mut self.0[t];
        if per_thread.len() <= i as usize {
            per_thread.resize(i as usize + 1, SmallVec::new());
        }
        let at = &mut per_thread[i as usize];
        match at.iter_mut().find(|e| e.0 == slot && e.1 == location) {
            Some(e) => e.2 = c,
            None => at.push((slot, location, c)),
        }
    }

    /// The names event (thread, index) gave, with their keys.
    fn at(&self, t: ThreadId, i: u32) -> Vec<(EventSlot, Canon)> {
        if t >= DENSE_THREADS {
            let of = |k: &EventSlot| k.0 == t && k.1 == i;
            return self
                .1
                .iter()
                .filter(|(k, _)| of(k))
                .map(|(&k, &c)| (k, c))
                .collect();
        }
        let at = self.0.get(t).and_then(|e| e.get(i as usize));
        let slots = at.into_iter().flatten();
        slots.map(|&(s, l, c)| ((t, i, s, l), c)).collect()
    }

    fn pairs(&self) -> Vec<(EventSlot, Canon)> {
        let mut pairs = Vec::new();
        for (t, per_thread) in self.0.iter().enumerate() {
            for (i, at) in per_thread.iter().enumerate() {
                pairs.extend(at.iter().map(|&(s, l, c)| ((t, i as u32, s, l), c)));
            }
        }
        pairs.extend(self.1.iter().map(|(&k, &c)| (k, c)));
        pairs.sort_unstable_by_key(|p| p.0);
        pairs
    }
}

impl Serialize for ByEvent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.pairs().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ByEvent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = ByEvent::default();
        for (key, c) in Vec::<(EventSlot, Canon)>::deserialize(d)? {
            map.insert(key, c);
        }
        Ok(map)
    }
}

/// The exact accesses (this execution's object ids) of an operation that has not run.
pub(crate) fn exact_of(op: &Op) -> SmallVec<[Access; 2]> {
    let mut out = SmallVec::new();
    out.extend(op.obj.map(|o| Access::of(op.kind, o)));
    out.extend(op.obj2.map(|o| Access::of(OpKind::Unlock, o)));
    out
}

/// The events of a finished execution, with everything only known after it ran: canonical and
/// exact accesses, and enablers. `thread_of` names a thread by its spawn-path key.
pub(crate) fn of_trace(
    trace: &[crate::rt::op::Event],
    names: &mut Names,
    thread_of: &mut impl FnMut(u64) -> ThreadId,
    execution: u64,
) -> Vec<Ev> {
    let mut out = Vec::with_capacity(trace.len());
    of_trace_into(trace, names, thread_of, execution, None, &mut out, None);
    out
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

/// [`of_trace`] into `out`, so that its memory serves every execution. With `again`
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
        Some((shared, uses)) => (*shared).min(uses.changed_later),
        None => 0,
    };
    let shared = shared.min(out.len()).min(trace.len());
    // The first event a later one changed.
    let mut changed = usize::MAX;
    out.truncate(shared);
    // Events per thread so far: an event's index.
    let mut counts: SmallVec<[u32; 16]> = SmallVec::new();
    for ev in out.iter_mut() {
        ev.execution = execution;
        grow(&mut counts, ev.thread, 0);
        counts[ev.thread] = ev.index + 1;
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
        let at = EventKey {
            thread,
            index,
            location: location_hash(ev.location),
        };
        let refine = |a: Access| a.refined(ev.kind, ev.outcome, ev.value);
        let mut accesses: SmallVec<[Access; 2]> =
            smallvec::smallvec![refine(names.access(ev.kind, ev.obj, at, 0))];
        if ev.obj2.is_some() {
            accesses.push(names.access(OpKind::Unlock, ev.obj2, at, 1));
        }
        for (slot, &(o, how)) in ev.touched.iter().enumerate() {
            let canon = names.name(o, at, 2 + slot as u8);
            accesses.push(touched_access(canon, how));
        }
        let mut exact: SmallVec<[Access; 2]> = SmallVec::new();
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
            if yields {
                exact.extend(fair.access(FAIRNESS));
            }
            if let Some(k) = ev.let_go {
                let enabler = &mut out[k as usize];
                enablers.push((enabler.thread, enabler.index));
                let_go_by(enabler, yields);
                changed = changed.min(k as usize);
            }
        }
        out.push(Ev {
            thread,
            index,
            accesses,
            exact,
            execution,
            enablers,
            fair,
        });
    }
    if let Some((_, uses)) = again {
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
    /// [`of_trace_into`].
    changed_later: usize,
    /// `stamp[o] == now`: object `o` is in `firsts` (ids below [`DENSE_OBJECTS`]; the runtime
    /// numbers objects densely from 0, the few others are looked for in `firsts`).
    stamp: Vec<u32>,
    now: u32,
}

const DENSE_OBJECTS: usize = 1 << 16;

impl FirstUses {
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

/// Adds to `ev`, the pending event of a step that has just ended, what its step touched
/// besides its operation's objects (known only now: a drop in the code after the operation),
/// named as [`of_trace`] names them. `location` is the hash of the operation's location. A
/// sleeping event must be compared with all the step did, or a thread stays asleep after a
/// step that freed what its drop would have freed.
pub(crate) fn add_touched(
    ev: &mut Ev,
    touched: &[(ObjId, Touch)],
    location: u64,
    names: &mut Names,
) {
    let at = EventKey {
        thread: ev.thread,
        index: ev.index,
        location,
    };
    for (slot, &(o, how)) in touched.iter().enumerate() {
        let canon = names.name(o, at, 2 + slot as u8);
        ev.accesses.push(touched_access(canon, how));
    }
}

/// The access of a step's change to an object other than its operation's own.
fn touched_access(obj: Canon, how: Touch) -> Access {
    match how {
        Touch::Changed => Access::Other(obj),
        Touch::DroppedSender => Access::DroppedSender(obj),
        Touch::Released => Access::Released(obj),
    }
}

/// A map with tuple keys as a list of pairs (JSON keys are strings), in key order so that a
/// checkpoint's text does not depend on the hasher.
pub(crate) mod pairs {
    use super::HashMap;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::hash::Hash;

    pub fn serialize<K, V, S>(map: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error>
    where
        K: Serialize + Ord,
        V: Serialize,
        S: Serializer,
    {
        let mut pairs: Vec<(&K, &V)> = map.iter().collect();
        pairs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        pairs.serialize(s)
    }

    pub fn deserialize<'de, K, V, D>(d: D) -> Result<HashMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Eq + Hash,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}
