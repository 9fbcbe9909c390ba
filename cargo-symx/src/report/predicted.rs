//! How the human report shows the predictive checks: the mark on a predicted failure, the
//! unconfirmed predictions (`--verbose`), and one line of totals. Plain text, no colour.

use std::fmt::Write as _;

use crate::report::outcome::{Outcome, Unconfirmed};

/// Said of every failure the predictive checks found (in every format).
pub const MARK: &str = "predicted from a passing run, confirmed by replaying the predicted \
                        interleaving";

/// With `--verbose`: every prediction that was not confirmed, per test.
pub fn unconfirmed(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let Some(p) = &o.predict else { continue };
        let unconfirmed = "not bugs: the replay did not fail so; a defect of symx, or \
                           nondeterminism it does not control";
        list(
            &mut out,
            o,
            "unconfirmed",
            unconfirmed,
            &p.unconfirmed_details,
        );
        let off = "the replay failed elsewhere, in code a flipped branch reached and the trace \
                   does not have";
        list(&mut out, o, "off-trace", off, &p.off_trace_details);
        let otherwise = "the replay failed another way, reported as a bug of its own";
        list(
            &mut out,
            o,
            "failed-otherwise",
            otherwise,
            &p.failed_otherwise_details,
        );
    }
    out
}

fn list(out: &mut String, o: &Outcome, what: &str, why: &str, items: &[Unconfirmed]) {
    if items.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{what} predictions of {} ({why}):", o.id());
    for u in items {
        let _ = writeln!(out, "  - {}", u.description);
        let _ = writeln!(out, "    schedule {:?}: {}", u.schedule, u.reason);
    }
}

/// `predict: 2 traces, 7 candidates, 9 queries (0.04s in the solver), 1 confirmed, ...`, when
/// the checks ran on any test, then a line for each test that had nothing to analyse.
pub fn totals(outcomes: &[Outcome]) -> Option<String> {
    let reports: Vec<_> = outcomes.iter().filter_map(|o| o.predict.as_ref()).collect();
    if reports.is_empty() {
        return None;
    }
    let sum = |f: fn(&crate::report::outcome::PredictReport) -> usize| -> usize {
        reports.iter().map(|r| f(r)).sum()
    };
    // An empty float sum is -0.0: `+ 0.0` makes "0.00s", not "-0.00s".
    let seconds = reports.iter().flat_map(|r| &r.query_seconds).sum::<f64>() + 0.0;
    let unconfirmed = sum(|r| r.unconfirmed);
    let shown = reports.iter().any(|r| !r.unconfirmed_details.is_empty());
    let mut line = format!(
        "predict: {} traces, {} candidates, {} queries ({seconds:.2}s in the solver), {} \
         confirmed, {unconfirmed} unconfirmed",
        sum(|r| r.traces),
        sum(|r| r.candidates),
        sum(|r| r.queries),
        sum(|r| r.confirmed),
    );
    if unconfirmed > 0 && !shown {
        line.push_str(" (not bugs; --verbose shows them)");
    }
    for (n, what) in [
        (
            sum(|r| r.proved_for_all_interleavings),
            "proved for all interleavings",
        ),
        (sum(|r| r.inconclusive), "inconclusive"),
        (sum(|r| r.off_trace), "off the trace"),
        (sum(|r| r.failed_otherwise), "failed otherwise"),
        (sum(|r| r.refined), "refined"),
    ] {
        if n > 0 {
            let _ = write!(line, ", {n} {what}");
        }
    }
    for o in outcomes {
        if let Some(note) = nothing_to_analyse(o) {
            let _ = write!(line, "\n{note}");
        }
    }
    Some(line)
}

/// `predict: p::t name: nothing to analyse in its 1 trace: ...`: a test whose traces held no
/// candidate at all, so that `0 candidates` is not read as a proof.
fn nothing_to_analyse(o: &Outcome) -> Option<String> {
    let p = o.predict.as_ref().filter(|p| p.candidates == 0)?;
    let traces = if p.traces == 1 {
        "its trace".to_string()
    } else {
        format!("its {} traces", p.traces)
    };
    Some(format!(
        "predict: {}: nothing to analyse in {traces} (0 candidates): it recorded no assertion \
         that held, no conflicting accesses of two threads, no lock taken while holding \
         another and no atomic region",
        o.id()
    ))
}
