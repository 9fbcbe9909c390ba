//! What an exploration tells its caller: the [`Report`], and for a found bug the [`Failure`]
//! with its kind, message, interleaving and replay token.

use std::fmt;
use std::time::Duration;

use crate::schedule::Schedule;

pub(crate) mod kind;
pub(crate) mod step;

pub use kind::FailureKind;
pub use step::{SourceLocation, Step};

/// A bug found by exploration: what went wrong, the interleaving that shows it, and the
/// schedule that replays it.
#[derive(Clone, Debug)]
pub struct Failure {
    pub(crate) kind: FailureKind,
    pub(crate) message: String,
    pub(crate) details: Vec<String>,
    pub(crate) location: Option<SourceLocation>,
    pub(crate) thread: Option<usize>,
    pub(crate) steps: Vec<Step>,
    pub(crate) schedule: Schedule,
    pub(crate) preemptions: u32,
    pub(crate) test_name: Option<String>,
}

impl Failure {
    /// What kind of bug this is.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }

    /// What went wrong, in one line (a panic's message, the race's two accesses, ...).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The schedule that reproduces this failure; its `Display` is the replay token.
    pub fn schedule(&self) -> &crate::Schedule {
        &self.schedule
    }

    /// Extra lines of the report: both accesses of a race, every thread of a deadlock.
    pub fn details(&self) -> &[String] {
        &self.details
    }

    /// The interleaving, as numbered steps.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Where the failure happened, when it has one place (a panic, the second access of a race).
    pub fn location(&self) -> Option<&SourceLocation> {
        self.location.as_ref()
    }

    /// The thread that failed, when one did (not for deadlocks and livelocks).
    pub fn thread(&self) -> Option<usize> {
        self.thread
    }

    /// How often the failing schedule switches away from a thread that could have continued.
    pub fn preemptions(&self) -> u32 {
        self.preemptions
    }

    /// The command that replays this failure: under `cargo test`, one that builds what this
    /// run built (the package's manifest, its features, `RUSTFLAGS` and `--cfg symx`).
    pub fn replay_command(&self) -> String {
        match &self.test_name {
            Some(name) => crate::replay_command::for_test(&self.schedule.to_string(), name),
            None => format!(
                "symx::Builder::new().replay(&\"{}\".parse().unwrap(), || ...)",
                self.schedule
            ),
        }
    }

    /// How the report's first line names what was found.
    fn headline(&self) -> &'static str {
        match self.kind {
            FailureKind::Panic => "symx found a panic",
            FailureKind::Deadlock => "symx found a deadlock",
            FailureKind::DataRace => "symx found a data race",
            FailureKind::StepLimit => "symx hit the step limit",
            FailureKind::Misuse => "symx found a synchronization misuse",
            FailureKind::Leak => "symx found a leak",
            FailureKind::StackOverflow => "symx found a stack overflow",
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.headline(), self.message)?;
        for d in &self.details {
            writeln!(f, "    {d}")?;
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        if self.steps.is_empty() {
            writeln!(
                f,
                "\nno interleaving to draw: the failure came before the first scheduling point"
            )?;
        } else {
            writeln!(
                f,
                "\ninterleaving ({} step{}, {} preemption{}, sequentially consistent):",
                self.steps.len(),
                plural(self.steps.len()),
                self.preemptions,
                plural(self.preemptions as usize)
            )?;
        }
        for s in &self.steps {
            writeln!(f, "{s}")?;
        }
        writeln!(f, "\nreplay token: {}", self.schedule)?;
        writeln!(f, "replay with:  {}", self.replay_command())
    }
}

/// Why an exploration stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopReason {
    /// Every execution in the (bounded) space was run.
    Exhausted,
    /// A failure was found.
    Failure,
    /// The execution bound (`max_executions` / `iterations`) was reached.
    MaxExecutions,
    /// The wall-clock budget ran out.
    TimeBudget,
    /// Ctrl-C (or `symx::__private::interrupt`) stopped an exploration that saves a checkpoint.
    Interrupted,
}

impl StopReason {
    /// Every reason, in the order of the enum.
    pub const ALL: [StopReason; 5] = [
        StopReason::Exhausted,
        StopReason::Failure,
        StopReason::MaxExecutions,
        StopReason::TimeBudget,
        StopReason::Interrupted,
    ];

    /// The reason's stable name in machine-readable output (`cargo symx`'s reports and the
    /// worker protocol): `exhausted`, `failure`, `max_executions`, `time_budget`,
    /// `interrupted`.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Exhausted => "exhausted",
            StopReason::Failure => "failure",
            StopReason::MaxExecutions => "max_executions",
            StopReason::TimeBudget => "time_budget",
            StopReason::Interrupted => "interrupted",
        }
    }
}

impl std::str::FromStr for StopReason {
    type Err = crate::names::UnknownName;

    /// The reason named `s` (see [`StopReason::name`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::parse(&Self::ALL, Self::name, "stop reason", s)
    }
}

/// The outcome of an exploration.
#[derive(Clone, Debug)]
pub struct Report {
    pub(crate) executions: u64,
    pub(crate) stop: StopReason,
    pub(crate) failure: Option<Failure>,
    pub(crate) elapsed: Duration,
    pub(crate) max_preemptions_bounded: bool,
    /// Executions of the preemption-bounded passes run alongside the exploration.
    pub(crate) shallow_executions: u64,
    /// Executions run before the checkpoint this exploration resumed from (counted in the
    /// totals).
    pub(crate) resumed: u64,
    /// An exhaustive exploration's estimate of its size, when it stopped before the end.
    pub(crate) estimated: Option<f64>,
    /// The interleaving of a replayed execution (empty for explorations).
    pub(crate) replayed_steps: Vec<Step>,
    pub(crate) discarded: u64,
    pub(crate) drew_inputs: bool,
    pub(crate) idle_threads: u32,
    /// A replay whose steps ran at other source locations than the token recorded: the new
    /// locations (empty when the same lines only ran in another combination).
    pub(crate) moved: Option<Vec<SourceLocation>>,
}

impl Report {
    /// Executions actually run: those of the exploration (not the shallow passes the default
    /// strategy runs alongside it, see [`Report::shallow_executions`]), or, when a failure
    /// ended it, every execution that ran.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// Executions run by the default exploration's search for shallow bugs (iterative
    /// preemption bounding alongside the optimal DPOR). Without a failure they are not counted
    /// in [`Report::executions`], which then counts the exploration whose completeness
    /// [`Report::complete`] reports; a failure's count is every execution that ran.
    pub fn shallow_executions(&self) -> u64 {
        self.shallow_executions
    }

    /// Executions (of both kinds above) that ran before the checkpoint this exploration
    /// resumed from ([`Builder::resume`](crate::Builder::resume)); they are counted in
    /// [`Report::executions`] and [`Report::shallow_executions`], which are the totals of the
    /// whole exploration across its interruptions. 0 when it did not resume.
    pub fn resumed(&self) -> u64 {
        self.resumed
    }

    /// For an exhaustive exploration (optimal DPOR, DFS) stopped by a bound, a time budget or
    /// Ctrl-C: its estimate of the executions of the whole exploration (Knuth's estimator over
    /// its tree, read off the path it stopped on), comparable with [`Report::executions`] for
    /// the work left. `None` when it ended, failed, or samples (random, PCT).
    pub fn estimated_executions(&self) -> Option<u64> {
        self.estimated.map(|e| e.round() as u64)
    }

    /// Executions abandoned because a `symx::assume` did not hold (counted in
    /// [`Report::executions`] too).
    pub fn discarded(&self) -> u64 {
        self.discarded
    }

    /// Whether an execution drew a symbolic input (`symx::any`, `any_named`): in process, every
    /// exploration runs one input assignment; `cargo symx test` explores them all.
    pub fn drew_inputs(&self) -> bool {
        self.drew_inputs
    }

    /// The most spawned threads that, in one execution, made no operation symx sees (no
    /// atomic, lock, channel, `UnsafeCell` or other modelled access): code symx does not
    /// control, such as a library still on `std::sync`. Exploration cannot have covered its
    /// interleavings, however complete it says it is.
    pub fn idle_threads(&self) -> u32 {
        self.idle_threads
    }

    /// True when the bounded space was exhausted: no bug exists within the stated bounds.
    pub fn complete(&self) -> bool {
        self.stop == StopReason::Exhausted
    }

    /// The bug found, if one was.
    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// Why exploration stopped.
    pub fn stop_reason(&self) -> StopReason {
        self.stop
    }

    /// Wall-clock time the exploration took (minimising a failure included).
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// For a replay: `Some` when the same operations ran at source locations other than the
    /// token recorded (code moved since), with the locations it did not record.
    pub fn moved_locations(&self) -> Option<&[SourceLocation]> {
        self.moved.as_deref()
    }

    /// For a replay: every step of the replayed execution, failing or not.
    pub fn replayed_steps(&self) -> &[Step] {
        &self.replayed_steps
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(failure) = &self.failure {
            write!(f, "{failure}")?;
            return writeln!(f, "(after {} executions)", self.executions);
        }
        let how = match self.stop {
            StopReason::Exhausted if self.max_preemptions_bounded => {
                "every execution within the preemption bound explored, under sequential \
                 consistency"
            }
            StopReason::Exhausted => "every execution explored, under sequential consistency",
            StopReason::MaxExecutions => {
                "stopped at the execution bound; the space is not exhausted"
            }
            StopReason::TimeBudget => "stopped at the time budget; the space is not exhausted",
            StopReason::Interrupted => "interrupted; the space is not exhausted",
            StopReason::Failure => "failed",
        };
        writeln!(
            f,
            "symx: no bug in {} executions ({how}, {:.2?})",
            self.executions, self.elapsed
        )
    }
}
