//! A test's program context under `cargo symx test`: for a `#[symx::test]` whose exploration
//! passed and used a context (`symx::context`, or a checkpoint it explores from), runs the
//! context engine (`engine::context`) in the test's mode with worker processes of the test,
//! and again in `naive` for the infeasible paths the mode avoids, and turns the result into
//! the report's records: a [`ContextReport`] and, for a bug, the test's failure with the
//! facts it depends on and whether it is confirmed.

use symx::__worker::protocol::Overrides;
use symx::context::{ContextMode, MODE_ENV};

use crate::config::Symbolic;
use crate::discover::TestCase;
use crate::engine::context::{self, ContextResult, FailedPath};
use crate::engine::symbolic;
use crate::report::outcome::{
    ContextFact, ContextFailure, ContextReport, Finding, GeneralisedValue, Outcome,
    RecordedContext, Status,
};
use crate::run::executor::WorkerExecutor;
use crate::run::symbolic::Bounds;

/// Failing paths listed in the report; the counts cover all of them.
const LISTED: usize = 10;

/// Explores the context of `case`, which ran in `mode`; records the result on `o`.
pub fn explore(
    case: &TestCase,
    mode: ContextMode,
    settings: &Symbolic,
    b: &Bounds,
    extra: &[String],
    o: &mut Outcome,
) {
    let opts = crate::run::symbolic::options(settings, b);
    // Every path is counted: each class's exploration goes on after a failure.
    let per_class = Overrides {
        keep_going: true,
        ..crate::run::symbolic::per_class(b)
    };
    let run = |case: &TestCase| {
        let mut executor = WorkerExecutor::new(case, extra, b.timeout).with_overrides(&per_class);
        context::explore(&mut executor, &opts)
    };
    let out = run(case);
    let naive = (mode != ContextMode::Naive).then(|| {
        let mut naive_case = case.clone();
        naive_case
            .env
            .push((MODE_ENV.into(), ContextMode::Naive.name().into()));
        run(&naive_case).completed
    });
    let report = report_of(mode, &out, naive, opts.max_branch_depth);
    if let Some(finding) = finding(&out) {
        o.status = Status::Failed;
        o.failure = Some(finding);
    }
    o.executions = Some(o.executions.unwrap_or(0) + report.executions);
    o.complete = Some(o.complete.unwrap_or(false) && report.complete);
    o.context = Some(report);
}

fn report_of(
    mode: ContextMode,
    out: &ContextResult,
    naive: Option<u64>,
    depth: Option<u32>,
) -> ContextReport {
    ContextReport {
        mode: mode.name().into(),
        paths: out.paths,
        completed: out.completed,
        failing: out.failures.len() as u64,
        confirmed: out.confirmed_failures() as u64,
        naive_completed: naive,
        infeasible_avoided: naive.map(|n| n.saturating_sub(out.completed)),
        executions: out.search.executions,
        solver_seconds: out.search.solver.time.as_secs_f64(),
        solver_share: out.solver_share(),
        max_branch_depth: depth,
        complete: out.search.complete,
        incomplete: out.search.incomplete.clone(),
        failures: out.failures.iter().take(LISTED).map(failure_of).collect(),
        seconds: out.search.seconds,
        recorded: out.recorded.as_ref().map(|r| RecordedContext {
            label: r.label.clone(),
            prefix_steps: r.steps,
            facts: r.facts.clone(),
        }),
    }
}

fn failure_of(f: &FailedPath) -> ContextFailure {
    ContextFailure {
        kind: f.kind.clone(),
        message: f.message.clone(),
        inputs: f.inputs.iter().cloned().collect(),
        facts: (f.facts.iter())
            .map(|u| ContextFact {
                family: u.fact.family.clone(),
                provenance: u.fact.provenance.clone(),
                text: u.fact.text.clone(),
            })
            .collect(),
        confirmed: f.confirmed(),
        generalised: (f.generalised.iter())
            .map(|g| GeneralisedValue {
                name: g.name.clone(),
                value: g.value,
                recorded: g.recorded,
            })
            .collect(),
        replay: f.confirmation.as_ref().map(|c| c.token.clone()),
    }
}

/// The test's failure: a confirmed one when there is one, each with the facts its path
/// depends on; one that needs generalised values says so.
fn finding(out: &ContextResult) -> Option<Finding> {
    let paired: Vec<_> = (out.search.findings.iter())
        .map(|f| (f, out.failures.iter().find(|p| same_run(p, f))))
        .collect();
    let (f, path) = (paired.iter())
        .find(|(_, p)| p.is_some_and(FailedPath::confirmed))
        .or_else(|| paired.first())?;
    let mut finding = Finding::from_report(f.failure.clone());
    finding.inputs = f.inputs.clone();
    let mut lines = vec![format!(
        "found by exploring the program context: {}",
        inputs_line(f)
    )];
    if let Some(p) = path {
        lines.extend(explain(p));
    }
    finding.details.splice(0..0, lines);
    Some(finding)
}

fn inputs_line(f: &symbolic::Finding) -> String {
    let pairs: Vec<String> = f.inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!("inputs: {}", pairs.join(", "))
}

/// A failing path and a finding are the same run: same kind, and the finding's inputs (the
/// ones the solver gave) are the path's.
fn same_run(p: &FailedPath, f: &symbolic::Finding) -> bool {
    p.kind == f.failure.kind
        && (f.inputs.iter()).all(|(k, v)| p.inputs.iter().any(|(n, w)| n == k && w == v))
}

/// The facts a failing path depends on, and what it needs of generalised values.
fn explain(p: &FailedPath) -> Vec<String> {
    let mut lines = Vec::new();
    if !p.facts.is_empty() {
        let facts: Vec<String> = (p.facts.iter())
            .map(|u| {
                format!(
                    "{} ({} {} fact)",
                    u.fact.text, u.fact.provenance, u.fact.family
                )
            })
            .collect();
        lines.push(format!("depends on: {}", facts.join("; ")));
    }
    if let Some(c) = &p.confirmation {
        let inputs: Vec<String> = (c.inputs.iter())
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        lines.push(format!(
            "confirmed from the program's start with {} (replay: {})",
            inputs.join(", "),
            c.token
        ));
    }
    if !p.confirmed() {
        let values: Vec<String> = (p.generalised.iter())
            .map(|g| format!("{} = {} (the run computed {})", g.name, g.value, g.recorded))
            .collect();
        lines.push(format!(
            "not confirmed: reachable only with generalised values the program did not compute \
             there: {}",
            values.join(", ")
        ));
    }
    lines
}
