//! The symbolic exploration under `cargo symx test`: for a `#[symx::test]` whose exploration
//! passed and drew symbolic inputs, runs the engine (`engine::symbolic`) with worker processes
//! of the test, and turns its outcome into the report's records: a [`SymbolicReport`] and, for
//! a bug, the test's failure with the inputs it needs.

use std::time::Duration;

use symx::__worker::protocol::Overrides;

use crate::config::Symbolic;
use crate::discover::TestCase;
use crate::engine::symbolic::{self, Options};
use crate::report::outcome::{Finding, Outcome, PinReport, Status, SymbolicReport};
use crate::run::executor::WorkerExecutor;

/// What the test's settings say about the whole search.
pub struct Bounds<'a> {
    pub overrides: &'a Overrides,
    /// The test attribute's `max_branch_depth` (the configuration's wins).
    pub attribute_depth: Option<u32>,
    pub timeout: Duration,
}

/// The search's options: the configuration's depth over the attribute's, the test's bounds
/// on the whole search.
pub fn options(settings: &Symbolic, b: &Bounds) -> Options {
    Options {
        max_branch_depth: settings.max_branch_depth.or(b.attribute_depth),
        max_executions: b.overrides.max_executions,
        time_budget: b.overrides.time_budget_ms.map(Duration::from_millis),
        ..Options::default()
    }
}

/// What each class's exploration obeys: the test's own bounds; the search's totals are
/// checked between classes.
pub fn per_class(b: &Bounds) -> Overrides {
    Overrides {
        max_executions: None,
        time_budget_ms: None,
        ..b.overrides.clone()
    }
}

/// Explores `case`'s input classes; records the result on `o`.
pub fn explore(
    case: &TestCase,
    settings: &Symbolic,
    b: &Bounds,
    extra: &[String],
    o: &mut Outcome,
) {
    let opts = options(settings, b);
    let per_class = per_class(b);
    let mut executor = WorkerExecutor::new(case, extra, b.timeout).with_overrides(&per_class);
    let out = symbolic::explore(&mut executor, &opts);
    let report = SymbolicReport {
        classes: out.classes,
        executions: out.executions,
        sides_covered: out.sides_covered,
        sides_feasible: out.sides_feasible,
        queries: out.solver.queries,
        cache_hits: out.solver.cache_hits,
        unknown: out.solver.unknown,
        solver_seconds: out.solver.time.as_secs_f64(),
        unconfirmed: out.unconfirmed,
        complete: out.complete,
        incomplete: out.incomplete.clone(),
        pins: out
            .pins
            .iter()
            .map(|p| PinReport {
                location: p
                    .location
                    .as_ref()
                    .map(|l| symx::__worker::protocol::Location {
                        file: l.file.to_string(),
                        line: l.line,
                        column: l.column,
                    }),
                executions: p.count,
            })
            .collect(),
        max_branch_depth: opts.max_branch_depth,
        seconds: out.seconds,
    };
    if let Some(f) = out.findings.into_iter().next() {
        let mut finding = Finding::from_report(f.failure);
        finding.inputs = f.inputs;
        let how = f.solved.unwrap_or_else(|| {
            "found by exploring the schedules of an input class the solver chose (symbolic \
             exploration)"
                .into()
        });
        let inputs: Vec<String> = finding
            .inputs
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        finding
            .details
            .insert(0, format!("{how}; inputs: {}", inputs.join(", ")));
        o.status = Status::Failed;
        o.failure = Some(finding);
    }
    o.executions = Some(o.executions.unwrap_or(0) + report.executions);
    o.complete = Some(o.complete.unwrap_or(false) && report.complete);
    o.symbolic = Some(report);
}
