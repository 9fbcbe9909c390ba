//! Events as the partial-order reduction sees them: who (thread and per-thread index), what
//! (an access summary per object), and the dependence relation between them.
//!
//! Objects get canonical names that survive from one execution to the next: the runtime numbers
//! objects by first use, which depends on the interleaving, so names are tied to the events
//! that use them and merged (union-find) whenever two names turn out to denote one object.
//! Merging can only add dependences, which costs reduction, never soundness. The names are
//! kept by `names`, a finished trace becomes events in `trace`, and `portable` carries events
//! and their names between shards; this file holds the events and their dependence.
//!
//! Dependence per primitive. Atomics: loads commute with loads. Locks: see [`orders_by`].
//! Channels' sends and receives, `Once`/`OnceLock`, notifies and barrier waits are refined by
//! what the operation did ([`Access::refined`], see [`refined_conflict`]); a channel's
//! disconnect says which side it drops before it runs. The arrivals at a barrier before the
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
//! [`Access::ObserveSignal`]); an unpark that wakes the thread conflicts with the others (the woken
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
//! `last_but_one`); a reversal moves an arrival, the leader too, with the count it has
//! where it is moved to (`dpor::reversal`).
//!
//! A step's changes to objects besides its operation's own (`Touch`) belong to the step
//! whose code made them; the code a new thread runs before its first visible operation
//! belongs to the step that spawned it (it runs right after it in every schedule, and its
//! past is that step's). Changes made by the code a thread runs right after a wake-up, before
//! its next visible operation, belong to no step's event: they are recorded on the waking step
//! apart (`Event::woke`), and both reductions race them apart from that step ([`add_woken`]
//! adds them to an event for the sleep sets).

mod dependence;
mod names;
pub(crate) mod pairs;
mod portable;
mod touches;
mod trace;

pub(crate) use dependence::dependent;
pub(crate) use names::{EventKey, Names, Occurrences};
pub(crate) use portable::Evidence;
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
pub(crate) use trace::{
    add_touched, add_woken, exact_of, exact_parts, fairness, let_go_by, of_trace_into,
    touched_access, FirstUses, FAIRNESS,
};

use crate::rt::op::{ObjId, OpKind, Outcome, ThreadId, Value};

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
    /// The last sender went away while the receiver lived (a disconnect). Known before it
    /// runs, like [`Access::ReceiverGone`]: the step before it decided that the drop is one the
    /// other side sees, and the side it drops does not change wherever it is moved to.
    SendersGone(Canon),
    /// The receiver went away while a sender lived (a disconnect).
    ReceiverGone(Canon),
    /// A sender was dropped, not the last one: it commutes with everything but a step that
    /// found the other senders gone ([`Access::CountedSenders`]), and the last sender's drop
    /// comes after it (see [`orders_by`]).
    DroppedSender(Canon),
    /// A step found that its thread's sender is the last and the receiver lives (the next
    /// event is the disconnect): it conflicts with the other senders' drops, whose order
    /// decides which drop is the last (the one that comes after the others), and with the
    /// receiver's going away; it commutes with sends and receives, which change neither.
    CountedSenders(Canon),
    /// An operation that turned out only to look at its object: a `Once` found complete (or
    /// a `OnceLock::get`), a notify with nobody waiting; or only to set what any of its likes
    /// sets: an unpark of a thread that was not parked (its token). Two of them commute;
    /// anything else on the object conflicts with them. (A notify's and an unpark's are
    /// [`Access::ObserveSignal`].)
    Observe(Canon),
    /// [`Access::Observe`] on an object that only operations change ([`Access::Signal`]).
    ObserveSignal(Canon),
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
    /// [`Access::Released`] by an `Arc` whose value's type has no drop glue
    /// (`Touch::ReleasedNoGlue`): it conflicts as `Released` does, across executions too (a
    /// narrowing there was withdrawn for a miss, see `dependence::count_sensitive`).
    ReleasedNoGlue(Canon),
    /// Anything else on an object (queues, a receive that found no message, a send to a
    /// bounded channel, a `Once`): conflicts with every other access to it.
    Other(Canon),
    /// [`Access::Other`] on an object that only operations change, which holds no value the
    /// code between two operations can read or write (a condvar, a thread's park token, a
    /// barrier before its arrival ran): it conflicts as `Other` does, but not with
    /// [`Access::Touches`] (see [`Access::touchable`], which argues it per object).
    Signal(Canon),
    /// The code after an operation that a reversal moves: where it is moved, the operation
    /// may return something else (a `try_lock` that succeeded fails) and the code up to its
    /// thread's next operation take another path, so what that code changes there is unknown
    /// (the step's event carries its `Touch`es as they were where it ran). Conflicts with every
    /// access to an object such code can change ([`Access::touchable`]), whatever object; in
    /// wakeup sequences only, never in happens-before, which has only steps that ran. Which
    /// moved operations carry it: `dpor::reversals`' `may_take_another_path`.
    Touches,
}

impl Access {
    pub(crate) const fn object(self) -> Option<Canon> {
        match self {
            Access::None | Access::Touches => None,
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
            | Access::CountedSenders(o)
            | Access::Observe(o)
            | Access::ObserveSignal(o)
            | Access::CountDown(o, _)
            | Access::Released(o)
            | Access::ReleasedNoGlue(o)
            | Access::Other(o)
            | Access::Signal(o) => Some(o),
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
            // Two such reads commute; anything else on the object conflicts with them.
            (Access::Other(o), OpKind::Once, Outcome::OnlyRead) => Access::Observe(o),
            (Access::Signal(o), OpKind::NotifyOne | OpKind::NotifyAll, Outcome::OnlyRead)
            | (Access::Signal(o), OpKind::Unpark, Outcome::TokenSet) => Access::ObserveSignal(o),
            (Access::Signal(o), OpKind::BarrierWait, Outcome::Arrived(left)) => {
                Access::CountDown(o, left)
            }
            (a, _, _) => a,
        }
    }

    /// What the access could be before its operation runs: a reversal moves an event before
    /// the one it raced with, where its operation may do something else.
    pub fn unrefined(self) -> Access {
        match self {
            Access::TryLockOk(o) => Access::TryLock(o),
            Access::Send(o, _) => Access::Send(o, 0),
            Access::Took(o, _) => Access::Other(o),
            Access::Observe(o) => Access::Other(o),
            Access::ObserveSignal(o) | Access::CountDown(o, _) => Access::Signal(o),
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
            // Which side a disconnect drops is known before it runs, and it drops that side
            // wherever it is moved to (see `OpKind::SendersGone`).
            OpKind::SendersGone => Access::SendersGone(obj),
            OpKind::ReceiverGone => Access::ReceiverGone(obj),
            _ if Access::on_signal(kind) => Access::Signal(obj),
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
    match (a, b) {
        (Access::Touches, c) | (c, Access::Touches) => return c.touchable(),
        _ => {}
    }
    let (Some(x), Some(y)) = (a.object(), b.object()) else {
        return false;
    };
    same(x, y) && conflict_on_one_object(a, b)
}

/// [`conflict_by`] of two accesses known to be to one object. A `const fn`: the table of how
/// access classes relate is made from it at compile time (`races::history::Relations`).
pub(crate) const fn conflict_on_one_object(a: Access, b: Access) -> bool {
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
            | (Other(_) | Signal(_), _)
            | (_, Other(_) | Signal(_))
    )
}

/// Whether two accesses to one object conflict, when either is a channel's or one of the
/// accesses refined by an operation's outcome (`None` otherwise). Channels: a receive that
/// took message n conflicts only with the send of message n; a send with an unknown number
/// (one that has not run) with none that took one, since a message already queued when the
/// send runs comes before the send's own. The last sender's going away commutes with every
/// send and every receive that took a message (the sends come before it, see [`orders_by`]),
/// before it runs too (see [`Access::SendersGone`]). A sender dropped before the last
/// commutes with everything but the step that found the last one left
/// ([`Access::CountedSenders`]). The two sides' going away commute: once
/// both are scheduling points, neither changes what the other does (whether each is one was
/// decided by the step before it). Two operations that only looked at a `Once` or a condvar
/// commute with each other and with loads, two counts that went down without reaching
/// their end (see [`Access::CountDown`]) with each other, and so do two `Arc` references that
/// went away unseen ([`Access::Released`]).
const fn refined_conflict(a: Access, b: Access) -> Option<bool> {
    use Access::*;
    Some(match (a, b) {
        (CountedSenders(_), Send(..) | Took(..) | CountedSenders(_))
        | (Send(..) | Took(..), CountedSenders(_)) => false,
        (CountedSenders(_), _) | (_, CountedSenders(_)) => true,
        (DroppedSender(_), _) | (_, DroppedSender(_)) => false,
        (Send(_, m), Took(_, n)) | (Took(_, n), Send(_, m)) => m != 0 && m == n,
        (Send(..) | Took(..), SendersGone(_)) | (SendersGone(_), Send(..) | Took(..)) => false,
        (SendersGone(_), ReceiverGone(_)) | (ReceiverGone(_), SendersGone(_)) => false,
        (Send(..), _) | (_, Send(..)) | (Took(..), _) | (_, Took(..)) => true,
        (SendersGone(_) | ReceiverGone(_), _) | (_, SendersGone(_) | ReceiverGone(_)) => true,
        (Observe(_) | ObserveSignal(_), Observe(_) | ObserveSignal(_) | Read(_))
        | (Read(_), Observe(_) | ObserveSignal(_)) => false,
        (Observe(_) | ObserveSignal(_), _) | (_, Observe(_) | ObserveSignal(_)) => true,
        (CountDown(_, a), CountDown(_, b)) => a == 0 || b == 0,
        (CountDown(..), _) | (_, CountDown(..)) => true,
        (Released(_) | ReleasedNoGlue(_), Released(_) | ReleasedNoGlue(_)) => false,
        (Released(_) | ReleasedNoGlue(_), _) | (_, Released(_) | ReleasedNoGlue(_)) => true,
        _ => return Option::None,
    })
}

/// `a` (earlier) orders `b` in happens-before without being reversible: a release followed by
/// an acquisition of the same lock; a send, or a sender dropped, before the last sender's
/// drop (which is the last only because they came first).
pub(crate) fn orders_by(a: Access, b: Access, same: &mut impl FnMut(Canon, Canon) -> bool) -> bool {
    match (a.object(), b.object()) {
        (Some(x), Some(y)) if orders_on_one_object(a, b) => same(x, y),
        _ => false,
    }
}

/// [`orders_by`] of two accesses known to be to one object (a `const fn`, as
/// [`conflict_on_one_object`]).
pub(crate) const fn orders_on_one_object(a: Access, b: Access) -> bool {
    use Access::*;
    matches!(
        (a, b),
        (Unlock(_), Lock(_) | Shared(_))
            | (UnlockShared(_), Lock(_))
            | (Send(..) | DroppedSender(_), SendersGone(_))
    )
}

/// An event: the `index`-th visible operation of `thread`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Ev {
    pub thread: ThreadId,
    pub index: u32,
    /// Its thread's count of events at its location before it, for its key ([`EventKey`]).
    pub nth: u32,
    /// What it does, over canonical object names (comparable across executions): its
    /// operation's access first, then the mutex a condvar wait releases and the objects its
    /// step touched besides.
    pub accesses: SmallVec<[Access; 3]>,
    /// The same accesses over this execution's own object ids, exact within the execution
    /// (empty for an event that has not run). Happens-before is computed from these: a
    /// canonical name may stand for two objects, which is harmless for a conflict but would
    /// invent a release-acquire edge.
    pub exact: SmallVec<[Access; 3]>,
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
    pub(crate) fn access(self, obj: ObjId) -> Option<Access> {
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
            nth: self.nth,
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
        self.nth = source.nth;
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
            && self.nth == ev.nth
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
            if let Access::CountDown(o, _) | Access::Signal(o) | Access::Other(o) = *a {
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

/// Whether `a` and `b` are the same access, their objects compared by `same`.
pub(crate) fn same_access(
    a: Access,
    b: Access,
    same: &mut impl FnMut(Canon, Canon) -> bool,
) -> bool {
    match (a, b) {
        (Access::CountDown(x, l), Access::CountDown(y, m))
        | (Access::Send(x, l), Access::Send(y, m))
        | (Access::Took(x, l), Access::Took(y, m)) => l == m && same(x, y),
        _ => {
            std::mem::discriminant(&a) == std::mem::discriminant(&b)
                && match (a.object(), b.object()) {
                    (Some(x), Some(y)) => same(x, y),
                    (x, y) => x == y,
                }
        }
    }
}
