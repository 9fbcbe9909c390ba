//! Minimal counterexamples: the failing schedule reported is one with the fewest preemptions
//! that shows the same failure (same kind, same place), found by iterative preemption bounding
//! (Musuvathi and Qadeer, PLDI 2007) after the first failure.
//!
//! Each bound below the found schedule's preemption count is searched with a bounded DFS, which
//! finds every schedule within the bound; the search is capped so that minimising never costs
//! much more than finding did.

use std::time::{Duration, Instant};

use super::{dfs::Dfs, to_failure};
use crate::builder::Builder;
use crate::report::Failure;
use crate::rt::chooser::Chooser;
use crate::rt::scheduler::{run_execution, ExecutionResult};

/// Executions one minimisation may spend in all: the cap that decides, so that the schedule
/// reported does not depend on how busy the machine is.
const MAX_EXECUTIONS: u64 = 20_000;
/// Only a safety net for programs whose executions are slow (20,000 executions at half a
/// millisecond each); a tighter time cap made the report depend on the machine's load.
const MAX_TIME: Duration = Duration::from_secs(10);

/// The same failure: kind and place (for deadlocks and livelocks, which have no single place,
/// the kind and the locations of the blocked steps in the report's last lines).
pub(super) fn same(a: &Failure, b: &Failure) -> bool {
    a.kind() == b.kind() && a.location() == b.location()
}

/// Looks for a schedule with fewer preemptions than `found`'s that fails the same way.
pub(crate) fn fewest_preemptions(b: &Builder, body: &dyn Fn(), found: Failure) -> Failure {
    if found.preemptions() == 0 || b.preemption_bound.is_some() {
        return found;
    }
    let start = Instant::now();
    let mut budget = MAX_EXECUTIONS;
    for bound in 0..found.preemptions() {
        let mut bounded = b.clone();
        bounded.preemption_bound = Some(bound);
        let mut dfs = Dfs::default();
        while budget > 0 && start.elapsed() < MAX_TIME && dfs.next_execution() {
            budget -= 1;
            let outcome = run_execution(bounded.config(), &mut dfs, body, false);
            if outcome.failure.is_none() {
                continue;
            }
            let candidate = to_failure(b, run_again(&bounded, body, &outcome.decisions));
            if same(&candidate, &found) {
                return candidate;
            }
        }
    }
    found
}

/// Re-runs a schedule with rendering on, for the report.
pub(super) fn run_again(b: &Builder, body: &dyn Fn(), decisions: &[u32]) -> ExecutionResult {
    let mut replay = super::Replay::new(decisions);
    replay.next_execution();
    run_execution(b.config(), &mut replay, body, true)
}
