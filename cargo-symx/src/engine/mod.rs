//! The z3-backed engines, one folder each, behind one seam. An engine reads what executions
//! of a test recorded (traces, `symx::trace`), asks the solver (`crate::solver`) about
//! executions that were not run, and has every answer run before anything is reported: it
//! never runs the program itself. Its caller (`crate::run::engines` under `cargo symx`, or a
//! test in process) passes an [`Executor`] that runs the test.
//!
//! - `predict`: symbolic predictive analysis of one recorded trace (Wang, Kundu, Ganai,
//!   Gupta, "Symbolic Predictive Analysis for Concurrent Programs", FM 2009);
//! - `symbolic`: every input class of a test times every schedule class of it (concolic
//!   search over the recorded path conditions, with optimal DPOR inside each class);
//! - `context`: exploration from a program context a test declares (Bergan, Grossman,
//!   Ceze, "Symbolic Execution of Multithreaded Programs from Arbitrary Program Contexts",
//!   OOPSLA 2014), counted per context mode;
//! - `assertion_guided`: the same space searched as one tree of schedule and branch choices,
//!   pruning every state that summaries of explored subtrees prove cannot fail an assertion
//!   (Guo, Kusano, Wang, Yang, Gupta, "Assertion Guided Symbolic Execution of Multithreaded
//!   Programs", ESEC/FSE 2015);
//! - `covering`: input-covering schedules (Bergan, dissertation ch. 3): a small set of
//!   (input constraint, schedule) pairs covering every input, for constrained execution
//!   and the per-schedule deadlock check.

pub mod assertion_guided;
pub mod context;
pub mod covering;
mod in_process;
pub mod predict;
pub mod symbolic;

pub use in_process::InProcess;

use std::time::Duration;

use symx::__worker::protocol::FailureReport;
use symx::covering::{Epochs, HbSchedule};
use symx::trace::Trace;
use symx::{Drive, DrivenPoint, Guide, InputValues};

use crate::solver::replayed::Replayed;

/// What an engine may ask of the test under analysis. Implementations run the test (in a
/// worker process of the test binary, or in process); the engine only decides what to run.
pub trait Executor {
    /// Explores the test's schedules with its symbolic inputs fixed to `inputs` (an input
    /// not named keeps the test's default), as the test's own settings say (optimal DPOR
    /// unless it chose otherwise), within `limits`; every execution's trace.
    fn explore(&mut self, inputs: &InputValues, limits: &Limits) -> Result<Exploration, String>;
    /// Runs the one execution `guide` describes.
    fn run(&mut self, guide: &Guide) -> Result<Replayed, String>;
    /// Runs one execution with `inputs` in which `decide` takes every scheduling decision,
    /// shown the execution so far, and may abandon it (`symx::Builder::run_driven`). An
    /// executor that cannot says why.
    fn drive(
        &mut self,
        inputs: &InputValues,
        decide: &mut dyn FnMut(&DrivenPoint<'_>) -> Drive,
    ) -> Result<Replayed, String> {
        let _ = (inputs, decide);
        Err("this executor cannot drive an execution".into())
    }

    /// Runs one execution held to `schedule`'s happens-before order with `inputs`
    /// (constrained execution); its `divergence` says where it left the schedule.
    fn run_constrained(
        &mut self,
        _schedule: &HbSchedule,
        _inputs: &InputValues,
    ) -> Result<Replayed, String> {
        Err("this executor cannot run a test constrained to a schedule".into())
    }

    /// [`Executor::run`] cut into bounded epochs as `epochs` says (input-covering
    /// schedules).
    fn run_epochs(&mut self, guide: &Guide, epochs: &Epochs) -> Result<Replayed, String> {
        let _ = (guide, epochs);
        Err("this executor cannot cut a run into bounded epochs".into())
    }

    /// [`Executor::run_constrained`] for a run cut into bounded epochs: held to
    /// `schedules[k]` in epoch `k` (`symx::Builder::run_constrained_epochs`).
    fn run_constrained_epochs(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        match schedules {
            [one] if !matches!(one.end, symx::covering::End::Epoch { .. }) => {
                self.run_constrained(one, inputs)
            }
            _ => Err("this executor cannot run a test constrained to bounded epochs".into()),
        }
    }

    /// [`Executor::run_constrained_epochs`] with schedules whose last ends at a boundary,
    /// going on past it as the enumeration's runs do to the next boundary (or the end): the
    /// state the boundary havocked is in its trace (`symx::Builder::run_constrained_epochs`
    /// with a later `stop_at`).
    fn run_constrained_past(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        let _ = (schedules, inputs);
        Err("this executor cannot run a test past its schedules".into())
    }
}

/// The bounded epochs' settings of a run that goes on one boundary past `schedules`.
pub(crate) fn one_past(epochs: Option<&Epochs>, schedules: &[HbSchedule]) -> Epochs {
    Epochs {
        stop_at: Some(schedules.len() as u32 + 1),
        ..epochs.cloned().unwrap_or_default()
    }
}

/// Bounds an engine puts on one exploration it asks for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub max_executions: Option<u64>,
    pub time_budget: Option<Duration>,
}

/// What one exploration of the test at fixed inputs showed.
#[derive(Clone, Debug, Default)]
pub struct Exploration {
    /// Every execution's trace, in the order they ran.
    pub traces: Vec<Trace>,
    /// The schedule space (within the test's bounds) was exhausted.
    pub complete: bool,
    /// The failure that ended the exploration, as the runtime reports it (with its token).
    pub failure: Option<FailureReport>,
}
