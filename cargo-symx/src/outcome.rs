//! What one test came to: the record every report format (human, JSON, JUnit, SARIF) is
//! rendered from. Plain data; deciding the status is `run`'s job.

use std::time::Duration;

use serde::Serialize;
use symx::__worker::protocol::{FailureReport, Location, StepReport};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    /// A bug: a symx failure, a failed ordinary test.
    Failed,
    /// Killed by a signal or exited in the middle of the test.
    Crashed,
    /// Still running at the deadline, killed.
    TimedOut,
    /// Failed with the kind the configuration's `expect` names: a known bug.
    ExpectedFailure,
    /// The configuration expects a failure that did not happen.
    UnexpectedPass,
    Ignored,
    /// The test could not be run as asked (protocol mismatch, unreadable answer).
    Error,
    /// Stopped by Ctrl-C.
    Interrupted,
}

impl Status {
    /// Whether this outcome is a confirmed bug (exit code 1).
    pub fn is_bug(self) -> bool {
        matches!(
            self,
            Status::Failed | Status::Crashed | Status::TimedOut | Status::UnexpectedPass
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            Status::Passed => "PASS",
            Status::Failed => "FAIL",
            Status::Crashed => "CRASH",
            Status::TimedOut => "TIMEOUT",
            Status::ExpectedFailure => "XFAIL",
            Status::UnexpectedPass => "XPASS",
            Status::Ignored => "SKIP",
            Status::Error => "ERROR",
            Status::Interrupted => "STOPPED",
        }
    }
}

/// A failure as reported: from the worker for symx bugs, from the driver for crashes.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// `panic`, `deadlock`, `data-race`, `step-limit`, `misuse`, `crash`, `timeout`, `test-failed`.
    pub kind: String,
    pub message: String,
    pub details: Vec<String>,
    pub location: Option<Location>,
    pub thread: Option<usize>,
    pub preemptions: u32,
    pub steps: Vec<StepReport>,
    /// The replay token, when there is one.
    pub token: Option<String>,
    /// The command that replays it.
    pub replay: Option<String>,
}

impl Finding {
    pub fn from_report(r: FailureReport) -> Finding {
        Finding {
            kind: r.kind,
            message: r.message,
            details: r.details,
            location: r.location,
            thread: r.thread,
            preemptions: r.preemptions,
            steps: r.steps,
            token: Some(r.token),
            replay: None,
        }
    }

    pub fn plain(kind: &str, message: String) -> Finding {
        Finding {
            kind: kind.to_string(),
            message,
            details: Vec::new(),
            location: None,
            thread: None,
            preemptions: 0,
            steps: Vec::new(),
            token: None,
            replay: None,
        }
    }
}

/// One test's result.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub package: String,
    /// The test target (`counter` for tests/counter.rs).
    pub target: String,
    /// The target's root source file (relative to the workspace root).
    pub source: String,
    pub name: String,
    /// The exploration strategy; `None` for an ordinary (non-symx) test.
    pub strategy: Option<String>,
    pub executions: Option<u64>,
    /// Whether the (bounded) space was exhausted; `None` for ordinary tests.
    pub complete: Option<bool>,
    /// Why exploration stopped: `exhausted`, `failure`, `max_executions`, `time_budget`.
    pub stop: Option<String>,
    pub preemption_bounded: bool,
    /// Worker processes that explored this test together (`--shards`); 1 when not split.
    pub shards: u32,
    pub status: Status,
    pub failure: Option<Finding>,
    /// The kind the configuration expects, for known bugs.
    pub expected: Option<String>,
    #[serde(serialize_with = "seconds")]
    pub duration: Duration,
    /// What the test printed, for failed ordinary tests and crashes.
    pub output: String,
}

impl Outcome {
    pub fn id(&self) -> String {
        format!("{}::{} {}", self.package, self.target, self.name)
    }
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
