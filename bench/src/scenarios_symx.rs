//! The scenarios under symx: `symx::sync` and `symx::thread`, explored by `symx::Builder`.
//!
//! The `symx` tool uses `Builder::new()` untouched, so it measures whatever the default strategy
//! is at the time of the run (the header of the tables names it); `symx-dfs` pins
//! `Strategy::Dfs` for a reduction-free comparison with shuttle's DFS.

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{mpsc, Arc, Condvar, Mutex};
use symx::thread;
use symx::{Builder, StopReason, Strategy};

use crate::measure::{self, Bug, End, Outcome, PostDetection};
use crate::scenarios::{Scenario, Tool, PCT_DEPTH};
use crate::Settings;

include!("programs.rs");

/// The builder each symx tool uses.
pub fn builder(tool: Tool, settings: &Settings) -> Builder {
    let exhaustive = |b: Builder| b.preemption_bound(settings.preemption_bound);
    let sampling = |b: Builder| b.max_executions(Some(settings.iterations));
    match tool {
        Tool::Symx => exhaustive(Builder::new()),
        Tool::SymxRecord => exhaustive(Builder::new().record_traces(true)),
        Tool::SymxDfs => exhaustive(Builder::new().strategy(Strategy::Dfs)),
        Tool::SymxRandom => sampling(Builder::new().strategy(Strategy::Random {
            seed: settings.seed,
        })),
        Tool::SymxPct => sampling(Builder::new().strategy(Strategy::Pct {
            seed: settings.seed,
            depth: PCT_DEPTH,
        })),
        other => unreachable!("{} is not a symx tool", other.name()),
    }
    .time_budget(Some(settings.time_limit))
}

/// One measured exploration of `scenario` by `tool`.
pub fn run(tool: Tool, scenario: Scenario, settings: &Settings) -> Outcome {
    let builder = builder(tool, settings);
    let start = measure::start(false);
    measure::record_entries();
    let report = if tool == Tool::SymxRecord {
        // Every trace is built and handed over, as the driver's engines would receive it.
        builder.explore_traces(
            move || run_scenario(scenario),
            |t| {
                std::hint::black_box(t);
            },
        )
    } else {
        builder.explore(move || run_scenario(scenario))
    };
    let total_secs = start.elapsed().as_secs_f64();
    let invocations = measure::executions();
    // Every execution the run paid for: the exploration's and those of the default
    // strategy's shallow passes (preemption bounds 0 and 1 run before the optimal DPOR, which
    // the report counts apart).
    let executions = report.executions() + report.shallow_executions();
    // Every closure invocation is an execution; after a failure symx runs more of them (its
    // search for a schedule with fewer preemptions) that its count leaves out. Any other
    // difference would mean the two counts measure different things.
    let consistent = if report.failure().is_some() {
        invocations >= executions
    } else {
        invocations == executions
    };
    assert!(
        consistent,
        "closure invoked {invocations} times, symx reports {executions} executions"
    );
    let bug = report.failure().map(|f| {
        // Name the kind unless the message already starts with it ("deadlock: ...").
        let kind = f.kind().to_string();
        let what = if f.message().starts_with(&kind) {
            f.message().to_string()
        } else {
            format!("{kind}: {}", f.message())
        };
        Bug {
            at: executions,
            what: measure::one_line(&what),
        }
    });
    // Detection is when the first post-detection execution began (or the end, if none ran).
    let secs = if invocations > executions {
        measure::entry_secs(executions + 1).unwrap_or(total_secs)
    } else {
        total_secs
    };
    let end = match report.stop_reason() {
        StopReason::Failure => End::Bug,
        StopReason::TimeBudget => End::TimeLimit,
        StopReason::MaxExecutions => End::Iterations,
        // `StopReason` is non-exhaustive; anything new is treated as "done".
        _ => End::Exhausted,
    };
    Outcome {
        executions,
        secs,
        end,
        bug,
        post: PostDetection {
            executions: invocations - executions,
            secs: total_secs - secs,
        },
    }
}

/// Default strategy of `Builder::new()`, read from its `Debug` output because the builder has
/// no getter; printed in the table header so a run says which strategy `symx` meant.
pub fn default_strategy() -> String {
    let debug = format!("{:?}", Builder::new());
    debug
        .split("strategy: ")
        .nth(1)
        .map(|rest| {
            // Up to the end of this field: a `,` at bracket depth zero.
            let mut depth = 0i32;
            rest.chars()
                .take_while(|&c| {
                    match c {
                        '{' | '(' => depth += 1,
                        '}' | ')' => depth -= 1,
                        _ => {}
                    }
                    !(depth < 0 || (depth == 0 && c == ','))
                })
                .collect::<String>()
                .trim()
                .to_string()
        })
        .unwrap_or_else(|| "unknown".to_string())
}
