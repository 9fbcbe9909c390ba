//! How the human report shows the assertion-guided search: one line per test it ran on
//! (executions in full and cut short, summaries, solver work, whether it is complete), that
//! it prunes for assertions only, and the audit's comparison when there was one.

use std::fmt::Write as _;

use crate::report::outcome::{GuidedReport, Outcome};

/// The lines for every test the assertion-guided search ran on.
pub fn lines(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let Some(g) = &o.assertion_guided else {
            continue;
        };
        let _ = writeln!(
            out,
            "assertion-guided: {}::{} {}: {}",
            o.package,
            o.target,
            o.name,
            line(g)
        );
        for why in &g.incomplete {
            let _ = writeln!(out, "  not complete: {why}");
        }
        if !g.sliced.is_empty() {
            let _ = writeln!(
                out,
                "  sliced: the objects created at {} were only accessed blindly (results \
                 dropped): their accesses raced with nothing",
                g.sliced.join(", ")
            );
        }
        if !g.unsliced.is_empty() {
            let _ = writeln!(
                out,
                "  not sliced: an execution read the objects created at {}; the search started \
                 again without them ({} executions given up)",
                g.unsliced.join(", "),
                g.restarted_executions
            );
        }
        let _ = writeln!(
            out,
            "  pruned for assertions only: a deadlock or a data race below a pruned state was \
             not searched (run without --assertion-guided for those)"
        );
        if let Some(a) = &g.audit {
            let verdict = if a.agreed {
                "the same verdict and failing sites"
            } else {
                "DIFFERENT verdicts or failing sites"
            };
            let _ = writeln!(
                out,
                "  audit: unpruned search {} executions: {verdict} (pruned: [{}], unpruned: [{}])",
                a.executions,
                a.pruned_sites.join(", "),
                a.unpruned_sites.join(", ")
            );
        }
    }
    out
}

fn line(g: &GuidedReport) -> String {
    let verdict = if g.complete {
        "complete: every input and schedule within the bounds explored or proved unable to \
         fail an assertion, under sequential consistency"
    } else {
        "not complete"
    };
    format!(
        "{} executions ({} in full, {} cut short by a summary, {} asleep), {} summaries, {} \
         pruning checks, {} solver queries ({:.2}s in the solver), {verdict}",
        g.executions, g.full, g.cut, g.blocked, g.summaries, g.checks, g.queries, g.solver_seconds
    )
}
