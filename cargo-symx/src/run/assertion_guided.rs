//! The assertion-guided search under `cargo symx test`: for a `#[symx::test]` whose
//! exploration passed and that asked for it (attribute, configuration or flag), runs the
//! engine (`engine::assertion_guided`) through a session of the test's worker, and turns its
//! outcome into the report's records: a [`GuidedReport`] and, for a bug, the test's failure.
//! In audit mode it also runs the unpruned search and fails the test when the two disagree
//! on the verdict or on the failing sites.

use std::collections::BTreeSet;
use std::time::Duration;

use symx::__worker::protocol::Overrides;

use crate::config::Guided;
use crate::discover::TestCase;
use crate::engine::assertion_guided::{self, Options, SearchResult};
use crate::report::outcome::{Finding, GuidedAudit, GuidedReport, Outcome, Status};
use crate::run::executor::WorkerExecutor;

/// Whether the search runs on a test: the configuration's mode, or its attribute.
pub fn wanted(mode: Guided, attribute: bool) -> bool {
    match mode {
        Guided::On | Guided::Audit => true,
        Guided::Attribute => attribute,
        Guided::Off => false,
    }
}

/// Searches `case`; records the result on `o`.
pub fn search(
    case: &TestCase,
    mode: Guided,
    overrides: &Overrides,
    timeout: Duration,
    extra: &[String],
    o: &mut Outcome,
) {
    let audit = mode == Guided::Audit;
    let opts = Options {
        max_executions: overrides.max_executions,
        time_budget: overrides.time_budget_ms.map(Duration::from_millis),
        // An audit compares every failing site, so both searches go on after the first.
        keep_going: audit,
        ..Options::default()
    };
    let mut executor = WorkerExecutor::new(case, extra, timeout);
    let out = assertion_guided::explore(&mut executor, &opts);
    let mut report = report_of(&out);
    if audit {
        // The reference: DPOR alone, without the slice either.
        let unpruned = Options {
            prune: false,
            slice: false,
            ..opts.clone()
        };
        let base = assertion_guided::explore(&mut executor, &unpruned);
        let audit = compare(&out, &base);
        if !audit.agreed {
            o.status = Status::Failed;
            o.failure = Some(Finding::plain(
                "audit",
                format!(
                    "the assertion-guided audit found the pruned search ({}) and the unpruned \
                     one ({}) disagree: a soundness bug of symx, please report it",
                    describe(&audit.pruned_sites),
                    describe(&audit.unpruned_sites)
                ),
            ));
        }
        report.audit = Some(audit);
    }
    if o.failure.is_none() {
        if let Some(f) = out.findings.into_iter().next() {
            let mut finding = Finding::from_report(f.failure);
            finding.inputs = f.inputs;
            finding.details.insert(
                0,
                "found by the assertion-guided search of inputs and schedules".into(),
            );
            o.status = Status::Failed;
            o.failure = Some(finding);
        }
    }
    o.executions = Some(o.executions.unwrap_or(0) + report.executions);
    o.assertion_guided = Some(report);
}

fn report_of(out: &SearchResult) -> GuidedReport {
    GuidedReport {
        executions: out.executions,
        full: out.full,
        cut: out.cut,
        blocked: out.blocked,
        summaries: out.summaries,
        disjuncts: out.disjuncts,
        checks: out.checks,
        queries: out.solver.queries,
        solver_seconds: out.solver.time.as_secs_f64(),
        complete: out.complete,
        incomplete: out.incomplete.clone(),
        assertions_only: true,
        sliced: out.sliced.clone(),
        unsliced: out.unsliced.clone(),
        restarted_executions: out.restarted_executions,
        audit: None,
        seconds: out.seconds,
    }
}

/// The failing sites of a search: each finding's kind and location.
pub fn sites(out: &SearchResult) -> BTreeSet<String> {
    out.findings
        .iter()
        .map(|f| match &f.failure.location {
            Some(l) => format!("{} at {}:{}:{}", f.failure.kind, l.file, l.line, l.column),
            None => f.failure.kind.clone(),
        })
        .collect()
}

fn compare(pruned: &SearchResult, unpruned: &SearchResult) -> GuidedAudit {
    let (a, b) = (sites(pruned), sites(unpruned));
    let verdicts = pruned.findings.is_empty() == unpruned.findings.is_empty();
    GuidedAudit {
        executions: unpruned.executions,
        agreed: verdicts && a == b,
        pruned_sites: a.into_iter().collect(),
        unpruned_sites: b.into_iter().collect(),
    }
}

fn describe(sites: &[String]) -> String {
    if sites.is_empty() {
        "no failure".into()
    } else {
        sites.join(", ")
    }
}
