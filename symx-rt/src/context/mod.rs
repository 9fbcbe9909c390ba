//! Exploring from a program context: threads that start in the middle of their work, over an
//! initial state that is partly unknown (Bergan, Grossman, Ceze, "Symbolic Execution of
//! Multithreaded Programs from Arbitrary Program Contexts", OOPSLA 2014; Bergan's
//! dissertation, ch. 2).
//!
//! A *context* is declared by a test: the threads, each a closure that starts at its resume
//! point; the values that are unknown there (symbolic inputs, `symx::any_named`); the objects
//! whose identity is unknown (an index into a pool of one alias class, [`identity`]); and
//! the *facts* that constrain them ([`value_fact`], [`sync_fact`], [`Locks::held`],
//! [`Barriers::expect`], [`spawn_waiting`], [`Threads::spawn`], [`Threads::exited`],
//! [`RwLocks::held_read`], [`RwLocks::held_write`]). Every fact has a family (a value fact, the
//! paper's reaching definitions; or a synchronization invariant) and a provenance, and the
//! [`ContextMode`] decides which families hold: `full` keeps both, `no-rd` drops the value
//! facts, `no-si` the synchronization invariants, `naive` both (every unknown value and every
//! piece of synchronization state unconstrained).
//!
//! The synchronization objects here are the paper's SimpThreads library over *symbolic
//! identities*: a lock's `taken` flag, a barrier's `arrived` and `expected` counts, a thread's
//! `done` flag are
//! elements of one array per pool (one SMT array per object class), read and written at the
//! symbolic identity without forking; every waiter sits in one global FIFO of (queue name,
//! thread) pairs whose names are symbolic, so `notify_one` has the paper's `|WQ| + 1`
//! outcomes and `notify_all` one per subset. Each run is concrete (the inputs have values);
//! the outcome it took is recorded with the conditions of the outcomes it did not take, which
//! the driver's engine asks z3 for.

mod barriers;
mod cells;
pub(crate) mod checkpoint;
mod condvars;
mod facts;
mod locks;
pub(crate) mod mode;
mod pool;
mod queue;
mod rwlocks;
mod threads;

pub use barriers::Barriers;
pub use cells::Cells;
pub use condvars::{spawn_waiting, spawn_waiting_at, Condvars};
pub use facts::{fact, identity, sync_fact, value_fact, Provenance};
pub use locks::{LockGuard, Locks, MaybeHeld};
pub use mode::{ContextMode, FactFamily};
pub use rwlocks::{RwGuard, RwLocks};
pub use threads::Threads;

/// The environment variable that sets the context mode of every test of a test binary, over
/// the attribute's `context_mode` (`cargo symx test --context-mode` sets it for its workers).
pub const MODE_ENV: &str = "SYMX_CONTEXT_MODE";

thread_local! {
    /// An execution on this OS thread (model threads are coroutines on the test's own thread)
    /// used a program context since [`take_used`] last asked.
    static USED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Notes that the running execution uses a program context (a fact, a pool, an identity, a
/// generalised checkpoint).
pub(crate) fn note_used() {
    USED.with(|u| u.set(true));
}

/// Whether an execution on this thread used a program context since the last call: the
/// driver then reports the test per context.
pub(crate) fn take_used() -> bool {
    USED.with(|u| u.replace(false))
}

/// The builder with the context mode `SYMX_CONTEXT_MODE` asks for, if any.
pub(crate) fn mode_from_env(builder: crate::Builder) -> crate::Builder {
    match std::env::var(MODE_ENV) {
        Ok(name) if !name.is_empty() => match name.parse() {
            Ok(mode) => builder.context_mode(mode),
            Err(unknown) => panic!("symx: {MODE_ENV}: {unknown}"),
        },
        _ => builder,
    }
}

/// The context mode of the running execution (`full` outside one).
pub fn mode() -> ContextMode {
    crate::sym::record::with_sym(|st| st.config.context_mode).unwrap_or_default()
}

/// The object of a pool in the current execution: the class every operation on the pool is
/// a scheduling point on. Outside a model a pool cannot be used.
pub(crate) fn class_of(
    obj: &crate::rt::ObjRef,
    type_name: &'static str,
    location: &'static std::panic::Location<'static>,
) -> crate::rt::ObjId {
    note_used();
    let id = crate::rt::with(|e| e.objects.of(obj, crate::rt::ObjKind::User, type_name, 0));
    id.unwrap_or_else(|| {
        crate::rt::foreign::check(obj, type_name, location);
        panic!("symx::context objects are used inside a symx model only")
    })
}
