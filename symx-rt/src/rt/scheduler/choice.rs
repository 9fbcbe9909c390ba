//! The scheduler's decision at a step: which enabled threads the rules leave to the chooser
//! (threads that yielded give way, the preemption bound keeps the last thread going), what
//! the chooser is shown of each, and asking it.

use super::Scheduler;
use crate::rt::chooser::{Candidate, Hidden, SchedulingPoint};
use crate::rt::execution::{location_hash, Execution};
use crate::rt::objects::ObjKind;
use crate::rt::op::{Event, ObjId, Op, OpKind, Outcome, ThreadId, Touch, Value};
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
            let mut touched = std::mem::take(&mut self.lists.touched);
            // One look at the execution for everything the point shows of it.
            let (epoch, previous) = {
                let e = self.ctx.exec.borrow();
                candidates.clear();
                candidates.extend(
                    options
                        .iter()
                        .map(|&(thread, op)| candidate(&e, thread, op)),
                );
                let epoch = e.epochs.as_ref().map_or(0, |s| s.boundaries.len());
                (epoch, previous_step(e.trace.last(), &mut touched))
            };
            let partial = self
                .wants_trace
                .then(|| crate::trace::build::from_execution(&self.ctx.exec.borrow()));
            let point = SchedulingPoint {
                step,
                epoch,
                candidates: &candidates,
                trace: partial.as_ref(),
                previous: previous.previous,
                quiet: previous.quiet,
                touched: &touched,
                previous_location: previous.location,
                hidden,
            };
            // SAFETY: see `run_execution`; no model thread runs during the calls.
            let t = unsafe { (*chooser).choose_thread(&point) };
            let stop = unsafe { (*chooser).stop() };
            let chosen = options
                .iter()
                .copied()
                .find(|(id, _)| *id == t)
                .unwrap_or(options[0]);
            self.lists.candidates = candidates;
            self.lists.touched = touched;
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

/// What the point after the last step shows of it ([`SchedulingPoint`]'s fields of that name;
/// what the step touched is in the list `previous_step` fills).
struct Previous {
    previous: Option<(OpKind, Outcome, Value)>,
    quiet: bool,
    location: u64,
}

/// What the point after step `last` tells of it: its operation's outcome, whether it was quiet,
/// what it and the threads it woke touched (into `touched`, emptied first: a list kept across
/// steps, since collecting a new one cost an allocation at every step that touched anything),
/// and its location's hash where that names objects.
fn previous_step(last: Option<&Event>, touched: &mut Vec<(ObjId, Touch)>) -> Previous {
    touched.clear();
    let Some(e) = last else {
        return Previous {
            previous: None,
            quiet: false,
            location: 0,
        };
    };
    touched.extend_from_slice(&e.touched);
    touched.extend(e.woke.iter().map(|c| (c.obj, c.how)));
    // Hashing the file name costs: only where something needs the name.
    let location = match touched.is_empty() {
        true => 0,
        false => location_hash(e.location),
    };
    Previous {
        previous: Some((e.kind, e.outcome, e.value)),
        quiet: e.quiet,
        location,
    }
}
