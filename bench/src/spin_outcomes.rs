//! `spin-outcomes`: what a preemption bound covers in symx and in loom, on the bench's SPSC
//! queue, whose threads spin with `yield_now`.
//!
//! The bounded rows compare executions at the same bound, but the tools count preemptions
//! differently around yields (symx: a switch away from a thread that yielded is free, and a
//! thread that yielded waits until another thread changes something; loom has rules of its own),
//! so one bound is not the same set of schedules in both. This sub-command makes the
//! difference visible: for each capacity and bound it runs the queue under symx's bounded
//! reduction, symx's bounded DFS and loom, each execution recording how often each thread spun
//! before each value (an outcome), and prints the executions, the distinct outcomes, and how
//! many outcomes each tool reaches that the other does not at that bound.
//!
//! Runs in-process (no child per run): it measures outcomes, not time. The queue is the
//! scenarios' own (`programs.rs`'s `spsc_spins`, included into a loom and a symx module).

use std::collections::BTreeSet;
use std::sync::Mutex;

use crate::measure;
use crate::table::{markdown, thousands};

/// One execution's outcome: the producer's and the consumer's spins before each value.
type Spins = (Vec<usize>, Vec<usize>);

/// The outcomes of the current exploration (a `std` mutex, which no tool models).
static OUTCOMES: Mutex<BTreeSet<Spins>> = Mutex::new(BTreeSet::new());

fn record(outcome: Spins) {
    OUTCOMES.lock().unwrap().insert(outcome);
}

/// Starts a count, runs `explore`, returns (executions, outcomes); the program counts its
/// executions as every scenario does (`measure::count_execution`).
fn collect(explore: impl FnOnce()) -> (u64, BTreeSet<Spins>) {
    OUTCOMES.lock().unwrap().clear();
    measure::reset_executions();
    explore();
    let n = measure::executions();
    (n, std::mem::take(&mut *OUTCOMES.lock().unwrap()))
}

/// The bench's programs over loom's types (only the queue is used here).
#[allow(dead_code)]
mod under_loom {
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::{mpsc, Arc, Condvar, Mutex};
    use loom::thread;

    include!("programs.rs");

    pub fn explore(capacity: usize, bound: u32) -> (u64, super::BTreeSet<super::Spins>) {
        super::collect(|| {
            let mut builder = loom::model::Builder::new();
            builder.preemption_bound = Some(bound as usize);
            builder.max_branches = 100_000;
            builder.max_permutations = None;
            builder.max_duration = None;
            builder.checkpoint_file = None;
            builder.check(move || {
                crate::measure::count_execution();
                super::record(spsc_spins(capacity));
            });
        })
    }
}

/// The bench's programs over symx's types (only the queue is used here).
#[allow(dead_code)]
mod under_symx {
    use symx::sync::atomic::{AtomicUsize, Ordering};
    use symx::sync::{mpsc, Arc, Condvar, Mutex};
    use symx::thread;
    use symx::{Builder, Strategy};

    include!("programs.rs");

    pub fn explore(capacity: usize, bound: u32, dfs: bool) -> (u64, super::BTreeSet<super::Spins>) {
        super::collect(|| {
            let mut builder = Builder::new().preemption_bound(Some(bound));
            if dfs {
                builder = builder.strategy(Strategy::Dfs);
            }
            let report = builder.explore(move || {
                crate::measure::count_execution();
                super::record(spsc_spins(capacity));
            });
            assert!(
                report.complete() && report.failure().is_none(),
                "{report:?}"
            );
        })
    }
}

/// Prints the table for capacities 1 and 2 at bounds 0 to `max_bound`.
pub fn run(max_bound: u32) {
    let mut rows = Vec::new();
    for capacity in [1, 2] {
        for bound in 0..=max_bound {
            let (symx_n, symx) = under_symx::explore(capacity, bound, false);
            let (dfs_n, dfs) = under_symx::explore(capacity, bound, true);
            let (loom_n, loom) = under_loom::explore(capacity, bound);
            assert_eq!(symx, dfs, "the reduction reaches every outcome of the DFS");
            rows.push(vec![
                format!("spsc-{capacity}"),
                bound.to_string(),
                thousands(symx_n),
                thousands(dfs_n),
                thousands(loom_n),
                symx.len().to_string(),
                loom.len().to_string(),
                symx.difference(&loom).count().to_string(),
                loom.difference(&symx).count().to_string(),
            ]);
        }
    }
    let headers = [
        "row",
        "bound",
        "symx executions",
        "symx-dfs executions",
        "loom executions",
        "symx outcomes",
        "loom outcomes",
        "symx only",
        "loom only",
    ];
    print!("{}", markdown(&headers, &rows));
}
