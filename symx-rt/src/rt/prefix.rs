//! The prefix of a recorded context. A test that explores from a checkpoint's label runs the
//! program from its start under one fixed schedule until every thread that can still run is
//! stopped at that checkpoint; the context is entered there, the synchronization state is
//! snapshotted as recorded facts (who holds each lock, who waits in which order, how many
//! threads each barrier has seen), and only then do the strategies choose: schedules are
//! explored from the context, not from the start.
//!
//! This is how the arbitrary-context paper's "execution reconstruction" maps to native code
//! (Bergan, Grossman, Ceze, OOPSLA 2014; Bergan's dissertation, ch. 2): a native thread cannot
//! be placed at a program counter, so the prefix is executed, once and concretely, and what the
//! paper avoids (enumerating the prefix's paths) is avoided by never choosing in it.
//!
//! The fixed schedule is non-preemptive: the thread that ran last goes on while it can, else
//! the lowest-numbered one that can. A thread stops at its first pass through the checkpoint;
//! threads without one run until they finish or block. The prefix's steps are marked `fixed`:
//! a partial-order reduction never reverses a race whose first event is one of them.

use std::panic::Location;

use super::execution::{ctx, Execution};
use super::op::{Op, OpKind, ThreadId};
use super::threads::Status;

/// Where an execution is relative to the recorded context it explores from.
#[derive(Clone, Debug)]
pub(crate) enum Phase {
    /// The test explores from no checkpoint.
    Off,
    /// Running the prefix: no thread has been let past the checkpoint yet.
    Prefix,
    /// The context was entered after `steps` steps, with this snapshot.
    Entered { steps: u32, facts: Vec<String> },
}

impl Phase {
    /// The phase an execution starts in.
    pub fn of(explores_context: bool) -> Phase {
        if explores_context {
            Phase::Prefix
        } else {
            Phase::Off
        }
    }

    pub fn in_prefix(&self) -> bool {
        matches!(self, Phase::Prefix)
    }
}

/// During the prefix, the one step the fixed schedule takes among `enabled`; `None` outside
/// it, and at the moment the context is entered (every runnable thread stopped at the
/// checkpoint), when the strategy chooses among them.
pub(crate) fn fixed_step(
    e: &mut Execution,
    enabled: &[(ThreadId, Op)],
    last: Option<ThreadId>,
) -> Option<(ThreadId, Op)> {
    if !e.context.in_prefix() {
        return None;
    }
    let runnable = || enabled.iter().filter(|(t, _)| !e.threads[*t].parked);
    let next = runnable()
        .find(|(t, _)| Some(*t) == last)
        .or_else(|| runnable().next())
        .copied();
    if next.is_none() {
        enter(e);
    }
    next
}

/// Enters the context: snapshots it and lets the stopped threads go.
fn enter(e: &mut Execution) {
    let facts = snapshot(e);
    for t in &mut e.threads {
        t.parked = false;
    }
    e.context = Phase::Entered {
        steps: e.trace.len() as u32,
        facts,
    };
}

/// The synchronization state at the context, one recorded fact per line.
fn snapshot(e: &Execution) -> Vec<String> {
    let mut facts = Vec::new();
    for id in 0..e.objects.len() as super::op::ObjId {
        let state = e.objects.get(id);
        let label = e.objects.label(id);
        if let Some(lock) = &state.lock {
            if let Some((t, _)) = lock.writer {
                facts.push(format!("{label} is held by {}", e.threads[t].label(t)));
            }
            for &t in &lock.readers {
                facts.push(format!("{label} is read-held by {}", e.threads[t].label(t)));
            }
        }
        if let Some(b) = state.barrier.as_ref().filter(|b| b.expected > 0) {
            facts.push(format!(
                "{label} has seen {} of {} threads",
                b.arrived % b.expected,
                b.expected
            ));
        }
    }
    let mut position = 0;
    for &t in &e.queue {
        if let Status::Waiting(w) = e.threads[t].status {
            position += 1;
            facts.push(format!(
                "{} is waiting #{position} (for {} on {})",
                e.threads[t].label(t),
                w.what,
                e.objects.label(w.obj)
            ));
        }
    }
    for (t, th) in e.threads.iter().enumerate() {
        match th.status {
            Status::Ready(_) if th.parked => {
                facts.push(format!("{} is at the checkpoint", th.label(t)))
            }
            Status::Ready(op) if !e.is_enabled(&op) => facts.push(format!(
                "{} waits to {} {}",
                th.label(t),
                op.kind,
                op.obj.map_or_else(String::new, |o| e.objects.label(o))
            )),
            Status::Finished => facts.push(format!("{} has finished", th.label(t))),
            _ => {}
        }
    }
    facts
}

/// A checkpoint with the label the test explores from: whether this pass is the running
/// thread's context (its first pass, during the prefix). If so, the thread stops here until
/// the context is entered, and its captures are then generalised.
pub(crate) fn reach(location: &'static Location<'static>) -> bool {
    let Some(ctx) = ctx() else { return false };
    {
        let mut e = ctx.exec.borrow_mut();
        let me = e.current;
        if e.threads[me].reached || !e.context.in_prefix() {
            return false;
        }
        e.threads[me].reached = true;
        e.threads[me].parked = true;
    }
    // The step that lets the thread go is the context's, not a yield of the program's: the
    // thread competes as before, and a partial-order reduction sees a step that touches
    // nothing (a yield would order it against every change after it).
    super::visible(OpKind::Checkpoint, None, location);
    true
}

/// The step count and snapshot of the entered context, for the trace.
pub(crate) fn entered(e: &Execution) -> Option<(u32, &[String])> {
    match &e.context {
        Phase::Entered { steps, facts } => Some((*steps, facts)),
        _ => None,
    }
}
