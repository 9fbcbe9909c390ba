//! The default exploration: shallow bugs first, then the proof. Iterative preemption bounding
//! (Musuvathi and Qadeer, PLDI 2007: bound 0, then 1, then 2, each by a bounded DFS) runs
//! interleaved with the optimal DPOR, which alone decides completeness.
//!
//! The optimal DPOR is depth-first: a choice at the start of a long execution is revisited only
//! after everything below it is exhausted, so a bug that needs one preemption early in an
//! execution with a long dependent tail can take it arbitrarily long. A bounded DFS with few
//! preemptions reaches such a bug after a number of executions polynomial in the length.
//! The passes start after the DPOR's first [`WARM_UP`] executions and get at most half as many
//! as the DPOR has run, so a program without a bug is proved at most about one and a half
//! times as slowly; the passes
//! stop when the DPOR finishes (it has seen every trace they could show) or after bound
//! [`LAST_BOUND`].
//!
//! They run only without an execution bound (which asks for exactly that many executions of
//! the exploration).
//!
//! A bounded pass here enforces the bound itself (as the scheduler does for a bounded
//! exploration): the thread that ran last (before the first step, the main thread) keeps
//! running once the pass's preemptions are spent, and a switch away from it while it could run
//! counts as a preemption.

use super::dfs::Dfs;
use super::dpor::Dpor;
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::{Event, ThreadId};
use crate::rt::threads::MAIN;

/// Executions the DPOR runs alone before the passes start: a small exploration (most tests)
/// finishes before any pass runs, so its executions, traces and side effects are the DPOR's.
pub(crate) const WARM_UP: u64 = 256;

/// The largest preemption bound a pass explores.
pub(crate) const LAST_BOUND: u32 = 2;

/// A DFS over the schedules with at most `bound` preemptions.
#[derive(serde::Serialize, serde::Deserialize)]
struct Pass {
    dfs: Dfs,
    bound: u32,
    last: Option<ThreadId>,
    preemptions: u32,
}

impl Pass {
    fn new(bound: u32) -> Pass {
        Pass {
            dfs: Dfs::default(),
            bound,
            last: Some(MAIN),
            preemptions: 0,
        }
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let last = self.last.filter(|&l| point.can_run(l));
        let t = match last {
            // Out of preemptions, or nothing to choose: no choice point.
            Some(l) if self.preemptions >= self.bound => l,
            _ if point.candidates.len() == 1 => point.first(),
            _ => self.dfs.choose_thread(point),
        };
        if last.is_some_and(|l| l != t) {
            self.preemptions += 1;
        }
        self.last = Some(t);
        t
    }
}

/// Which exploration the current execution belongs to.
#[derive(Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Turn {
    Pass,
    Dpor,
}

#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct ShallowFirst {
    dpor: Dpor,
    pass: Option<Pass>,
    turn: Turn,
    /// Executions run by the passes and by the DPOR.
    shallow: u64,
    deep: u64,
}

impl ShallowFirst {
    pub fn new(dpor: Dpor) -> Self {
        ShallowFirst {
            dpor,
            pass: Some(Pass::new(0)),
            turn: Turn::Dpor,
            shallow: 0,
            deep: 0,
        }
    }

    /// Starts the next execution of the current pass, moving on to the next bound when a pass
    /// is done; `false` when every pass is.
    fn next_pass_execution(&mut self) -> bool {
        while let Some(pass) = &mut self.pass {
            pass.last = Some(MAIN);
            pass.preemptions = 0;
            if pass.dfs.next_execution() {
                return true;
            }
            let next = pass.bound + 1;
            self.pass = (next <= LAST_BOUND).then(|| Pass::new(next));
        }
        false
    }
}

impl Chooser for ShallowFirst {
    fn next_execution(&mut self) -> bool {
        let passes_due = self.deep >= WARM_UP && self.shallow < self.deep / 2;
        if self.pass.is_some() && passes_due && self.next_pass_execution() {
            self.turn = Turn::Pass;
            self.shallow += 1;
            return true;
        }
        self.turn = Turn::Dpor;
        self.deep += 1;
        self.dpor.next_execution()
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        match (self.turn, &mut self.pass) {
            (Turn::Pass, Some(pass)) => pass.choose_thread(point),
            _ => self.dpor.choose_thread(point),
        }
    }

    fn sees_every_step(&self) -> bool {
        true // the DPOR must, and a pass counts preemptions
    }

    fn choose_value(&mut self, n: usize) -> usize {
        match (self.turn, &mut self.pass) {
            (Turn::Pass, Some(pass)) => pass.dfs.choose_value(n),
            _ => self.dpor.choose_value(n),
        }
    }

    fn end_execution(&mut self, events: &[Event]) {
        if self.turn == Turn::Dpor {
            self.dpor.end_execution(events);
        }
    }

    fn shallow(&self) -> bool {
        self.turn == Turn::Pass
    }

    fn estimate(&self) -> Option<f64> {
        self.dpor.estimate()
    }

    fn save(&self) -> Option<crate::json::Json> {
        crate::explore::checkpoint::state_of(self)
    }

    fn restore(&mut self, state: crate::json::Json) -> Result<(), String> {
        if state.get("dpor").is_none() {
            // The DPOR's alone, taken under an execution bound: it continues with passes
            // beside it from now on, as if its executions so far had been the warm-up.
            self.dpor.restore(state)?;
            self.deep = self.dpor.executions() + 1;
            self.turn = Turn::Dpor;
            return Ok(());
        }
        *self = crate::explore::checkpoint::from_state(state)?;
        Ok(())
    }
}
