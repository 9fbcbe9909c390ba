//! Confirming a failure that needs generalised values: a search over the prefix's inputs.
//!
//! A failing path that gave a generalised capture another value than the one the run computed
//! is reachable from the generalised context, not necessarily from the program's start. The
//! run computed the capture by a term over the inputs it drew before the checkpoint (the
//! trace's `computed`); if inputs exist under which that term equals the value the failure
//! needs, while the prefix takes the same conditions (so it runs the same fixed schedule),
//! the program is run from its start with them, the generalised inputs left to their computed
//! values, along the failing path's schedule. A failure there is a run of the program as it
//! is: the failure is confirmed, with that run's replay token. Otherwise it stays labelled as
//! depending on generalised values, never reported as a confirmed bug.

use std::collections::BTreeMap;

use symx::trace::format::{Trace, Ty};
use symx::{Guide, InputValues};

use super::paths::{Confirmation, FailedPath};
use crate::engine::Executor;
use crate::solver::dag;
use crate::solver::model::model_inputs;
use crate::solver::path::PathCondition;
use crate::solver::smt::{Answer, Smt};

/// Tries to confirm every failure of `failures` that needs generalised values; `traces` are
/// the traces the failures index.
pub fn confirm_all(
    executor: &mut dyn Executor,
    smt: &mut Smt,
    traces: &[Trace],
    failures: &mut [FailedPath],
) -> u64 {
    let mut runs = 0;
    for f in failures.iter_mut().filter(|f| !f.generalised.is_empty()) {
        let trace = &traces[f.trace];
        let Some(inputs) = prefix_inputs(smt, trace, f) else {
            continue;
        };
        runs += 1;
        f.confirmation = run_from_start(executor, trace, f, inputs);
    }
    runs
}

/// Inputs under which the prefix takes the conditions it took and computes every value the
/// failure gave a generalised input; `None` if some value was computed from no input or no
/// such inputs exist.
fn prefix_inputs(smt: &mut Smt, trace: &Trace, f: &FailedPath) -> Option<InputValues> {
    let path = PathCondition::of(trace);
    let mut conjuncts: Vec<_> = (path.conditions.iter())
        .filter(|c| c.fixed)
        .map(|c| c.taken.clone())
        .collect();
    let mut decided = BTreeMap::new();
    for g in &f.generalised {
        let (_, term, on) = path.computed.iter().find(|(n, _, _)| *n == g.name)?;
        let ty = input_ty(&path, &g.name);
        conjuncts.push(term.eq(dag::constant(ty, g.value)));
        for name in on {
            decided.insert(
                name.clone(),
                (input_ty(&path, name), input_value(&path, name)),
            );
        }
    }
    let Answer::Sat(model) = smt.check(&conjuncts) else {
        return None;
    };
    let generalised: Vec<&str> = f.generalised.iter().map(|g| g.name.as_str()).collect();
    let mut inputs: InputValues = (path.inputs.iter())
        .filter(|(name, _, _)| !generalised.contains(&name.as_str()))
        .map(|(name, _, value)| (name.clone(), *value))
        .collect();
    inputs.extend(model_inputs(&model, &decided));
    Some(inputs)
}

/// Runs the failing path's schedule from the program's start with `inputs`: a confirmation
/// when it fails the same way with every generalised value the computed one.
fn run_from_start(
    executor: &mut dyn Executor,
    trace: &Trace,
    f: &FailedPath,
    inputs: InputValues,
) -> Option<Confirmation> {
    let guide = Guide {
        steps: (trace.events.iter())
            .filter(|e| e.step.is_some())
            .map(|e| e.thread)
            .collect(),
        choices: Vec::new(),
        inputs: inputs.clone(),
    };
    let ran = executor.run(&guide).ok()?;
    let failure = ran.failure?;
    let as_computed = (ran.trace.inputs.iter()).all(|i| i.recorded.is_none_or(|r| r == i.value));
    (failure.kind == f.kind && as_computed).then(|| Confirmation {
        inputs: inputs.into_iter().collect(),
        token: failure.token,
    })
}

fn input_ty(path: &PathCondition, name: &str) -> Ty {
    (path.inputs.iter())
        .find(|(n, _, _)| n == name)
        .map_or(Ty::I128, |(_, ty, _)| *ty)
}

fn input_value(path: &PathCondition, name: &str) -> i128 {
    (path.inputs.iter())
        .find(|(n, _, _)| n == name)
        .map_or(0, |(_, _, v)| *v)
}
