//! Objects that outlive an execution. Every execution must start from the same state, or
//! exploring its schedules proves nothing: a `static symx::sync::Mutex<u32>` (or a lock
//! captured by the test's closure) keeps what execution 1 wrote into its data, so execution 2
//! starts elsewhere and its assertion fails for a reason no schedule explains.
//!
//! The object table notices such an object at its first use in an execution (its identity
//! slot carries an earlier generation, and it stores data of its own: see
//! [`super::objects::ObjRef`]); the scheduler then fails the execution with kind `misuse`
//! here. Atomics, `Shared`, `OnceLock` and condvars are not concerned: the runtime restarts
//! their state with every execution.

use super::execution::{Execution, Found};
use crate::report::kind::FailureKind;

/// The misuse for the first object of execution `e` found holding an earlier execution's
/// state, if any.
#[inline]
pub(crate) fn take(e: &mut Execution) -> Option<Found> {
    let id = e.objects.take_survivor()?;
    report(e, id)
}

/// The failure for survivor `id` (the scheduler asks at every step, and almost never finds one).
#[cold]
fn report(e: &mut Execution, id: super::op::ObjId) -> Option<Found> {
    let name = e.objects.name(id);
    let created = e.objects.get(id).created?;
    Some(Found {
        kind: FailureKind::Misuse,
        message: format!(
            "{name} created at {}:{}:{} was used by an earlier execution and is used again \
             by this one: its contents survive from one execution to the next, so this \
             execution does not start from the state the first one did",
            created.file(),
            created.line(),
            created.column()
        ),
        details: vec![
            "fix: create the object inside the test, so that every execution gets its own; \
             for state that must live in a `static`, use symx::sync::LazyLock (loom's \
             lazy_static! is symx::loom::lazy_static!), whose value is created anew in every \
             execution"
                .to_string(),
            "a replay runs one execution alone, in which the object starts fresh: run the \
             test again to see this report"
                .to_string(),
        ],
        location: Some(created.into()),
        thread: Some(e.current),
    })
}
