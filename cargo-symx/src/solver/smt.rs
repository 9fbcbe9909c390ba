//! The solver every engine asks: one incremental z3 solver with a per-query timeout, the
//! statistics the reports show, and a counterexample cache (KLEE's: Cadar, Dunbar, Engler,
//! OSDI 2008) that answers a query from an earlier model when that model already satisfies it.
//!
//! Queries are asked as assumptions (`check_assumptions`), not as pushed assertions, so the
//! solver keeps what it learned from one query for the next.
//!
//! Two things keep small queries cheap, which is most of them (a flipped branch, a pruning
//! check over a few reads): the solver is made for the logic every query is in
//! (quantifier-free bit-vectors and arrays), which spares z3 guessing it per query, and a
//! query first runs under a resource limit, with no timer; only a query that exhausts it
//! is asked again under the wall-clock timeout (a timer costs a thread per check in z3).

use std::rc::Rc;
use std::time::{Duration, Instant};

use z3::ast::Bool;
use z3::{Model, Params, SatResult, Solver};

/// What the solver was asked and how long it took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Queries asked (cache hits included).
    pub queries: u64,
    /// Answered from an earlier model without calling z3.
    pub cache_hits: u64,
    pub sat: u64,
    pub unsat: u64,
    /// Queries z3 gave up on (timeout): neither feasible nor infeasible.
    pub unknown: u64,
    /// Time spent in z3.
    pub time: Duration,
}

/// The answer to one query.
pub enum Answer {
    /// Feasible, with a model.
    Sat(Rc<Model>),
    Unsat,
    /// The solver gave up (timeout).
    Unknown,
}

/// An incremental solver with statistics and a counterexample cache.
pub struct Smt {
    solver: Solver,
    /// z3's general solver, made the first time the logic's solver answers "incomplete".
    general: Option<Solver>,
    timeout: Option<Duration>,
    cache: Vec<Rc<Model>>,
    pub stats: Stats,
}

/// Models kept for the counterexample cache (the most recent ones).
const CACHED_MODELS: usize = 16;

/// The resource limit of a query's first attempt (z3's `rlimit` units: a few milliseconds).
const FIRST_ATTEMPT_RLIMIT: u32 = 2_000_000;

impl Smt {
    /// A solver that gives up on a query after `timeout`.
    pub fn new(timeout: Option<Duration>) -> Smt {
        let solver = Solver::new_for_logic("QF_ABV").unwrap_or_default();
        if timeout.is_some() {
            solver.set_params(&limits(FIRST_ATTEMPT_RLIMIT, u32::MAX));
        }
        Smt {
            solver,
            general: None,
            timeout,
            cache: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// Is the conjunction of `conjuncts` satisfiable?
    pub fn check(&mut self, conjuncts: &[Bool]) -> Answer {
        self.stats.queries += 1;
        if let Some(m) = self.cached(conjuncts) {
            self.stats.cache_hits += 1;
            self.stats.sat += 1;
            return Answer::Sat(m);
        }
        let start = Instant::now();
        let (result, model) = self.solve(conjuncts);
        self.stats.time += start.elapsed();
        match (result, model) {
            (SatResult::Sat, Some(m)) => {
                self.stats.sat += 1;
                let m = Rc::new(m);
                self.remember(&m);
                Answer::Sat(m)
            }
            (SatResult::Unsat, _) => {
                self.stats.unsat += 1;
                Answer::Unsat
            }
            _ => {
                self.stats.unknown += 1;
                Answer::Unknown
            }
        }
    }

    /// Asks the logic's solver; when it answers "incomplete" (the QF_ABV solver does so on
    /// some queries over constant arrays, which the context pools build, without any limit
    /// being reached), asks z3's general solver, which decides them.
    fn solve(&mut self, conjuncts: &[Bool]) -> (SatResult, Option<Model>) {
        let first = Self::attempt(&self.solver, self.timeout, conjuncts);
        let incomplete = first == SatResult::Unknown
            && (self.solver.get_reason_unknown()).is_some_and(|r| r.contains("incomplete"));
        if !incomplete {
            let model = (first == SatResult::Sat)
                .then(|| self.solver.get_model())
                .flatten();
            return (first, model);
        }
        let timeout = self.timeout;
        let general = self.general.get_or_insert_with(|| general_solver(timeout));
        let second = Self::attempt(general, timeout, conjuncts);
        let model = (second == SatResult::Sat)
            .then(|| general.get_model())
            .flatten();
        (second, model)
    }

    /// Checks under the resource limit, then, if that was not enough, again under the
    /// timeout (without a timeout there is no limit at all).
    fn attempt(solver: &Solver, timeout: Option<Duration>, conjuncts: &[Bool]) -> SatResult {
        let first = solver.check_assumptions(conjuncts);
        let Some(timeout) = timeout.filter(|_| first == SatResult::Unknown) else {
            return first;
        };
        let millis = timeout.as_millis().min(u32::MAX as u128) as u32;
        solver.set_params(&limits(0, millis));
        let second = solver.check_assumptions(conjuncts);
        solver.set_params(&limits(FIRST_ATTEMPT_RLIMIT, u32::MAX));
        second
    }

    /// An earlier model under which every conjunct is true (variables it leaves open count
    /// as false answers: the cache only says yes when it is sure).
    fn cached(&self, conjuncts: &[Bool]) -> Option<Rc<Model>> {
        self.cache
            .iter()
            .rev()
            .find(|m| {
                conjuncts
                    .iter()
                    .all(|c| m.eval(c, false).and_then(|v| v.as_bool()) == Some(true))
            })
            .cloned()
    }

    fn remember(&mut self, m: &Rc<Model>) {
        if self.cache.len() == CACHED_MODELS {
            self.cache.remove(0);
        }
        self.cache.push(Rc::clone(m));
    }
}

/// z3's default solver (it picks its tactic per query), with the same first-attempt limit.
fn general_solver(timeout: Option<Duration>) -> Solver {
    let solver = Solver::new();
    if timeout.is_some() {
        solver.set_params(&limits(FIRST_ATTEMPT_RLIMIT, u32::MAX));
    }
    solver
}

/// Solver parameters: a resource limit per check (0: none) and a timeout in milliseconds
/// (`u32::MAX`: none).
fn limits(rlimit: u32, timeout: u32) -> Params {
    let mut params = Params::new();
    params.set_u32("rlimit", rlimit);
    params.set_u32("timeout", timeout);
    params
}
