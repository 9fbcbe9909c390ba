//! How the human report shows the exploration of a program context: one line per test that
//! used one (its mode, paths explored and completed, failing paths and how many are
//! confirmed, the infeasible paths avoided against the naive initial state, the solver's
//! share of the time, and the branch-depth bound), then what kept it from being complete.

use std::fmt::Write as _;

use crate::report::outcome::{ContextReport, Outcome};

/// The lines for every test explored from its context.
pub fn lines(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        if let Some(c) = &o.context {
            let _ = writeln!(
                out,
                "context: {}::{} {}: {}",
                o.package,
                o.target,
                o.name,
                line(c)
            );
            if let Some(r) = &c.recorded {
                let _ = writeln!(
                    out,
                    "  recorded context `{}` after a prefix of {} steps: {}",
                    r.label,
                    r.prefix_steps,
                    r.facts.join("; ")
                );
            }
            for why in &c.incomplete {
                let _ = writeln!(out, "  not complete: {why}");
            }
        }
    }
    out
}

fn line(c: &ContextReport) -> String {
    let avoided = match (c.naive_completed, c.infeasible_avoided) {
        (Some(n), Some(a)) => format!(", {a} infeasible paths avoided (naive completes {n})"),
        _ => String::new(),
    };
    let bound = c
        .max_branch_depth
        .map_or(String::new(), |d| format!(", max_branch_depth {d}"));
    let verdict = if c.complete {
        "complete"
    } else {
        "not complete"
    };
    format!(
        "mode {}, {} paths ({} completed, {} failing, {} confirmed){avoided}, solver {:.0}% of \
         {:.2}s{bound}, {verdict}",
        c.mode,
        c.paths,
        c.completed,
        c.failing,
        c.confirmed,
        c.solver_share * 100.0,
        c.seconds
    )
}
