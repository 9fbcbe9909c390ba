//! The engines' [`Executor`] under `cargo symx`: every request is a worker process of the
//! test (`explore` with the inputs and every trace, or `run_one`), so a crash or a hang in
//! the code under test costs one process, never the driver.

use std::time::Duration;

use symx::__worker::protocol::{InputValue, Message, Overrides, Request};
use symx::covering::{Epochs, HbSchedule};
use symx::{Drive, DrivenPoint, Guide, InputValues};

use crate::discover::TestCase;
use crate::engine::{Executor, Exploration, Limits};
use crate::solver::replayed::Replayed;
use crate::worker_process::session::Session;
use crate::worker_process::{self, Exit, Run};

/// Runs the test `case` in worker processes.
pub struct WorkerExecutor<'a> {
    case: &'a TestCase,
    overrides: Overrides,
    extra: &'a [String],
    timeout: Duration,
    /// The session guided executions go through, once opened.
    session: Option<Session>,
    /// Whether the worker serves sessions (a worker older than sessions does not).
    sessions: bool,
    epochs: Option<Epochs>,
}

impl<'a> WorkerExecutor<'a> {
    pub fn new(case: &'a TestCase, extra: &'a [String], timeout: Duration) -> Self {
        WorkerExecutor {
            case,
            overrides: Overrides::default(),
            extra,
            timeout,
            session: None,
            sessions: true,
            epochs: None,
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

    /// A driven execution needs a session: its decisions are taken while it runs.
    fn drive(
        &mut self,
        inputs: &InputValues,
        decide: &mut dyn FnMut(&DrivenPoint<'_>) -> Drive,
    ) -> Result<Replayed, String> {
        let request = Request::Drive {
            inputs: values(inputs),
        };
        let result = self.session()?.drive(request, decide);
        match result {
            Ok(Message::Ran(ran)) => Ok(ran.into()),
            Ok(other) => Err(format!("unexpected answer: {other:?}")),
            Err(e) => {
                self.session = None;
                Err(e)
            }
        }
    }

    fn run(&mut self, guide: &Guide) -> Result<Replayed, String> {
        self.run_one(guide, None)
    }

    fn run_epochs(&mut self, guide: &Guide, epochs: &Epochs) -> Result<Replayed, String> {
        self.run_one(guide, Some(epochs.clone()))
    }

    fn run_constrained(
        &mut self,
        schedule: &HbSchedule,
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        self.run_constrained_epochs(std::slice::from_ref(schedule), inputs)
    }

    fn run_constrained_epochs(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        self.constrained(schedules, inputs, self.epochs.clone())
    }

    fn run_constrained_past(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
    ) -> Result<Replayed, String> {
        let epochs = crate::engine::one_past(self.epochs.as_ref(), schedules);
        self.constrained(schedules, inputs, Some(epochs))
    }
}

impl WorkerExecutor<'_> {
    /// The bounded epochs' settings constrained runs are cut into epochs with (the
    /// enumeration's), beyond where they stop.
    pub fn with_epochs(mut self, epochs: Option<Epochs>) -> Self {
        self.epochs = epochs;
        self
    }

    /// A `run_constrained` request: `schedules` with `epochs`' settings.
    fn constrained(
        &mut self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
        epochs: Option<Epochs>,
    ) -> Result<Replayed, String> {
        let (first, then) = schedules.split_first().ok_or("no schedule to follow")?;
        let request = Request::RunConstrained {
            schedule: Box::new(first.clone()),
            inputs: values(inputs),
            then: then.to_vec(),
            epochs,
        };
        if let Some(answer) = self.in_session(&request) {
            return answer;
        }
        self.ran(request)
    }

    fn run_one(&mut self, guide: &Guide, epochs: Option<Epochs>) -> Result<Replayed, String> {
        let request = Request::RunOne {
            prefix: guide.steps.iter().map(|&t| t as u32).collect(),
            choices: guide.choices.clone(),
            inputs: values(&guide.inputs),
            epochs,
        };
        if let Some(answer) = self.in_session(&request) {
            return answer;
        }
        self.ran(request)
    }
}

impl WorkerExecutor<'_> {
    /// Runs a one-execution `request` in a process of its own.
    fn ran(&self, request: Request) -> Result<Replayed, String> {
        let run = self.send(request)?;
        match run.ran {
            Some(ran) => Ok((*ran).into()),
            None => Err("the test did not answer: is it a #[symx::test]?".into()),
        }
    }

    /// The open session (opened on first use).
    fn session(&mut self) -> Result<&mut Session, String> {
        if self.session.is_none() {
            self.session = Some(Session::open(self.case, self.extra, self.timeout)?);
        }
        Ok(self.session.as_mut().expect("just opened"))
    }

    /// Runs `request` in the session (opened on first use); `None` when there is no session
    /// to ask or it failed, so that the caller runs it in a process of its own (which also
    /// describes a crash or a hang properly).
    fn in_session(&mut self, request: &Request) -> Option<Result<Replayed, String>> {
        if !self.sessions {
            return None;
        }
        if self.session.is_none() {
            match Session::open(self.case, self.extra, self.timeout) {
                Ok(s) => self.session = Some(s),
                Err(_) => {
                    self.sessions = false;
                    return None;
                }
            }
        }
        let session = self.session.as_mut()?;
        match session.ask(request.clone()) {
            Ok(Message::Ran(ran)) => Some(Ok(ran.into())),
            Ok(Message::Error { message }) => Some(Err(message)),
            Ok(other) => Some(Err(format!("unexpected answer: {other:?}"))),
            Err(_) => {
                self.session = None;
                None
            }
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
