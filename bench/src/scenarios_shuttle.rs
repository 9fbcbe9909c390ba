//! The scenarios under shuttle: `shuttle::sync` and `shuttle::thread`, driven by
//! `shuttle::Runner` with its DFS, random or PCT scheduler.
//!
//! `Runner::new(DfsScheduler::new(None, false), config)` is exactly `check_dfs(f, None)`, and the
//! seeded random and PCT schedulers are what `check_random_with_seed` / `check_pct` build; going
//! through `Runner` lets us set `Config::max_time` and turn off schedule printing.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use shuttle::scheduler::{DfsScheduler, PctScheduler, RandomScheduler, Scheduler};
use shuttle::sync::atomic::{AtomicUsize, Ordering};
use shuttle::sync::{mpsc, Arc, Condvar, Mutex};
use shuttle::{thread, Config, FailurePersistence, Runner};

use crate::measure::{self, End, Outcome};
use crate::scenarios::{Scenario, Tool, PCT_DEPTH};
use crate::Settings;

include!("programs.rs");

/// shuttle's configuration for every run: no schedule files or printouts, and a time limit.
fn config(settings: &Settings) -> Config {
    let mut config = Config::new();
    config.max_time = Some(settings.time_limit);
    config.failure_persistence = FailurePersistence::None;
    config.silence_warnings = true;
    config
}

/// Runs `scheduler` over `scenario`; `Ok` if no execution failed.
fn run_with<S: Scheduler + 'static>(
    scheduler: S,
    scenario: Scenario,
    settings: &Settings,
) -> std::thread::Result<usize> {
    let runner = Runner::new(scheduler, config(settings));
    catch_unwind(AssertUnwindSafe(move || {
        runner.run(move || run_scenario(scenario))
    }))
}

/// Runs `tool` over `scenario` once; `Ok` if no execution failed.
pub fn explore(tool: Tool, scenario: Scenario, settings: &Settings) -> std::thread::Result<usize> {
    let iterations = settings.iterations as usize;
    let seed = settings.seed;
    match tool {
        Tool::ShuttleDfs => run_with(DfsScheduler::new(None, false), scenario, settings),
        Tool::ShuttleRandom => run_with(
            RandomScheduler::new_from_seed(seed, iterations),
            scenario,
            settings,
        ),
        Tool::ShuttlePct => run_with(
            PctScheduler::new_from_seed(seed, PCT_DEPTH as usize, iterations),
            scenario,
            settings,
        ),
        other => unreachable!("{} is not a shuttle tool", other.name()),
    }
}

/// One measured exploration of `scenario` by a shuttle tool.
pub fn run(tool: Tool, scenario: Scenario, settings: &Settings) -> Outcome {
    let start: Instant = measure::start(true);
    let returned = explore(tool, scenario, settings);
    let end = if returned.is_ok() && start.elapsed() >= settings.time_limit {
        End::TimeLimit
    } else if tool.is_sampling() {
        End::Iterations
    } else {
        End::Exhausted
    };
    measure::outcome_from_hook(start, end)
}
