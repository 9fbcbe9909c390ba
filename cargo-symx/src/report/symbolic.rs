//! How the human report shows the symbolic exploration: one line per test that drew
//! symbolic inputs (classes, executions, branch sides, solver work, and whether every input
//! class was explored), then what kept it from being complete, with each pin's location.

use std::fmt::Write as _;

use crate::report::outcome::{Finding, Outcome, SymbolicReport};

/// The finding's inputs, `name = value, ...`; `None` when it has none.
pub fn inputs(f: &Finding) -> Option<String> {
    if f.inputs.is_empty() {
        return None;
    }
    let pairs: Vec<String> = f.inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    Some(pairs.join(", "))
}

/// The lines for every test the symbolic exploration ran on.
pub fn lines(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        if let Some(s) = &o.symbolic {
            let _ = writeln!(
                out,
                "symbolic: {}::{} {}: {}",
                o.package,
                o.target,
                o.name,
                line(s)
            );
            for why in &s.incomplete {
                let _ = writeln!(out, "  not complete: {why}");
            }
            for p in &s.pins {
                let at = p
                    .location
                    .as_ref()
                    .map_or("an unknown location".into(), |l| l.to_string());
                let _ = writeln!(
                    out,
                    "  pinned at {at} ({} executions): the value depends on an input and was \
                     made concrete; other values were not explored",
                    p.executions
                );
            }
        }
    }
    out
}

fn line(s: &SymbolicReport) -> String {
    let verdict = if s.complete {
        "complete: every input class and schedule within the bounds, under sequential \
         consistency"
    } else {
        "not complete"
    };
    format!(
        "{} input classes, {} executions, branch sides {}/{} covered, {} solver queries \
         ({:.2}s in the solver), {verdict}",
        s.classes, s.executions, s.sides_covered, s.sides_feasible, s.queries, s.solver_seconds
    )
}
