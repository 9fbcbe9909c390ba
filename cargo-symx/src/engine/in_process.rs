//! An [`Executor`] that runs the test body in this process with `symx::Builder`: what the
//! engines' own tests, the differential tests and the benchmarks use. `cargo symx` runs tests
//! in worker processes instead (`crate::run::engines`).

use symx::covering::{Epochs, HbSchedule};
use symx::{Builder, Drive, DrivenPoint, Guide, InputValues};

use super::{Executor, Exploration, Limits};
use crate::solver::replayed::Replayed;

/// Runs `body` in process with the settings of `builder`.
pub struct InProcess<F: Fn()> {
    pub builder: Builder,
    pub body: F,
}

impl<F: Fn()> InProcess<F> {
    pub fn new(builder: Builder, body: F) -> Self {
        InProcess { builder, body }
    }
}

impl<F: Fn()> Executor for InProcess<F> {
    fn explore(&mut self, inputs: &InputValues, limits: &Limits) -> Result<Exploration, String> {
        let mut b = self.builder.clone().inputs(inputs.clone());
        if limits.max_executions.is_some() {
            b = b.max_executions(limits.max_executions);
        }
        if limits.time_budget.is_some() {
            b = b.time_budget(limits.time_budget);
        }
        let mut traces = Vec::new();
        let report = b.explore_traces(&self.body, |t| traces.push(t.clone()));
        Ok(Exploration {
            traces,
            complete: report.complete(),
            failure: report.failure().map(symx::__worker::failure_report),
        })
    }

    fn run(&mut self, guide: &Guide) -> Result<Replayed, String> {
        Ok(self.builder.run_guided(guide, &self.body).into())
    }

    fn drive(
        &mut self,
        inputs: &InputValues,
        decide: &mut dyn FnMut(&DrivenPoint<'_>) -> Drive,
    ) -> Result<Replayed, String> {
        Ok(self.builder.run_driven(inputs, decide, &self.body).into())
    }

    fn run_constrained(
        &mut self,
        schedule: &HbSchedule,
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        Ok(self
            .builder
            .run_constrained(schedule, inputs, &self.body)
            .into())
    }

    fn run_epochs(&mut self, guide: &Guide, epochs: &Epochs) -> Result<Replayed, String> {
        let b = self.builder.clone().epochs(Some(epochs.clone()));
        Ok(b.run_guided(guide, &self.body).into())
    }

    fn run_constrained_epochs(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        Ok(self
            .builder
            .run_constrained_epochs(schedules, inputs, &self.body)
            .into())
    }

    fn run_constrained_past(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        let epochs = super::one_past(self.builder.epochs_setting(), schedules);
        let b = self.builder.clone().epochs(Some(epochs));
        Ok(b.run_constrained_epochs(schedules, inputs, &self.body)
            .into())
    }
}
