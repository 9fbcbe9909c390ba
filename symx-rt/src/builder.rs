//! The [`Builder`]: how a test says what to explore (strategy and bounds), and the settings the
//! worker adds (a shard, an announcer). The settings sit below the explorer that reads them;
//! the verbs that run an exploration (`Builder::explore`, `replay`, ...) are in `entry`.

use std::time::Duration;

use std::fmt;
use std::sync::Arc;

use crate::report::Report;
use crate::rt::Config;
use crate::strategy::{Strategy, StrategyKind};
use crate::sym::InputValues;
use crate::trace::Trace;

/// Settings of an exploration. Every option is also an argument of `#[symx::test]`.
///
/// ```
/// use symx::sync::atomic::{AtomicUsize, Ordering};
/// use symx::sync::Arc;
/// use symx::{Builder, FailureKind};
///
/// // Two threads increment a counter with a load and a separate store: an update can be lost.
/// fn lost_update() {
///     let n = Arc::new(AtomicUsize::new(0));
///     let m = n.clone();
///     let t = symx::thread::spawn(move || {
///         let v = m.load(Ordering::SeqCst);
///         m.store(v + 1, Ordering::SeqCst);
///     });
///     let v = n.load(Ordering::SeqCst);
///     n.store(v + 1, Ordering::SeqCst);
///     t.join().unwrap();
///     assert_eq!(n.load(Ordering::SeqCst), 2);
/// }
///
/// let report = Builder::new().preemption_bound(Some(2)).explore(lost_update);
/// let failure = report.failure().expect("the lost update is found");
/// assert_eq!(failure.kind(), FailureKind::Panic);
///
/// // The failure's schedule (its replay token) runs exactly that interleaving again.
/// let again = Builder::new().replay(failure.schedule(), lost_update);
/// assert_eq!(again.failure().map(|f| f.kind()), Some(FailureKind::Panic));
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    pub(crate) preemption_bound: Option<u32>,
    pub(crate) max_executions: Option<u64>,
    pub(crate) max_steps: u64,
    pub(crate) strategy: Strategy,
    pub(crate) spurious_wakeups: bool,
    /// Run preemption-bounded passes for shallow bugs alongside the optimal DPOR.
    pub(crate) shallow_first: bool,
    pub(crate) stack_size: usize,
    pub(crate) leak_check: bool,
    pub(crate) time_budget: Option<Duration>,
    /// Where an exploration stopped early saves its state, and whether it resumes from it.
    pub(crate) checkpoint: Option<std::path::PathBuf>,
    pub(crate) resume: bool,
    /// Symbolic conditions per path that `cargo symx test`'s symbolic exploration may flip.
    pub(crate) max_branch_depth: Option<u32>,
    /// `cargo symx test` searches inputs and schedules with assertion-guided pruning.
    pub(crate) assertion_guided: bool,
    pub(crate) test_name: Option<String>,
    /// Record every execution's trace (symbolic notes and all).
    pub(crate) record: bool,
    pub(crate) inputs: Option<std::sync::Arc<InputValues>>,
    pub(crate) input_seed: u64,
    /// Which facts of a program context hold (`symx::context`).
    pub(crate) context_mode: crate::context::mode::ContextMode,
    /// Run every execution even after a failure (the first is reported).
    pub(crate) keep_going: bool,
    /// The checkpoint whose symbolic captures are generalised.
    pub(crate) context_label: Option<std::sync::Arc<str>>,
    /// Cut each run into bounded epochs (input-covering schedules).
    pub(crate) epochs: Option<crate::covering::epoch::Epochs>,
    pub(crate) trace_dir: Option<crate::trace::TraceDir>,
    /// Explore only this shard's part of a depth-first or optimal-DPOR exploration (set by
    /// the worker).
    pub(crate) shard: Option<ExploreShard>,
    /// The directory where the shards of a split optimal-DPOR exploration hand each other
    /// work (set by the worker; the driver makes one per test).
    pub(crate) exchange: Option<std::path::PathBuf>,
    /// Report every execution start and decision as it happens (set by the worker).
    pub(crate) announcer: Option<Announcer>,
    /// Attribute arguments kept until `strategy` is known.
    seed: Option<u64>,
    depth: Option<u32>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

/// Executions a randomized strategy runs when no bound is given.
pub const DEFAULT_ITERATIONS: u64 = 1_000;

impl Builder {
    /// The default settings: optimal DPOR, no preemption bound, no execution bound, 100 000
    /// steps per execution, 256 KiB model-thread stacks.
    pub fn new() -> Self {
        Builder {
            preemption_bound: None,
            max_executions: None,
            max_steps: 100_000,
            strategy: Strategy::Dpor,
            spurious_wakeups: false,
            shallow_first: true,
            stack_size: 256 * 1024,
            leak_check: true,
            time_budget: None,
            checkpoint: None,
            resume: false,
            max_branch_depth: None,
            assertion_guided: false,
            test_name: None,
            record: false,
            inputs: None,
            input_seed: 0,
            context_mode: crate::context::mode::ContextMode::Full,
            keep_going: false,
            context_label: None,
            epochs: None,
            trace_dir: None,
            shard: None,
            exchange: None,
            announcer: None,
            seed: None,
            depth: None,
        }
    }

    /// At most this many preemptions per execution (`None`: unbounded, the default). A
    /// preemption is a switch away from the thread that took the last step (before the first
    /// step, the main thread, which runs the body) while it could take its next step: a
    /// switch away from a thread that blocked (on a lock, a join, a receive), finished, or
    /// gave way with `yield_now`/`spin_loop` is free. Under [`Strategy::Dpor`] the bounded
    /// partial-order reduction explores every Mazurkiewicz trace that has at least one
    /// schedule within the bound (the bound is on the trace, not on each of its schedules), so
    /// a complete report means every such trace was explored.
    pub fn preemption_bound(mut self, bound: Option<u32>) -> Self {
        self.preemption_bound = bound;
        self
    }

    /// Whether the optimal DPOR (the default strategy, unbounded) runs alongside it passes of
    /// iterative preemption bounding (bounds 0, 1, 2), which find bugs that need few
    /// preemptions early in a long execution much sooner than a depth-first reduction does.
    /// They get at most half as many executions as the DPOR plus a small head start, are
    /// counted in [`Report::shallow_executions`], and stop when the DPOR finishes, which alone
    /// decides completeness. On by default; not run under an execution bound
    /// ([`Builder::max_executions`] then counts exactly the DPOR's executions).
    pub fn shallow_first(mut self, on: bool) -> Self {
        self.shallow_first = on;
        self
    }

    /// Where an exploration that stops before it is complete (its time budget or execution
    /// bound ran out, or Ctrl-C, which then stops it after the current execution instead of
    /// ending the process) saves its state, so that [`Builder::resume`] can continue it; a
    /// complete exploration or a failure removes the file. `None` (the default): no state
    /// file.
    pub fn checkpoint(mut self, file: Option<std::path::PathBuf>) -> Self {
        self.checkpoint = file;
        self
    }

    /// Whether to continue from the [`Builder::checkpoint`] file when there is one, running
    /// exactly the executions it had not run; the report's counts are the whole
    /// exploration's ([`Report::resumed`](crate::Report::resumed) says how many ran before).
    /// A file written for another test, other settings, or a program that no longer runs its
    /// last execution alike is refused with an error (a panic in `explore`).
    pub fn resume(mut self, on: bool) -> Self {
        self.resume = on;
        self
    }

    /// Stop after this many executions (`None`: until the space is exhausted).
    pub fn max_executions(mut self, max: Option<u64>) -> Self {
        self.max_executions = max;
        self
    }

    /// Visible operations allowed in one execution before it is reported as a livelock.
    pub fn max_steps(mut self, max: u64) -> Self {
        self.max_steps = max;
        self
    }

    /// How executions are chosen (default [`Strategy::Dpor`]).
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Let `Condvar` waiters wake without a notify, as std allows. Under `Strategy::Dpor`,
    /// explored by the bounded partial-order reduction (a spurious wake-up is one more event
    /// that races on its condition variable), with or without a preemption bound.
    pub fn spurious_wakeups(mut self, on: bool) -> Self {
        self.spurious_wakeups = on;
        self
    }

    /// Stack size of each model thread (default 256 KiB).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = bytes.max(16 * 1024);
        self
    }

    /// Report a `symx::sync::Arc`, a `Track`ed value or a block from `symx::loom::alloc` still
    /// alive when every thread of an execution has finished, as failure kind `leak` with the
    /// allocation's location (default: on, as in loom).
    pub fn leak_check(mut self, on: bool) -> Self {
        self.leak_check = on;
        self
    }

    /// Stop exploring after this much wall-clock time.
    pub fn time_budget(mut self, budget: Option<Duration>) -> Self {
        self.time_budget = budget;
        self
    }

    /// Bounds the symbolic exploration `cargo symx test` runs over a test's inputs: at most
    /// this many symbolic conditions of a path (branches and assertions that depend on an
    /// input) are asked about; a longer path makes the report incomplete. `None` (default):
    /// no bound. In process (`cargo test`), inputs are explored at one assignment and this
    /// bound has no effect.
    pub fn max_branch_depth(mut self, depth: Option<u32>) -> Self {
        self.max_branch_depth = depth;
        self
    }

    /// Which facts of a program context hold (`symx::context`): every fact (the default),
    /// no value facts, no synchronization invariants, or none.
    pub fn context_mode(mut self, mode: crate::context::mode::ContextMode) -> Self {
        self.context_mode = mode;
        self
    }

    /// Explores from the checkpoint `label` (`symx::checkpoint!("label", ..)`): its symbolic
    /// captures are generalised, each a symbolic input `<label>.t<thread>.<name>` whose first
    /// value is the one the run computed, with the analysed facts
    /// `#[symx::reaching_definitions]` gives.
    pub fn context(mut self, label: Option<&str>) -> Self {
        self.context_label = label.map(std::sync::Arc::from);
        self
    }

    /// Cuts every run into bounded epochs at its active epoch markers (loop heads that
    /// synchronize, barriers in loops, `symx::epoch_marker()`), as input-covering schedules
    /// enumerate them; `None` (the default) makes every marker a no-op.
    pub fn epochs(mut self, epochs: Option<crate::covering::epoch::Epochs>) -> Self {
        self.epochs = epochs;
        self
    }

    /// The settings [`Builder::epochs`] set.
    pub fn epochs_setting(&self) -> Option<&crate::covering::epoch::Epochs> {
        self.epochs.as_ref()
    }

    /// Runs every execution of the bounded space even after a failure, which the report
    /// then gives once the space is exhausted (the first found, not minimised): for counting
    /// paths, as exploring a context in its modes does. Off by default.
    pub fn keep_going(mut self, on: bool) -> Self {
        self.keep_going = on;
        self
    }

    /// The mode [`Builder::context_mode`] set.
    pub fn context_mode_setting(&self) -> crate::context::mode::ContextMode {
        self.context_mode
    }

    /// Asks `cargo symx test` to search this test's inputs and schedules with
    /// assertion-guided pruning (skipping every state proved unable to fail an assertion).
    /// In process (`cargo test`) it has no effect.
    pub fn assertion_guided(mut self, on: bool) -> Self {
        self.assertion_guided = on;
        self
    }

    /// The bound [`Builder::max_branch_depth`] set.
    pub fn branch_depth_bound(&self) -> Option<u32> {
        self.max_branch_depth
    }

    /// Names the test in reports and replay tokens (set by `#[symx::test]`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.test_name = Some(name.into());
        self
    }

    /// Record the full trace of every execution (off by default: recording costs time).
    /// Traces reach [`Builder::explore_traces`]'s callback and the trace directory.
    pub fn record_traces(mut self, on: bool) -> Self {
        self.record = on;
        self
    }

    /// Values for the symbolic inputs, by name (`any_named`'s name, or `t<thread>#<k>` for
    /// the k-th `any()` of a thread). Inputs not named here take their default value.
    pub fn inputs(mut self, values: InputValues) -> Self {
        self.inputs = Some(std::sync::Arc::new(values));
        self
    }

    /// Default values of inputs the assignment does not give: 0 leaves them all zero; any
    /// other seed gives each input a value fixed by the seed and its name.
    pub fn input_seed(mut self, seed: u64) -> Self {
        self.input_seed = seed;
        self
    }

    /// Writes one JSON trace per execution into `dir` (the first `limit`, and always a
    /// failing one). `#[symx::test]` takes it from `SYMX_TRACE_DIR` / `SYMX_TRACE_LIMIT`.
    pub fn trace_dir(mut self, dir: Option<std::path::PathBuf>, limit: usize) -> Self {
        self.trace_dir = dir.map(|dir| crate::trace::TraceDir { dir, limit });
        self
    }

    pub(crate) fn trace_dir_from_env(mut self) -> Self {
        if self.trace_dir.is_none() {
            self.trace_dir = crate::trace::TraceDir::from_env();
        }
        self
    }

    pub(crate) fn config(&self) -> Config {
        Config {
            max_steps: self.max_steps,
            preemption_bound: self.preemption_bound,
            spurious_wakeups: self.spurious_wakeups,
            stack_size: self.stack_size,
            leak_check: self.leak_check,
            sym: crate::sym::record::SymConfig {
                recording: self.record,
                inputs: self.inputs.clone(),
                input_seed: self.input_seed,
                context_mode: self.context_mode,
                context_label: self.context_label.clone(),
            },
            epochs: self.epochs.clone(),
        }
    }

    /// The settings an exploration runs with: a sampling strategy without an execution bound
    /// gets [`DEFAULT_ITERATIONS`], since it would otherwise never stop.
    pub(crate) fn with_defaults(&self) -> Builder {
        let mut b = self.clone();
        if matches!(b.strategy, Strategy::Random { .. } | Strategy::Pct { .. })
            && b.max_executions.is_none()
        {
            b.max_executions = Some(DEFAULT_ITERATIONS);
        }
        b
    }

    // Attribute arguments of `#[symx::test]`, one setter per key.

    #[doc(hidden)]
    pub fn __attr_preemption_bound(self, bound: u32) -> Self {
        self.preemption_bound(Some(bound))
    }

    #[doc(hidden)]
    pub fn __attr_max_executions(self, max: u64) -> Self {
        self.max_executions(Some(max))
    }

    #[doc(hidden)]
    pub fn __attr_iterations(self, n: u64) -> Self {
        self.max_executions(Some(n))
    }

    #[doc(hidden)]
    pub fn __attr_max_steps(self, max: u64) -> Self {
        self.max_steps(max)
    }

    #[doc(hidden)]
    pub fn __attr_spurious_wakeups(self, on: bool) -> Self {
        self.spurious_wakeups(on)
    }

    #[doc(hidden)]
    pub fn __attr_stack_size(self, bytes: usize) -> Self {
        self.stack_size(bytes)
    }

    #[doc(hidden)]
    pub fn __attr_leak_check(self, on: bool) -> Self {
        self.leak_check(on)
    }

    #[doc(hidden)]
    pub fn __attr_time_budget_ms(self, ms: u64) -> Self {
        self.time_budget(Some(Duration::from_millis(ms)))
    }

    #[doc(hidden)]
    pub fn __attr_context(self, label: &str) -> Self {
        self.context(Some(label))
    }

    #[doc(hidden)]
    pub fn __attr_context_mode(self, name: &str) -> Self {
        match name.parse() {
            Ok(mode) => self.context_mode(mode),
            Err(unknown) => panic!("symx: {unknown}"),
        }
    }

    #[doc(hidden)]
    pub fn __attr_max_branch_depth(self, depth: u32) -> Self {
        self.max_branch_depth(Some(depth))
    }

    #[doc(hidden)]
    pub fn __attr_assertion_guided(self, on: bool) -> Self {
        self.assertion_guided(on)
    }

    #[doc(hidden)]
    pub fn __attr_seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self.with_strategy_args()
    }

    #[doc(hidden)]
    pub fn __attr_depth(mut self, depth: u32) -> Self {
        self.depth = Some(depth);
        self.with_strategy_args()
    }

    #[doc(hidden)]
    pub fn __attr_strategy(mut self, name: &str) -> Self {
        self.strategy = match name.parse::<StrategyKind>() {
            Ok(kind) => kind.default_strategy(),
            Err(unknown) => panic!("symx: {unknown}"),
        };
        self.with_strategy_args()
    }

    /// Applies `seed` and `depth` to the strategy, whatever order the arguments came in.
    fn with_strategy_args(mut self) -> Self {
        match &mut self.strategy {
            Strategy::Random { seed } => *seed = self.seed.unwrap_or(*seed),
            Strategy::Pct { seed, depth } => {
                *seed = self.seed.unwrap_or(*seed);
                *depth = self.depth.unwrap_or(*depth);
            }
            Strategy::Dfs | Strategy::Dpor => {}
        }
        self
    }
}

/// What [`Builder::run_guided`] follows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guide {
    /// The thread (execution-local id, as traces number them) that performs each visible
    /// step, from the first; where it runs out, the last thread continues while it can.
    pub steps: Vec<usize>,
    /// The alternative taken at each nondeterministic choice (which waiter a `notify_one`
    /// wakes), in order; 0 where it runs out.
    pub choices: Vec<u32>,
    /// Values of the symbolic inputs; those not given take the builder's defaults.
    pub inputs: InputValues,
}

/// What the function driving an execution ([`Builder::run_driven`]) is shown at each
/// scheduling point.
#[derive(Debug)]
pub struct DrivenPoint<'a> {
    /// Steps already taken.
    pub step: u64,
    /// The threads that can take the next step (execution-local ids, as traces number them).
    pub enabled: &'a [usize],
    /// The execution so far: every event up to this point.
    pub trace: &'a Trace,
}

/// The decision of the function driving an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drive {
    /// This thread takes the next step.
    Run(usize),
    /// Abandon the execution here: it ends as discarded, nothing runs again.
    Stop,
}

/// The result of [`Builder::run_guided`].
#[derive(Debug)]
pub struct GuidedRun {
    /// The execution's report: its failure, if it failed, and its steps.
    pub report: Report,
    /// The execution's full trace.
    pub trace: Trace,
    /// Where the program did not offer what the guide asked for (the run went on with the
    /// first thread that could).
    pub divergence: Option<String>,
    /// Preemptions the execution took (a failure's report says so too; a passing run has only
    /// this).
    pub preemptions: u32,
}

/// Shard `index` of `count`: the part of a depth-first or optimal-DPOR exploration it owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExploreShard {
    pub index: u32,
    pub count: u32,
}

/// What announce mode reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Announcement {
    /// Execution `index` (from 0) starts.
    Execution { index: u64 },
    /// A decision of the schedule was taken, as a replay token records it.
    Decision { value: u32 },
}

/// Where announcements go, called synchronously before the decision takes effect.
#[derive(Clone)]
pub(crate) struct Announcer(Arc<dyn Fn(Announcement) + Send + Sync>);

impl Announcer {
    pub fn new(to: impl Fn(Announcement) + Send + Sync + 'static) -> Self {
        Announcer(Arc::new(to))
    }

    pub fn announce(&self, a: Announcement) {
        (self.0)(a)
    }
}

impl fmt::Debug for Announcer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Announcer")
    }
}
