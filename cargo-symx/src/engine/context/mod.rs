//! Exploration from a program context: the symbolic search (`super::symbolic`) run over a
//! test that declares a context (`symx::context`), counted the way the paper counts.
//!
//! **The algorithm.** Bergan, Grossman, Ceze, "Symbolic Execution of Multithreaded Programs
//! from Arbitrary Program Contexts" (OOPSLA 2014; Bergan's dissertation, ch. 2): symbolic
//! execution that starts with several threads in the middle of their work, from an initial
//! state that over-approximates the states the program can be in there, constrained by
//! context invariants (reaching definitions, lockset and queue-size invariants, barrier
//! counts and matching) so that few infeasible paths are explored. The runtime holds the
//! paper's semantics: its context objects keep their state in one array per class, read at
//! symbolic identities, and one global wait queue whose names are symbolic; every decision
//! is recorded with the conditions of the outcomes not taken. This engine explores those
//! decisions with the concolic search (every path is a run with concrete inputs, every
//! alternative a z3 query), and reports per context what the paper's evaluation reports.
//!
//! **Departures.** The paper forks symbolic states; here each path is a re-execution (native
//! stacks cannot be forked) and the schedules within one input class are optimal DPOR's, not
//! every yield's (the paper notes partial-order reduction is orthogonal). Context objects of
//! one class are all dependent for DPOR, which over-approximates the dependence of objects
//! that may alias. A path is a schedule with the conditions it took, so two input classes
//! that run the same schedule through the same conditions count once.

mod confirm;
mod paths;

pub use paths::{Confirmation, FactUse, FailedPath, Generalised};

use std::collections::{BTreeMap, BTreeSet};

use symx::trace::Trace;
use symx::{Guide, InputValues};

use super::symbolic::{self, SearchResult};
use super::{Executor, Exploration, Limits};
use crate::solver::replayed::Replayed;
use crate::solver::smt::Smt;

/// What the exploration of one context found, in the paper's terms.
#[derive(Clone, Debug, Default)]
pub struct ContextResult {
    /// The symbolic search's own result (classes, executions, solver, completeness).
    pub search: SearchResult,
    /// Distinct paths run (schedule and conditions), whatever their end.
    pub paths: u64,
    /// Paths that ran to an end (passed or failed), not discarded by a fact.
    pub completed: u64,
    /// The outcomes taken at each decision site of the context objects (lock: `acquire` /
    /// `block`; barrier: `T` / `F`; notify: `wake thread 2`, `wake nobody`, `wake {1, 2}`).
    pub outcomes: BTreeMap<String, BTreeSet<String>>,
    /// Each completed path's decisions, in order: (site, outcome).
    pub vectors: BTreeSet<Vec<(String, String)>>,
    /// The completed paths that failed, with the facts each depends on.
    pub failures: Vec<FailedPath>,
    /// The recorded context the paths explored from (a checkpoint's label): its label, the
    /// steps of the prefix run once before it, and the synchronization state there.
    pub recorded: Option<symx::trace::format::ContextRecord>,
}

impl ContextResult {
    /// The outcomes seen at the decision site whose location ends with `site` (a
    /// `file:line:column` suffix such as `:12:9` or `lib.rs:12:9`).
    pub fn outcomes_at(&self, site: &str) -> BTreeSet<String> {
        (self.outcomes.iter())
            .filter(|(s, _)| s.ends_with(site))
            .flat_map(|(_, o)| o.iter().cloned())
            .collect()
    }

    /// Failing paths that are runs of the program as it is (see [`FailedPath::confirmed`]).
    pub fn confirmed_failures(&self) -> usize {
        self.failures.iter().filter(|f| f.confirmed()).count()
    }

    /// Failures of kind `kind` (`panic`, `deadlock`, ...).
    pub fn failures_of(&self, kind: &str) -> usize {
        self.failures.iter().filter(|f| f.kind == kind).count()
    }

    /// Seconds in the solver over seconds of the search.
    pub fn solver_share(&self) -> f64 {
        if self.search.seconds > 0.0 {
            self.search.solver.time.as_secs_f64() / self.search.seconds
        } else {
            0.0
        }
    }
}

/// Explores the context of `executor`'s test (in whatever mode its settings say) with every
/// path counted: the search goes on after failures, since a context's failures are what
/// its modes are compared by.
pub fn explore(executor: &mut dyn Executor, opts: &symbolic::Options) -> ContextResult {
    let mut observed = Observing {
        inner: executor,
        traces: Vec::new(),
    };
    let opts = symbolic::Options {
        keep_going: true,
        ..opts.clone()
    };
    let mut search = symbolic::explore(&mut observed, &opts);
    let traces = observed.traces;
    let mut out = paths::count(&traces);
    out.recorded = traces.iter().find_map(|t| t.context.clone());
    let mut smt = Smt::new(opts.query_timeout);
    search.executions += confirm::confirm_all(executor, &mut smt, &traces, &mut out.failures);
    search.solver.time += smt.stats.time;
    search.solver.queries += smt.stats.queries;
    out.search = search;
    out
}

/// Forwards to the test's executor and keeps every trace it returns.
struct Observing<'e> {
    inner: &'e mut dyn Executor,
    traces: Vec<Trace>,
}

impl Executor for Observing<'_> {
    fn explore(&mut self, inputs: &InputValues, limits: &Limits) -> Result<Exploration, String> {
        let e = self.inner.explore(inputs, limits)?;
        self.traces.extend(e.traces.iter().cloned());
        Ok(e)
    }

    fn run(&mut self, guide: &Guide) -> Result<Replayed, String> {
        let r = self.inner.run(guide)?;
        self.traces.push(r.trace.clone());
        Ok(r)
    }
}
