//! Symbolic exploration: every input class of a test times every schedule class of it.
//!
//! **The algorithm.** Concolic testing (Godefroid, Klarlund, Sen, "DART: Directed Automated
//! Random Testing", PLDI 2005; Sen, Marinov, Agha, "CUTE", FSE 2005) over the path conditions
//! the runtime records, combined with optimal DPOR (Abdulla et al., POPL 2014) for the
//! schedules, in the way Cloud9 explores inputs and schedules together (Bucur et al., EuroSys
//! 2011; Bergan, "Symbolic Execution of Multithreaded Programs from Arbitrary Program
//! Contexts", ch. 2, whose §2.6.1 forks a state at every feasible branch side and every
//! schedule choice; here the schedule choices are DPOR's and the branch forks are solver
//! queries over re-executions, because native stacks cannot be forked):
//!
//! 1. An *input class* is explored by running the test's own exploration (optimal DPOR: one
//!    execution per Mazurkiewicz trace) with its symbolic inputs fixed to one assignment.
//!    The first class is the test's default assignment.
//! 2. Each execution's *path condition* (`solver::path`) lists the conditions it took, in
//!    order, as terms over the inputs. For each condition `c_i` that depends on an input,
//!    the *side* not taken, `c_1 ∧ … ∧ c_(i-1) ∧ ¬c_i`, is asked of z3, unless an explored
//!    execution already took that side after the same prefix or it was asked before
//!    (`frontier`). Only the conditions that share inputs with `¬c_i` are sent
//!    (constraint independence, Cadar et al., "KLEE", OSDI 2008).
//! 3. A satisfiable branch side gives a new assignment: a new input class (step 1). A
//!    satisfiable failing side of an assertion is a bug candidate: the execution's own
//!    schedule is run with the model's inputs and reported only if that run fails; if it
//!    does not (the failure needs another schedule), the assignment is explored as a class,
//!    where DPOR runs every schedule.
//!
//! **What is covered.** For a pair (input `w`, Mazurkiewicz trace `E` of the test at `w`):
//! the default class's DPOR runs an execution that follows `E`'s schedule class as long as
//! the default inputs take the same sides as `w`; at the first condition where they differ,
//! `w` itself shows that side is feasible after the shared prefix, so it is asked and a class
//! agreeing with `w` one condition further is explored. By induction on that agreement, a
//! class is explored whose DPOR runs `E` with the same path condition as `w`: the same
//! events, the same branches, the same assertions, so the same verdict. Hence the report may
//! say *complete* only when:
//! - every explored class's DPOR exhausted its schedules (within the test's bounds);
//! - every side asked was answered (no solver timeout) and every satisfiable side explored;
//! - no path was longer than `max_branch_depth` symbolic conditions;
//! - no pin depends on an input: a value made concrete (`concrete()`, an index, a plain
//!   atomic read of a symbolic value) fixes what later code sees, so other values of it are
//!   not explored; such pins are listed with their locations;
//! - neither `max_executions` nor `time_budget` stopped the search.
//!
//! Everything is confirmed by running: a class's failures come from its own executions, a
//! solved assertion only counts when its run fails.

mod frontier;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use symx::__worker::protocol::FailureReport;
use symx::trace::format::{Location, Ty};
use symx::trace::Trace;
use symx::{Guide, InputValues};
use z3::ast::Bool;

use super::{Executor, Limits};
use crate::solver::model::model_inputs;
use crate::solver::path::{Condition, PathCondition, Role};
use crate::solver::smt::{Answer, Smt, Stats};
pub use frontier::term_key;
use frontier::{Frontier, Side};

/// Bounds and settings of a search.
#[derive(Clone, Debug)]
pub struct Options {
    /// Symbolic conditions per path that may be flipped (the seeds' `br`); `None`: all.
    pub max_branch_depth: Option<u32>,
    /// Executions over all classes.
    pub max_executions: Option<u64>,
    pub time_budget: Option<Duration>,
    /// Solver time per query.
    pub query_timeout: Option<Duration>,
    /// Go on after the first bug (every class is explored; for tests and counts).
    pub keep_going: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_branch_depth: None,
            max_executions: None,
            time_budget: None,
            query_timeout: Some(Duration::from_secs(10)),
            keep_going: false,
        }
    }
}

/// A bug the search confirmed by running it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The failing run's own report (kind, message, interleaving, replay token).
    pub failure: FailureReport,
    /// The input assignment it failed with.
    pub inputs: InputValues,
    /// How the input was found: `None` for a failure a class's exploration ran into; for one
    /// the solver found, what was asked.
    pub solved: Option<String>,
}

/// A value made concrete in a way that depends on an input: exploration did not vary it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    pub location: Option<Location>,
    /// How many recorded executions pinned there.
    pub count: u64,
}

/// What the search did and found.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub findings: Vec<Finding>,
    /// Input classes explored.
    pub classes: u64,
    /// Executions over all classes (solved-assertion runs included).
    pub executions: u64,
    /// Branch sides taken by an explored execution.
    pub sides_covered: usize,
    /// Branch sides known feasible (taken, or found satisfiable).
    pub sides_feasible: usize,
    /// Assertion failures the solver found feasible whose run did not fail with that input
    /// and schedule (their inputs were then explored as classes).
    pub unconfirmed: u64,
    pub solver: Stats,
    /// The whole bounded space of inputs and schedules was explored (see the module doc).
    pub complete: bool,
    /// Why not complete, in words.
    pub incomplete: Vec<String>,
    /// Pins that cut the exploration, by location.
    pub pins: Vec<Pin>,
    pub seconds: f64,
}

/// Explores `executor`'s test over its input classes and schedules.
pub fn explore(executor: &mut dyn Executor, opts: &Options) -> SearchResult {
    let mut search = Search::new(opts);
    search.run(executor);
    search.finish()
}

/// The state of one search.
struct Search<'o> {
    opts: &'o Options,
    started: Instant,
    smt: Smt,
    frontier: Frontier,
    /// Input classes to explore, each with why it was asked for.
    queue: VecDeque<InputValues>,
    pins: Vec<Pin>,
    cut: BTreeSet<String>,
    out: SearchResult,
}

impl<'o> Search<'o> {
    fn new(opts: &'o Options) -> Self {
        Search {
            opts,
            started: Instant::now(),
            smt: Smt::new(opts.query_timeout),
            frontier: Frontier::default(),
            queue: VecDeque::from([InputValues::new()]),
            pins: Vec::new(),
            cut: BTreeSet::new(),
            out: SearchResult::default(),
        }
    }

    fn run(&mut self, executor: &mut dyn Executor) {
        while let Some(inputs) = self.queue.pop_front() {
            if self.done() {
                return;
            }
            let Some(limits) = self.limits() else {
                return;
            };
            if !self.frontier.explore_inputs(&inputs) {
                continue;
            }
            self.explore_class(executor, &inputs, &limits);
        }
    }

    /// A bug ends the search unless asked to go on.
    fn done(&self) -> bool {
        !self.opts.keep_going && !self.out.findings.is_empty()
    }

    /// What the next class may use of the budgets; `None` (and the reason noted) when they
    /// are spent.
    fn limits(&mut self) -> Option<Limits> {
        let max_executions = match self.opts.max_executions {
            Some(max) if self.out.executions >= max => {
                self.cut("max_executions stopped the search".into());
                return None;
            }
            Some(max) => Some(max - self.out.executions),
            None => None,
        };
        let time_budget = match self.opts.time_budget {
            Some(t) if self.started.elapsed() >= t => {
                self.cut("time_budget stopped the search".into());
                return None;
            }
            Some(t) => Some(t - self.started.elapsed()),
            None => None,
        };
        Some(Limits {
            max_executions,
            time_budget,
        })
    }

    fn cut(&mut self, why: String) {
        self.cut.insert(why);
    }

    fn explore_class(&mut self, executor: &mut dyn Executor, inputs: &InputValues, l: &Limits) {
        let exploration = match executor.explore(inputs, l) {
            Ok(e) => e,
            Err(why) => {
                self.cut(format!("an exploration could not run: {why}"));
                return;
            }
        };
        self.out.classes += 1;
        self.out.executions += exploration.traces.len() as u64;
        if !exploration.complete && exploration.failure.is_none() {
            self.cut("an input class's schedules were not all explored (a bound)".into());
        }
        if let Some(failure) = exploration.failure {
            let inputs = failing_inputs(&exploration.traces, inputs);
            self.out.findings.push(Finding {
                failure,
                inputs,
                solved: None,
            });
            if self.done() {
                return;
            }
        }
        let paths: Vec<PathCondition> = exploration.traces.iter().map(PathCondition::of).collect();
        for path in &paths {
            self.cover(path);
        }
        for (trace, path) in exploration.traces.iter().zip(&paths) {
            self.flip(executor, trace, path);
            if self.done() {
                return;
            }
        }
    }

    /// Marks the sides `path` took as covered, and notes its pins.
    fn cover(&mut self, path: &PathCondition) {
        let mut prefix = BTreeSet::new();
        for c in path.conditions.iter().filter(|c| c.symbolic()) {
            let key = term_key(&c.taken);
            let site = (c.role == Role::Branch).then(|| (at(&c.location), key));
            self.frontier.cover(Side::new(&prefix, key), site);
            if c.role == Role::Pin {
                self.pin(&c.location);
            }
            prefix.insert(key);
        }
    }

    fn pin(&mut self, location: &Option<Location>) {
        match self.pins.iter_mut().find(|p| &p.location == location) {
            Some(p) => p.count += 1,
            None => self.pins.push(Pin {
                location: location.clone(),
                count: 1,
            }),
        }
    }

    /// Asks for every side of `path` not taken yet.
    fn flip(&mut self, executor: &mut dyn Executor, trace: &Trace, path: &PathCondition) {
        let mut prefix_keys = BTreeSet::new();
        let mut prefix: Vec<&Condition> = Vec::new();
        let mut depth = 0u32;
        let symbolic: Vec<&Condition> = path.conditions.iter().filter(|c| c.symbolic()).collect();
        for (k, &c) in symbolic.iter().enumerate() {
            // The prefix of a recorded context runs once: its other sides are not explored.
            let mut targets = if c.fixed { Vec::new() } else { other_sides(c) };
            if k + 1 == symbolic.len() && violated_assumption(trace, c) {
                // The inputs broke an assumption (a context's facts, above all, which the
                // default inputs need not meet): ask for inputs that keep it.
                targets.push(c.taken.not());
            }
            if !targets.is_empty() {
                depth += 1;
                if self.opts.max_branch_depth.is_some_and(|max| depth > max) {
                    self.cut("max_branch_depth cut a path".into());
                    return;
                }
            }
            for target in &targets {
                let side = Side::new(&prefix_keys, term_key(target));
                if self.frontier.ask(side) {
                    let query = independent(&prefix, c, target);
                    self.answer(executor, trace, path, c, target, &query);
                    if self.done() {
                        return;
                    }
                }
            }
            prefix_keys.insert(term_key(&c.taken));
            prefix.push(c);
        }
    }

    /// Asks z3 for one side and acts on the answer.
    fn answer(
        &mut self,
        executor: &mut dyn Executor,
        trace: &Trace,
        path: &PathCondition,
        c: &Condition,
        target: &Bool,
        query: &Query,
    ) {
        let model = match self.smt.check(&query.conjuncts) {
            Answer::Sat(m) => m,
            Answer::Unsat => return,
            Answer::Unknown => {
                self.cut(format!(
                    "the solver gave up on a side at {}",
                    at(&c.location)
                ));
                return;
            }
        };
        let sliced: BTreeMap<String, (Ty, i128)> = (path.inputs.iter())
            .filter(|(name, _, _)| query.inputs.contains(name))
            .map(|(name, ty, value)| (name.clone(), (*ty, *value)))
            .collect();
        let mut inputs: InputValues = (path.inputs.iter())
            .map(|(name, _, value)| (name.clone(), *value))
            .collect();
        inputs.extend(model_inputs(&model, &sliced));
        match c.role {
            Role::Assertion | Role::Check => self.try_failure(executor, trace, c, inputs),
            _ => {
                self.frontier.feasible((at(&c.location), term_key(target)));
                self.queue.push_back(inputs);
            }
        }
    }

    /// Runs the execution's own schedule with inputs under which the assertion `c` fails.
    fn try_failure(
        &mut self,
        executor: &mut dyn Executor,
        trace: &Trace,
        c: &Condition,
        inputs: InputValues,
    ) {
        let guide = Guide {
            steps: schedule_of(trace),
            choices: Vec::new(),
            inputs: inputs.clone(),
        };
        self.out.executions += 1;
        let failure = executor.run(&guide).ok().and_then(|r| r.failure);
        match failure {
            Some(failure) => self.out.findings.push(Finding {
                failure,
                inputs,
                solved: Some(format!(
                    "the solver found inputs under which the {} at {} fails",
                    if c.role == Role::Check {
                        "operation"
                    } else {
                        "assertion"
                    },
                    at(&c.location)
                )),
            }),
            None => {
                // The failure needs another schedule with these inputs: DPOR finds it.
                self.out.unconfirmed += 1;
                self.queue.push_front(inputs);
            }
        }
    }

    fn finish(mut self) -> SearchResult {
        let (covered, feasible) = self.frontier.sides();
        self.out.sides_covered = covered;
        self.out.sides_feasible = feasible;
        self.out.solver = self.smt.stats.clone();
        self.out.pins = self.pins;
        if !self.out.pins.is_empty() {
            self.cut
                .insert("a value that depends on an input was made concrete".into());
        }
        if !self.queue.is_empty() && self.out.findings.is_empty() {
            self.cut.insert("input classes were left unexplored".into());
        }
        self.out.incomplete = self.cut.into_iter().collect();
        self.out.complete = self.out.incomplete.is_empty() && self.out.findings.is_empty();
        self.out.seconds = self.started.elapsed().as_secs_f64();
        self.out
    }
}

/// The sides of `c` this execution did not take that are worth asking for: the other side
/// of a branch, the failing side of an assertion or check that held, every other element a
/// symbolic index can name. Assumptions and pins have none.
fn other_sides(c: &Condition) -> Vec<Bool> {
    match c.role {
        Role::Branch => vec![c.taken.not()],
        Role::Assertion | Role::Check if c.held => vec![c.taken.not()],
        Role::Element | Role::Choice => c.alternatives.clone(),
        _ => Vec::new(),
    }
}

/// Whether `c` is the assumption that discarded `trace` (its last condition then).
fn violated_assumption(trace: &Trace, c: &Condition) -> bool {
    c.role == Role::Assume && trace.verdict == symx::trace::format::Verdict::Discarded
}

/// What is sent to the solver for one side: a slice of the path condition and the inputs it
/// speaks of.
struct Query {
    conjuncts: Vec<Bool>,
    /// The only inputs a model of the slice decides: every other input keeps the value the
    /// execution had, since the conditions left out hold with those values (a model, above
    /// all a cached one, may name other inputs, with values that break those conditions).
    inputs: BTreeSet<String>,
}

/// The conditions of `prefix` that share inputs with `target`, transitively, and `target`:
/// the others cannot change its answer.
fn independent(prefix: &[&Condition], c: &Condition, target: &Bool) -> Query {
    let mut vars: BTreeSet<&str> = c.inputs.iter().map(String::as_str).collect();
    let mut taken = vec![false; prefix.len()];
    loop {
        let mut grew = false;
        for (i, p) in prefix.iter().enumerate() {
            if !taken[i] && p.inputs.iter().any(|v| vars.contains(v.as_str())) {
                taken[i] = true;
                vars.extend(p.inputs.iter().map(String::as_str));
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let mut conjuncts: Vec<Bool> = prefix
        .iter()
        .zip(&taken)
        .filter(|(_, &t)| t)
        .map(|(p, _)| p.taken.clone())
        .collect();
    conjuncts.push(target.clone());
    Query {
        conjuncts,
        inputs: vars.into_iter().map(String::from).collect(),
    }
}

/// The thread that took each visible step of the execution.
fn schedule_of(trace: &Trace) -> Vec<usize> {
    trace
        .events
        .iter()
        .filter(|e| e.step.is_some())
        .map(|e| e.thread)
        .collect()
}

/// The inputs of the failing execution of an exploration (its last trace), or the class's.
fn failing_inputs(traces: &[Trace], class: &InputValues) -> InputValues {
    match traces.last() {
        Some(t) if !t.inputs.is_empty() => {
            t.inputs.iter().map(|i| (i.name.clone(), i.value)).collect()
        }
        _ => class.clone(),
    }
}

fn at(location: &Option<Location>) -> String {
    match location {
        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
        None => "an unknown location".into(),
    }
}
