//! The in-process measurements, one function per way of looking for a program's bug: the
//! symbolic engine with its default settings, a randomized strategy over seeded inputs, and
//! exhaustive DPOR over enumerated inputs. Each returns plain figures; `main` prints them.

use std::time::Instant;

use cargo_symx::engine::symbolic::{self, Options};
use cargo_symx::engine::InProcess;
use symx::{Builder, InputValues, Strategy, DEFAULT_ITERATIONS};

use crate::programs::Program;

/// One search of the symbolic engine with its default settings.
#[derive(Clone, Debug)]
pub struct EngineRun {
    /// Executions over all classes, the failing one included.
    pub executions: u64,
    pub classes: u64,
    pub queries: u64,
    pub seconds: f64,
    pub solver_seconds: f64,
    /// The failing input value found, if any.
    pub found: Option<i128>,
}

/// The engine in process, as `cargo-symx/tests/symbolic.rs` runs it.
pub fn engine(p: &Program) -> EngineRun {
    let mut exec = InProcess::new(Builder::new(), p.body);
    let out = symbolic::explore(&mut exec, &Options::default());
    let found = out
        .findings
        .first()
        .map(|f| f.inputs.get(p.input).copied().unwrap_or(0));
    EngineRun {
        executions: out.executions,
        classes: out.classes,
        queries: out.solver.queries,
        seconds: out.seconds,
        solver_seconds: out.solver.time.as_secs_f64(),
        found,
    }
}

/// A randomized strategy, as `#[symx::test(strategy = "random" | "pct")]` runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampler {
    Random,
    /// PCT at its default depth (3).
    Pct,
}

impl Sampler {
    pub fn name(self) -> &'static str {
        match self {
            Sampler::Random => "random",
            Sampler::Pct => "pct",
        }
    }

    fn strategy(self, seed: u64) -> Strategy {
        match self {
            Sampler::Random => Strategy::Random { seed },
            Sampler::Pct => Strategy::Pct { seed, depth: 3 },
        }
    }
}

/// Seeds 1..=seeds of one sampler on one program.
#[derive(Clone, Debug, Default)]
pub struct Sampling {
    pub seeds: u64,
    /// Seeds whose input value (`Builder::input_seed`) lets some interleaving fail.
    pub failing_inputs: u64,
    /// Seeds that found the bug, and the executions each took.
    pub found: Vec<u64>,
    /// Executions over every seed.
    pub executions: u64,
    /// Wall time of every seed's exploration together (the input probes excluded).
    pub seconds: f64,
}

/// Which input values a sampled exploration runs with.
#[derive(Clone, Copy, Debug)]
pub enum SampledInputs {
    /// `input_seed(s)` for seed s: what a user without the value gets.
    Seeded,
    /// The lowest failing value, given: how well the schedules alone are sampled.
    Given,
}

/// Runs `sampler` with seed s for s in 1..=seeds, each for at most the default iterations.
/// The inputs stay fixed within one exploration, so each seed tries one input value under
/// up to 1,000 schedules.
pub fn sample(p: &Program, sampler: Sampler, inputs: SampledInputs, seeds: u64) -> Sampling {
    let mut s = Sampling {
        seeds,
        ..Sampling::default()
    };
    for seed in 1..=seeds {
        let mut b = Builder::new()
            .strategy(sampler.strategy(seed))
            .max_executions(Some(DEFAULT_ITERATIONS));
        b = match inputs {
            SampledInputs::Seeded => b.input_seed(seed),
            SampledInputs::Given => {
                b.inputs(InputValues::from([(p.input.to_string(), p.failing.1)]))
            }
        };
        let value = match inputs {
            SampledInputs::Seeded => seed_input(p, seed),
            SampledInputs::Given => Some(p.failing.1),
        };
        if value.is_some_and(p.fails_with) {
            s.failing_inputs += 1;
        }
        let started = Instant::now();
        let report = b.explore(p.body);
        s.seconds += started.elapsed().as_secs_f64();
        s.executions += report.executions();
        if report.failure().is_some() {
            s.found.push(report.executions());
        }
    }
    s
}

/// The value `input_seed(seed)` gives the program's input, read from one recorded execution.
fn seed_input(p: &Program, seed: u64) -> Option<i128> {
    let b = Builder::new().max_executions(Some(1)).input_seed(seed);
    let mut value = None;
    b.explore_traces(p.body, |t| {
        value = t.inputs.iter().find(|i| i.name == p.input).map(|i| i.value);
    });
    value
}

/// Exhaustive DPOR with the input fixed to one value.
#[derive(Clone, Copy, Debug)]
pub struct Class {
    /// Executions until the exploration ended (at its failure, or exhausted).
    pub executions: u64,
    pub failed: bool,
    pub seconds: f64,
}

/// DPOR at `value`, `runs` times: the median time.
pub fn class_median(p: &Program, value: i128, runs: usize) -> Class {
    let cs = repeat(runs.max(1), || class(p, value));
    Class {
        seconds: median(cs.iter().map(|c| c.seconds).collect()),
        ..cs[0]
    }
}

/// DPOR at `value`.
pub fn class(p: &Program, value: i128) -> Class {
    let inputs = InputValues::from([(p.input.to_string(), value)]);
    let started = Instant::now();
    let report = Builder::new().inputs(inputs).explore(p.body);
    Class {
        executions: report.executions(),
        failed: report.failure().is_some(),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Exhaustive DPOR over enumerated input values.
#[derive(Clone, Debug)]
pub struct Enumeration {
    /// Values enumerated (the domain, or the range `assume` leaves).
    pub values: u128,
    /// DPOR at a value that passes: every schedule of it.
    pub passing: Class,
    /// DPOR at the lowest failing value, until its failure.
    pub failing: Class,
    /// Values below the lowest failing one.
    pub before: u128,
    /// When the ascending enumeration was short enough to run: its executions to the bug
    /// and its wall time (one run).
    pub ran: Option<(u64, f64)>,
}

impl Enumeration {
    /// Executions to the bug in ascending order, from the per-value counts (every passing
    /// value of these programs has the same schedules).
    pub fn ascending(&self) -> f64 {
        self.before as f64 * self.passing.executions as f64 + self.failing.executions as f64
    }

    /// Expected executions to the bug when the values are enumerated in a random order:
    /// with F failing values among N, (N - F) / (F + 1) passing ones come first on average.
    pub fn random_order(&self, failing: u128) -> (f64, f64) {
        let passing_first = (self.values - failing) as f64 / (failing + 1) as f64;
        (
            passing_first * self.passing.executions as f64 + self.failing.executions as f64,
            passing_first * self.passing.seconds + self.failing.seconds,
        )
    }

    /// Wall time to the bug in ascending order, from the per-value times.
    pub fn ascending_seconds(&self) -> f64 {
        self.before as f64 * self.passing.seconds + self.failing.seconds
    }
}

/// Values below the bug an enumeration runs for real; beyond, the count is computed.
const RUN_AT_MOST: u128 = 100_000;

/// Enumeration of `p`'s inputs; the per-value times are medians of `runs`.
pub fn enumerate(p: &Program, runs: usize) -> Enumeration {
    let (lo, hi) = p.assumed.unwrap_or(p.domain);
    let first_failing = p.failing.1;
    let passing_value = (first_failing + 1..=hi)
        .chain(lo..first_failing)
        .find(|&v| !(p.fails_with)(v))
        .expect("a passing value");
    let before = (first_failing - lo) as u128;
    let ran = (before <= RUN_AT_MOST).then(|| run_ascending(p, lo, hi));
    Enumeration {
        values: (hi - lo) as u128 + 1,
        passing: class_median(p, passing_value, runs),
        failing: class_median(p, first_failing, runs),
        before,
        ran,
    }
}

/// DPOR at lo, lo + 1, ... until a value's exploration fails.
fn run_ascending(p: &Program, lo: i128, hi: i128) -> (u64, f64) {
    let started = Instant::now();
    let mut executions = 0;
    for v in lo..=hi {
        let c = class(p, v);
        executions += c.executions;
        if c.failed {
            break;
        }
    }
    (executions, started.elapsed().as_secs_f64())
}

/// The median of `xs` (the lower middle for an even count).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(f64::NAN)
}

/// `f`'s results over `runs` runs.
pub fn repeat<T>(runs: usize, mut f: impl FnMut() -> T) -> Vec<T> {
    (0..runs).map(|_| f()).collect()
}
