//! Counting what the explored paths of a context did: distinct paths, completed ones, the
//! outcomes at each decision site, each path's outcome vector, and for each failing path the
//! facts it depends on.
//!
//! A failing path is *confirmed* when it ran with every generalised value (a checkpoint's
//! capture made symbolic, `symx::checkpoint!`) equal to the one its own run from the
//! program's start computed: it is then a run of the program, and its replay token replays
//! it. Otherwise it is reachable only under generalised values, which the run that reached
//! the checkpoint did not produce: a likely, not a confirmed, failure, unless a search over
//! the prefix's inputs finds a run from the start that fails the same way (`confirm`).
//!
//! A failure depends on a fact when the fact shares an input with a condition the failing
//! path took, directly or through other conditions (the slice the symbolic search sends to
//! the solver for a side): dropping any other fact leaves the path's feasibility unchanged.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashSet};
use std::hash::{Hash, Hasher};

use symx::trace::format::{FactRecord, Location, Verdict};
use symx::trace::Trace;

use super::ContextResult;
use crate::engine::symbolic::term_key;
use crate::solver::path::{PathCondition, Role};

/// A fact a failing path depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactUse {
    pub fact: FactRecord,
    pub location: Option<Location>,
}

/// A completed path that failed.
#[derive(Clone, Debug)]
pub struct FailedPath {
    /// `panic`, `deadlock`, ... (the trace's verdict).
    pub kind: String,
    pub message: String,
    /// The inputs it ran with.
    pub inputs: Vec<(String, i128)>,
    /// The facts it depends on, in path order.
    pub facts: Vec<FactUse>,
    /// The generalised inputs whose value is not the one the run computed at the checkpoint:
    /// the failure is confirmed only when there are none, or by a run from the start.
    pub generalised: Vec<Generalised>,
    /// A run from the program's start, with other inputs before the checkpoint, that computes
    /// those values and fails the same way.
    pub confirmation: Option<Confirmation>,
    /// The failing trace's position among the traces the search ran.
    pub trace: usize,
}

impl FailedPath {
    /// Whether the failing path is a run of the program as it is (no generalised value
    /// differs from the computed one), or one was found that fails the same way.
    pub fn confirmed(&self) -> bool {
        self.generalised.is_empty() || self.confirmation.is_some()
    }
}

/// A generalised input that ran with another value than the computed one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generalised {
    pub name: String,
    pub value: i128,
    /// The value the run from the program's start computed at the checkpoint.
    pub recorded: i128,
}

/// The generalised inputs of `trace` that differ from their computed values.
fn generalised(trace: &Trace) -> Vec<Generalised> {
    (trace.inputs.iter())
        .filter_map(|i| {
            let recorded = i.recorded?;
            (recorded != i.value).then(|| Generalised {
                name: i.name.clone(),
                value: i.value,
                recorded,
            })
        })
        .collect()
}

/// The counts over every trace the search ran.
pub fn count(traces: &[Trace]) -> ContextResult {
    let mut out = ContextResult::default();
    let mut seen: HashSet<u64> = HashSet::new();
    for (index, trace) in traces.iter().enumerate() {
        let path = PathCondition::of(trace);
        if !seen.insert(path_key(trace, &path)) {
            continue;
        }
        out.paths += 1;
        let kind = match &trace.verdict {
            Verdict::Discarded => continue,
            Verdict::Pass => None,
            Verdict::Fail { kind, message } => Some((kind.clone(), message.clone())),
        };
        out.completed += 1;
        let vector = decisions(trace);
        for (site, outcome) in &vector {
            out.outcomes
                .entry(site.clone())
                .or_default()
                .insert(outcome.clone());
        }
        out.vectors.insert(vector);
        if let Some((kind, message)) = kind {
            out.failures.push(FailedPath {
                kind,
                message,
                inputs: trace
                    .inputs
                    .iter()
                    .map(|i| (i.name.clone(), i.value))
                    .collect(),
                facts: facts_used(trace, &path),
                generalised: generalised(trace),
                confirmation: None,
                trace: index,
            });
        }
    }
    out
}

/// A path's identity: its schedule and the conditions it took.
fn path_key(trace: &Trace, path: &PathCondition) -> u64 {
    let mut h = DefaultHasher::new();
    for e in trace.events.iter().filter(|e| e.step.is_some()) {
        e.thread.hash(&mut h);
    }
    for c in path.conditions.iter().filter(|c| c.symbolic()) {
        term_key(&c.taken).hash(&mut h);
    }
    h.finish()
}

/// The context objects' decisions of a trace, in order: (site, outcome).
fn decisions(trace: &Trace) -> Vec<(String, String)> {
    (trace.events.iter())
        .filter_map(|e| {
            let choice = e.choice.as_ref()?;
            Some((site(&e.location), choice.outcome.clone()))
        })
        .collect()
}

fn site(location: &Option<Location>) -> String {
    match location {
        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
        None => "?".into(),
    }
}

/// The facts on `path` that share inputs, transitively, with a condition it took that is
/// not a fact.
fn facts_used(trace: &Trace, path: &PathCondition) -> Vec<FactUse> {
    let is_fact = |event: usize| trace.events[event].fact.is_some();
    let mut vars: BTreeSet<&str> = (path.conditions.iter())
        .filter(|c| !is_fact(c.event) && c.role != Role::Assume)
        .flat_map(|c| c.inputs.iter().map(String::as_str))
        .collect();
    let facts: Vec<_> = path
        .conditions
        .iter()
        .filter(|c| is_fact(c.event))
        .collect();
    let mut used = vec![false; facts.len()];
    loop {
        let mut grew = false;
        for (i, f) in facts.iter().enumerate() {
            if !used[i] && f.inputs.iter().any(|v| vars.contains(v.as_str())) {
                used[i] = true;
                vars.extend(f.inputs.iter().map(String::as_str));
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    (facts.iter().zip(&used))
        .filter(|(_, &u)| u)
        .map(|(f, _)| FactUse {
            fact: trace.events[f.event].fact.clone().expect("a fact"),
            location: f.location.clone(),
        })
        .collect()
}

/// How a failure that needed generalised values was confirmed from the program's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// The inputs of the run from the program's start (generalised ones at their computed
    /// values, so not among them).
    pub inputs: Vec<(String, i128)>,
    /// That run's replay token.
    pub token: String,
}
