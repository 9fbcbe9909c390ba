//! The scheduler's decision at a step: which enabled threads the rules leave to the chooser
//! (threads that yielded give way, the preemption bound keeps the last thread going), what
//! the chooser is shown of each, and asking it.

use super::Scheduler;
use crate::rt::chooser::{Candidate, Hidden, SchedulingPoint};
use crate::rt::execution::Execution;
use crate::rt::objects::ObjKind;
use crate::rt::op::{Op, ThreadId};
use crate::rt::threads::Status;

impl Scheduler<'_> {
    /// The enabled threads the chooser may choose from: threads that yielded give way to
    /// those that did not, and at the preemption bound the last thread must continue. Also
    /// whether the step is a choice of the schedule: one recorded in replay tokens, which must
    /// replay under any preemption bound, so the bound's own restriction does not count.
    /// Narrows `list` (the enabled threads, in thread-id order) to the options in place and
    /// returns whether the step is a choice, and which enabled threads' absence from the
    /// options the rules caused (see [`Hidden`]).
    pub(super) fn options(
        &self,
        list: &mut Vec<(ThreadId, Op)>,
        last: Option<ThreadId>,
    ) -> (bool, Hidden) {
        let mut e = self.ctx.exec.borrow_mut();
        let mut hidden = Hidden::default();
        if let Some(fixed) = crate::rt::prefix::fixed_step(&mut e, list, last) {
            list.clear();
            list.push(fixed);
            return (false, hidden);
        }
        let yielded = list.iter().filter(|(t, _)| e.threads[*t].yielded).count();
        if yielded == list.len() {
            // Everyone runnable has given way: a new round starts, so that each spinner gets
            // its turn again instead of the first one spinning alone.
            let at = e.trace.len().checked_sub(1).map(|a| a as u32);
            for (t, _) in list.iter() {
                if e.threads[*t].yielded {
                    e.threads[*t].let_go = at;
                }
                e.threads[*t].yielded = false;
            }
        } else if yielded > 0 {
            list.retain(|(t, _)| !e.threads[*t].yielded);
            hidden.yielded = true;
        }
        let choice = list.len() > 1;
        if let (Some(bound), Some(l)) = (e.config.preemption_bound, last) {
            if e.preemptions >= bound {
                if let Some(&cont) = list.iter().find(|(t, _)| *t == l) {
                    hidden.bound = list.len() > 1;
                    let bit = |t: ThreadId| 1u64.checked_shl(t as u32).unwrap_or(u64::MAX);
                    let others = list.iter().filter(|(t, _)| *t != l);
                    hidden.by_bound = others.fold(0, |m, &(t, _)| m | bit(t));
                    list.clear();
                    list.push(cont);
                }
            }
        }
        (choice, hidden)
    }

    /// Shows a chooser that sees every step the threads left with a pending operation at the
    /// end of the execution (see [`Chooser::unfinished`](crate::rt::chooser::Chooser::unfinished)).
    pub(super) fn tell_unfinished(&self) {
        let chooser = *self.ctx.chooser.borrow();
        // SAFETY: see `run_execution`; no model thread runs during the calls.
        if !unsafe { (*chooser).sees_every_step() } {
            return;
        }
        let (pending, after): (Vec<Candidate>, Vec<_>) = {
            let e = self.ctx.exec.borrow();
            (e.threads.iter().enumerate())
                .filter_map(|(id, th)| match th.status {
                    Status::Ready(op) => Some((candidate(&e, id, op), th.after.clone())),
                    _ => None,
                })
                .unzip()
        };
        if !pending.is_empty() {
            // SAFETY: as above.
            unsafe { (*chooser).unfinished(&pending, &after) };
        }
    }

    pub(super) fn pick(
        &mut self,
        options: &[(ThreadId, Op)],
        choice: bool,
        hidden: Hidden,
        last: Option<ThreadId>,
        step: u64,
    ) -> (ThreadId, Op) {
        let chosen = if !choice && !self.every_step {
            options[0]
        } else {
            let chooser = self.chooser;
            let mut candidates = std::mem::take(&mut self.lists.candidates);
            // One look at the execution for everything the point shows of it, held while the
            // chooser looks at the last step (no chooser touches the execution).
            let e = self.ctx.exec.borrow();
            candidates.clear();
            candidates.extend(
                options
                    .iter()
                    .map(|&(thread, op)| candidate(&e, thread, op)),
            );
            let epoch = e.epochs.as_ref().map_or(0, |s| s.boundaries.len());
            let partial = self
                .wants_trace
                .then(|| crate::trace::build::from_execution(&e));
            let point = SchedulingPoint {
                step,
                epoch,
                candidates: &candidates,
                trace: partial.as_ref(),
                last: e.trace.last(),
                hidden,
            };
            // SAFETY: see `run_execution`; no model thread runs during the calls.
            let t = unsafe { (*chooser).choose_thread(&point) };
            let stop = unsafe { (*chooser).stop() };
            drop(e);
            let chosen = options
                .iter()
                .copied()
                .find(|(id, _)| *id == t)
                .unwrap_or(options[0]);
            self.lists.candidates = candidates;
            let mut e = self.exec();
            if stop {
                e.sym.discarded = true;
            }
            if choice {
                e.decisions.push(chosen.0 as u32);
            }
            chosen
        };
        if let Some(l) = last {
            let l_enabled = options.iter().any(|(t, _)| *t == l);
            if chosen.0 != l && l_enabled {
                let mut e = self.exec();
                if !e.threads[l].yielded {
                    e.preemptions += 1;
                }
            }
        }
        chosen
    }
}

/// Thread `thread` about to do `op`, as a chooser is shown it.
fn candidate(e: &Execution, thread: ThreadId, op: Op) -> Candidate {
    Candidate {
        thread,
        op,
        key: e.threads[thread].key,
        shared: op
            .obj
            .is_some_and(|o| e.objects.get(o).kind == ObjKind::Shared),
    }
}
