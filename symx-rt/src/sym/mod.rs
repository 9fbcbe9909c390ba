//! Symbolic values: inputs (`any`, `any_named`), assumptions, recorded branches and
//! assertions, the checks of operations that can panic, vectors indexed symbolically
//! (`SymVec`), and shared variables whose reads are read variables of the trace.
//!
//! The concrete execution always runs on concrete values; a symbolic value additionally
//! carries the expression it was computed from (`value`, `ops`, `expr`), and every point
//! where such a value decides something — a branch, an assumption, an assertion, an escape to
//! a plain value — is noted by `record` for the trace. This module owns the user-facing
//! surface; what a trace looks like is `crate::trace`'s business.

pub(crate) mod checks;
pub(crate) mod compare;
pub(crate) mod eval;
pub(crate) mod expr;
pub(crate) mod notes;
mod ops;
pub(crate) mod record;
mod shared;
mod value;
mod vec;

use std::panic::Location;

use notes::Local;

pub use compare::Condition;
pub use record::InputValues;
pub use shared::Shared;
pub use value::{Sym, SymInt, SymValue};
pub use vec::SymVec;

/// A fresh symbolic input. Its concrete value comes from the input assignment given to the
/// explorer ([`Builder::inputs`](crate::Builder::inputs)) under the name `t<thread>#<k>` (the
/// k-th unnamed input of that thread), otherwise from the input seed (zero by default).
#[track_caller]
pub fn any<T: SymValue>() -> Sym<T> {
    record::input(None, Location::caller())
}

/// A fresh symbolic input with a name, for reports and for input assignments. The same name
/// in one execution is the same input.
#[track_caller]
pub fn any_named<T: SymValue>(name: &str) -> Sym<T> {
    record::input(Some(name), Location::caller())
}

/// Discards the execution if `cond` is false: it is neither a failure nor a success, and the
/// report counts it ([`Report::discarded`](crate::Report::discarded)).
#[track_caller]
pub fn assume(cond: impl Condition) {
    let c = cond.into_sym();
    let symbolic = c.expr.is_some();
    let holds = record::condition(c, Location::caller(), |guard, _| Local::Assume {
        guard,
        fact: None,
    });
    if !holds {
        crate::rt::switch::discard("symx::assume", symbolic);
    }
}

/// Records `cond` as a branch condition and returns its concrete value: what instrumented
/// bodies do for `if`, `while`, match guards, `&&` and `||`, by hand.
#[track_caller]
pub fn branch(cond: impl Condition) -> bool {
    cond.branch_at(Location::caller())
}

/// Runs `f` as a region the program means to be atomic: the trace marks where it begins and
/// ends (`atomic_begin` / `atomic_end`), so that a predictive engine can ask whether another
/// thread's access between two of its accesses makes it unserialisable (an atomicity
/// violation). It changes nothing about how `f` runs: whether it really is atomic is the
/// question.
#[track_caller]
pub fn atomic_region<R>(f: impl FnOnce() -> R) -> R {
    let location = Location::caller();
    crate::rt::with(|e| e.note_local(Local::AtomicBegin, Some(location)));
    let result = f();
    crate::rt::with(|e| e.note_local(Local::AtomicEnd, Some(location)));
    result
}

/// Records an assertion on `cond` (for `symx::assert!` and instrumented `assert!`s) and
/// returns its concrete value; the caller panics when it is false.
#[doc(hidden)]
#[track_caller]
pub fn assertion(cond: impl Condition, text: &'static str) -> bool {
    let c = cond.into_sym();
    if c.expr.is_none() {
        return c.value;
    }
    record::assertion(c, text, Location::caller())
}
