//! The messages between `cargo symx` (the driver) and a test binary running as a worker.
//! This module owns their shape and nothing else; `docs/worker-protocol.md` describes them for
//! readers who do not read Rust.
//!
//! Transport: the driver starts the test binary with [`ENV_WORKER`] set to the protocol
//! version it speaks and `--exact <test>`, writes one [`RequestLine`] to its stdin, and reads its
//! stdout. Every line the worker writes starts with [`LINE_PREFIX`]; the rest of stdout is
//! libtest's own output (`test x ... ok`), which is how ordinary tests in the same binary are
//! judged. A driver ignores message kinds it does not know (`Message::Unknown`), so a newer
//! worker can add kinds without breaking an older driver; a changed meaning bumps
//! [`PROTOCOL_VERSION`].

use serde::{Deserialize, Serialize};

/// Bumped whenever a message changes meaning; new optional fields and new kinds do not bump it.
pub const PROTOCOL_VERSION: u32 = 1;
/// Set by the driver (to its [`PROTOCOL_VERSION`]) to make `#[symx::test]` bodies serve it.
pub const ENV_WORKER: &str = "SYMX_WORKER";
/// Set by the driver to arm the watchdog: a model thread that runs this many milliseconds
/// without reaching a scheduling point is reported ([`Message::Stuck`]) and the worker exits.
pub const ENV_STUCK_AFTER_MS: &str = "SYMX_STUCK_AFTER_MS";
/// The worker's exit code after [`Message::Stuck`].
pub const EXIT_STUCK: i32 = 3;
/// Starts every protocol line on the worker's stdout (an ASCII record separator, then a tag),
/// so that it cannot be confused with libtest's or the test's own output.
pub const LINE_PREFIX: &str = "\u{1e}symx-worker ";

/// What the driver asks of one test, written as one JSON line to the worker's stdin.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RequestLine {
    /// The protocol version of the driver.
    pub v: u32,
    #[serde(flatten)]
    pub request: Request,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Explore the test as its attribute says, with the driver's overrides on top.
    Explore {
        #[serde(default)]
        overrides: Overrides,
        /// Announce every execution and every decision as it is taken (slow): the driver asks
        /// for it only to recover the schedule prefix of a crash, see `worker` module doc.
        #[serde(default)]
        announce: bool,
        /// Send the traces of the first this-many executions ([`Message::Trace`]); 0: none,
        /// and the executions are not recorded.
        #[serde(default)]
        traces: u64,
        /// Values for the symbolic inputs, by name (the others keep the test's default):
        /// how the symbolic engine explores one input class.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        inputs: Vec<InputValue>,
    },
    /// Run exactly the execution a replay token describes and send back its interleaving:
    /// with `every_step`, every step of it; otherwise runs of identical steps (a thread
    /// spinning) collapse to their first step, a summary row and their last step.
    Replay {
        token: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        every_step: bool,
    },
    /// Run one execution that follows `prefix` (the thread that takes each visible step, as
    /// traces number threads; after it, the last thread continues while it can) and
    /// `choices` (the alternative of each nondeterministic choice), with the given values for
    /// the symbolic inputs, and send back its trace ([`Message::Ran`]). What the z3-backed
    /// engines use to confirm a witness.
    RunOne {
        prefix: Vec<u32>,
        #[serde(default)]
        choices: Vec<u32>,
        #[serde(default)]
        inputs: Vec<InputValue>,
        /// Cut the run into bounded epochs so (input-covering schedules; `Builder::epochs`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epochs: Option<crate::covering::Epochs>,
    },
    /// Run one execution held to `schedule`'s happens-before order (constrained execution,
    /// input-covering schedules) with the given input values, and send back its trace
    /// ([`Message::Ran`], whose `divergence` says where it left the schedule).
    RunConstrained {
        schedule: Box<crate::covering::HbSchedule>,
        #[serde(default)]
        inputs: Vec<InputValue>,
        /// The schedules of the epochs after `schedule`'s, in order: the run is cut into
        /// bounded epochs and held to one per epoch (`Builder::run_constrained_epochs`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        then: Vec<crate::covering::HbSchedule>,
        /// The bounded epochs' settings the schedules were enumerated with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        epochs: Option<crate::covering::Epochs>,
    },
    /// Open a persistent session ([`Message::Session`]): the worker then answers any number
    /// of further `run_one` and `replay` lines, one message each, in order, until [`End`]
    /// or the end of its input. Each execution is isolated as in a process of its own.
    ///
    /// [`End`]: Request::End
    Session,
    /// In a session: run one execution with the given input values in which the driver
    /// takes every scheduling decision: at each scheduling point the worker sends
    /// [`Message::Point`] and reads one [`Request::Decide`] line; at the end it sends
    /// [`Message::Ran`]. What assertion-guided pruning uses to stop an execution as soon as
    /// its state is covered.
    Drive {
        #[serde(default)]
        inputs: Vec<InputValue>,
    },
    /// The answer to a [`Message::Point`]: the thread that takes the next step, or none to
    /// abandon the execution there.
    Decide {
        #[serde(default)]
        thread: Option<u32>,
    },
    /// Close a session: the worker ends the test (it passes).
    End,
}

/// A value for one symbolic input of [`Request::RunOne`], by name (`any_named`'s, or
/// `t<thread>#<k>`). The value is a JSON number, or a decimal string beyond 64 bits.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct InputValue {
    pub name: String,
    #[serde(with = "crate::sym::expr::wide")]
    pub value: i128,
}

/// Settings from the driver's configuration that override the test attribute's.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Overrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption_bound: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_executions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_budget_ms: Option<u64>,
    /// Explore only this shard of the test's executions (see the worker's `shard` module).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// A directory the shards of one optimal-DPOR exploration share to hand each other work
    /// (one per test and run; without it shard 0 explores such a test whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<String>,
    /// Where the exploration saves its state when it stops before it is complete (time
    /// budget, execution bound, Ctrl-C), and whether it resumes from the state there
    /// (`cargo symx test --resume`); see `Builder::checkpoint`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resume: bool,
    /// Run every execution even after a failure (`Builder::keep_going`): a context's paths
    /// are all counted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_going: bool,
}

/// Shard `index` of `count` (`index < count`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// One line from the worker (after [`LINE_PREFIX`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// First line of a `#[symx::test]`: the worker serves this test.
    Hello {
        v: u32,
        test: String,
        strategy: String,
        symx_version: String,
        /// The test's `max_branch_depth`, for the driver's symbolic exploration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_branch_depth: Option<u32>,
        /// The test asked for assertion-guided pruning (`assertion_guided = true`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        assertion_guided: bool,
    },
    /// Sent at most a few times a second while exploring.
    Progress {
        executions: u64,
        elapsed_ms: u64,
        /// The executions the exploration will run at most, where that is known in advance
        /// (an execution bound, or the iterations of random and PCT): an estimate of the space.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
        /// An exhaustive exploration's estimate of its whole size in executions (Knuth's
        /// estimator over its tree; `Report::estimated_executions`): not a bound.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        estimate: Option<u64>,
        /// The most preemptions any execution so far took.
        #[serde(default)]
        max_preemptions: u32,
        /// The preemption bound the exploration runs under, if any: `max_preemptions` reaching
        /// it means the bound is cutting the space.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preemption_bound: Option<u32>,
    },
    /// Announce mode: execution number `index` (from 0) starts.
    Execution { index: u64 },
    /// Announce mode: the current execution took this choice (as recorded in replay tokens).
    Decision { value: u32 },
    /// The exploration ended.
    Verdict(Verdict),
    /// The answer to [`Request::Replay`].
    Replayed(Replayed),
    /// The trace of execution `execution` (from 1) of an exploration that asked for traces.
    Trace {
        execution: u64,
        trace: Box<crate::trace::Trace>,
    },
    /// The answer to [`Request::RunOne`].
    Ran(Ran),
    /// A scheduling point of a driven execution ([`Request::Drive`]): the threads that can
    /// take the next step and the execution so far; the worker waits for a
    /// [`Request::Decide`].
    Point {
        step: u64,
        enabled: Vec<u32>,
        trace: Box<crate::trace::Trace>,
    },
    /// A session is open ([`Request::Session`]): the request kinds it answers.
    Session {
        /// The request kinds the session answers (`run_one`, `replay`).
        serves: Vec<String>,
    },
    /// A model thread ran past the watchdog's limit without reaching a scheduling point
    /// (kind `stuck`; the token replays the schedule up to there). The worker then exits with
    /// [`EXIT_STUCK`]: the stuck thread cannot be stopped.
    Stuck { failure: FailureReport },
    /// The worker cannot do what was asked; the reason says why.
    Unsupported { request: String, reason: String },
    /// The request was malformed or of another protocol version.
    Error { message: String },
    /// A kind this driver does not know (from a newer worker): ignored.
    #[serde(other)]
    Unknown,
}

/// How an exploration ended.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    pub executions: u64,
    /// The bounded space was exhausted.
    pub complete: bool,
    /// `exhausted`, `failure`, `max_executions`, `time_budget` or `interrupted`.
    pub stop: String,
    /// Whether a preemption bound limited the space.
    pub preemption_bounded: bool,
    /// That bound: a complete exploration covered the executions with at most this many
    /// preemptions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption_bound: Option<u32>,
    pub elapsed_ms: u64,
    pub failure: Option<FailureReport>,
    /// An execution drew a symbolic input: the driver's symbolic engine explores the others.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drew_inputs: bool,
    /// The most spawned model threads that made no symx operation in one execution
    /// ([`crate::Report::idle_threads`]): the driver warns `no-modelled-operations`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub idle_threads: u32,
    /// Executions of the default's shallow passes beside the optimal DPOR
    /// ([`crate::Report::shallow_executions`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub shallow_executions: u64,
    /// Executions run before the checkpoint this exploration resumed from, counted in
    /// `executions` ([`crate::Report::resumed`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resumed: u64,
    /// An exhaustive exploration stopped before its end: its estimate of its whole size
    /// ([`crate::Report::estimated_executions`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_executions: Option<u64>,
    /// An execution used a program context (`symx::context`, or a checkpoint the test explores
    /// from): the context mode it ran in. The driver reports such a test per context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_mode: Option<String>,
}

fn is_zero<N: Default + PartialEq>(n: &N) -> bool {
    *n == N::default()
}

/// The answer to a replay.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Replayed {
    /// Every step of the replayed execution.
    pub steps: Vec<StepReport>,
    pub failure: Option<FailureReport>,
    /// Why the token could not be replayed (corrupt, other test, program changed).
    pub error: Option<String>,
    /// Present when the same operations ran at other source locations than the token
    /// recorded (code moved since): the locations it did not record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<Vec<Location>>,
}

/// The answer to [`Request::RunOne`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ran {
    pub trace: Box<crate::trace::Trace>,
    /// How the execution failed, if it did.
    pub failure: Option<FailureReport>,
    /// Where the program did not offer what the prefix asked (the run went on regardless).
    pub divergence: Option<String>,
    /// Preemptions the execution took.
    #[serde(default)]
    pub preemptions: u32,
}

/// A found bug, in the structured form every report format is made from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FailureReport {
    /// `panic`, `deadlock`, `data-race`, `step-limit`, `misuse` (or newer kinds).
    pub kind: String,
    pub message: String,
    pub details: Vec<String>,
    pub location: Option<Location>,
    pub thread: Option<usize>,
    pub preemptions: u32,
    pub steps: Vec<StepReport>,
    /// The replay token.
    pub token: String,
}

/// One step of an interleaving.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StepReport {
    pub index: usize,
    pub thread: usize,
    pub thread_label: String,
    pub op: String,
    /// The memory ordering of an atomic operation (`Relaxed`, `Acquire`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    pub obj: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub location: Location,
    /// Non-zero on a summary row: this many identical steps (a thread spinning), from
    /// `index` on, are left out.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub omitted: u64,
}

impl StepReport {
    /// The operation with its ordering, as reports show it: `load(Relaxed)`, `lock`.
    pub fn what(&self) -> String {
        match &self.order {
            Some(o) => format!("{}({o})", self.op),
            None => self.op.clone(),
        }
    }
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}
