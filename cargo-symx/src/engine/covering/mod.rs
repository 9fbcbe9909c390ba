//! Input-covering schedules: a small set Σ of (input constraint I, schedule S) pairs such that
//! every input satisfies the I of some pair whose S the program can be held to.
//!
//! **The algorithm.** Bergan, "Avoiding State-Space Explosion in Multithreaded Programs with
//! Input-Covering Schedules and Symbolic Execution" (dissertation, 2014, ch. 3; first as
//! Bergan, Ceze, Grossman, OOPSLA 2013). A schedule is the happens-before graph of the
//! synchronization operations of one execution (`symx::covering::HbSchedule`). Σ is found by
//! `SearchInEpoch` (Fig. 3.4): run one path (`ExecutePath`), record its schedule with the
//! precondition under which that schedule is followed, and queue the negations of the
//! precondition's conditions, one at a time after the same prefix, until no input is left
//! uncovered. Three of the paper's redundancy prunings (§3.4.1) apply:
//!
//! - *prefix schedules* (§3.4.1.1): a run that fails having done a prefix of another
//!   schedule's synchronization is no schedule of its own (the runtime follows the longer one
//!   and stops where the program fails); `Options::prefix = false` keeps them;
//! - *no code duplication* (§3.4.1.4): sites are source locations, which compilation cannot
//!   duplicate;
//! - *ignoring library synchronization* (§3.4.1.2): only the modelled `symx` operations are
//!   nodes.
//!
//! **Departures, and why each stays sound.**
//!
//! 1. `ExecutePath` is one run of the test through `Executor::run` with an empty guide: the
//!    thread that ran last goes on while it can, otherwise the lowest thread id
//!    (non-preemptive, deterministic). Any feasible path is a correct choice (§3.3.2).
//! 2. The precondition slice (Costa et al.'s, made synchronization-preserving, §3.3.2) needs
//!    static control and data dependence we do not have without MIR. It is replaced by its
//!    semantic counterpart: every symbolic condition's other side is explored, and paths
//!    whose schedules are *equal* are merged, I := I₁ ∨ I₂ (identical canonical graphs only,
//!    which only widens a constraint to inputs known to follow the same schedule). The I of
//!    a pair is then exactly the set of inputs whose deterministic run follows S: the
//!    weakest precondition relative to the policy, never weaker. The cost is runs (one per
//!    path, sync-relevant or not), not schedules: |Σ| counts distinct schedules, which is
//!    what the paper's slice aims at. Assertion and overflow checks are not flipped while
//!    prefix pruning is on: their failing side exits before any further synchronization, so
//!    its schedule is always a prefix of the path's (that is §3.4.1.1's rule), and their
//!    conditions are left out of I (those inputs follow S up to the failure). A check
//!    that *failed* on a path stays in that path's I: the inputs that pass it go on.
//! 3. Objects are named by their creation site and rank (see `symx::covering`), standing for
//!    the lock address the paper's slice keeps live: a lock chosen by an input is a
//!    different schedule, writes to the data a lock protects are not.
//! 4. A value an input decides that was made concrete (a pin) fixes the rest of the path;
//!    the pin's condition is kept in I (sound: narrower), and the enumeration says it is not
//!    complete, naming the pin, as the symbolic engine does.

mod deadlock;
mod discharge;
mod file;
mod pairs;
mod reach;
mod select;

pub use deadlock::{check_deadlocks, DeadlockVerdict, Verdicts};
pub use discharge::{discharge, Discharged};
pub use file::{schedule_file, Summary, FILE_FORMAT, FILE_VERSION};
pub use pairs::Pair;
pub use reach::{enumerate, EpochInfo};
pub use select::{follow, Followed, Stop};

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use symx::covering::{Epochs, HbSchedule};
use symx::trace::format::{Location, LoopHead, Ty};
use symx::{Guide, InputValues};
use z3::ast::{Ast, Bool};

use super::Executor;
use crate::solver::model::model_inputs;
use crate::solver::path::{Condition, PathCondition, Role};
use crate::solver::smt::{Answer, Smt, Stats};

/// Settings of an enumeration.
#[derive(Clone, Debug)]
pub struct Options {
    /// Prune prefix schedules (§3.4.1.1); `false` is `--no-prefix`.
    pub prefix: bool,
    /// Paths (runs) over the whole enumeration; past it the enumeration halts, incomplete.
    pub max_paths: u64,
    pub time_budget: Option<Duration>,
    /// Solver time per query.
    pub query_timeout: Option<Duration>,
    /// Threads at the same barrier that covers a loop are in lockstep: their loops' carried
    /// locals of one name are one input at the boundary when their values agree (the
    /// barrier-matching invariant of the dissertation's ch. 2); `false` havocs each thread's
    /// own.
    pub lockstep: bool,
    /// Cut runs into bounded epochs at their epoch markers (§3.2.2); `false` is
    /// `--no-epochs`: one epoch, whose enumeration a loop on an input does not let end.
    pub epochs: bool,
    /// Name an epoch by the multiset of its threads' contexts, not by which thread is where
    /// (symbolic thread ids, §3.4.1.3); `false` is `--concrete-tids`.
    pub symbolic_tids: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            prefix: true,
            max_paths: 10_000,
            time_budget: None,
            query_timeout: Some(Duration::from_secs(10)),
            lockstep: true,
            epochs: true,
            symbolic_tids: true,
        }
    }
}

/// The input-covering sets of one test: Σ_E for every reachable epoch E.
#[derive(Debug, Default)]
pub struct Enumeration {
    /// The reachable epochs, E0 (the program's start) first, in the order they were found.
    pub epochs: Vec<EpochInfo>,
    /// Σ, epoch by epoch (`Pair::epoch`), each epoch's in the order its schedules were found.
    pub pairs: Vec<Pair>,
    /// The loop heads the runs passed, by site, with the marker placement's decision
    /// (Fig. 3.2).
    pub loops: BTreeMap<String, LoopHead>,
    /// The inputs the runs drew: name and type.
    pub inputs: BTreeMap<String, Ty>,
    /// Paths run (each one `ExecutePath`).
    pub paths: u64,
    /// Runs an assumption discarded.
    pub discarded: u64,
    /// Failing runs merged into a longer schedule as its prefix.
    pub prefixes: u64,
    pub solver: Stats,
    /// Every input is covered (nothing below cut the search).
    pub complete: bool,
    /// Why not complete, in words (a budget, a solver timeout, a pin with its location).
    pub incomplete: Vec<String>,
    pub seconds: f64,
}

impl Enumeration {
    /// Bergan's Table 3.3 counts: the epoch markers the placement put (Fig. 3.2 with its
    /// optimizations: trivial loops, loops a barrier or a marker covers, get none), and those
    /// it would put without them (every loop that synchronizes). Loops the runs never
    /// reached are not counted.
    pub fn marker_counts(&self) -> (usize, usize) {
        let with = self.loops.values().filter(|l| l.marker).count();
        let without = (self.loops.values())
            .filter(|l| l.reason != "synchronization-free")
            .count();
        (with, without)
    }

    /// Pair `i`'s name: its epoch's id and its rank among that epoch's pairs (`E1#S0`).
    pub fn pair_id(&self, i: usize) -> String {
        let epoch = self.pairs[i].epoch;
        let rank = self.pairs[..i].iter().filter(|p| p.epoch == epoch).count();
        format!("{}#S{rank}", self.epochs[epoch].id)
    }
}

/// Where one epoch's search starts: how its runs reach it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Start {
    /// Boundaries before the epoch (0: the program's start).
    pub depth: u32,
    /// The conditions under which the runs reach it: the constraints of the pairs that led
    /// there, epoch after epoch (empty for E0).
    pub entry: Vec<Bool>,
    /// Input values that satisfy `entry` (the last of those pairs' model).
    pub model: InputValues,
}

/// `SearchInEpoch` (Fig. 3.4) for the epoch `start` describes.
pub(crate) fn search_in_epoch(
    executor: &mut dyn Executor,
    opts: &Options,
    start: &Start,
    started: Instant,
    smt: &mut Smt,
    out: &mut Enumeration,
) -> (Vec<Pair>, u64) {
    let mut search = Search {
        opts,
        start,
        started,
        smt,
        queue: VecDeque::from([start.model.clone()]),
        asked: HashSet::new(),
        explored: HashSet::new(),
        found: pairs::Found::default(),
        repeats: None,
        out,
    };
    search.run(executor);
    search.finish()
}

struct Search<'o> {
    opts: &'o Options,
    start: &'o Start,
    started: Instant,
    smt: &'o mut Smt,
    /// Input assignments still to run (the worklist of constraints, each as one model).
    queue: VecDeque<InputValues>,
    /// Sides taken by a path or already asked of the solver: the prefix's terms and the
    /// side's.
    asked: HashSet<(Vec<String>, String)>,
    explored: HashSet<Vec<(String, i128)>>,
    found: pairs::Found,
    /// The condition site repeated most on one path, and how often.
    repeats: Option<(String, u64)>,
    /// The whole enumeration's counts and reasons it is incomplete (`incomplete` is kept
    /// as a set until the end: see `reach::enumerate`).
    out: &'o mut Enumeration,
}

impl Search<'_> {
    fn run(&mut self, executor: &mut dyn Executor) {
        while let Some(inputs) = self.queue.pop_front() {
            if !self
                .explored
                .insert(inputs.iter().map(|(k, &v)| (k.clone(), v)).collect())
            {
                continue;
            }
            if self.out.paths >= self.opts.max_paths {
                self.cut(format!(
                    "the path budget ({}) stopped the enumeration{}",
                    self.opts.max_paths,
                    self.unbounded_loop()
                ));
                return;
            }
            if self
                .opts
                .time_budget
                .is_some_and(|t| self.started.elapsed() >= t)
            {
                self.cut("the time budget stopped the enumeration".into());
                return;
            }
            self.execute_path(executor, inputs);
        }
    }

    /// Names the loop that most likely keeps the enumeration going (§3.2.2: a loop on an
    /// input needs as many schedules as the input has values, unless bounded epochs cut it).
    fn unbounded_loop(&self) -> String {
        let Some((site, n)) = self.repeats.as_ref().filter(|(_, n)| *n > 1) else {
            return String::new();
        };
        let line = site.rsplit_once(':').map_or(site.as_str(), |(l, _)| l);
        let sync_free = (self.out.loops.values())
            .find(|l| l.site.rsplit_once(':').is_some_and(|(at, _)| at == line))
            .filter(|l| l.reason == "synchronization-free");
        match sync_free {
            // Input abstraction (§3.4.2): a synchronization-free loop no marker bounds.
            Some(l) => format!(
                ": the condition at {site} repeats {n} times on one path, in the \
                 synchronization-free loop at {} in `{}`, whose result decides \
                 synchronization: `{}` needs `#[symx::r#abstract]`",
                l.site, l.function, l.function
            ),
            None => format!(
                ": the condition at {site} repeats {n} times on one path, a loop whose trip \
                 count an input decides: it needs an epoch marker (bounded epochs are off)"
            ),
        }
    }

    /// `ExecutePath`, then the schedule's bookkeeping and the sides to explore next.
    fn execute_path(&mut self, executor: &mut dyn Executor, inputs: InputValues) {
        let guide = Guide {
            inputs,
            ..Guide::default()
        };
        let ran = match self.opts.epochs {
            true => {
                let epochs = Epochs {
                    stop_at: Some(self.start.depth + 1),
                    no_lockstep: !self.opts.lockstep,
                };
                executor.run_epochs(&guide, &epochs)
            }
            false => executor.run(&guide),
        };
        let ran = match ran {
            Ok(r) => r,
            Err(why) => {
                self.cut(format!("a path could not run: {why}"));
                return;
            }
        };
        self.out.paths += 1;
        for l in &ran.trace.loops {
            // A loop the run made a marker (it synchronized in a function it calls) is one,
            // whatever the runs before it saw.
            let known = self
                .out
                .loops
                .entry(l.site.clone())
                .or_insert_with(|| l.clone());
            if l.marker && !known.marker {
                *known = l.clone();
            }
        }
        let mut path = PathCondition::of(&ran.trace);
        for (name, ty, _) in &path.inputs {
            self.out.inputs.insert(name.clone(), *ty);
        }
        let depth = self.start.depth as usize;
        if depth > ran.trace.epochs.len() {
            // The run did not reach the epoch (an input its entry conditions allow that an
            // assumption of an earlier epoch discards).
            self.out.discarded += 1;
            return;
        }
        let (from, to) = epoch_span(&ran.trace, depth);
        path.conditions.retain(|c| c.event >= from && c.event < to);
        let Some(schedule) = HbSchedule::of_epoch(&ran.trace, depth) else {
            // An assumption discarded the run: its other side is worth asking for, as a
            // branch's is (the first run's default inputs may break the test's assumptions).
            self.out.discarded += 1;
            if let Some(last) = (path.conditions.iter_mut())
                .rev()
                .find(|c| c.symbolic())
                .filter(|c| c.role == Role::Assume)
            {
                last.role = Role::Branch;
            }
            self.cover(&path);
            self.expand(&path);
            return;
        };
        let drawn: InputValues = (path.inputs.iter())
            .map(|(n, _, v)| (n.clone(), *v))
            .collect();
        self.explored
            .insert(drawn.iter().map(|(k, &v)| (k.clone(), v)).collect());
        self.cover(&path);
        self.note_repeats(&path);
        let precondition = self.precondition(&path);
        let reach: Vec<Bool> = (path.conditions.iter())
            .filter(|c| c.symbolic())
            .map(|c| c.taken.clone())
            .collect();
        let reach = Bool::and(&reach);
        self.found
            .add(schedule, precondition, drawn, ran.failure, reach);
        self.expand(&path);
    }

    /// The conditions of `path` that decide its schedule: all its symbolic ones but the
    /// assertions and checks that held, when prefix pruning is on (departure 2), and the
    /// assumptions: I is stated within the test's `symx::assume`s (an input outside them is
    /// discarded and has no schedule). Leaving them out keeps the pairs exclusive: two paths
    /// first differ at a branch or an element choice, never at an assumption.
    fn precondition(&mut self, path: &PathCondition) -> Vec<Bool> {
        let mut out = Vec::new();
        for c in path.conditions.iter().filter(|c| c.symbolic()) {
            if c.role == Role::Pin {
                self.cut(format!(
                    "a value that depends on an input was made concrete at {}",
                    at(&c.location)
                ));
            }
            // A check that failed stays: the inputs that pass it do not fail there.
            let left_out =
                c.role == Role::Assume || (self.opts.prefix && exits_at_once(c) && c.held);
            if !left_out {
                out.push(c.taken.clone());
            }
        }
        out
    }

    /// Keeps the condition site that repeats most often on one path: where a loop runs as
    /// often as an input says, which is what keeps an enumeration without epochs from ending.
    fn note_repeats(&mut self, path: &PathCondition) {
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for c in path
            .conditions
            .iter()
            .filter(|c| c.role == Role::Branch && c.symbolic())
        {
            *counts.entry(at(&c.location)).or_default() += 1;
        }
        if let Some((site, n)) = counts.into_iter().max_by_key(|(_, n)| *n) {
            if self.repeats.as_ref().is_none_or(|(_, m)| n > *m) {
                self.repeats = Some((site, n));
            }
        }
    }

    /// Marks the sides `path` took, after their prefixes, as taken: not worth asking.
    fn cover(&mut self, path: &PathCondition) {
        let mut prefix: Vec<String> = Vec::new();
        for c in path.conditions.iter().filter(|c| c.symbolic()) {
            let taken = key(&c.taken);
            self.asked.insert((prefix.clone(), taken.clone()));
            prefix.push(taken);
        }
    }

    /// Queues the other side of every condition of `path`, after the same prefix
    /// (Fig. 3.4, lines 21-28).
    fn expand(&mut self, path: &PathCondition) {
        let mut prefix: Vec<&Condition> = Vec::new();
        for c in path.conditions.iter().filter(|c| c.symbolic()) {
            for target in self.other_sides(c) {
                let key = (prefix.iter().map(|p| key(&p.taken)).collect(), key(&target));
                if self.asked.insert(key) {
                    self.ask(path, &prefix, c, &target);
                }
            }
            prefix.push(c);
        }
    }

    fn other_sides(&self, c: &Condition) -> Vec<Bool> {
        match c.role {
            Role::Branch => vec![c.taken.not()],
            Role::Element => c.alternatives.clone(),
            Role::Assertion | Role::Check if c.held && !self.opts.prefix => vec![c.taken.not()],
            // A failure a model happened to land on: the inputs for which the operation
            // succeeds go on, and may do more synchronization.
            Role::Assertion | Role::Check if !c.held => vec![c.taken.not()],
            _ => Vec::new(),
        }
    }

    fn ask(&mut self, path: &PathCondition, prefix: &[&Condition], c: &Condition, target: &Bool) {
        let mut query: Vec<Bool> = self.start.entry.clone();
        query.extend(prefix.iter().map(|p| p.taken.clone()));
        query.push(target.clone());
        match self.smt.check(&query) {
            Answer::Sat(model) => {
                let known: BTreeMap<String, (Ty, i128)> = (path.inputs.iter())
                    .map(|(n, ty, v)| (n.clone(), (*ty, *v)))
                    .collect();
                self.queue.push_back(model_inputs(&model, &known));
            }
            Answer::Unsat => {}
            Answer::Unknown => {
                self.cut(format!(
                    "the solver gave up on a side at {}",
                    at(&c.location)
                ));
            }
        }
    }

    fn cut(&mut self, why: String) {
        if !self.out.incomplete.contains(&why) {
            self.out.incomplete.push(why);
        }
    }

    /// The epoch's pairs, and how many failing paths were merged into them as prefixes.
    fn finish(self) -> (Vec<Pair>, u64) {
        if !self.queue.is_empty() && self.out.incomplete.is_empty() {
            self.out
                .incomplete
                .push("inputs were left unexplored".into());
        }
        self.found.finish(self.opts.prefix, self.smt)
    }
}

/// The events of epoch `k` of `trace`: from its boundary to the next.
fn epoch_span(trace: &symx::trace::Trace, k: usize) -> (usize, usize) {
    let from = match k {
        0 => 0,
        _ => trace.epochs[k - 1].seq as usize,
    };
    let to = trace.epochs.get(k).map_or(usize::MAX, |b| b.seq as usize);
    (from, to)
}

/// A condition whose failing side ends the run where it stands (an assertion or a check):
/// whatever fails there does no further synchronization.
fn exits_at_once(c: &Condition) -> bool {
    matches!(c.role, Role::Assertion | Role::Check)
}

/// A condition's identity across paths: its simplified term (the same condition of two
/// paths can be built differently, `not (not c)` and `c`).
fn key(b: &Bool) -> String {
    b.simplify().to_string()
}

fn at(location: &Option<Location>) -> String {
    match location {
        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
        None => "an unknown location".into(),
    }
}
