//! The seam between one execution and whatever decides its schedule: the [`Chooser`] trait and
//! the [`SchedulingPoint`] a chooser is shown.
//!
//! The scheduler (`scheduler`) runs threads and asks; a chooser decides and never runs threads.
//! The exploration strategies (`explore`) are its implementations; nothing in this layer knows
//! which one is running.
//!
//! Lifecycle: [`Chooser::next_execution`] before each execution (`false` ends the exploration),
//! then [`Chooser::choose_thread`] at scheduling points and [`Chooser::choose_value`] at
//! nondeterministic operations while it runs, then [`Chooser::end_execution`] with its events.

use super::op::{Event, ObjId, Op, OpKind, Outcome, ThreadId, Touch, Value};

/// One thread the chooser may pick: who it is and what it will do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    /// The thread's id in this execution (spawn order, which can differ between executions).
    pub thread: ThreadId,
    /// The visible operation the thread performs when it is picked.
    pub op: Op,
    /// The thread's spawn-path key, the same in every execution.
    pub key: u64,
    /// The operation reads or writes a `symx::Shared` (a memory access, not synchronization).
    pub shared: bool,
}

/// What a chooser sees when it must choose: the threads that can run and what each will do.
pub(crate) struct SchedulingPoint<'a> {
    /// Steps already taken in this execution.
    pub step: u64,
    /// Epoch boundaries passed so far (a run cut into bounded epochs; 0 otherwise).
    pub epoch: usize,
    /// The threads that can run, in thread-id order; never empty.
    pub candidates: &'a [Candidate],
    /// The execution so far as a trace, for a chooser that asked for it
    /// ([`Chooser::wants_trace`]).
    pub trace: Option<&'a crate::trace::Trace>,
    /// The previous step, now that it has ended (none before the first): what the point shows
    /// of it is read from it only where a chooser asks ([`SchedulingPoint::previous`] and the
    /// methods after it). Copying it out at every step (a list of what it touched, its
    /// location's hash) cost ~70 instructions a step that most steps of the bounded reduction
    /// never read (session 22).
    pub last: Option<&'a Event>,
    /// Enabled threads the scheduler's rules kept out of `candidates` here.
    pub hidden: Hidden,
}

/// Why enabled threads are missing from a step's candidates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hidden {
    /// The preemption bound is spent: the last thread must continue.
    pub bound: bool,
    /// Where `bound`, the threads it kept out, by id in this execution: bit `t` for thread
    /// `t` (every bit when one's id is 64 or more: the bounded reduction then counts a cut).
    pub by_bound: u64,
    /// Threads that yielded give way to those that did not.
    pub yielded: bool,
}

impl SchedulingPoint<'_> {
    /// The first candidate's thread: what the scheduler runs when a choice names no candidate.
    pub fn first(&self) -> ThreadId {
        self.candidates[0].thread
    }

    /// Whether thread `t` is among the candidates.
    pub fn can_run(&self, t: ThreadId) -> bool {
        self.candidates.iter().any(|c| c.thread == t)
    }

    /// What the previous step's operation turned out to do, now that the step has ended.
    pub fn previous(&self) -> Option<(OpKind, Outcome, Value)> {
        self.last.map(|e| (e.kind, e.outcome, e.value))
    }

    /// The previous step changed nothing the scheduler's yield rule looks at
    /// ([`Event::quiet`]: a load, a failed compare-exchange, a yield), so it let no thread that
    /// yielded go (a new round here aside, which needs its thread to be unable to run on).
    pub fn quiet(&self) -> bool {
        self.last.is_some_and(|e| e.quiet)
    }

    /// What the previous step changed besides its operation's objects (`Event::touched`: a
    /// drop in its code), then what the code of the threads it woke changed (`Event::woke`,
    /// which a sleeping event is compared with as with the step's own).
    pub fn touched(&self) -> impl Iterator<Item = (ObjId, Touch)> + '_ {
        self.last.into_iter().flat_map(|e| {
            let woke = e.woke.iter().map(|c| (c.obj, c.how));
            e.touched.iter().copied().chain(woke)
        })
    }

    /// The hash of the previous step's operation's location (`location_hash`, which names
    /// what it touched as the trace's events do), where it touched anything; 0 otherwise.
    pub fn previous_location(&self) -> u64 {
        match self.last {
            Some(e) if !(e.touched.is_empty() && e.woke.is_empty()) => {
                super::execution::location_hash(e.location)
            }
            _ => 0,
        }
    }
}

/// A way of choosing among the executions of a program, one decision at a time.
pub(crate) trait Chooser {
    /// Prepares the next execution; `false` when there is none left to run.
    fn next_execution(&mut self) -> bool;
    /// Picks the thread that performs the next step; must be one of `point.candidates`.
    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId;
    /// Whether to be asked at every step, even where only one thread can run (a partial-order
    /// reduction must see every event); otherwise only at real choices.
    fn sees_every_step(&self) -> bool {
        false
    }
    /// Whether to be shown the execution so far as a trace at every scheduling point (costly:
    /// the trace is assembled each time). Only a driver that decides from the state does.
    fn wants_trace(&self) -> bool {
        false
    }
    /// Asked after each choice: whether to abandon the execution here instead (it ends as
    /// discarded: no failure, no thread runs again).
    fn stop(&mut self) -> bool {
        false
    }
    /// Picks one of `n >= 2` alternatives of a nondeterministic operation.
    fn choose_value(&mut self, n: usize) -> usize;
    /// When an execution has ended, before [`Chooser::end_execution`]: the threads that still
    /// had an operation to do (blocked on a lock or a receive held up by a thread that blocked
    /// for good on a failed `assume`, or cut off by a failure), with those operations. No later
    /// step shows them, so a partial-order reduction reads their races from here. Only asked
    /// of a chooser that [sees every step](Chooser::sees_every_step), and only when there are
    /// such threads. `after[k]` is what `pending[k]` would come after besides its thread's
    /// last step, as [`Event::enablers`] (the step that spawned its thread, or woke it).
    fn unfinished(&mut self, _pending: &[Candidate], _after: &[super::op::Enablers]) {}
    /// The execution that just ended, step by step.
    fn end_execution(&mut self, _events: &[Event]) {}
    /// Whether the current execution belongs to a search for shallow bugs run alongside the
    /// exploration (see `explore::shallow`) rather than to the exploration itself, which alone
    /// decides completeness and is what the report's execution count counts.
    fn shallow(&self) -> bool {
        false
    }
    /// After an execution ended: the estimated number of executions of the whole exploration
    /// (see `explore::estimate`), for an exhaustive strategy; `None` otherwise.
    fn estimate(&self) -> Option<f64> {
        None
    }
    /// The exploration's state between two executions, for a checkpoint to resume from (see
    /// `explore::checkpoint`); `None` for a chooser that cannot be resumed.
    fn save(&self) -> Option<crate::json::Json> {
        None
    }
    /// Continues from a state [`Chooser::save`] returned, as if the executions before it had
    /// just run.
    fn restore(&mut self, _state: crate::json::Json) -> Result<(), String> {
        Err("this strategy cannot be resumed".into())
    }
}
