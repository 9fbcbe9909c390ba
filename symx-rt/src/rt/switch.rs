//! The points where a model thread hands control back to the scheduler: before a visible
//! operation, when it waits in a queue, when it fails, and when it asks for a choice.
//!
//! Nothing here decides who runs next; that is the scheduler's and the strategy's job.

use super::execution::{ctx, Ctx, Found};
use super::op::{Event, ObjId, Op, OpKind, Outcome, ThreadId, Touch, Value};
use super::threads::{Status, Wait};
use std::panic::Location;

/// Suspends the running coroutine; returns when the scheduler resumes this thread.
fn suspend(ctx: &Ctx) {
    let yielder = {
        let e = ctx.exec.borrow();
        e.threads[e.current].yielder
    };
    // SAFETY: the yielder lives on this coroutine's own stack, which is running right now.
    unsafe { (*yielder).suspend(()) };
}

/// A scheduling point before a visible operation. When it returns, the scheduler has chosen
/// this thread to perform `kind` on `obj` now, atomically up to the next scheduling point.
///
/// Outside a model, and while the thread unwinds from a panic (the execution has already
/// failed), there is nothing to schedule and it returns at once.
pub(crate) fn visible(kind: OpKind, obj: Option<ObjId>, location: &'static Location<'static>) {
    visible_op(Op {
        kind,
        obj,
        obj2: None,
        location,
    });
}

/// [`visible`] for an operation that acts on a second object too (a condvar wait's mutex).
pub(crate) fn visible_op(op: Op) {
    let Some(ctx) = ctx() else { return };
    if std::thread::panicking() {
        return;
    }
    let location = op.location;
    let yielder = {
        let mut e = ctx.exec.borrow_mut();
        let me = e.me();
        me.status = Status::Ready(op);
        me.yielder
    };
    // SAFETY: the yielder lives on this coroutine's own stack, which is running right now.
    unsafe { (*yielder).suspend(()) };
    super::site::note_step(location);
}

/// [`visible`] for an operation on the object `find` gives the id of in the execution (made
/// on its first use): finding it and announcing the operation take one look at the execution
/// (an atomic's every access does both). Returns the id, or `None` outside a model.
pub(crate) fn visible_on(
    kind: OpKind,
    location: &'static Location<'static>,
    find: impl FnOnce(&mut super::execution::Execution) -> ObjId,
) -> Option<ObjId> {
    let ctx = ctx()?;
    let (id, yielder) = {
        let mut e = ctx.exec.borrow_mut();
        let id = find(&mut e);
        if std::thread::panicking() {
            return Some(id);
        }
        let me = e.me();
        me.status = Status::Ready(Op {
            kind,
            obj: Some(id),
            obj2: None,
            location,
        });
        (id, me.yielder)
    };
    // SAFETY: the yielder lives on this coroutine's own stack, which is running right now.
    unsafe { (*yielder).suspend(()) };
    super::site::note_step(location);
    Some(id)
}

/// Records that the running step changed `obj`'s state outside the step's own operation.
pub(crate) fn touch(obj: ObjId, how: Touch) {
    if let Some(ctx) = ctx() {
        ctx.exec.borrow_mut().touch(obj, how);
    }
}

/// Records what the running step's operation turned out to do (see [`Outcome`]).
pub(crate) fn record_outcome(outcome: Outcome) {
    on_my_last_event(|ev| ev.outcome = outcome);
}

/// Changes the running thread's latest event, if it is the trace's last: the step it began.
fn on_my_last_event(change: impl FnOnce(&mut Event)) {
    if let Some(ctx) = ctx() {
        let mut e = ctx.exec.borrow_mut();
        let me = e.current;
        if let Some(ev) = e.trace.last_mut().filter(|ev| ev.thread == me) {
            change(ev);
        }
    }
}

/// The trace position of the running thread's step, if its event is the trace's last.
pub(crate) fn my_step() -> Option<u32> {
    let ctx = ctx()?;
    let e = ctx.exec.borrow();
    let me = e.current;
    let last = e.trace.len().checked_sub(1)?;
    (e.trace[last].thread == me).then_some(last as u32)
}

/// Records that the running step could not have run before the step at trace position `at`
/// (an ordering the reduction never reverses, like a wake-up's).
pub(crate) fn record_enabler(at: u32) {
    on_my_last_event(|ev| ev.enablers.push(at));
}

/// Attaches the value an operation read or wrote to its event, for the report.
pub(crate) fn record_value(value: Value) {
    on_my_last_event(|ev| ev.value = value);
}

/// Ends the execution with a failure. Never returns to its caller, except while the thread is
/// already unwinding from a panic: that panic is then the failure reported, and suspending an
/// unwinding coroutine would leave the OS thread's panic count raised for good.
pub(crate) fn fail(found: Found) {
    let Some(ctx) = ctx() else {
        panic!("{}", found.message);
    };
    let panicking = std::thread::panicking();
    {
        let mut e = ctx.exec.borrow_mut();
        if !panicking {
            e.set_failure(found);
        }
    }
    if panicking {
        return;
    }
    loop {
        // The scheduler tears the execution down without resuming this thread.
        suspend(ctx);
    }
}

/// Abandons the execution because an assumption does not hold: it ends with no failure, as
/// discarded. Outside a model there is nothing to abandon, which is reported.
///
/// The calling thread blocks for good, but the other threads run on until none can: a
/// partial-order reduction learns which schedules to try next from the races in the
/// execution, and the races of the other threads' later steps are among them. Stopping every
/// thread at the failed assumption would hide those steps, and the schedules they call for
/// (where the assumption holds and a bug shows) would never be explored. What the other
/// threads do after it does not count: a failure among them is dropped with the execution,
/// which the assumption rules out as a whole (as GenMC treats `assume` as a thread that
/// blocks).
///
/// A failed assumption on a symbolic condition in an execution a symbolic engine records
/// still ends the execution at once: the engine reads the assumption's condition as the last
/// of the path, and explores its other side by solving, not by scheduling.
pub(crate) fn discard(what: &str, symbolic: bool) {
    let Some(ctx) = ctx() else {
        panic!("{what} failed outside a symx model");
    };
    if std::thread::panicking() {
        return;
    }
    {
        let mut e = ctx.exec.borrow_mut();
        if symbolic && e.sym.recording() {
            e.sym.discarded = true;
        } else {
            e.sym.assumed_false = true;
            e.me().status = Status::Assumed;
        }
    }
    loop {
        // The scheduler tears the execution down without resuming this thread.
        suspend(ctx);
    }
}

/// Puts the current thread in the global wait queue under `key` and suspends it until a
/// notify on `key` wakes it. Outside a model a wait can never end, which is reported.
pub(crate) fn wait(wait: Wait) {
    let Some(ctx) = ctx() else {
        panic!(
            "symx: a blocking operation ({}) ran outside a symx model; run the code under \
             #[symx::test] or symx::model",
            wait.what
        );
    };
    if std::thread::panicking() {
        return;
    }
    {
        let mut e = ctx.exec.borrow_mut();
        let me = e.current;
        e.me().status = Status::Waiting(wait);
        e.queue.push(me);
    }
    suspend(ctx);
}

/// Wakes the waiters queued under `key`: all of them, or one chosen by the strategy (which one
/// std wakes is unspecified, so every choice is explored). Returns the woken threads (inline:
/// a thread's end notifies its joiners, in every execution).
pub(crate) fn notify(key: usize, all: bool) -> smallvec::SmallVec<[ThreadId; 4]> {
    let Some(ctx) = ctx() else {
        return smallvec::SmallVec::new();
    };
    let mut waiters = smallvec::SmallVec::<[ThreadId; 4]>::new();
    {
        let e = ctx.exec.borrow();
        for &t in &e.queue {
            if matches!(e.threads[t].status, Status::Waiting(w) if w.key == key) {
                waiters.push(t);
            }
        }
    }
    let woken = if all || waiters.len() <= 1 {
        waiters
    } else {
        smallvec::smallvec![waiters[choose(waiters.len())]]
    };
    let mut e = ctx.exec.borrow_mut();
    for &t in &woken {
        wake(&mut e, t);
    }
    woken
}

/// Takes `t` out of the wait queue: it retries its operation or runs on.
pub(crate) fn wake(e: &mut super::execution::Execution, t: ThreadId) {
    if let Status::Waiting(w) = e.threads[t].status {
        e.queue.retain(|&q| q != t);
        // Whatever made the waker run comes before whatever the woken thread does next.
        e.add_frontier(t, e.current);
        e.threads[t].status = match w.wake {
            Some(op) => Status::Ready(op),
            None => Status::Fresh,
        };
    }
}

/// A nondeterministic choice among `n` alternatives, explored like a scheduling choice and
/// recorded in the schedule. Outside a model the first alternative is taken.
pub(crate) fn choose(n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let Some(ctx) = ctx() else { return 0 };
    let chooser = *ctx.chooser.borrow();
    // SAFETY: the explorer owns the chooser for the whole execution and does not touch it
    // while a model thread runs.
    let pick = unsafe { (*chooser).choose_value(n) }.min(n - 1);
    ctx.exec.borrow_mut().decisions.push(pick as u32);
    pick
}

/// The running model thread's id, if any.
pub(crate) fn current_thread() -> Option<ThreadId> {
    ctx().map(|c| c.exec.borrow().current)
}
