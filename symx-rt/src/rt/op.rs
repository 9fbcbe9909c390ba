//! Visible operations: what a thread is about to do when it reaches a scheduling point, and the
//! event it leaves in the execution's trace once it has done it.
//!
//! Strategies see [`Op`]s (kind and object) for every runnable thread; reports show [`Event`]s.

use std::fmt;
use std::panic::Location;

/// Index of a model thread in its execution (the main thread is 0).
pub type ThreadId = usize;

/// Index of a modelled object in its execution, in order of first use.
pub type ObjId = u32;

/// The kind of a visible operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OpKind {
    /// Atomic load.
    Load,
    /// Atomic store.
    Store,
    /// Atomic read-modify-write (`fetch_*`, `swap`, `fetch_update` step).
    Rmw,
    /// Atomic compare-and-exchange.
    CompareExchange,
    /// Exclusive lock (`Mutex::lock`, `RwLock::write`): enabled only while nobody holds it.
    Lock,
    /// Shared lock (`RwLock::read`): enabled only while no writer holds it.
    ReadLock,
    /// Non-blocking lock attempt.
    TryLock,
    /// Release of a built-in lock (exclusive).
    Unlock,
    /// Release of a shared (read) lock.
    ReadUnlock,
    /// `Condvar::wait`: releases the mutex and waits.
    CondvarWait,
    /// `Condvar::notify_one`.
    NotifyOne,
    /// `Condvar::notify_all`.
    NotifyAll,
    /// `Barrier::wait`.
    BarrierWait,
    /// Channel send.
    Send,
    /// Channel receive.
    Recv,
    /// `thread::park`.
    Park,
    /// `Thread::unpark`.
    Unpark,
    /// `thread::yield_now` or `hint::spin_loop`: lets a spinning thread give way.
    Yield,
    /// `wait_queue::wait` on a user object.
    QueueWait,
    /// `wait_queue::notify_one` on a user object.
    QueueNotify,
    /// `wait_queue::notify_all` on a user object.
    QueueNotifyAll,
    /// `Once::call_once` and `OnceLock` initialisation.
    Once,
    /// A spurious wake-up of a condvar waiter (only when enabled in the Builder).
    SpuriousWake,
    /// The last `Sender` of a channel is dropped while its receiver lives: the receiver can see
    /// it (a disconnect). Its side is known before it runs: the step before it decided that
    /// the drop is one the other side sees, and the thread dropping holds the only sender. The
    /// other side's is [`OpKind::ReceiverGone`] (at the end, see [`OpKind::fingerprint`]).
    SendersGone,
    /// A `#[symx::acquire]` call returns: from here the thread holds the user's lock. A
    /// scheduling point of its own, so that another thread can run while the lock is held
    /// and a second holder shows even when the critical section does nothing symx sees.
    AnnotatedAcquire,
    /// A `#[symx::release]` call begins: the thread holds the user's lock up to here.
    AnnotatedRelease,
    /// A `#[symx::acquire_shared]` call returns: the thread shares the user's lock.
    AnnotatedAcquireShared,
    /// A `#[symx::release_shared]` call begins.
    AnnotatedReleaseShared,
    /// An active epoch marker (a loop head, an implicit marker at a barrier in a loop,
    /// `symx::epoch_marker`) while a run is cut into bounded epochs: held until no thread can
    /// do anything else, then every held thread passes at once (see `rt::epochs`).
    EpochMarker,
    /// A thread stops at the checkpoint a recorded context is explored from
    /// (`symx::checkpoint!`, see `rt::prefix`) until every thread that can run has: a step
    /// that changes nothing and gives no way (not a yield: the thread competes as before).
    /// Traces show it as a yield.
    Checkpoint,
    /// The `Receiver` of a channel is dropped while a sender lives: the senders can see it (a
    /// disconnect, like [`OpKind::SendersGone`]).
    ReceiverGone,
}

impl OpKind {
    /// The number that stands for the kind in an execution's fingerprint (which replay tokens
    /// carry): its place in the list, except that both disconnects are the one kind they were
    /// before the side was known, so that tokens recorded then still replay.
    pub(crate) fn fingerprint(self) -> u64 {
        match self {
            OpKind::ReceiverGone => OpKind::SendersGone as u64,
            kind => kind as u64,
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            OpKind::Load => "load",
            OpKind::Store => "store",
            OpKind::Rmw => "read-modify-write",
            OpKind::CompareExchange => "compare_exchange",
            OpKind::Lock => "lock",
            OpKind::ReadLock => "read-lock",
            OpKind::TryLock => "try_lock",
            OpKind::Unlock => "unlock",
            OpKind::ReadUnlock => "read-unlock",
            OpKind::CondvarWait => "condvar wait",
            OpKind::NotifyOne => "notify_one",
            OpKind::NotifyAll => "notify_all",
            OpKind::BarrierWait => "barrier wait",
            OpKind::Send => "send",
            OpKind::Recv => "recv",
            OpKind::Park => "park",
            OpKind::Unpark => "unpark",
            OpKind::Yield => "yield",
            OpKind::QueueWait => "wait_queue::wait",
            OpKind::QueueNotify => "wait_queue::notify_one",
            OpKind::QueueNotifyAll => "wait_queue::notify_all",
            OpKind::Once => "once",
            OpKind::SpuriousWake => "spurious wake-up",
            OpKind::SendersGone | OpKind::ReceiverGone => "disconnect",
            OpKind::AnnotatedAcquire => "acquire",
            OpKind::AnnotatedRelease => "release",
            OpKind::AnnotatedAcquireShared => "acquire shared",
            OpKind::AnnotatedReleaseShared => "release shared",
            OpKind::EpochMarker => "epoch marker",
            OpKind::Checkpoint => "checkpoint",
        };
        f.write_str(name)
    }
}

/// A pending visible operation of one thread: what the strategy sees before choosing.
#[derive(Clone, Copy, Debug)]
pub struct Op {
    pub kind: OpKind,
    pub obj: Option<ObjId>,
    /// A second object the operation acts on: the mutex a condvar wait releases.
    pub obj2: Option<ObjId>,
    pub location: &'static Location<'static>,
}

/// The value an event read or wrote, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Value {
    #[default]
    None,
    One(i128),
    /// Before and after (read-modify-write), or expected and found (failed compare-exchange).
    Two(i128, i128),
    Flag(bool),
}

impl Value {
    /// The value of a flag stored as an integer: `true`, `false -> true`.
    pub fn as_bools(self) -> String {
        let b = |v: i128| v != 0;
        match self {
            Value::One(v) => b(v).to_string(),
            Value::Two(x, y) => format!("{} -> {}", b(x), b(y)),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => Ok(()),
            Value::One(v) => write!(f, "{v}"),
            Value::Two(a, b) => write!(f, "{a} -> {b}"),
            Value::Flag(b) => write!(f, "{b}"),
        }
    }
}

/// How a step changed an object other than its operation's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// Any change: the step conflicts with every other operation on the object.
    Changed,
    /// A channel's sender was dropped, not the last one: only the last sender's drop
    /// (an [`OpKind::SendersGone`]) must come after it.
    DroppedSender,
    /// The step found that its thread's sender is the channel's last and the receiver lives,
    /// so that dropping it is a disconnect (an [`OpKind::SendersGone`] comes next): it read
    /// how many senders are left, which another sender's drop changes.
    CountedSenders,
    /// A reference to an `Arc`'s value went away with no consequence the model sees: not the
    /// last one, or the last one of a value whose destructor did nothing the model sees. Two
    /// such drops commute; a drop that frees the value visibly, or reads or raises the count,
    /// does not commute with them.
    Released,
    /// [`Touch::Released`] by an `Arc` whose value's type has no drop glue
    /// (`std::mem::needs_drop` is false): not even the last reference's going away runs code,
    /// so the drop is one such in every order of the drops, unlike a `Released` drop that a
    /// later drop's going first could make the one that runs a visible destructor. The
    /// reductions treat it as `Released` (a narrowing was withdrawn for a miss, see
    /// `explore::dpor::events::count_sensitive`).
    ReleasedNoGlue,
}

/// What an operation did, known once it ran. Before it runs, an operation is taken to
/// do anything its kind allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Outcome {
    #[default]
    Unknown,
    /// A send on an unbounded channel queued the channel's n-th message (from 1).
    Queued(u32),
    /// A receive on an unbounded channel took the channel's n-th message.
    Took(u32),
    /// The operation only read its object: a `Once` found complete (or a `get` of any), a
    /// notify that found nobody waiting.
    OnlyRead,
    /// A barrier wait, with the number of arrivals its generation still needed after it: `0`
    /// for the last (the leader), more for the arrivals before it.
    Arrived(u32),
    /// An unpark that found its thread not parked: it only set the thread's token, as any
    /// other such unpark would (whether or not the token was set before).
    TokenSet,
}

/// Trace indices of the events an event comes after (see [`Event::enablers`]): rarely more
/// than two, and inline, since most steps of most executions have one or none.
pub type Enablers = smallvec::SmallVec<[u32; 2]>;

/// A change made by the code a woken thread ran before its next operation (see
/// [`Event::woke`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WokenChange {
    /// The woken thread, whose code made the change.
    pub thread: ThreadId,
    pub obj: ObjId,
    pub how: Touch,
    /// The woken thread's past besides the step that woke it (trace indices: its last event
    /// and what it came after), which the change comes after.
    pub past: smallvec::SmallVec<[u32; 2]>,
}

/// One step of an execution: a visible operation that ran.
#[derive(Clone, Debug)]
pub struct Event {
    pub thread: ThreadId,
    /// The thread's spawn-path key (stable across executions, unlike `thread`).
    pub thread_key: u64,
    pub kind: OpKind,
    pub obj: Option<ObjId>,
    pub obj2: Option<ObjId>,
    pub value: Value,
    /// The memory ordering an atomic operation used (the failure ordering when a
    /// compare-exchange did not write), for reports: a race is explained by a `Relaxed` load.
    pub order: Option<std::sync::atomic::Ordering>,
    pub location: &'static Location<'static>,
    /// Objects whose state the step changed besides `obj` (a `Once` completed by the end of
    /// its initialiser, a channel whose sender it dropped): a partial-order reduction must
    /// treat the event as touching them.
    pub touched: smallvec::SmallVec<[(ObjId, Touch); 2]>,
    /// Joins of finished threads in the step's code after its operation, each as
    /// (`touched.len()` at the join, the trace index of an event of the joined thread's past):
    /// the changes recorded after the join come after that event (the joined thread's last
    /// step, or what it came after), unlike the operation itself.
    pub joined: smallvec::SmallVec<[(u8, u32); 1]>,
    /// Changes made by the code of threads this step woke. A woken thread runs up to its next
    /// operation right after the step that woke it, before any other step, but that code
    /// belongs to no step of its own (see `Execution::step_now`): what it changed comes after
    /// this step and after the woken thread's past. Both reductions race them apart from the
    /// step's operation (the bounded one as it does a join's changes, [`Event::joined`]).
    pub woke: Vec<WokenChange>,
    /// What the operation turned out to do, where the partial-order reduction can tell more
    /// commuting operations apart by it than by its kind (see [`Outcome`]).
    pub outcome: Outcome,
    /// Earlier events (trace indices) without which this one could not have happened: the
    /// step that spawned, woke or was joined by its thread. Program order is implicit.
    pub enablers: Enablers,
    /// The step changed nothing another thread's fairness rule looks at: a yield, a spurious
    /// wake-up, an atomic operation that only read, a failed `try_lock` (see
    /// `Scheduler::after_step`).
    pub quiet: bool,
    /// The thread had given way (yielded) and could run again only after this step (a trace
    /// index, see `ThreadState::let_go`).
    pub let_go: Option<u32>,
    /// The step belongs to the prefix of a recorded context (see `prefix`): it ran once under
    /// a fixed schedule, and no strategy reorders it.
    pub fixed: bool,
    /// An atomic operation whose result the program drops (see `sync::blind`).
    pub blind: bool,
}
