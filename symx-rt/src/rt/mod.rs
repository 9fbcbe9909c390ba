//! The engine of one execution: model threads as coroutines, the scheduler, the object table,
//! wait queues, vector clocks and the trace.
//!
//! The std-mirroring facade (`sync`, `thread`, `cell`, ...) calls into this module; strategies
//! (`explore`) are called by it through the [`chooser::Chooser`] seam defined here. Nothing
//! here knows which strategy is running.

pub(crate) mod chooser;
pub(crate) mod clock;
pub(crate) mod diagnose;
pub(crate) mod epochs;
pub(crate) mod execution;
pub(crate) mod foreign;
pub(crate) mod hb;
pub(crate) mod heap;
pub(crate) mod locals;
pub(crate) mod locks;
pub(crate) mod objects;
pub(crate) mod op;
pub(crate) mod overflow;
pub(crate) mod panic_hook;
pub(crate) mod prefix;
pub(crate) mod race;
pub(crate) mod scheduler;
pub(crate) mod site;
pub(crate) mod spawn;
pub(crate) mod survivors;
pub(crate) mod switch;
pub(crate) mod threads;
pub(crate) mod watchdog;

pub(crate) use execution::{in_model, with, Config};
pub(crate) use objects::{short_type_name, ObjKind, ObjRef};
pub(crate) use op::{ObjId, OpKind, Value};
pub(crate) use switch::{current_thread, fail, notify, record_value, visible, visible_on, wait};
pub(crate) use threads::Wait;
