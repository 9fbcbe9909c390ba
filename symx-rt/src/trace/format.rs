//! The trace format: the serde types every engine reads (version [`TRACE_VERSION`]).
//!
//! `docs/trace-format.md` describes the same format for readers outside Rust. Changing any
//! type here changes the format: bump [`TRACE_VERSION`] and regenerate the golden traces.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub use crate::sym::checks::CheckOp;
pub use crate::sym::expr::{BinOp, CmpOp, Expr, ExprId, Ty, UnOp};

/// The value of the `format` field of every trace.
pub const TRACE_FORMAT: &str = "symx-trace";
/// The version this build writes and the newest it reads.
pub const TRACE_VERSION: u32 = 1;

/// The record of one execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trace {
    /// Always [`TRACE_FORMAT`].
    pub format: Cow<'static, str>,
    /// [`TRACE_VERSION`] of the writer.
    pub version: u32,
    /// The test's name, when the execution ran under one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The replay token of exactly this execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// Interleavings are sequentially consistent; the field says so for readers.
    pub memory_model: Cow<'static, str>,
    /// The threads of the execution, by id.
    pub threads: Vec<ThreadInfo>,
    /// The objects the execution used, by id.
    pub objects: Vec<ObjectInfo>,
    /// The input assignment of this execution: every input handed out, with its value.
    pub inputs: Vec<InputInfo>,
    /// The expression DAG: operands always precede the nodes that use them.
    pub exprs: Vec<Expr>,
    /// Every event in the order it happened.
    pub events: Vec<TraceEvent>,
    /// How the execution ended.
    pub verdict: Verdict,
    /// For a test that explores from a checkpoint: where its recorded context was entered and
    /// what the synchronization state was there (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextRecord>,
    /// The epoch boundaries of a run cut into bounded epochs, in order (added within
    /// version 1; empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub epochs: Vec<EpochBoundary>,
    /// The loop heads the run passed, each with the epoch-marker placement's decision
    /// (added within version 1; only in runs cut into bounded epochs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loops: Vec<LoopHead>,
}

/// One epoch boundary: every thread was held at an epoch marker, blocked, or finished.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpochBoundary {
    /// The `seq` of the first event after the boundary (the trace's length when the run
    /// ended there).
    pub seq: u32,
    /// Where each thread was, by thread id: `marker <site>`, `blocked <site>` or `exit`.
    pub contexts: Vec<(usize, String)>,
    /// The run ended at this boundary (it was asked to stop there).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ends_run: bool,
}

/// A loop head and the epoch-marker placement's decision about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopHead {
    /// `file:line:column` of the loop.
    pub site: String,
    /// Whether the loop head is an active epoch marker.
    pub marker: bool,
    /// Why (`synchronizes`, `synchronization-free`, `trivial`, `covered by a barrier`,
    /// `covered by a marker`).
    pub reason: String,
    /// The function the loop is in.
    pub function: String,
}

/// The recorded context an execution explored from: the prefix before it ran once, under a
/// fixed schedule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextRecord {
    /// The checkpoint's label.
    pub label: String,
    /// Steps of the prefix: events whose `step` is below it ran before the context.
    pub steps: u32,
    /// The synchronization state at the context, one recorded fact each (`Mutex#2 is held
    /// by thread 1`, `thread 2 is waiting #1 (for a notify on Condvar#3)`).
    pub facts: Vec<String>,
}

/// A model thread: 0 is the test's main thread; others are numbered in spawn order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadInfo {
    /// The thread's id (the `thread` of its events).
    pub id: usize,
    /// The name given with `thread::Builder::name`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The `seq` of the `spawn` event that created it (none for the main thread).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spawned_at: Option<u32>,
    /// The `seq`s of the `join` events that waited for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joined_at: Vec<u32>,
}

/// A modelled object, numbered by first use in the execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectInfo {
    /// The object's id (the `obj` of events), numbered by first use.
    pub id: u32,
    /// `atomic`, `mutex`, `rwlock`, `condvar`, `barrier`, `channel`, `once`, `cell`,
    /// `shared`, `arc`, or `object` (a user-built primitive known by address).
    pub kind: Cow<'static, str>,
    /// The type the program used (`AtomicUsize`, `SpinLock`).
    pub type_name: Cow<'static, str>,
    /// For variables (atomics, `Shared`): the value before this execution's first access,
    /// which a read ordered before every write returns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<InitialValue>,
    /// Where the program created it (the caller of its constructor), when known: the same in
    /// every execution, unlike `id` (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<Location>,
    /// The program took an integer atomic's value out of the model (`get_mut`, `into_inner`)
    /// and read it without a step (added within version 1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub taken: bool,
}

/// The value a variable starts the execution with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialValue {
    /// The variable's type.
    pub ty: Ty,
    /// The value (for `u128` above `i128::MAX`: the bit pattern as an `i128`).
    #[serde(with = "crate::sym::expr::wide")]
    pub value: i128,
}

/// One symbolic input and the value it had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputInfo {
    /// The input's name: `any_named`'s, or `t<thread>#<k>` for the k-th `any()` of a thread.
    pub name: String,
    /// The input's type.
    pub ty: Ty,
    /// The value (for `u128` above `i128::MAX`: the bit pattern as an `i128`).
    #[serde(with = "crate::sym::expr::wide")]
    pub value: i128,
    /// For an input that generalises a value the run computed (a checkpoint's capture at the
    /// context a test explores from): that value. A run whose inputs all equal their recorded
    /// values is a run of the program as it is.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::sym::expr::wide_opt"
    )]
    pub recorded: Option<i128>,
    /// The term (an expression of this trace) the run computed `recorded` by, when it
    /// depended on inputs of the prefix (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computed: Option<ExprId>,
}

/// What happened at one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    // Visible operations: each is one step of the schedule.
    /// An atomic load.
    Load,
    /// An atomic store.
    Store,
    /// An atomic read-modify-write (`swap`, `fetch_add`, ...).
    Rmw,
    /// An atomic compare-exchange, succeeding or not.
    CompareExchange,
    /// A blocking lock of a mutex (or a write lock).
    Lock,
    /// A blocking read lock.
    ReadLock,
    /// A `try_lock`, succeeding or not.
    TryLock,
    /// An unlock (or a write unlock).
    Unlock,
    /// A read unlock.
    ReadUnlock,
    /// A condvar wait: releases `obj2`, waits on `obj`.
    CondvarWait,
    /// A condvar `notify_one`.
    NotifyOne,
    /// A condvar `notify_all`.
    NotifyAll,
    /// A `Barrier::wait`.
    BarrierWait,
    /// A channel send.
    Send,
    /// A channel receive.
    Recv,
    /// `thread::park`.
    Park,
    /// `Thread::unpark`.
    Unpark,
    /// A step that only gives way: `thread::yield_now`, `hint::spin_loop`,
    /// `JoinHandle::is_finished`, a `recv_timeout` that finds nothing yet.
    Yield,
    /// `wait_queue::wait`.
    QueueWait,
    /// `wait_queue::notify_one`.
    QueueNotify,
    /// `wait_queue::notify_all`.
    QueueNotifyAll,
    /// `Once::call_once` or a `OnceLock` initialisation.
    Once,
    /// A condvar waiter woken without a notify.
    SpuriousWake,
    /// A channel's last sender went away while its receiver lives.
    Disconnect,
    /// `Shared::get`.
    SharedRead,
    /// `Shared::set`.
    SharedWrite,
    /// A thread passed an active epoch marker at an epoch boundary (only in runs cut into
    /// bounded epochs; added within version 1).
    EpochMarker,
    // Thread-local events between steps.
    /// A symbolic input was created (`input` says which).
    Input,
    /// A branch on a symbolic condition; `guard` is the condition as taken.
    Branch,
    /// `symx::assume`; `guard` is the assumed condition.
    Assume,
    /// An assertion (`assert` says which and whether it held).
    Assert,
    /// A symbolic value escaped to a plain one; `guard` pins it.
    Pin,
    /// An operation that panics for some operand values: `check` holds the condition under
    /// which it does not (added within version 1).
    Check,
    /// A symbolic index selected an element of a collection: `guard` is `index == value`,
    /// `element` says which length bounds the other choices (added within version 1).
    Element,
    /// One outcome of a choice among outcomes with conditions of their own (which waiter a
    /// notify over symbolic queue names wakes): `guard` is the outcome's condition, `choice`
    /// lists the others' (added within version 1).
    Choice,
    /// A thread was spawned (`child` says which).
    Spawn,
    /// A thread was joined (`child` says which).
    Join,
    /// The thread finished.
    Exit,
    /// Accesses to a `symx::cell::UnsafeCell` (`with` / `with_mut`): not scheduling points,
    /// but the accesses data races are made of.
    CellRead,
    /// A write through `UnsafeCell::with_mut`.
    CellWrite,
    /// The region `symx::atomic_region` marks as meant to be atomic begins / ends.
    AtomicBegin,
    /// The end of that region.
    AtomicEnd,
    /// An annotated (user-built) lock was acquired: the `#[symx::acquire]` call returns.
    /// A step of the schedule (a local event in traces written before symx 0.1.1).
    Acquire,
    /// An annotated release: the `#[symx::release]` call begins. A step, like `Acquire`.
    Release,
    /// An annotated barrier arrival.
    BarrierArrive,
    /// An annotated barrier departure.
    BarrierDepart,
    /// A `#[symx::acquire]` call on `obj` began: the thread may wait inside it until its
    /// `Acquire` (added within version 1).
    AcquireCall,
}

/// One event of the execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceEvent {
    /// Position in the whole trace.
    pub seq: u32,
    /// The thread that performed it.
    pub thread: usize,
    /// Position among the events of its thread (program order).
    pub index: u32,
    /// What happened.
    pub kind: EventKind,
    /// For visible operations: the step of the schedule (0-based) it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// The object involved, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obj: Option<u32>,
    /// A second object: the mutex a condvar wait releases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obj2: Option<u32>,
    /// The read variable this event introduced and the value it read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadRecord>,
    /// The value written and the expression it was computed from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<WriteRecord>,
    /// A condition (`bool` expression) this execution took as true at this event: a branch
    /// as taken, an assumption, a pinned escape, a plain-value read's `read == value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<ExprId>,
    /// `assert` events: the assertion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assert: Option<AssertRecord>,
    /// `check` events: the no-panic condition of an operation (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckRecord>,
    /// `element` events: the symbolic index and the length of the collection it selected
    /// in (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ElementRecord>,
    /// `choice` events: the other outcomes' conditions (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<ChoiceRecord>,
    /// `assume` events that are facts of a program context: what the fact is and where it
    /// comes from (added within version 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact: Option<FactRecord>,
    /// Lock and barrier state changes at this event.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sync: Vec<SyncRecord>,
    /// The thread spawned or joined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child: Option<usize>,
    /// The input created (index into `inputs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u32>,
    /// Where in the user's code it happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// An atomic operation whose result the program drops, as `#[symx::instrument]` marked
    /// it: nothing the program does afterwards depends on the value it read (added within
    /// version 1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blind: bool,
}

impl TraceEvent {
    /// The condition this event asserts and whether it held: a recorded assertion's, or a
    /// check's (the condition under which its operation does not panic, which the language
    /// asserts). A false one ended its thread's run there with a panic.
    pub fn asserted(&self) -> Option<(ExprId, bool)> {
        let assertion = self.assert.as_ref().map(|a| (a.cond, a.holds));
        assertion.or(self.check.map(|c| (c.cond, c.holds)))
    }

    /// What [`asserted`](Self::asserted) asserts, in words: the assertion's source text, or
    /// the panic a check guards against.
    pub fn asserted_text(&self) -> Option<&str> {
        let assertion = self.assert.as_ref().map(|a| a.text.as_str());
        assertion.or(self.check.map(|c| c.op.message()))
    }
}

/// A read: the read variable it introduced and the value it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadRecord {
    /// The read variable: `Read { var }` nodes refer to it.
    pub var: u32,
    /// The value's type.
    pub ty: Ty,
    /// The value read (as [`InitialValue::value`]).
    #[serde(with = "crate::sym::expr::wide")]
    pub value: i128,
}

/// A write: the value written and the expression it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteRecord {
    /// The expression (a constant when nothing symbolic flowed into it).
    pub expr: ExprId,
    /// The value's type.
    pub ty: Ty,
    /// The value written (as [`InitialValue::value`]).
    #[serde(with = "crate::sym::expr::wide")]
    pub value: i128,
}

/// An assertion: its condition, whether it held and its source text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssertRecord {
    /// The asserted condition (not oriented: it evaluates to `holds`).
    pub cond: ExprId,
    /// Whether it held.
    pub holds: bool,
    /// The condition's source text.
    pub text: String,
}

/// The check that an operation does not panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRecord {
    /// The operation (`add`, `sub`, `mul`, `neg`, `div`, `rem`, `shl`, `shr`, `index`).
    pub op: CheckOp,
    /// The condition under which it does not panic (a `bool` expression, not oriented).
    pub cond: ExprId,
    /// Whether it held; when it did not, the execution panicked right there.
    pub holds: bool,
}

/// The element a symbolic index selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementRecord {
    /// The index expression (a `usize`).
    pub index: ExprId,
    /// Its value in this execution (the event's `guard` is `index == value`).
    pub value: u64,
    /// The collection's length: the choices are `0..len`.
    pub len: u64,
}

/// The outcomes of a choice the execution did not take.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChoiceRecord {
    /// The outcome taken, in words (`acquire`, `block`, `wake thread 2`, `wake nobody`).
    pub outcome: String,
    /// Each other outcome's condition (a `bool` expression); exactly one outcome's holds.
    pub alternatives: Vec<ExprId>,
}

/// A fact a program context assumes: which family it belongs to (the families the context
/// modes drop), where it comes from, and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactRecord {
    /// `value` (reaching definitions: what a value must be) or `sync` (synchronization
    /// invariants: lock holders, queue bounds, barrier counts and matching).
    pub family: String,
    /// `declared`, `analysed`, `recorded` or `generalised`.
    pub provenance: String,
    /// What it says, in words.
    pub text: String,
}

/// `acquire`, `release` (with `shared` for read locks), `try_acquire_failed`,
/// `barrier_arrive`, `barrier_depart`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncKind {
    /// A lock was taken.
    Acquire,
    /// A lock was released.
    Release,
    /// A `try_acquire` failed.
    TryAcquireFailed,
    /// A thread arrived at a barrier.
    BarrierArrive,
    /// A thread left a barrier.
    BarrierDepart,
}

/// A lock or barrier state change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncRecord {
    /// What changed.
    pub op: SyncKind,
    /// The lock or barrier.
    pub obj: u32,
    /// A shared (read) lock rather than an exclusive one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shared: bool,
    /// Declared by `#[symx::acquire]`-style annotations rather than a built-in primitive.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub annotated: bool,
}

/// A place in the user's code.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Location {
    /// Borrowed from the binary while recording (no copy per event), owned once read back.
    pub file: Cow<'static, str>,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

/// How the execution ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case", deny_unknown_fields)]
pub enum Verdict {
    /// Every thread finished and nothing failed.
    Pass,
    /// An `assume` did not hold.
    Discarded,
    /// The execution failed.
    Fail {
        /// `panic`, `deadlock`, `data-race`, `step-limit`, `misuse` (the names every
        /// machine-readable output of symx uses).
        kind: String,
        /// The failure's message.
        message: String,
    },
}
