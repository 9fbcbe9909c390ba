//! Checks of a trace: every reference points at something that exists, and every recorded
//! expression evaluates, under the recorded inputs and read values, to what the execution
//! observed. The second is the contract every engine builds on.

use super::format::{Expr, Trace, Ty};
use crate::sym::eval::eval_all;

/// Expressions refer only to earlier nodes, inputs and read variables that exist; events to
/// threads, objects and expressions that exist.
pub(super) fn references(t: &Trace) -> Result<(), String> {
    let reads: std::collections::HashSet<u32> = t
        .events
        .iter()
        .filter_map(|e| e.read.map(|r| r.var))
        .collect();
    for (i, node) in t.exprs.iter().enumerate() {
        match node {
            Expr::Input { input, .. } if *input as usize >= t.inputs.len() => {
                return Err(format!(
                    "expression {i} uses input {input}, which is not listed"
                ))
            }
            Expr::Read { var, .. } if !reads.contains(var) => {
                return Err(format!(
                    "expression {i} uses read variable {var}, which no event reads"
                ))
            }
            _ => {}
        }
        if let Some(bad) = node.operands().find(|&o| o as usize >= i) {
            return Err(format!(
                "expression {i} refers to expression {bad}, which is not before it"
            ));
        }
        array_operand(t, i, node)?;
    }
    let n_exprs = t.exprs.len() as u32;
    for ev in &t.events {
        let at = format!("event {} (thread {}, {:?})", ev.seq, ev.thread, ev.kind);
        if ev.thread >= t.threads.len() {
            return Err(format!(
                "{at} names thread {}, which is not listed",
                ev.thread
            ));
        }
        for obj in [ev.obj, ev.obj2].into_iter().flatten() {
            if obj as usize >= t.objects.len() {
                return Err(format!("{at} names object {obj}, which is not listed"));
            }
        }
        let exprs = [
            ev.guard,
            ev.write.map(|w| w.expr),
            ev.assert.as_ref().map(|a| a.cond),
            ev.check.map(|c| c.cond),
            ev.element.map(|i| i.index),
        ];
        let alternatives = ev
            .choice
            .iter()
            .flat_map(|c| c.alternatives.iter().copied());
        if let Some(x) = exprs
            .into_iter()
            .flatten()
            .chain(alternatives)
            .find(|&x| x >= n_exprs)
        {
            return Err(format!(
                "{at} refers to expression {x}, but there are {n_exprs}"
            ));
        }
    }
    Ok(())
}

/// A `select` or `store` reads an array node of its own element type; no other node uses an
/// array.
fn array_operand(t: &Trace, i: usize, node: &Expr) -> Result<(), String> {
    let array = match *node {
        Expr::Select { array, .. } | Expr::Store { array, .. } => Some(array),
        _ => None,
    };
    for o in node.operands() {
        let operand = &t.exprs[o as usize];
        let wanted = Some(o) == array;
        if wanted && (!operand.is_array() || operand.ty() != node.ty()) {
            return Err(format!(
                "expression {i} uses expression {o} as an array of its element type"
            ));
        }
        if !wanted && operand.is_array() {
            return Err(format!("expression {i} uses the array {o} as a value"));
        }
    }
    Ok(())
}

/// Evaluates the DAG once and compares every recorded value with it.
pub(super) fn values(t: &Trace) -> Result<(), String> {
    let reads: std::collections::HashMap<u32, u128> = t
        .events
        .iter()
        .filter_map(|e| e.read.map(|r| (r.var, r.ty.from_i128(r.value))))
        .collect();
    let vals = eval_all(
        &t.exprs,
        |i| {
            t.inputs
                .get(i as usize)
                .map(|inp| inp.ty.from_i128(inp.value))
        },
        |v| reads.get(&v).copied(),
    )
    .map_err(|e| format!("the expressions do not evaluate: {e}"))?;
    reads_from(t)?;
    for ev in &t.events {
        let at = || format!("event {} (thread {}, {:?})", ev.seq, ev.thread, ev.kind);
        if let Some(w) = ev.write {
            let got = vals[w.expr as usize];
            if got != w.ty.from_i128(w.value) {
                return Err(format!(
                    "{}: wrote {} but its expression evaluates to {}",
                    at(),
                    w.value,
                    w.ty.to_i128(got)
                ));
            }
        }
        if let Some(g) = ev.guard {
            if vals[g as usize] != 1 || t.exprs[g as usize].ty() != Ty::Bool {
                return Err(format!(
                    "{}: its guard (expression {g}) does not hold",
                    at()
                ));
            }
        }
        if let Some(c) = ev.check {
            if (vals[c.cond as usize] == 1) != c.holds {
                return Err(format!(
                    "{}: the check of `{:?}` is recorded as {} but evaluates otherwise",
                    at(),
                    c.op,
                    if c.holds { "holding" } else { "failing" }
                ));
            }
        }
        if let Some(i) = ev.element {
            if vals[i.index as usize] != i.value as u128 || i.value >= i.len {
                return Err(format!(
                    "{}: the index is recorded as {} of {} but evaluates to {}",
                    at(),
                    i.value,
                    i.len,
                    vals[i.index as usize]
                ));
            }
        }
        if let Some(c) = &ev.choice {
            if c.alternatives.iter().any(|&x| vals[x as usize] == 1) {
                return Err(format!(
                    "{}: an outcome of the choice not taken evaluates as holding",
                    at()
                ));
            }
        }
        if let Some(a) = &ev.assert {
            if (vals[a.cond as usize] == 1) != a.holds {
                return Err(format!(
                    "{}: the assertion `{}` is recorded as {} but evaluates otherwise",
                    at(),
                    a.text,
                    if a.holds { "holding" } else { "failing" }
                ));
            }
        }
    }
    Ok(())
}

/// Interleavings are sequentially consistent: every read returns the latest write to its
/// object before it in the trace, or the object's initial value.
fn reads_from(t: &Trace) -> Result<(), String> {
    let mut current: std::collections::HashMap<u32, i128> = t
        .objects
        .iter()
        .filter_map(|o| o.initial.map(|i| (o.id, i.value)))
        .collect();
    for ev in &t.events {
        let Some(obj) = ev.obj else { continue };
        if let (Some(r), Some(&expected)) = (ev.read, current.get(&obj)) {
            if r.value != expected {
                return Err(format!(
                    "event {} (thread {}, {:?}) read {} from object {obj}, whose value was {expected}",
                    ev.seq, ev.thread, ev.kind, r.value
                ));
            }
        }
        if let Some(w) = ev.write {
            current.insert(obj, w.value);
        }
    }
    Ok(())
}
