//! The scenarios under loom: `loom::sync` and `loom::thread` (loom's own `Arc` included, as a
//! loom user writes them), explored by `loom::model::Builder`.
//!
//! loom's types only work inside `Builder::check`; nothing here touches them outside it.

use std::panic::{catch_unwind, AssertUnwindSafe};

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{mpsc, Arc, Condvar, Mutex};
use loom::thread;

use crate::measure::{self, End, Outcome};
use crate::scenarios::Scenario;
use crate::Settings;

include!("programs.rs");

/// One measured exploration of `scenario` by loom.
pub fn run(scenario: Scenario, settings: &Settings) -> Outcome {
    // `Builder::new` reads the LOOM_* environment; every field that matters is then set here.
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = settings.preemption_bound.map(|b| b as usize);
    // The default of 1,000 branches per execution is for catching spin loops; these programs'
    // loops are bounded or yield, and a large cap keeps it from cutting any execution short.
    builder.max_branches = 100_000;
    builder.max_permutations = None;
    builder.max_duration = Some(settings.time_limit);
    // loom looks at `max_duration` only every `checkpoint_interval` executions (default
    // 20,000, about 2 s of loom); check every 1,000 so the limit is kept to within ~0.1 s.
    builder.checkpoint_interval = 1_000;
    builder.checkpoint_file = None;

    let start = measure::start(true);
    let returned = catch_unwind(AssertUnwindSafe(|| {
        builder.check(move || run_scenario(scenario))
    }));
    let end = if returned.is_ok() && start.elapsed() >= settings.time_limit {
        End::TimeLimit
    } else {
        End::Exhausted
    };
    measure::outcome_from_hook(start, end)
}
