//! The predictive checks under `cargo symx`: runs the engine (`predict`) on recorded traces of
//! one test, replays each witness in a fresh worker process of that test (`run_one`), and turns
//! the engine's outcome into the report's records: a [`PredictReport`] and, for each confirmed
//! prediction, a [`Finding`] marked `predicted`. Shared by `cargo symx test --predict` and
//! `cargo symx predict`. It owns no judgement beyond "a confirmed prediction is a bug"; what
//! counts as confirmed is the engine's `confirm`.

use std::collections::HashSet;
use std::time::Duration;

use symx::__worker::protocol::Request;
use symx::trace::Trace;

use crate::config;
use crate::discover::TestCase;
use crate::engine::predict::{self, Model, Options, Prediction};
use crate::engine::Executor;
use crate::report::kind::DriverKind;
use crate::report::outcome::{Finding, Outcome, PredictReport, Status, Unconfirmed};
use crate::run::executor::WorkerExecutor;
use crate::worker_process;

/// The engine's options for the configured checks.
pub fn options(p: &config::Predict) -> Options {
    let has = |name: &str| p.properties.iter().any(|q| q == name);
    Options {
        model: match p.model.as_str() {
            "mcm" => Model::Mcm,
            "values" => Model::ValuesPreserved,
            _ => Model::Ctp,
        },
        bound: p.bound,
        assertions: has("assert"),
        races: has("race"),
        deadlocks: has("deadlock"),
        atomicity: has("atomicity"),
        lock_claims: has("lock-claim"),
        ..Options::default()
    }
}

/// Runs the engine on `traces` (of executions 1, 2, ... of `case`) and confirms every
/// prediction by running its schedule in a worker process of `case`.
pub fn analyse(
    case: &TestCase,
    traces: &[Trace],
    p: &config::Predict,
    extra: &[String],
    timeout: Duration,
) -> PredictReport {
    let started = std::time::Instant::now();
    let opts = options(p);
    let mut report = PredictReport {
        model: p.model.clone(),
        bound: p.bound,
        properties: p.properties.clone(),
        ..PredictReport::default()
    };
    // The same bug predicted from several traces is one bug.
    let mut seen = HashSet::new();
    // One session of the test serves every replay.
    let mut executor = WorkerExecutor::new(case, extra, timeout);
    for (i, trace) in traces.iter().enumerate() {
        if worker_process::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        let out = predict::predict(trace, &opts, |guide| executor.run(guide));
        report.traces += 1;
        report.candidates += out.candidates;
        report.queries += out.solve_times.len();
        report
            .query_seconds
            .extend(out.solve_times.iter().map(Duration::as_secs_f64));
        report.refined += out.refined;
        report.inconclusive += out.inconclusive;
        report.proved_for_all_interleavings += out.proved_unbounded;
        report.unconfirmed += out.unconfirmed.len();
        report.off_trace += out.off_trace.len();
        report.failed_otherwise += out.failed_otherwise.len();
        if p.verbose {
            report.unconfirmed_details.extend(details(&out.unconfirmed));
            report.off_trace_details.extend(details(&out.off_trace));
            report
                .failed_otherwise_details
                .extend(details(&out.failed_otherwise));
        }
        for pr in &out.confirmed {
            if seen.insert(pr.description.clone()) {
                let f = finding(case, pr, extra, timeout);
                report.findings.push(predicted(f, pr, i + 1, &p.model));
                report.confirmed += 1;
            }
        }
        let other = [(&out.off_trace, true), (&out.failed_otherwise, false)];
        for (pr, off_trace) in other
            .into_iter()
            .flat_map(|(l, o)| l.iter().map(move |(p, _)| (p, o)))
        {
            let failure = pr.replayed.as_ref().and_then(|r| r.failure.clone());
            if let Some(f) = failure.filter(|f| seen.insert(f.message.clone())) {
                report
                    .findings
                    .push(found_otherwise(f, pr, i + 1, off_trace));
            }
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// Predictions that were not confirmed, with the reason, for `--verbose`.
fn details(predictions: &[(Prediction, String)]) -> impl Iterator<Item = Unconfirmed> + '_ {
    predictions.iter().map(|(pr, why)| Unconfirmed {
        description: pr.description.clone(),
        reason: why.clone(),
        schedule: pr.witness.guide.steps.clone(),
    })
}

/// Records `report` on the test's outcome: a confirmed prediction fails a test whose
/// exploration passed.
pub fn apply(o: &mut Outcome, report: PredictReport) {
    if o.status == Status::Passed {
        if let Some(f) = report.findings.first() {
            o.status = Status::Failed;
            o.failure = Some(f.clone());
        }
    }
    o.predict = Some(report);
}

/// A confirmed prediction as a failure: the replay's own report (kind, message, steps, the
/// token of the replayed run). An atomicity violation is confirmed by the order of its
/// accesses, not by a failure of the run: its report is made here, with the steps the
/// runtime shows when replaying the run's token.
fn finding(case: &TestCase, pr: &Prediction, extra: &[String], timeout: Duration) -> Finding {
    let replayed = pr
        .replayed
        .as_ref()
        .expect("a confirmed prediction was replayed");
    if let Some(f) = &replayed.failure {
        return Finding::from_report(f.clone());
    }
    let mut f = Finding::plain(
        DriverKind::AtomicityViolation.name(),
        pr.description.clone(),
    );
    f.preemptions = replayed.preemptions;
    f.token = replayed.trace.schedule.clone();
    if let Some(token) = &f.token {
        let request = Request::Replay {
            token: token.clone(),
            every_step: false,
        };
        let run = worker_process::run(case, request, extra, timeout, &mut |_| {});
        f.steps = run.replayed.map(|r| r.steps).unwrap_or_default();
    }
    f
}

/// `f`, said to be predicted: from which execution's trace, how, and what was predicted.
fn predicted(mut f: Finding, pr: &Prediction, execution: usize, model: &str) -> Finding {
    f.predicted = true;
    let mut how = format!(
        "predicted from the passing run of execution {execution} (model {model}, {} context \
         switches, solved in {:.3}s), confirmed by running that interleaving",
        pr.witness.context_switches,
        pr.solve_time.as_secs_f64(),
    );
    // An atomicity violation's message is the prediction already.
    if f.message != pr.description {
        how = format!("{how}: {}", pr.description);
    }
    f.details.insert(0, how);
    f
}

/// A failure the replay of a prediction ran into instead of the predicted one: a real
/// failure of the program on a schedule it can take, with its own token, found by
/// prediction. `off_trace`: a branch the witness flipped took a thread into code the
/// recorded run did not execute, and that code failed.
fn found_otherwise(
    f: symx::__worker::protocol::FailureReport,
    pr: &Prediction,
    execution: usize,
    off_trace: bool,
) -> Finding {
    let mut f = Finding::from_report(f);
    f.predicted = true;
    let how = if off_trace {
        "a thread took another branch there and failed in code the recorded run did not \
         execute"
    } else {
        "the replay failed another way than predicted, on the way to the predicted violation"
    };
    f.details.insert(
        0,
        format!(
            "found while replaying a schedule predicted from the passing run of execution \
             {execution} (for: {}): {how}",
            pr.description
        ),
    );
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PREDICT_PROPERTIES;

    #[test]
    fn every_property_name_turns_on_its_check_and_only_it() {
        let asked = |names: &[&str]| {
            let p = config::Predict {
                enabled: true,
                executions: 1,
                model: "values".into(),
                bound: Some(2),
                properties: names.iter().map(|n| n.to_string()).collect(),
                verbose: false,
            };
            let o = options(&p);
            assert_eq!((o.model, o.bound), (Model::ValuesPreserved, Some(2)));
            [
                o.assertions,
                o.races,
                o.atomicity,
                o.deadlocks,
                o.lock_claims,
            ]
        };
        assert_eq!(asked(PREDICT_PROPERTIES), [true; 5]);
        for (i, name) in PREDICT_PROPERTIES.iter().enumerate() {
            let on = asked(&[name]);
            assert_eq!(on.iter().filter(|&&b| b).count(), 1, "{name}");
            assert!(on[i], "{name}");
        }
    }
}
