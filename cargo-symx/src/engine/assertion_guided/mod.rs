//! Assertion-guided pruning: the space of inputs × schedules searched as one tree, skipping
//! every state that summaries of already explored subtrees prove cannot fail an assertion.
//!
//! **The algorithm.** Guo, Kusano, Wang, Yang, Gupta, "Assertion Guided Symbolic Execution
//! of Multithreaded Programs", ESEC/FSE 2015, Algorithm 2, with DPOR (their §5.2). The tree
//! has a node per scheduling point (an *i-PP*: which thread takes the next step) and per
//! condition that depends on an input (a *b-PP*: a branch, an assertion, an overflow check,
//! a symbolic index). A depth-first walk explores it one execution per path: every execution
//! is *driven* (`Executor::drive`): the driver takes each scheduling decision while it runs,
//! shown the trace so far; a flipped condition is a new input from z3 that follows the same
//! prefix. When a node's subtree is complete, its weakest precondition `wp` (`wp.rs`: the
//! conditions and assertions of the explored paths below it, conjoined along each path) is
//! formed in post-order, disjoined over a condition's sides and conjoined over a scheduling
//! point's explored threads, and added to the *summary* `PS[key]` of the node's state
//! (`summary.rs`, keyed as `names.rs` says). When a new execution reaches a state whose key
//! has a summary, z3 is asked whether the path condition implies the summary instantiated
//! with this path's values; if so, no continuation can fail an assertion, and the execution
//! stops there.
//!
//! The schedules are source-DPOR with sleep sets (Abdulla et al., POPL 2014), run over the
//! traces (`races.rs`); `por = false` explores every interleaving instead.
//!
//! **Departures from the paper's listing, each keeping the search sound** (Theorem 1: the
//! pruned search reaches an assertion failure iff the full one does):
//! - *Leaves.* A normal end is `true`, and so is an execution a failed assumption discarded (it
//!   reports nothing, whatever runs after the assumption; a symbolic assumption's guard, as it
//!   went, is on the path, so the leaf only covers states that break it too); a failure (assertion,
//!   panic, deadlock, anything) is `false`; a side the solver proved infeasible, or could not
//!   decide, or did not explore, is `false`; a state cut by a summary is that summary; a state
//!   where every enabled thread sleeps is `false`. (The listing's "end state ⇒ true" would let an
//!   infeasible side cover a feasible failing state.)
//! - *Where the check runs.* At every new scheduling point and at the state after an
//!   execution's last step, not only at branches: checking anywhere is as sound, and prunes
//!   more. The check after the last step is decided when the execution has ended (no
//!   scheduling point follows to stop at): that execution ran to its end natively, and the
//!   search skips what is below the state.
//! - *DPOR.* A pruned execution never shows the races its subtree would have: every access below a
//!   key (`RVar`/`WVar`, transitively, pruned leaves included) is stored with its summary and
//!   pretended to happen right after the pruned state, so the reversals it would have planted are
//!   planted (each by one of its race's initials, as source-DPOR does; the paper's §5.2, after Yang
//!   et al.'s stateful DPOR). An access remembers the threads its thread had joined before it and
//!   the locks it held: the joined threads' steps, and whatever happened before a held lock's last
//!   release, happen before it and are not raced with.
//! - *Discarded executions.* A failed assumption ends the execution, cutting off every other
//!   thread: before the discarding thread's last step every enabled thread is planted, since
//!   no access shows that the order there decides whether the others run at all.
//! - *Sleep sets*, which the paper does not use: a summary made where some threads slept only
//!   covers a later visit where those threads sleep too.
//! - *Solver answers.* Only `unsat` prunes: `unknown` (a timeout) continues the execution.
//! - *Summary size.* A key takes at most `max_disjuncts` disjuncts (the paper's `bnd`, §6.2);
//!   dropping one under-approximates, which is sound.
//!
//! Only assertion properties are pruned for: a state a summary covers can still deadlock or
//! race below, and a search that must find deadlocks or races needs every execution.

mod names;
mod races;
mod search;
mod slice;
mod summary;
mod tree;
pub mod wp;

use std::time::Duration;

use symx::__worker::protocol::FailureReport;
use symx::InputValues;

use super::Executor;
use crate::solver::smt::Stats;

/// How to search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Prune states summaries cover (off: the same search without summaries, the baseline).
    pub prune: bool,
    /// Partial-order reduction (source-DPOR with sleep sets); off: every interleaving.
    pub por: bool,
    /// Go on after the first failure.
    pub keep_going: bool,
    pub max_executions: Option<u64>,
    pub time_budget: Option<Duration>,
    /// Solver time per query.
    pub query_timeout: Option<Duration>,
    /// Disjuncts one summary keeps at most.
    pub max_disjuncts: usize,
    /// Plant the races a pruned subtree would have shown (the paper's §5.2). Always on; off
    /// only to show what the replay is for (a search without it can miss a failure).
    pub replay: bool,
    /// Treat the objects every access of which is blind as irrelevant to every assertion
    /// (`slice.rs`): their accesses race with nothing.
    pub slice: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            prune: true,
            por: true,
            keep_going: false,
            max_executions: None,
            time_budget: None,
            query_timeout: Some(Duration::from_secs(10)),
            max_disjuncts: 64,
            replay: true,
            slice: true,
        }
    }
}

/// A failing execution the search ran.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Its report (kind, message, location, replay token with the inputs).
    pub failure: FailureReport,
    pub inputs: InputValues,
}

/// What a search did and found.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub findings: Vec<Finding>,
    /// Executions started.
    pub executions: u64,
    /// Executions that ran to their end.
    pub full: u64,
    /// Executions cut short by a summary.
    pub cut: u64,
    /// Executions stopped where every enabled thread was asleep.
    pub blocked: u64,
    /// Keys with a summary, and disjuncts over all summaries.
    pub summaries: u64,
    pub disjuncts: u64,
    /// Pruning checks asked of the solver.
    pub checks: u64,
    /// States reached where a summary had disjuncts made while a thread slept that is awake
    /// here, which were left out of the check (the sleep-set guard).
    pub sleep_guarded: u64,
    pub solver: Stats,
    /// Every input and schedule within the bounds was explored or pruned by a proof.
    pub complete: bool,
    pub incomplete: Vec<String>,
    pub seconds: f64,
    /// The creation sites (`file:line:column`) of the objects sliced away.
    pub sliced: Vec<String>,
    /// Sites guessed irrelevant that an execution used otherwise: each such find started the
    /// search again without them, and `restarted_executions` counts the executions of the
    /// searches given up.
    pub unsliced: Vec<String>,
    pub restarted_executions: u64,
}

/// Searches `executor`'s test: again without the sliced sites an execution used otherwise,
/// until none does.
pub fn explore(executor: &mut dyn Executor, opts: &Options) -> SearchResult {
    let mut given = None;
    let (mut unsliced, mut restarted) = (Vec::new(), 0);
    loop {
        let mut search = search::Search::new(opts, given.take());
        search.run(executor);
        if search.broken.is_empty() {
            let sliced = (search.slice.as_ref()).map_or_else(Vec::new, |s| s.sites());
            let mut out = search.finish_result();
            unsliced.sort();
            (out.sliced, out.unsliced, out.restarted_executions) = (sliced, unsliced, restarted);
            return out;
        }
        restarted += search.out.executions;
        unsliced.extend(search.broken.iter().map(slice::site));
        given = search.slice.as_ref().map(|s| s.without(&search.broken));
    }
}
