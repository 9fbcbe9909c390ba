//! The command line: what `cargo symx` accepts, with the help text and examples users see.
//! Parsing only; what the options mean is decided by the modules that receive them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXIT_CODES: &str = "\
EXIT CODES:
    0    no bug found (every symx test and ordinary test passed)
    1    a confirmed bug: a failed symx test, a failed ordinary test, a crash or a timeout
    2    usage, configuration or build error
    4    no #[symx::test] ran (test, with --no-tests=fail, the default)
    130  interrupted (Ctrl-C) before any bug was found";

#[derive(Parser, Debug)]
#[command(
    name = "cargo symx",
    bin_name = "cargo symx",
    version,
    about = "Explore the #[symx::test] concurrency tests of a cargo project",
    after_help = EXIT_CODES
)]
pub struct Cli {
    /// When to colour the output (NO_COLOR in the environment means never for `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build the test targets and explore every test whose name contains FILTER.
    #[command(after_help = "EXAMPLES:
    cargo symx test                              # every test of the current package
    cargo symx test --workspace --jobs 2         # the whole workspace, two workers
    cargo symx test -p getting-started lost      # tests whose name contains `lost`
    cargo symx test --profile ci --format sarif --output symx.sarif
    cargo symx test -- --include-ignored         # arguments after -- go to the test binaries
    cargo symx test --predict --max-executions 1 # one execution, then predict from its trace")]
    Test(TestArgs),
    /// Build the test targets and list their tests (symx and ordinary alike).
    #[command(after_help = "EXAMPLES:
    cargo symx list
    cargo symx list --workspace counter")]
    List(ListArgs),
    /// Run exactly the execution a replay token (or a saved failure file) describes.
    #[command(after_help = "EXAMPLES:
    cargo symx replay symx3-…
    cargo symx replay --trace symx3-…   # print every step, repeats not collapsed
    cargo symx replay failure.json                              # a failure from --format json")]
    Replay(ReplayArgs),
    /// Predict bugs from a saved trace: ask z3 whether another interleaving of its events
    /// fails, and confirm each prediction by running that interleaving.
    #[command(after_help = "EXAMPLES:
    SYMX_TRACE_DIR=traces cargo test lost_update      # save the traces of a test's executions
    cargo symx predict traces/lost_update-000001.json
    cargo symx predict -p my-crate --model mcm --cb 2 trace.json
    cargo symx predict --properties race,deadlock --format json trace.json

Exit code 1 when a prediction is confirmed (a bug), 0 when none is, 2 when the trace cannot be
used (corrupt, another format version, no test name, no such test).")]
    Predict(PredictArgs),
    /// Enumerate a small set of (input constraint, schedule) pairs that covers every input
    /// (input-covering schedules), write it as a schedule file and summarise it.
    #[command(after_help = "EXAMPLES:
    cargo symx schedules                                  # every symx test of the package
    cargo symx schedules lock_chosen --output s.json      # one test, its schedule file
    cargo symx schedules --no-prefix prefix_abort         # keep prefix schedules

The schedule file's shape is in docs/input-covering.md.")]
    Schedules(SchedulesArgs),
    /// Check every input-covering schedule for deadlocks: a verdict on constrained
    /// execution (the program held to those schedules).
    #[command(after_help = "EXAMPLES:
    cargo symx deadlock
    cargo symx deadlock self_deadlock

Exit code 1 when a deadlocking schedule is confirmed by running it, 0 when no schedule
deadlocks, 2 on errors or when the enumeration was not complete (no verdict).")]
    Deadlock(CoveringArgs),
    /// Run each test once per input-covering schedule, held to it, with an input satisfying
    /// its constraint: |Σ| runs instead of every interleaving.
    #[command(after_help = "EXAMPLES:
    cargo symx test-schedules
    cargo symx test-schedules lock_chosen --input x=5   # the schedule x = 5 selects

Exit code 1 when a run fails, diverges from its schedule or an input is uncovered, 0 when
every run passes, 2 on errors.")]
    TestSchedules(TestSchedulesArgs),
    /// Prove input-covering schedules of later epochs infeasible: those whose constraint
    /// needs a havocked shared state (`symx::covering::Havocked`) that no schedule into
    /// their epoch leaves (a rely-guarantee argument over the schedules).
    #[command(after_help = "EXAMPLES:
    cargo symx discharge
    cargo symx discharge semaphore

Exit code 0 (the proofs are reported; an unproved schedule is no failure), 2 on errors.")]
    Discharge(CoveringArgs),
    /// Show where epoch markers go: each loop head the runs reach, with the placement's
    /// decision and reason, and the count with and without the placement's optimizations.
    #[command(after_help = "EXAMPLES:
    cargo symx markers
    cargo symx markers pfscan

Exit code 0, 2 on errors.")]
    Markers(CoveringArgs),
}

/// Which input-covering command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoveringCommand {
    Schedules,
    Deadlock,
    TestSchedules,
    Discharge,
    Markers,
}

const COVERING: &str = "Input-covering schedules";

/// What the input-covering commands share.
#[derive(Args, Debug, Clone)]
pub struct CoveringArgs {
    #[command(flatten)]
    pub cargo: CargoArgs,
    /// Only tests whose name contains this string.
    pub filter: Option<String>,
    /// Keep prefix schedules: a run that fails after a prefix of another schedule's
    /// synchronization is a schedule of its own.
    #[arg(long, help_heading = COVERING)]
    pub no_prefix: bool,
    /// Paths (runs) the enumeration of one test may take before it stops, incomplete
    /// (default 10000).
    #[arg(long, value_name = "N", help_heading = COVERING)]
    pub max_paths: Option<u64>,
    /// Seconds the enumeration of one test may take before it stops, incomplete.
    #[arg(long, value_name = "SECONDS", help_heading = COVERING)]
    pub time_budget: Option<u64>,
    /// Run each path to its end: no bounded epochs (a loop whose trip count an input
    /// decides then keeps the enumeration from ending; its budget names the loop).
    #[arg(long, help_heading = COVERING)]
    pub no_epochs: bool,
    /// Name epochs by which thread is where, not by the multiset of the threads' places
    /// (symbolic thread ids, the default).
    #[arg(long, help_heading = COVERING)]
    pub concrete_tids: bool,
    /// Kill a run of the test that takes longer than this, e.g. `60s`.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct SchedulesArgs {
    #[command(flatten)]
    pub covering: CoveringArgs,
    /// Write the schedule file here (one test) instead of target/symx/schedules/.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct TestSchedulesArgs {
    #[command(flatten)]
    pub covering: CoveringArgs,
    /// Run only the schedule these input values select (name=value, comma separated or
    /// repeated); an input no constraint covers is reported.
    #[arg(long, value_name = "NAME=VALUE", help_heading = COVERING)]
    pub input: Vec<String>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct CargoArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Package(s) to test (repeatable).
    #[arg(short, long = "package", value_name = "SPEC")]
    pub packages: Vec<String>,
    /// Test every package of the workspace.
    #[arg(long)]
    pub workspace: bool,
    /// Features to enable (space or comma separated, repeatable).
    #[arg(short = 'F', long, value_name = "FEATURES")]
    pub features: Vec<String>,
    /// Build with the release profile.
    #[arg(long)]
    pub release: bool,
    /// Directory for all generated artifacts (the tests are built in its `symx/`).
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,
    /// Build the tests as plain `cargo test` does: without `--cfg symx` (which symx appends to
    /// the rustflags), in cargo's own target directory rather than its `symx/`.
    #[arg(long)]
    pub no_cfg_symx: bool,
    /// Build with `--cfg loom` too, for a crate whose loom tests and `cfg(loom)` swap use symx's
    /// loom API (its `loom` dependency pointed at symx-loom: docs/coming-from-loom.md).
    #[arg(long)]
    pub cfg_loom: bool,
}

#[derive(Args, Debug, Clone)]
pub struct TestArgs {
    #[command(flatten)]
    pub cargo: CargoArgs,
    /// Run only tests whose name contains this string.
    pub filter: Option<String>,
    /// Worker processes at once, shards included (default: the cores, or `jobs` from the
    /// configuration).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Split each #[symx::test] across N worker processes (DFS-explored, random and PCT tests;
    /// optimal DPOR runs whole in one of them). All processes share the --jobs budget.
    #[arg(long, value_name = "N")]
    pub shards: Option<u32>,
    #[command(flatten)]
    pub report: ReportArgs,
    /// When no #[symx::test] runs (a forgotten feature or cfg, a filter that matches nothing):
    /// `fail` exits with code 4, `warn` says so and exits as the other tests make it, `pass`
    /// says nothing.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = NoTestsArg::Fail)]
    pub no_tests: NoTestsArg,
    /// Preemption bound for every symx test (overrides the attribute).
    #[arg(long, value_name = "N")]
    pub preemption_bound: Option<u32>,
    /// Execution bound for every symx test (overrides the attribute).
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    /// Exploration time budget per test, e.g. `30s`: exploration stops there, unfinished.
    #[arg(long, value_name = "DURATION")]
    pub time_budget: Option<String>,
    /// Kill a test that runs longer than this, e.g. `5m`, and report it as a timeout.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Continue each test's exploration where the last run stopped before it was complete
    /// (time budget, execution bound, Ctrl-C), from its checkpoint under
    /// target/symx/checkpoints/; a checkpoint of a changed test is refused with an error.
    #[arg(long)]
    pub resume: bool,
    /// After exploring a #[symx::test] that passes, predict from the traces of its first
    /// executions whether other interleavings of their events fail (confirmed by replay).
    #[arg(long, help_heading = PREDICTIVE)]
    pub predict: bool,
    /// With --predict: how many of the first executions' traces to analyse (default 1).
    #[arg(long, value_name = "N", help_heading = PREDICTIVE)]
    pub predict_executions: Option<u64>,
    #[command(flatten)]
    pub predict_options: PredictOptions,
    /// Symbolic conditions per path (branches and assertions on inputs) the symbolic
    /// exploration may flip, for every symx test (overrides the attribute).
    #[arg(long, value_name = "N", help_heading = SYMBOLIC)]
    pub max_branch_depth: Option<u32>,
    /// Explore tests that draw symbolic inputs at their default inputs only.
    #[arg(long, help_heading = SYMBOLIC)]
    pub no_symbolic: bool,
    /// Which facts of a declared program context hold: full, no-rd (no value facts), no-si
    /// (no synchronization invariants) or naive (none), for every symx test (overrides the
    /// attribute).
    #[arg(long, value_name = "MODE", help_heading = SYMBOLIC)]
    pub context_mode: Option<String>,
    /// Search every passing symx test's inputs and schedules again with assertion-guided
    /// pruning (states proved unable to fail an assertion are skipped); `=audit` runs the
    /// pruned and the unpruned search side by side and fails the test if they disagree.
    #[arg(long, value_name = "MODE", num_args = 0..=1, default_missing_value = "on",
          value_parser = ["on", "audit"], help_heading = SYMBOLIC)]
    pub assertion_guided: Option<String>,
    /// Arguments passed to every test binary (listing and running), e.g. --include-ignored or
    /// --skip NAME; the driver itself sets the test name, --exact and --test-threads.
    #[arg(last = true)]
    pub test_args: Vec<String>,
}

/// The configuration profile and where the report goes (`test` and `predict`).
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Configuration profile from .config/symx.toml.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report to this file instead of stdout (human progress stays on the terminal).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct ListArgs {
    #[command(flatten)]
    pub cargo: CargoArgs,
    /// List only tests whose name contains this string.
    pub filter: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub cargo: CargoArgs,
    /// A replay token (symx3-...) or a file holding one (a failure JSON from --format json, or
    /// a text file whose first token-looking word is used).
    pub token: String,
    /// Print every step of the replayed execution: repeated steps (a thread spinning) are not
    /// collapsed into one row, and a replay without a failure prints its interleaving too.
    #[arg(long)]
    pub trace: bool,
    /// Kill the replay after this long, e.g. `60s`.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
}

const SYMBOLIC: &str = "Symbolic exploration";
const PREDICTIVE: &str = "Predictive checks";

/// The options of the predictive checks (`cargo symx test --predict`, `cargo symx predict`).
#[derive(Args, Debug, Clone, Default)]
pub struct PredictOptions {
    /// Which interleavings a prediction may use: ctp (symbolic values, the default), mcm
    /// (maximal causal: reads that decide the run keep their values), values (every read
    /// keeps its value).
    #[arg(long, value_enum, help_heading = PREDICTIVE)]
    pub model: Option<ModelArg>,
    /// Context bound of the predictive queries (unbounded by default).
    #[arg(long, value_name = "B", help_heading = PREDICTIVE)]
    pub cb: Option<u32>,
    /// Properties to predict, comma separated (default: all; atomicity concerns regions marked
    /// with symx::atomic_region, lock-claim locks annotated with #[symx::acquire]).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST", help_heading = PREDICTIVE)]
    pub properties: Vec<PropertyArg>,
    /// Also show unconfirmed predictions and why their replay did not confirm them (never
    /// bugs: a defect of symx, or nondeterminism it does not control).
    #[arg(short, long, help_heading = PREDICTIVE)]
    pub verbose: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelArg {
    Ctp,
    Mcm,
    Values,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyArg {
    Assert,
    Race,
    Atomicity,
    Deadlock,
    LockClaim,
}

#[derive(Args, Debug, Clone)]
pub struct PredictArgs {
    #[command(flatten)]
    pub cargo: CargoArgs,
    /// A trace file (JSON, as SYMX_TRACE_DIR writes them); it names the test to run.
    pub trace: PathBuf,
    #[command(flatten)]
    pub options: PredictOptions,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Kill a replay of a prediction that runs longer than this, e.g. `60s`.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Junit,
    Sarif,
}

impl From<Format> for crate::report::Format {
    fn from(f: Format) -> Self {
        match f {
            Format::Human => Self::Human,
            Format::Json => Self::Json,
            Format::Junit => Self::Junit,
            Format::Sarif => Self::Sarif,
        }
    }
}

impl CargoArgs {
    /// The options as the build layer takes them.
    pub fn options(&self) -> crate::discover::CargoOptions {
        crate::discover::CargoOptions {
            manifest_path: self.manifest_path.clone(),
            packages: self.packages.clone(),
            workspace: self.workspace,
            features: self.features.clone(),
            configured_features: Vec::new(),
            release: self.release,
            target_dir: self.target_dir.clone(),
            no_cfg_symx: self.no_cfg_symx,
            cfg_loom: self.cfg_loom,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoTestsArg {
    Fail,
    Warn,
    Pass,
}

impl From<NoTestsArg> for crate::report::no_tests::NoTests {
    fn from(n: NoTestsArg) -> Self {
        match n {
            NoTestsArg::Fail => Self::Fail,
            NoTestsArg::Warn => Self::Warn,
            NoTestsArg::Pass => Self::Pass,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl From<ColorChoice> for crate::report::style::ColorChoice {
    fn from(c: ColorChoice) -> Self {
        match c {
            ColorChoice::Auto => Self::Auto,
            ColorChoice::Always => Self::Always,
            ColorChoice::Never => Self::Never,
        }
    }
}

/// The arguments after `cargo`'s own: cargo runs `cargo-symx symx ...`, a direct call
/// `cargo-symx ...`; both are accepted.
pub fn parse() -> Result<Cli, clap::Error> {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "symx") {
        args.remove(1);
    }
    Cli::try_parse_from(args)
}

impl PredictOptions {
    /// The command line's predictive options as a configuration layer (they override the
    /// files).
    pub fn apply(&self, s: &mut crate::config::Settings) {
        s.predict_model = self.model.map(value_name);
        s.predict_bound = self.cb;
        if !self.properties.is_empty() {
            s.predict_properties = Some(self.properties.iter().copied().map(value_name).collect());
        }
    }
}

/// The name clap shows for a value (the same names the configuration files take).
fn value_name(v: impl ValueEnum) -> String {
    v.to_possible_value()
        .expect("no value is hidden")
        .get_name()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PREDICT_MODELS, PREDICT_PROPERTIES};

    fn names<V: ValueEnum>() -> Vec<String> {
        V::value_variants()
            .iter()
            .cloned()
            .map(value_name)
            .collect()
    }

    #[test]
    fn flags_and_configuration_keys_take_the_same_names() {
        assert_eq!(names::<PropertyArg>(), PREDICT_PROPERTIES);
        assert_eq!(names::<ModelArg>(), PREDICT_MODELS);
    }
}
