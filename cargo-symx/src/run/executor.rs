//! The engines' [`Executor`] under `cargo symx`: every request is a worker process of the
//! test (`explore` with the inputs and every trace, or `run_one`), so a crash or a hang in
//! the code under test costs one process, never the driver.

use std::time::Duration;

use symx::__worker::protocol::{InputValue, Overrides, Request};
use symx::{Guide, InputValues};

use crate::discover::TestCase;
use crate::engine::{Executor, Exploration, Limits};
use crate::solver::replayed::Replayed;
use crate::worker_process::{self, Exit, Run};

/// Runs the test `case` in worker processes.
pub struct WorkerExecutor<'a> {
    case: &'a TestCase,
    overrides: Overrides,
    extra: &'a [String],
    timeout: Duration,
}

impl<'a> WorkerExecutor<'a> {
    pub fn new(case: &'a TestCase, extra: &'a [String], timeout: Duration) -> Self {
        WorkerExecutor {
            case,
            overrides: Overrides::default(),
            extra,
            timeout,
        }
    }

    /// Explorations also obey the configuration's `overrides` (bounds).
    pub fn with_overrides(mut self, overrides: &Overrides) -> Self {
        self.overrides = overrides.clone();
        self
    }

    fn send(&self, request: Request) -> Result<Run, String> {
        let run = worker_process::run(self.case, request, self.extra, self.timeout, &mut |_| {});
        if run.exit == Some(Exit::Interrupted) {
            return Err("interrupted (Ctrl-C)".into());
        }
        if run.crashed() {
            let (kind, message) = crate::run::crash::describe(&run, self.timeout);
            return Err(format!("{kind}: {message}"));
        }
        match run.errors.first() {
            Some(e) => Err(e.clone()),
            None => Ok(run),
        }
    }
}

impl Executor for WorkerExecutor<'_> {
    fn explore(&mut self, inputs: &InputValues, limits: &Limits) -> Result<Exploration, String> {
        let min = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let overrides = Overrides {
            max_executions: min(self.overrides.max_executions, limits.max_executions),
            time_budget_ms: min(
                self.overrides.time_budget_ms,
                limits.time_budget.map(|t| t.as_millis() as u64),
            ),
            ..self.overrides.clone()
        };
        let run = self.send(Request::Explore {
            overrides,
            announce: false,
            traces: u64::MAX,
            inputs: values(inputs),
        })?;
        let verdict = run
            .verdict
            .ok_or("the test did not answer: is it a #[symx::test]?")?;
        Ok(Exploration {
            traces: run.traces,
            complete: verdict.complete,
            failure: verdict.failure,
        })
    }

    fn run(&mut self, guide: &Guide) -> Result<Replayed, String> {
        let run = self.send(Request::RunOne {
            prefix: guide.steps.iter().map(|&t| t as u32).collect(),
            choices: guide.choices.clone(),
            inputs: values(&guide.inputs),
        })?;
        match run.ran {
            Some(ran) => Ok((*ran).into()),
            None => Err("the test did not answer: is it a #[symx::test]?".into()),
        }
    }
}

fn values(inputs: &InputValues) -> Vec<InputValue> {
    inputs
        .iter()
        .map(|(name, &value)| InputValue {
            name: name.clone(),
            value,
        })
        .collect()
}
