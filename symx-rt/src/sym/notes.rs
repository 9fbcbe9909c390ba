//! The notes an execution keeps for its trace, when recorded: what each visible step read,
//! wrote and did to locks and barriers ([`StepNote`]), and the thread-local events between
//! steps ([`LocalNote`]: branches, assumptions, assertions, escape guards, spawns, joins,
//! annotations). `record` takes them; `trace::build` assembles the trace from them.

use std::panic::Location;

use super::checks::CheckOp;
use super::expr::{ExprId, Ty};
use crate::rt::op::{ObjId, ThreadId};

/// What a visible step read, wrote and assumed, attached to its event.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepNote {
    pub event: u32,
    pub read: Option<u32>,
    pub write: Option<(ExprId, Ty, u128)>,
    pub guard: Option<ExprId>,
    pub sync: smallvec::SmallVec<[(SyncOp, ObjId); 2]>,
}

/// A change of lock or barrier state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncOp {
    Acquire { shared: bool },
    Release { shared: bool },
    TryAcquireFailed,
    BarrierArrive,
    BarrierDepart,
}

/// A thread-local event between visible steps.
#[derive(Clone, Debug)]
pub(crate) enum Local {
    Input {
        input: u32,
    },
    Branch {
        guard: ExprId,
    },
    Assume {
        guard: ExprId,
        /// A fact of a program context (`symx::context`): what it says and where it comes
        /// from. `None` for a plain `symx::assume`.
        fact: Option<crate::trace::format::FactRecord>,
    },
    Assert {
        cond: ExprId,
        holds: bool,
        text: &'static str,
    },
    Pin {
        guard: ExprId,
    },
    /// The condition under which an operation does not panic (`sym::checks`).
    Check {
        cond: ExprId,
        holds: bool,
        op: CheckOp,
    },
    /// A symbolic index chose an element of a collection of `len`: `guard` is
    /// `index == value`, which an engine may flip to any other value below `len`.
    Element {
        guard: ExprId,
        index: ExprId,
        value: usize,
        len: usize,
    },
    /// One outcome of a choice among several, each under its own condition (which waiter a
    /// notify over symbolic queue names wakes, `symx::context`): `guard` is the outcome's
    /// condition, `alternatives` every other outcome's.
    Choice {
        guard: ExprId,
        alternatives: Vec<ExprId>,
        outcome: String,
    },
    Spawn {
        child: ThreadId,
    },
    Join {
        child: ThreadId,
    },
    Exit,
    /// An access to a `symx::cell::UnsafeCell` (not a scheduling point, but what data races
    /// are made of).
    CellAccess {
        obj: ObjId,
        write: bool,
    },
    /// A region the program means to be atomic begins / ends (`symx::atomic_region`).
    AtomicBegin,
    AtomicEnd,
    /// A `#[symx::acquire]` call begins: from here the thread may wait (spin) for `obj`.
    AcquireCall {
        obj: ObjId,
    },
    /// A lock or barrier annotation of a user-built primitive.
    Annotated {
        op: SyncOp,
        obj: ObjId,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct LocalNote {
    /// Visible events before it in the execution.
    pub at: u32,
    pub thread: ThreadId,
    pub local: Local,
    pub location: Option<&'static Location<'static>>,
}
