//! The search: a depth-first walk of the tree of scheduling choices and input-dependent
//! conditions, one driven execution per path, summarising each node in post-order and
//! pruning every new state a summary covers (the paper's Algorithm 2 with the refinements
//! listed in `mod.rs`).

use std::collections::{BTreeSet, HashSet};
use std::rc::Rc;
use std::time::Instant;

use symx::trace::format::{EventKind, Location, Verdict};
use symx::trace::Trace;
use symx::{Drive, DrivenPoint, InputValues};
use z3::ast::Bool;

use super::names::{self, Keys, Names};
use super::races::{self, Hb};
use super::slice::Slice;
use super::summary::{Rw, Table};
use super::tree::{Kind, Node, Sleeper, Status};
use super::wp;
use super::{Finding, Options, SearchResult};
use crate::engine::Executor;
use crate::solver::model::model_inputs;
use crate::solver::path::{PathCondition, Role};
use crate::solver::smt::{Answer, Smt};

mod accesses;
mod backtrack;

use accesses::{edge_accesses, rename};

/// What the next execution follows.
struct Plan {
    inputs: InputValues,
    /// The thread of each step up to and including the choice being explored.
    prefix: Vec<usize>,
    /// Nodes are created for events from here on (the ones before are on the stack).
    first_new: usize,
}

/// How the current execution was stopped.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// A summary covered the state before this event.
    Pruned(usize),
    /// Every enabled thread was asleep here.
    Blocked(usize),
}

pub struct Search<'o> {
    opts: &'o Options,
    started: Instant,
    smt: Smt,
    table: Table,
    stack: Vec<Node>,
    /// The trace of the last execution.
    last: Option<Rc<Trace>>,
    /// The keys of the current execution's states.
    keys: Keys,
    pub out: SearchResult,
    cut: BTreeSet<String>,
    /// The slice: given, or guessed from the first execution (`None` until then).
    pub slice: Option<Slice>,
    /// The sliced sites an execution used otherwise than blindly: the search stopped there.
    pub broken: HashSet<Location>,
}

impl<'o> Search<'o> {
    pub fn new(opts: &'o Options, slice: Option<Slice>) -> Self {
        Search {
            opts,
            started: Instant::now(),
            smt: Smt::new(opts.query_timeout),
            table: Table::new(opts.max_disjuncts),
            stack: Vec::new(),
            last: None,
            keys: Keys::default(),
            out: SearchResult::default(),
            cut: BTreeSet::new(),
            slice,
            broken: HashSet::new(),
        }
    }

    pub fn run(&mut self, executor: &mut dyn Executor) {
        let mut plan = Some(Plan {
            inputs: InputValues::new(),
            prefix: Vec::new(),
            first_new: 0,
        });
        while let Some(p) = plan {
            if !self.within_budget() {
                return;
            }
            if !self.execute(executor, p) || !self.broken.is_empty() {
                return;
            }
            if !self.opts.keep_going && !self.out.findings.is_empty() {
                return;
            }
            plan = self.next();
        }
    }

    fn within_budget(&mut self) -> bool {
        if (self.opts.max_executions).is_some_and(|m| self.out.executions >= m) {
            self.cut.insert("max_executions stopped the search".into());
            return false;
        }
        if (self.opts.time_budget).is_some_and(|t| self.started.elapsed() >= t) {
            self.cut.insert("time_budget stopped the search".into());
            return false;
        }
        true
    }

    /// Runs one execution along `plan`, deciding every new scheduling point.
    fn execute(&mut self, executor: &mut dyn Executor, plan: Plan) -> bool {
        self.out.executions += 1;
        self.keys = Keys::default();
        let mut stop = None;
        let ran = {
            let mut decide = |p: &DrivenPoint<'_>| self.decide(&plan, p, &mut stop);
            executor.drive(&plan.inputs, &mut decide)
        };
        let replayed = match ran {
            Ok(r) => r,
            Err(why) => {
                self.cut
                    .insert(format!("an execution could not run: {why}"));
                return false;
            }
        };
        if let Some(d) = &replayed.divergence {
            self.cut.insert(format!(
                "an execution did not replay its prefix (is the test deterministic?): {d}"
            ));
        }
        if let Some(failure) = replayed.failure.clone() {
            let inputs = (replayed.trace.inputs.iter())
                .map(|i| (i.name.clone(), i.value))
                .collect();
            self.out.findings.push(Finding { failure, inputs });
        }
        self.finish(&plan, replayed.trace, stop);
        true
    }

    /// The decision at one scheduling point of the current execution.
    fn decide(&mut self, plan: &Plan, p: &DrivenPoint<'_>, stop: &mut Option<Stop>) -> Drive {
        let step = p.step as usize;
        if let Some(&t) = plan.prefix.get(step) {
            return Drive::Run(t);
        }
        let view = self.slice.as_ref().map(|s| s.view(p.trace));
        let trace: &Trace = view.as_deref().unwrap_or(p.trace);
        let pos = trace.events.len();
        let sleep = self.sleep_at(trace, pos);
        let key = self.key(trace, pos);
        let mut node = new_node(plan, pos, key, &sleep, Kind::Last);
        if let Some((wp, rw)) = self.covered(trace, None, pos, key, &sleep) {
            node.wp = Some(wp);
            node.rw = rw;
            node.closed = true;
            self.stack.push(node);
            *stop = Some(Stop::Pruned(pos));
            return Drive::Stop;
        }
        let asleep = |t: &usize| sleep.iter().any(|s| s.thread == *t);
        let previous = trace.events.iter().rev().find(|e| e.step.is_some());
        let chosen = (previous.map(|e| e.thread))
            .filter(|t| p.enabled.contains(t) && !asleep(t))
            .or_else(|| p.enabled.iter().copied().find(|t| !asleep(t)));
        let Some(t) = chosen else {
            node.wp = Some(Bool::from_bool(false));
            node.closed = true;
            self.stack.push(node);
            *stop = Some(Stop::Blocked(pos));
            return Drive::Stop;
        };
        let backtrack = if self.opts.por {
            vec![t]
        } else {
            p.enabled.to_vec()
        };
        node.kind = Kind::Schedule {
            enabled: p.enabled.to_vec(),
            chosen: t,
            backtrack,
            done: vec![t],
            sleep,
        };
        self.stack.push(node);
        Drive::Run(t)
    }

    /// The threads asleep at the state before `pos`: those asleep at the last scheduling
    /// point above it whose next step is independent of the step taken there.
    fn sleep_at(&self, trace: &Trace, pos: usize) -> Vec<Sleeper> {
        if !self.opts.por {
            return Vec::new();
        }
        let parent = self.stack.iter().rev().find_map(|n| match &n.kind {
            Kind::Schedule { sleep, chosen, .. } if n.pos < pos => Some((n.pos, sleep, chosen)),
            _ => None,
        });
        let Some((at, sleep, chosen)) = parent else {
            return Vec::new();
        };
        let taken = races::steps(trace, at + 1, &self.sliced(trace)).pop();
        let Some(taken) = taken.filter(|s| s.pos == at) else {
            return Vec::new();
        };
        sleep
            .iter()
            .filter(|s| s.thread != *chosen)
            .filter(|s| races::independent(&s.access, &|o| s.known.contains(&o), &taken.access))
            .cloned()
            .collect()
    }

    /// Per object of `trace`, whether the slice hides its blind accesses.
    fn sliced(&self, trace: &Trace) -> Vec<bool> {
        (self.slice.as_ref()).map_or_else(Vec::new, |s| s.objects(trace))
    }

    /// The key of the state before `pos` of the current execution (only a search that
    /// prunes needs keys).
    fn key(&mut self, trace: &Trace, pos: usize) -> u64 {
        if self.opts.prune {
            self.keys.at(trace, pos)
        } else {
            0
        }
    }

    /// The summary covering the state before `pos`, if one does: its formula and the
    /// accesses below it. `names`: the trace's, if already known.
    fn covered(
        &mut self,
        trace: &Trace,
        names: Option<&Names>,
        pos: usize,
        key: u64,
        sleep: &[Sleeper],
    ) -> Option<(Bool, BTreeSet<Rw>)> {
        if !self.opts.prune {
            return None;
        }
        let asleep: BTreeSet<String> = sleep.iter().map(|s| s.canonical.clone()).collect();
        if self.table.guarded(key, &asleep) {
            self.out.sleep_guarded += 1;
        }
        let (formula, rw) = self.table.covering(key, &asleep)?;
        let (formula, rw) = (formula, rw.clone());
        self.out.checks += 1;
        let query = match names {
            Some(names) => wp::transfer(trace, names, 0, pos, &formula.not()),
            None => wp::transfer(trace, &Names::of(trace), 0, pos, &formula.not()),
        };
        match self.smt.check(&[query]) {
            Answer::Unsat => Some((formula, rw)),
            // Satisfiable: some value of this state may fail; unknown: not proved. Go on.
            Answer::Sat(_) | Answer::Unknown => None,
        }
    }

    /// Completes the nodes of the execution that just ran, closes its leaf and plants the
    /// races it showed.
    fn finish(&mut self, plan: &Plan, trace: Trace, stop: Option<Stop>) {
        let slice = (self.slice).get_or_insert_with(|| match self.opts.slice {
            true => Slice::of_first(&trace),
            false => Slice::default(),
        });
        self.broken = slice.broken(&trace);
        if !self.broken.is_empty() {
            return;
        }
        let sliced = slice.objects(&trace);
        let trace = Rc::new(slice.view(&trace).into_owned());
        let names = Rc::new(Names::of(&trace));
        for n in self.stack.iter_mut().filter(|n| n.trace.is_none()) {
            n.trace = Some(Rc::clone(&trace));
            n.names = Some(Rc::clone(&names));
            n.inputs = plan.inputs.clone();
        }
        let mut stop = stop;
        let mut end = match stop {
            Some(Stop::Pruned(p) | Stop::Blocked(p)) => p,
            None => trace.events.len(),
        };
        if stop.is_none() {
            if let Some(last) = self.last_node(plan, &trace, &names) {
                if last.closed {
                    end = last.pos;
                    stop = Some(Stop::Pruned(last.pos));
                }
                self.stack.push(last);
            }
        }
        self.conditions(plan, &trace, &names, end);
        match stop {
            Some(Stop::Pruned(_)) => self.out.cut += 1,
            Some(Stop::Blocked(_)) => self.out.blocked += 1,
            None => {
                self.out.full += 1;
                let pass = !matches!(trace.verdict, Verdict::Fail { .. });
                self.leaf(&trace, &names, pass);
            }
        }
        if self.opts.por {
            let steps = races::steps(&trace, end, &sliced);
            let hb = Hb::of(&trace, &steps);
            for &(i, j) in &hb.races {
                let initials = hb.initials(&steps, i, j);
                self.reverse(steps[i].pos, &initials);
            }
            // (An execution the search stopped ends discarded too; it ran nothing after.)
            if trace.verdict == Verdict::Discarded && stop.is_none() {
                self.before_discard(&trace, &steps);
            }
            if let (Some(Stop::Pruned(at)), true) = (stop, self.opts.replay) {
                self.replay_accesses(&trace, &names, &steps, &hb, at);
            }
        }
        self.last = Some(trace);
    }

    /// The node after the execution's last step, before the first assertion or branch that
    /// follows it (where every thread that could finish has, so that executions ending in
    /// different orders meet), when it is new; closed when a summary covers it (decided after
    /// the run: no scheduling point follows to stop at).
    fn last_node(&mut self, plan: &Plan, trace: &Rc<Trace>, names: &Rc<Names>) -> Option<Node> {
        let last_step = trace.events.iter().rposition(|e| e.step.is_some())?;
        let pos = (last_step + 1..trace.events.len()).find(|&i| {
            let e = &trace.events[i];
            e.asserted().is_some() || e.kind == EventKind::Branch
        })?;
        if pos < plan.first_new {
            return None;
        }
        let sleep = self.sleep_at(trace, pos);
        let key = self.key(trace, pos);
        let mut node = new_node(plan, pos, key, &sleep, Kind::Last);
        node.trace = Some(Rc::clone(trace));
        node.names = Some(Rc::clone(names));
        if let Some((wp, rw)) = self.covered(trace, Some(names), pos, key, &sleep) {
            node.wp = Some(wp);
            node.rw = rw;
            node.closed = true;
        }
        Some(node)
    }

    /// Inserts a node for every new input-dependent condition before `end`, in event order.
    fn conditions(&mut self, plan: &Plan, trace: &Rc<Trace>, names: &Rc<Names>, end: usize) {
        let path = PathCondition::of(trace);
        let violated = violated_assumption(trace, &path);
        let mut before: Vec<Bool> = Vec::new();
        for c in &path.conditions {
            let pivot = matches!(
                c.role,
                Role::Branch | Role::Assertion | Role::Check | Role::Element
            ) || violated == Some(c.event);
            if c.role == Role::Pin && c.symbolic() && c.event >= plan.first_new {
                self.cut
                    .insert("a value that depends on an input was made concrete".into());
            }
            if pivot && c.symbolic() && c.event >= plan.first_new && c.event < end {
                let mut sides = vec![(c.taken.clone(), Status::Explored)];
                if c.role == Role::Element {
                    sides.extend(c.alternatives.iter().map(|a| (a.clone(), Status::Pending)));
                } else {
                    sides.push((c.taken.not(), Status::Pending));
                }
                let mut node = new_node(
                    plan,
                    c.event,
                    0,
                    &[],
                    Kind::Condition {
                        sides,
                        before: before.clone(),
                    },
                );
                node.trace = Some(Rc::clone(trace));
                node.names = Some(Rc::clone(names));
                self.stack.push(node);
            }
            before.push(c.taken.clone());
        }
        let first = self.stack.partition_point(|n| n.pos < plan.first_new);
        self.stack[first..].sort_by_key(|n| n.pos);
    }

    /// Closes the execution's leaf under the deepest node: `true` for a normal end or a
    /// discarded execution, `false` for a failure.
    fn leaf(&mut self, trace: &Trace, names: &Names, pass: bool) {
        let prune = self.opts.prune;
        let Some(n) = self.stack.last_mut() else {
            return;
        };
        if n.closed || !prune {
            return;
        }
        let end = trace.events.len();
        n.add_child(wp::transfer(
            trace,
            names,
            n.pos,
            end,
            &Bool::from_bool(pass),
        ));
        let sliced = self.sliced(trace);
        let Some(n) = self.stack.last_mut() else {
            return;
        };
        n.rw.extend(edge_accesses(trace, names, n.pos, end, &sliced));
    }

    /// The next execution: the deepest node with something left to explore. Nodes with
    /// nothing left are completed on the way up.
    fn next(&mut self) -> Option<Plan> {
        loop {
            let i = self.stack.len().checked_sub(1)?;
            if let Some(plan) = self.alternative(i) {
                return Some(plan);
            }
            self.complete();
        }
    }

    fn alternative(&mut self, i: usize) -> Option<Plan> {
        let last = self.last.clone();
        let slice = self.slice.clone().unwrap_or_default();
        let sliced = |t: &Trace| slice.objects(t);
        let n = &mut self.stack[i];
        let trace = Rc::clone(n.trace.as_ref()?);
        let prefix: Vec<usize> = (trace.events[..n.pos].iter())
            .filter(|e| e.step.is_some())
            .map(|e| e.thread)
            .collect();
        match &mut n.kind {
            Kind::Schedule {
                enabled,
                chosen,
                backtrack,
                done,
                sleep,
            } => {
                let next = backtrack.iter().copied().find(|t| {
                    !done.contains(t)
                        && enabled.contains(t)
                        && !sleep.iter().any(|s| s.thread == *t)
                })?;
                if self.opts.por {
                    let slept = last.and_then(|l| sleeper(&l, n.pos, *chosen, &sliced(&l)));
                    if let Some(s) = slept {
                        sleep.push(s);
                    }
                }
                done.push(next);
                *chosen = next;
                let mut prefix = prefix;
                prefix.push(next);
                Some(Plan {
                    inputs: n.inputs.clone(),
                    prefix,
                    first_new: n.pos + 1,
                })
            }
            Kind::Last => None,
            Kind::Condition { sides, before } => {
                for (side, status) in sides.iter_mut() {
                    if *status != Status::Pending {
                        continue;
                    }
                    let mut query = before.clone();
                    query.push(side.clone());
                    match self.smt.check(&query) {
                        Answer::Sat(model) => {
                            *status = Status::Explored;
                            let mut inputs = n.inputs.clone();
                            let known = (trace.inputs.iter())
                                .map(|i| (i.name.clone(), (i.ty, i.value)))
                                .collect();
                            inputs.extend(model_inputs(&model, &known));
                            return Some(Plan {
                                inputs,
                                prefix,
                                first_new: n.pos + 1,
                            });
                        }
                        Answer::Unsat => *status = Status::Infeasible,
                        Answer::Unknown => {
                            *status = Status::Unknown;
                            self.cut.insert("the solver gave up on a condition".into());
                        }
                    }
                }
                None
            }
        }
    }

    /// Pops the deepest node, whose subtree is complete: stores its summary and carries its
    /// precondition and accesses up to its parent.
    fn complete(&mut self) {
        let Some(n) = self.stack.pop() else { return };
        if !self.opts.prune {
            return;
        }
        let wp = n.wp.clone().unwrap_or_else(|| Bool::from_bool(false));
        if n.is_checkpoint() {
            self.table.add(n.key, &wp, n.sleep0.clone(), &n.rw);
        }
        let (Some(trace), Some(names)) = (n.trace.as_ref(), n.names.as_ref()) else {
            return;
        };
        let Some(parent) = self.stack.last_mut() else {
            return;
        };
        parent.add_child(wp::transfer(trace, names, parent.pos, n.pos, &wp));
        let sliced = self.sliced(trace);
        let Some(parent) = self.stack.last_mut() else {
            return;
        };
        parent
            .rw
            .extend(edge_accesses(trace, names, parent.pos, n.pos, &sliced));
        parent
            .rw
            .extend(rename(&n.rw, trace, names, n.pos, parent.pos));
    }

    pub fn finish_result(mut self) -> SearchResult {
        self.out.solver = self.smt.stats.clone();
        self.out.summaries = self.table.keys() as u64;
        self.out.disjuncts = self.table.disjuncts;
        self.out.incomplete = self.cut.into_iter().collect();
        self.out.complete = self.out.incomplete.is_empty() && self.out.findings.is_empty();
        self.out.seconds = self.started.elapsed().as_secs_f64();
        self.out
    }
}

fn new_node(plan: &Plan, pos: usize, key: u64, sleep: &[Sleeper], kind: Kind) -> Node {
    Node {
        trace: None,
        names: None,
        inputs: plan.inputs.clone(),
        pos,
        key,
        sleep0: sleep.iter().map(|s| s.canonical.clone()).collect(),
        kind,
        wp: None,
        rw: BTreeSet::new(),
        closed: false,
    }
}

/// The event of the symbolic assumption that discarded `trace`, if one did: the inputs broke
/// it, and its other side (inputs that keep it) is another path. A failed assumption on a
/// symbolic condition ends the execution at once, so it is the last condition, with no step
/// after it.
fn violated_assumption(trace: &Trace, path: &PathCondition) -> Option<usize> {
    let last = path.conditions.iter().rfind(|c| c.symbolic())?;
    let after = &trace.events[last.event + 1..];
    (trace.verdict == Verdict::Discarded
        && last.role == Role::Assume
        && after.iter().all(|e| e.step.is_none()))
    .then_some(last.event)
}

/// Thread `thread`'s step at `pos` of `trace`, as a sleeper.
fn sleeper(trace: &Trace, pos: usize, thread: usize, sliced: &[bool]) -> Option<Sleeper> {
    let step = races::steps(trace, pos + 1, sliced)
        .pop()
        .filter(|s| s.pos == pos)?;
    if step.thread != thread {
        return None;
    }
    let known = (trace.events[..pos].iter())
        .flat_map(names::touched)
        .collect();
    Some(Sleeper {
        thread,
        canonical: Names::of(trace).thread[thread].clone(),
        access: step.access,
        known,
    })
}
