//! The rely-guarantee discharge of infeasible schedules (Bergan §3.8.1.3, automated as the
//! dissertation leaves for future work). A later epoch starts from havocked shared state
//! (`symx::covering::Havocked`: a semaphore's count, a queue's length), so its Σ may hold
//! schedules whose constraint needs a state no execution brings to that epoch (radix's
//! `sem_wait` that does not block). Such a constraint's part J that speaks only of the
//! havocked shared state is unreachable at the epoch's start E when every schedule ending at
//! E ends with ¬J: assume ¬J at E's start (E may loop back to itself), take each schedule
//! S_i into E under its own constraint, and ask z3 whether the shared state S_i leaves at the
//! boundary (the terms the run computed it by) can satisfy J. None can: J never holds at E's
//! start, and every pair of E whose constraint needs J is infeasible.
//!
//! The paper notes the argument is cheap because J depends only on synchronization state, so
//! schedules rather than paths are checked. Here each schedule's effect is read off one run:
//! the constrained run of its first way, let go on past the boundary until a thread touches
//! the shared state and records the value it had there. The proof is relative to the model
//! (havocked locals and shared state, the first way's other state): it shows the pair is
//! infeasible in that model, never that a feasible pair is.

use std::collections::BTreeMap;

use z3::ast::{Ast, Bool, BV};
use z3::DeclKind;

use super::{Enumeration, Executor};
use crate::solver::dag::constant;
use crate::solver::path::{input_var, PathCondition};
use crate::solver::smt::{Answer, Smt};

/// What the discharge says about one pair whose constraint speaks of havocked shared state.
#[derive(Clone, Debug)]
pub struct Discharged {
    /// The pair (an index into `Enumeration::pairs`).
    pub pair: usize,
    /// The part of its constraint proved unreachable at its epoch's start, in SMT-LIB;
    /// `None` when no part could be.
    pub unreachable: Option<String>,
}

/// Tries every pair of a later epoch whose constraint has a part over havocked shared state
/// (`<name>@<k>.s`) alone.
pub fn discharge(exec: &mut dyn Executor, e: &Enumeration) -> Vec<Discharged> {
    let mut smt = Smt::new(None);
    let mut ends: BTreeMap<usize, Option<BTreeMap<String, BV>>> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, pair) in e.pairs.iter().enumerate().filter(|(_, p)| p.epoch > 0) {
        let depth = e.epochs[pair.epoch].depth;
        let parts = shared_parts(&pair.constraint, depth);
        if parts.is_empty() {
            continue;
        }
        let into: Vec<usize> = (e.pairs.iter().enumerate())
            .filter(|(_, p)| p.next_epoch == Some(pair.epoch))
            .map(|(j, _)| j)
            .collect();
        for &j in &into {
            ends.entry(j).or_insert_with(|| end_state(exec, e, j));
        }
        let unreachable = parts.into_iter().find(|part| {
            into.iter().all(|&j| {
                let entering = e.pairs[j].epoch == pair.epoch;
                match &ends[&j] {
                    Some(end) => {
                        let into = &e.pairs[j].constraint;
                        ends_outside(&mut smt, e, into, entering, part, depth, end)
                    }
                    None => false,
                }
            })
        });
        out.push(Discharged {
            pair: i,
            unreachable: unreachable.map(|p| super::pairs::readable(&p.simplify())),
        });
    }
    out
}

/// The parts of `constraint` that speak only of the shared state havocked at boundary
/// `depth`: each such conjunct, and their conjunction when there are several.
fn shared_parts(constraint: &Bool, depth: u32) -> Vec<Bool> {
    let conjuncts: Vec<Bool> = match constraint.decl().kind() {
        DeclKind::And => (constraint.children().iter())
            .filter_map(|c| c.as_bool())
            .collect(),
        _ => vec![constraint.clone()],
    };
    let suffix = format!("@{depth}.s");
    let mut parts: Vec<Bool> = (conjuncts.into_iter())
        .filter(|c| {
            let names = input_names(c);
            !names.is_empty() && names.iter().all(|n| n.ends_with(&suffix))
        })
        .collect();
    if parts.len() > 1 {
        parts.push(Bool::and(&parts));
    }
    parts
}

/// The inputs a term mentions, by name.
fn input_names(b: &Bool) -> Vec<String> {
    let text = b.to_string();
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("|input:") {
        let after = &rest[at + "|input:".len()..];
        let end = after.find('|').unwrap_or(after.len());
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

/// Whether schedule `into` (constraint `constraint`), assuming ¬`part` at its start when it
/// runs in the epoch itself (`entering`), cannot leave the shared state `end` satisfying
/// `part`, which names it as havocked at boundary `depth`.
fn ends_outside(
    smt: &mut Smt,
    e: &Enumeration,
    constraint: &Bool,
    entering: bool,
    part: &Bool,
    depth: u32,
    end: &BTreeMap<String, BV>,
) -> bool {
    let mut swaps: Vec<(BV, BV)> = Vec::new();
    for name in input_names(part) {
        let base = name.trim_end_matches(&format!("@{depth}.s"));
        let (Some(value), Some(&ty)) = (end.get(base), e.inputs.get(&name)) else {
            return false;
        };
        swaps.push((input_var(&name, ty), value.clone()));
    }
    let refs: Vec<(&BV, &BV)> = swaps.iter().map(|(a, b)| (a, b)).collect();
    let mut query = vec![constraint.clone(), part.substitute(&refs)];
    if entering {
        query.push(part.not());
    }
    matches!(smt.check(&query), Answer::Unsat)
}

/// The shared state pair `j`'s schedule leaves at the boundary it ends at, by base name: the
/// term each cell's next havoc records as computed (or its value when constant), read off
/// the pair's first way run on past the boundary. `None` when the run could not be made.
fn end_state(exec: &mut dyn Executor, e: &Enumeration, j: usize) -> Option<BTreeMap<String, BV>> {
    let pair = &e.pairs[j];
    let ran = exec.run_constrained_past(&pair.chain(), &pair.model).ok()?;
    let boundary = format!("@{}.s", pair.before.len() + 1);
    let path = PathCondition::of(&ran.trace);
    let computed: BTreeMap<&str, &BV> = (path.computed.iter())
        .map(|(n, t, _)| (n.as_str(), t))
        .collect();
    let mut out = BTreeMap::new();
    for input in &ran.trace.inputs {
        let Some(base) = input.name.strip_suffix(&boundary) else {
            continue;
        };
        let value = match (computed.get(input.name.as_str()), input.recorded) {
            (Some(term), _) => (*term).clone(),
            (None, Some(v)) => constant(input.ty, v),
            (None, None) => continue,
        };
        out.insert(base.to_string(), value);
    }
    Some(out)
}
