//! The path condition of one recorded execution: every condition the execution took as true
//! (branches as taken, assumptions, pinned escapes, assertions as they held), in the order the
//! events happened, as z3 terms over the test's symbolic inputs.
//!
//! The schedule is the one the execution ran: each read returns the value of the write it
//! read from in this execution (the latest write to its object before it; the object's
//! initial value when there is none), so a condition is a term over inputs only. Inputs are
//! named by their names (`any_named`'s, or `t<thread>#<k>`), which are the same in every
//! execution of the test, so the conditions of different executions speak of the same
//! variables. This is the concolic view (Godefroid, Klarlund, Sen, "DART", PLDI 2005): the
//! execution is concrete, its conditions are symbolic.

use std::collections::{BTreeSet, HashMap};

use symx::trace::format::{EventKind, Expr, ExprId, Location, Ty};
use symx::trace::Trace;
use z3::ast::{Bool, BV};

use super::dag;

/// Why a condition is on the path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An instrumented `if`, `while`, match guard, `&&`, `||` or `symx::branch`: the other
    /// side is another path.
    Branch,
    /// `symx::assume`: executions on the other side are discarded, never explored.
    Assume,
    /// A symbolic value became a plain one (`concrete()`, an index, a plain atomic read of a
    /// symbolic value): the rest of the execution ran with that one value. Other values
    /// would take paths the recorded program cannot show; a pin that depends on an input
    /// cuts the exploration.
    Pin,
    /// A recorded assertion (`symx::assert!` or an instrumented `assert!`): its failing side
    /// is a bug.
    Assertion,
    /// An operation on a symbolic operand that panics for some values (overflow, division by
    /// zero, a shift too far, an index out of bounds): its failing side is a bug.
    Check,
    /// A symbolic index chose an element of a collection: every other index in bounds is
    /// another path (one per element it can name).
    Element,
    /// One outcome of a choice whose outcomes each have a condition (which waiter a notify
    /// over symbolic queue names wakes, whether a lock of unknown state is taken): every
    /// other outcome is another path.
    Choice,
}

/// One condition of the path.
#[derive(Clone, Debug)]
pub struct Condition {
    /// The event's position in the trace.
    pub event: usize,
    pub role: Role,
    /// The condition as it held in this execution (a failed assertion: its negation).
    pub taken: Bool,
    /// The inputs it depends on; empty: it holds whatever the inputs (not a real choice).
    pub inputs: BTreeSet<String>,
    /// For an assertion or a check: whether it held.
    pub held: bool,
    /// For an element choice: `index == k` for every other index `k` in bounds; for a
    /// choice, the other outcomes' conditions.
    pub alternatives: Vec<Bool>,
    pub location: Option<Location>,
    /// Taken in the prefix of a recorded context, which runs once under a fixed schedule:
    /// its other side is not another path of the context.
    pub fixed: bool,
}

impl Condition {
    /// Whether the condition depends on an input at all.
    pub fn symbolic(&self) -> bool {
        !self.inputs.is_empty()
    }
}

/// The conditions of one execution, in event order, and its inputs.
pub struct PathCondition {
    pub conditions: Vec<Condition>,
    /// Every input the execution drew: name, type, value.
    pub inputs: Vec<(String, Ty, i128)>,
    /// For each generalised input whose recorded value the run computed from inputs (a
    /// checkpoint's capture): its name, that term, and the inputs the term depends on.
    pub computed: Vec<(String, BV, BTreeSet<String>)>,
}

/// The z3 variable that stands for the input called `name`.
pub fn input_var(name: &str, ty: Ty) -> BV {
    BV::new_const(format!("input:{name}"), ty.bits())
}

impl PathCondition {
    pub fn of(trace: &Trace) -> PathCondition {
        let names: Vec<&str> = trace.inputs.iter().map(|i| i.name.as_str()).collect();
        let sources = read_sources(trace);
        let terms = dag::translate_leaves(
            &trace.exprs,
            |i, ty| input_var(names[i as usize], ty),
            |var, done| match sources.get(&var) {
                Some(Source::Write(expr)) => done[*expr as usize].clone(),
                Some(Source::Initial(ty, value)) => dag::constant(*ty, *value),
                // A read whose source the trace does not show: any value.
                None => BV::new_const(format!("read:{var}"), read_ty(trace, var).bits()),
            },
        );
        let deps = input_deps(&trace.exprs, &sources);
        let prefix_end = prefix_end(trace);
        let mut conditions = Vec::new();
        for (event, ev) in trace.events.iter().enumerate() {
            let mut alternatives = Vec::new();
            let mut extra: Vec<ExprId> = Vec::new();
            let (role, expr, held) = if let Some(a) = &ev.assert {
                (Role::Assertion, a.cond, a.holds)
            } else if let Some(c) = &ev.check {
                (Role::Check, c.cond, c.holds)
            } else if let (Some(e), Some(g)) = (&ev.element, ev.guard) {
                let index = &terms[e.index as usize];
                alternatives = (0..e.len)
                    .filter(|&k| k != e.value)
                    .map(|k| index.eq(dag::constant(Ty::Usize, k as i128)))
                    .collect();
                (Role::Element, g, true)
            } else if let (Some(choice), Some(g)) = (&ev.choice, ev.guard) {
                alternatives = (choice.alternatives.iter())
                    .map(|&a| dag::holds(&terms[a as usize]))
                    .collect();
                extra = choice.alternatives.clone();
                (Role::Choice, g, true)
            } else if let Some(g) = ev.guard {
                (role_of(ev.kind), g, true)
            } else {
                continue;
            };
            let cond = dag::holds(&terms[expr as usize]);
            conditions.push(Condition {
                event,
                role,
                taken: if held { cond } else { cond.not() },
                inputs: (std::iter::once(expr).chain(extra))
                    .flat_map(|x| deps[x as usize].iter())
                    .map(|&i| names[i as usize].to_string())
                    .collect(),
                held,
                alternatives,
                location: ev.location.clone(),
                fixed: event < prefix_end,
            });
        }
        let inputs = trace
            .inputs
            .iter()
            .map(|i| (i.name.clone(), i.ty, i.value))
            .collect();
        let computed = (trace.inputs.iter())
            .filter_map(|i| {
                let e = i.computed?;
                let on = deps[e as usize]
                    .iter()
                    .map(|&k| names[k as usize].to_string());
                Some((i.name.clone(), terms[e as usize].clone(), on.collect()))
            })
            .collect();
        PathCondition {
            conditions,
            inputs,
            computed,
        }
    }
}

/// The position of the first event after a recorded context's prefix (the trace's length
/// when there is no prefix, 0 when the trace explores from no context).
fn prefix_end(trace: &Trace) -> usize {
    let Some(c) = &trace.context else {
        return 0;
    };
    (trace.events.iter())
        .position(|e| e.step.is_some_and(|s| s >= c.steps))
        .unwrap_or(trace.events.len())
}

fn role_of(kind: EventKind) -> Role {
    match kind {
        EventKind::Branch => Role::Branch,
        EventKind::Assume => Role::Assume,
        // `Pin` events, and plain-value reads (`read == value`).
        _ => Role::Pin,
    }
}

/// Where a read variable's value came from in this execution.
enum Source {
    /// The expression a write wrote.
    Write(ExprId),
    /// The object's value before the execution's first access.
    Initial(Ty, i128),
}

/// Each read variable's source: the latest write to its object before the read, in the order
/// the events happened (interleavings are sequentially consistent).
fn read_sources(trace: &Trace) -> HashMap<u32, Source> {
    let initial: HashMap<u32, (Ty, i128)> = trace
        .objects
        .iter()
        .filter_map(|o| o.initial.map(|i| (o.id, (i.ty, i.value))))
        .collect();
    let mut last: HashMap<u32, ExprId> = HashMap::new();
    let mut sources = HashMap::new();
    for ev in &trace.events {
        let Some(obj) = ev.obj else { continue };
        if let Some(r) = ev.read {
            let source = match last.get(&obj) {
                Some(&expr) => Some(Source::Write(expr)),
                None => initial.get(&obj).map(|&(ty, v)| Source::Initial(ty, v)),
            };
            if let Some(s) = source {
                sources.insert(r.var, s);
            }
        }
        if let Some(w) = ev.write {
            last.insert(obj, w.expr);
        }
    }
    sources
}

fn read_ty(trace: &Trace, var: u32) -> Ty {
    trace
        .events
        .iter()
        .find_map(|ev| ev.read.filter(|r| r.var == var).map(|r| r.ty))
        .unwrap_or(Ty::I128)
}

/// The inputs each node depends on, reads resolved to their sources.
fn input_deps(exprs: &[Expr], sources: &HashMap<u32, Source>) -> Vec<BTreeSet<u32>> {
    let mut deps: Vec<BTreeSet<u32>> = Vec::with_capacity(exprs.len());
    for node in exprs {
        let set = match *node {
            Expr::Const { .. } => BTreeSet::new(),
            Expr::Input { input, .. } => BTreeSet::from([input]),
            Expr::Read { var, .. } => match sources.get(&var) {
                Some(Source::Write(e)) => deps[*e as usize].clone(),
                _ => BTreeSet::new(),
            },
            // Computed nodes (arrays included) depend on what their operands depend on.
            _ => node
                .operands()
                .flat_map(|o| deps[o as usize].iter().copied())
                .collect(),
        };
        deps.push(set);
    }
    deps
}
