//! What one test came to: the record every report format (human, JSON, JUnit, SARIF) is
//! rendered from. Plain data; deciding the status is `run`'s job.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;
use symx::__worker::protocol::{FailureReport, Location, StepReport};

use crate::discover::TestCase;

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
    /// Found by the predictive checks from a passing run (and confirmed by replaying the
    /// predicted interleaving), not by the exploration itself.
    pub predicted: bool,
    /// The symbolic inputs the failing execution ran with, by name (symbolic exploration).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, i128>,
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
            predicted: false,
            inputs: BTreeMap::new(),
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
            predicted: false,
            inputs: BTreeMap::new(),
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
    /// Why exploration stopped: `exhausted`, `failure`, `max_executions`, `time_budget`,
    /// `interrupted`.
    pub stop: Option<String>,
    /// Executions of the default strategy's shallow passes beside the optimal DPOR (not in
    /// `executions` unless a failure ended the exploration); absent when none ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow_executions: Option<u64>,
    /// Executions run before the checkpoint this run resumed from (`--resume`), counted in
    /// `executions`; absent when it did not resume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<u64>,
    /// An exhaustive exploration stopped before its end (a bound, the time budget, Ctrl-C):
    /// its estimate of its whole size in executions; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_executions: Option<u64>,
    pub preemption_bounded: bool,
    /// The preemption bound a complete exploration covered, when one limited it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_bound: Option<u32>,
    /// What a complete exploration assumed of memory: `sequentially-consistent` (every
    /// interleaving, no weak-memory reordering); absent for ordinary tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_model: Option<String>,
    /// Worker processes that explored this test together (`--shards`); 1 when not split.
    pub shards: u32,
    /// Of an optimal-DPOR exploration split among shards that completed: its executions
    /// whose trace another execution ran too (counted in `executions`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redundant_executions: Option<u64>,
    pub status: Status,
    pub failure: Option<Finding>,
    /// The kind the configuration expects, for known bugs.
    pub expected: Option<String>,
    #[serde(serialize_with = "seconds")]
    pub duration: Duration,
    /// What the test printed, for failed ordinary tests and crashes.
    pub output: String,
    /// What the predictive checks did, when they ran on this test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predict: Option<PredictReport>,
    /// What the symbolic exploration did, when the test drew symbolic inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<SymbolicReport>,
    /// What the assertion-guided search did, when it ran on this test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assertion_guided: Option<GuidedReport>,
    /// What exploring its program context did, when the test declares or explores from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextReport>,
    /// What the verdict cannot back: a `PASS` or `complete` beside a warning is not a proof.
    pub warnings: Vec<Warning>,
}

/// The memory model every symx exploration assumes: interleavings of whole operations, no
/// weak-memory reordering (happens-before still honours each operation's ordering).
pub const SEQUENTIAL_CONSISTENCY: &str = "sequentially-consistent";

impl Outcome {
    /// `complete under sequential consistency` and, when a bound cut the space, `within
    /// preemption bound 2`: what a complete verdict assumed.
    pub fn completeness(&self) -> String {
        let mut text = "complete under sequential consistency".to_string();
        if let Some(b) = self.preemption_bound {
            text.push_str(&format!(", within preemption bound {b}"));
        } else if self.preemption_bounded {
            text.push_str(", within the preemption bound");
        }
        text
    }
}

/// The warning code of a test whose spawned model threads made no symx operation.
pub const NO_MODELLED_OPERATIONS: &str = "no-modelled-operations";

/// A reason to doubt a test's verdict (documented in `docs/report-format.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// A stable name: `no-modelled-operations`.
    pub code: String,
    pub message: String,
}

impl Warning {
    /// `threads` spawned model threads made no operation symx sees in some execution.
    pub fn no_modelled_operations(threads: u32) -> Warning {
        let (n, their) = if threads == 1 {
            ("1 model thread".to_string(), "its")
        } else {
            (format!("{threads} model threads"), "their")
        };
        Warning {
            code: NO_MODELLED_OPERATIONS.into(),
            message: format!(
                "{n} made no symx operation, so {their} interleavings were not explored: is the \
                 code under test using std::sync or std::thread instead of symx::sync and \
                 symx::thread (under cfg(symx))?"
            ),
        }
    }
}

/// The symbolic exploration of one test's input classes (documented field by field in
/// `docs/report-format.md`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SymbolicReport {
    /// Input classes explored (each by a whole exploration of its schedules).
    pub classes: u64,
    /// Executions over all classes.
    pub executions: u64,
    /// Branch sides (a recorded branch and the way it went) taken by an explored execution.
    pub sides_covered: usize,
    /// Branch sides known to be feasible: taken, or found satisfiable by the solver.
    pub sides_feasible: usize,
    /// Solver queries asked, of which answered from an earlier model.
    pub queries: u64,
    pub cache_hits: u64,
    /// Queries the solver gave up on.
    pub unknown: u64,
    pub solver_seconds: f64,
    /// Assertion failures the solver found whose run on the recorded schedule did not fail.
    pub unconfirmed: u64,
    /// Every input and schedule class within the bounds was explored.
    pub complete: bool,
    /// Why not complete, in words.
    pub incomplete: Vec<String>,
    /// Values made concrete where they depended on an input: each cuts the exploration.
    pub pins: Vec<PinReport>,
    /// The branch-depth bound in force, if any.
    pub max_branch_depth: Option<u32>,
    pub seconds: f64,
}

/// The exploration of one test's program context in its mode (documented field by field in
/// `docs/report-format.md`): the paper's counts (Bergan, Grossman, Ceze, OOPSLA 2014, Table 1).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ContextReport {
    /// `full`, `no-rd`, `no-si` or `naive`.
    pub mode: String,
    /// Distinct paths explored (schedule and conditions), whatever their end.
    pub paths: u64,
    /// Paths that ran to an end, not discarded by a fact.
    pub completed: u64,
    /// Completed paths that failed, of which confirmed: runs of the program as it is (no
    /// generalised value differs from the computed one).
    pub failing: u64,
    pub confirmed: u64,
    /// Paths the naive initial state completes from the same context (not measured in
    /// `naive` mode itself), and how many more than this mode: infeasible paths avoided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub naive_completed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infeasible_avoided: Option<u64>,
    pub executions: u64,
    pub solver_seconds: f64,
    /// Solver seconds over the exploration's seconds.
    pub solver_share: f64,
    /// The branch-depth bound in force (the paper's `br`), if any.
    pub max_branch_depth: Option<u32>,
    /// Every path within the bounds was explored; why not, in words.
    pub complete: bool,
    pub incomplete: Vec<String>,
    /// The failing paths (the first few), each with the facts it depends on.
    pub failures: Vec<ContextFailure>,
    pub seconds: f64,
    /// A recorded context (a checkpoint's label the test explores from): the label, the
    /// prefix's steps (run once under a fixed schedule) and the synchronization state there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<RecordedContext>,
}

/// The recorded context a test explored from.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RecordedContext {
    pub label: String,
    pub prefix_steps: u32,
    /// Recorded facts: `Mutex#1 is held by thread 1`, `thread 2 is waiting #1 (...)`.
    pub facts: Vec<String>,
}

/// One failing path of a context.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ContextFailure {
    pub kind: String,
    pub message: String,
    /// The inputs it ran with, by name.
    pub inputs: BTreeMap<String, i128>,
    /// The facts it depends on.
    pub facts: Vec<ContextFact>,
    /// A run of the program as it is; otherwise it needs the generalised values below.
    pub confirmed: bool,
    pub generalised: Vec<GeneralisedValue>,
    /// For a failure that needed generalised values and was confirmed by a run from the
    /// program's start with other inputs before the checkpoint: that run's replay token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

/// A fact a failure depends on.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ContextFact {
    /// `value` or `sync`.
    pub family: String,
    /// `declared`, `analysed`, `recorded` or `generalised`.
    pub provenance: String,
    pub text: String,
}

/// A generalised input a failure ran with, and the value the program computed there.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GeneralisedValue {
    pub name: String,
    pub value: i128,
    pub recorded: i128,
}

/// The assertion-guided search of one test (documented field by field in
/// `docs/report-format.md`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct GuidedReport {
    /// Executions started, of which run to their end, cut short by a summary, and stopped
    /// where every thread was asleep (partial-order reduction).
    pub executions: u64,
    pub full: u64,
    pub cut: u64,
    pub blocked: u64,
    /// States with a summary, and the disjuncts over all summaries.
    pub summaries: u64,
    pub disjuncts: u64,
    /// Pruning checks asked of the solver, and every solver query with its time.
    pub checks: u64,
    pub queries: u64,
    pub solver_seconds: f64,
    /// Every input and schedule within the bounds was explored or pruned by a proof.
    pub complete: bool,
    pub incomplete: Vec<String>,
    /// Pruning only keeps assertion failures: deadlocks and data races below a pruned
    /// state were not searched (always true; the report says so).
    pub assertions_only: bool,
    /// Creation sites (`file:line:column`) of the objects every access of which was blind,
    /// whose accesses the search let race with nothing (its slice).
    pub sliced: Vec<String>,
    /// Sites first sliced that an execution then used otherwise: the search started again
    /// without them (`restarted_executions` ran in the searches given up).
    pub unsliced: Vec<String>,
    pub restarted_executions: u64,
    /// Audit mode: the unpruned search's executions, and whether both searches agreed on
    /// the verdict and the failing assertion sites.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<GuidedAudit>,
    pub seconds: f64,
}

/// The unpruned search run beside the pruned one (`--assertion-guided=audit`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct GuidedAudit {
    pub executions: u64,
    pub agreed: bool,
    /// The failing sites (`file:line:column`) each search found.
    pub pruned_sites: Vec<String>,
    pub unpruned_sites: Vec<String>,
}

/// A pin that cut the symbolic exploration.
#[derive(Clone, Debug, Serialize)]
pub struct PinReport {
    pub location: Option<Location>,
    /// Executions that pinned there.
    pub executions: u64,
}

/// The predictive checks on one test (`--predict`, `cargo symx predict`): counts over every
/// trace analysed. Documented field by field in `docs/report-format.md`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PredictReport {
    /// `ctp`, `mcm` or `values`.
    pub model: String,
    /// The context bound, if any.
    pub bound: Option<u32>,
    pub properties: Vec<String>,
    /// Traces analysed (one per execution).
    pub traces: usize,
    /// Property candidates: assertions, conflicting access pairs, lock-order pairs.
    pub candidates: usize,
    /// Solver queries asked.
    pub queries: usize,
    /// The solver time of each query, in seconds, in the order asked.
    pub query_seconds: Vec<f64>,
    /// Predictions whose replay showed the bug: reported like found bugs.
    pub confirmed: usize,
    /// Predictions whose replay did not: defects of symx, never bugs.
    pub unconfirmed: usize,
    /// Predictions whose replay failed another way, in a thread that a flipped branch took
    /// into code the trace does not have: neither confirmed nor a defect of symx.
    pub off_trace: usize,
    /// Predictions whose replay failed another way along the trace: each failure is a
    /// finding of its own.
    pub failed_otherwise: usize,
    /// Predictions asked again with an initial value a replay showed.
    pub refined: usize,
    /// Queries the solver gave up on (its time limit): neither a prediction nor a proof.
    pub inconclusive: usize,
    /// Bounded queries whose proof does not depend on the bound: the property holds in
    /// every interleaving of the trace.
    pub proved_for_all_interleavings: usize,
    /// Wall-clock time of the checks, replays included.
    pub seconds: f64,
    /// Every confirmed prediction, and every failure a prediction's replay ran into
    /// instead, as a failure (`predicted: true`); the first is also the test's `failure`
    /// when the exploration itself passed.
    pub findings: Vec<Finding>,
    /// With `--verbose`: each unconfirmed prediction and why its replay did not confirm it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unconfirmed_details: Vec<Unconfirmed>,
    /// With `--verbose`: each off-trace prediction and how its replay failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub off_trace_details: Vec<Unconfirmed>,
    /// With `--verbose`: each prediction whose replay failed another way, and how.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_otherwise_details: Vec<Unconfirmed>,
}

/// A prediction its replay did not confirm (unconfirmed, off the trace, or failed otherwise).
#[derive(Clone, Debug, Serialize)]
pub struct Unconfirmed {
    /// The property in words, with source locations.
    pub description: String,
    pub reason: String,
    /// The thread of each step of the predicted schedule.
    pub schedule: Vec<usize>,
}

impl Outcome {
    /// A passed test with nothing recorded yet.
    pub fn new(case: &TestCase) -> Outcome {
        Outcome {
            package: case.binary.package.clone(),
            target: case.binary.target.clone(),
            source: case.binary.source.clone(),
            name: case.name.clone(),
            strategy: None,
            executions: None,
            complete: None,
            stop: None,
            shallow_executions: None,
            resumed: None,
            estimated_executions: None,
            preemption_bounded: false,
            preemption_bound: None,
            memory_model: None,
            shards: 1,
            redundant_executions: None,
            status: Status::Passed,
            failure: None,
            expected: None,
            duration: Duration::ZERO,
            output: String::new(),
            predict: None,
            symbolic: None,
            assertion_guided: None,
            context: None,
            warnings: Vec::new(),
        }
    }

    /// The test's failure, then every other confirmed prediction (the first one, when the
    /// failure was predicted, is the failure itself).
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        let predicted = self.predict.iter().flat_map(|p| &p.findings);
        let skip = usize::from(self.failure.as_ref().is_some_and(|f| f.predicted));
        self.failure.iter().chain(predicted.skip(skip))
    }

    pub fn id(&self) -> String {
        format!("{}::{} {}", self.package, self.target, self.name)
    }
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn predicted(kind: &str) -> Finding {
        Finding {
            predicted: true,
            ..Finding::plain(kind, format!("a {kind}"))
        }
    }

    fn outcome(failure: Option<Finding>, predict: Option<PredictReport>) -> Outcome {
        let binary = crate::discover::TestBinary {
            package: "p".into(),
            package_id: cargo_metadata::PackageId { repr: "p".into() },
            target: "t".into(),
            path: "t".into(),
            cwd: ".".into(),
            source: "tests/t.rs".into(),
        };
        let case = TestCase {
            binary,
            name: "n".into(),
            env: Vec::new(),
        };
        Outcome {
            failure,
            predict,
            ..Outcome::new(&case)
        }
    }

    fn kinds(o: &Outcome) -> Vec<&str> {
        o.findings().map(|f| f.kind.as_str()).collect()
    }

    #[test]
    fn every_confirmed_prediction_is_a_finding_once() {
        let report = PredictReport {
            findings: vec![predicted("panic"), predicted("atomicity-violation")],
            ..PredictReport::default()
        };
        // The first prediction became the test's failure: it is not listed twice.
        let o = outcome(Some(predicted("panic")), Some(report));
        assert_eq!(kinds(&o), ["panic", "atomicity-violation"]);
        let o = outcome(Some(Finding::plain("deadlock", "d".into())), None);
        assert_eq!(kinds(&o), ["deadlock"]);
        assert!(kinds(&outcome(None, None)).is_empty());
    }
}
