//! Running the selected tests: a pool of `--jobs` workers takes tests from a queue, each test is
//! run as one worker process and judged into an [`Outcome`]; crashes go to `crash`, Ctrl-C stops
//! the queue and kills what runs. A test that passed goes on to the engines it asked for
//! (`engines`); a test split across processes runs through `shards`.

pub mod assertion_guided;
pub mod context;
pub mod crash;
pub mod engines;
pub mod executor;
pub mod shards;
pub mod symbolic;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Mutex};

use symx::__worker::protocol::{Location, Overrides};

use crate::config::Resolved;
use crate::discover::TestCase;
use crate::report::kind::DriverKind;
use crate::report::outcome::{Finding, Outcome, Status, Warning, SEQUENTIAL_CONSISTENCY};
use crate::report::progress::Progress;
use crate::worker_process::{Exit, Libtest, Run, INTERRUPTED};

/// A test with its settings.
pub struct Job {
    pub case: TestCase,
    pub settings: Resolved,
}

/// How replay commands are written: with the cargo options the user gave (manifest path,
/// features, profile, target directory), so that the command builds what this run built and
/// works as printed. Features from the configuration are left out: replay reads them again.
pub struct ReplayHint {
    pub cargo_options: String,
}

impl ReplayHint {
    pub fn new(cargo: &crate::discover::CargoOptions) -> ReplayHint {
        ReplayHint {
            cargo_options: cargo.as_typed(),
        }
    }

    pub fn command(&self, package: &str, token: &str) -> String {
        let options = &self.cargo_options;
        format!("cargo symx replay {options}-p {package} {token}")
    }

    /// Sets the replay command of every finding of `o` that has a token.
    pub fn add_commands(&self, o: &mut Outcome) {
        let predicted = o.predict.iter_mut().flat_map(|p| p.findings.iter_mut());
        for f in o.failure.iter_mut().chain(predicted) {
            f.replay = f.token.as_ref().map(|t| self.command(&o.package, t));
        }
    }
}

/// Runs every job on `jobs` workers; outcomes come back in the jobs' order.
pub fn run_all(
    jobs: Vec<Job>,
    workers: usize,
    extra: &[String],
    progress: &Progress,
    hint: &ReplayHint,
) -> Vec<Outcome> {
    let total = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().collect::<VecDeque<_>>());
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, total.max(1)) {
            let tx = tx.clone();
            let queue = &queue;
            s.spawn(move || loop {
                if INTERRUPTED.load(Ordering::SeqCst) {
                    break;
                }
                let Some((i, job)) = queue.lock().expect("queue").pop_front() else {
                    break;
                };
                let outcome = run_one(&job, extra, progress, hint);
                if tx.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
    });
    drop(tx);
    let mut outcomes: Vec<(usize, Outcome)> = rx.into_iter().collect();
    outcomes.sort_by_key(|(i, _)| *i);
    outcomes.into_iter().map(|(_, o)| o).collect()
}

fn run_one(job: &Job, extra: &[String], progress: &Progress, hint: &ReplayHint) -> Outcome {
    let case = &job.case;
    let bar = progress.start(&format!(
        "{}::{} {}",
        case.binary.package, case.binary.target, case.name
    ));
    let s = &job.settings;
    let traces = if s.predict.enabled {
        s.predict.executions
    } else {
        0
    };
    let (run, overrides) = crate::run::shards::run(
        case,
        &with_checkpoint(case, s),
        (s.shards, traces),
        extra,
        s.timeout,
        &bar,
    );
    if !run.traces.is_empty() {
        bar.say(format!("predicting from {} traces", run.traces.len()));
    }
    let mut outcome = judge(job, &overrides, extra, run);
    hint.add_commands(&mut outcome);
    progress.finish(bar, &outcome);
    outcome
}

/// The test's overrides with its checkpoint file, under the symx build's directory, named
/// after the test: an exploration in one worker process (no shards, which would share it)
/// saves its state there when it stops before it is complete, and `--resume` continues
/// from it. A test split among shards gets the directory they exchange work in instead (see
/// `shards`), named after the test and this process.
fn with_checkpoint(case: &TestCase, s: &Resolved) -> Overrides {
    let mut o = s.overrides.clone();
    // The binary is <target>/symx/<profile>/deps/<name>: the profile directory holds them.
    let Some(profile) = case.binary.path.parent().and_then(|deps| deps.parent()) else {
        return o;
    };
    let name = format!(
        "{}-{}-{}",
        case.binary.package,
        case.binary.target,
        case.name.replace("::", ".")
    );
    if s.shards > 1 {
        let dir = format!("{name}-{}", std::process::id());
        o.exchange = Some(profile.join("exchange").join(dir).display().to_string());
        return o;
    }
    let file = format!("{name}.json");
    o.checkpoint = Some(profile.join("checkpoints").join(file).display().to_string());
    o
}

fn nonzero(n: u64) -> Option<u64> {
    (n > 0).then_some(n)
}

/// What a worker's run means for the test.
fn judge(job: &Job, overrides: &Overrides, extra: &[String], run: Run) -> Outcome {
    let case = &job.case;
    let mut o = Outcome {
        strategy: run.symx_strategy.clone(),
        executions: run.verdict.as_ref().map(|v| v.executions),
        complete: run.verdict.as_ref().map(|v| v.complete),
        stop: run.verdict.as_ref().map(|v| v.stop.clone()),
        shallow_executions: run
            .verdict
            .as_ref()
            .and_then(|v| nonzero(v.shallow_executions)),
        resumed: run.verdict.as_ref().and_then(|v| nonzero(v.resumed)),
        estimated_executions: run.verdict.as_ref().and_then(|v| v.estimated_executions),
        preemption_bounded: run.verdict.as_ref().is_some_and(|v| v.preemption_bounded),
        preemption_bound: run.verdict.as_ref().and_then(|v| v.preemption_bound),
        memory_model: run
            .verdict
            .as_ref()
            .map(|_| SEQUENTIAL_CONSISTENCY.to_string()),
        shards: run.shards,
        redundant_executions: run.redundant,
        expected: job.settings.expect.get(&case.name).cloned(),
        duration: run.elapsed,
        output: run.output.clone(),
        ..Outcome::new(case)
    };
    if run.exit == Some(Exit::Interrupted) {
        o.status = Status::Interrupted;
        return o;
    }
    if let Some(stuck) = &run.stuck {
        // The watchdog's report carries the schedule so far: no re-run to recover it.
        o.status = Status::TimedOut;
        o.failure = Some(Finding::from_report(stuck.clone()));
        return expectation(o);
    }
    if run.crashed() {
        let finding =
            crate::run::crash::recover(case, overrides, job.settings.timeout, extra, &run);
        o.status = if run.exit == Some(Exit::TimedOut) {
            Status::TimedOut
        } else {
            Status::Crashed
        };
        o.failure = Some(finding);
        return expectation(o);
    }
    if let Some(error) = run.errors.first() {
        o.status = Status::Error;
        o.failure = Some(Finding::plain(DriverKind::Error.name(), error.clone()));
        return o;
    }
    match (&run.verdict, run.libtest) {
        (Some(v), _) => {
            if let Some(f) = &v.failure {
                o.status = Status::Failed;
                o.failure = Some(Finding::from_report(f.clone()));
            }
            if v.idle_threads > 0 {
                o.warnings
                    .push(Warning::no_modelled_operations(v.idle_threads));
            }
        }
        (None, Some(Libtest::Ignored)) => o.status = Status::Ignored,
        (None, Some(Libtest::Failed)) => {
            o.status = Status::Failed;
            let mut f = Finding::plain(
                DriverKind::TestFailed.name(),
                "the test failed (its output is below)".into(),
            );
            if let Some((location, message)) = panic_site(&o.output) {
                f.location = Some(location);
                f.message = message;
            }
            o.failure = Some(f);
        }
        (None, _) => {}
    }
    let p = &job.settings.predict;
    // A failing exploration has found its bug already; an ordinary test has no traces.
    if p.enabled && o.status == Status::Passed && !run.traces.is_empty() {
        let started = std::time::Instant::now();
        let report =
            crate::run::engines::analyse(case, &run.traces, p, extra, job.settings.timeout);
        crate::run::engines::apply(&mut o, report);
        o.duration += started.elapsed();
    }
    let drew_inputs = run.verdict.as_ref().is_some_and(|v| v.drew_inputs);
    if job.settings.symbolic.enabled && o.status == Status::Passed && drew_inputs {
        let started = std::time::Instant::now();
        let bounds = crate::run::symbolic::Bounds {
            overrides,
            attribute_depth: run.max_branch_depth,
            timeout: job.settings.timeout,
        };
        let symbolic = &job.settings.symbolic;
        // A test that used a program context is explored per context, in its mode.
        match context_mode(&run) {
            Some(mode) => {
                crate::run::context::explore(case, mode, symbolic, &bounds, extra, &mut o)
            }
            None => crate::run::symbolic::explore(case, symbolic, &bounds, extra, &mut o),
        }
        o.duration += started.elapsed();
    }
    let guided = job.settings.assertion_guided;
    let asked = crate::run::assertion_guided::wanted(guided, run.assertion_guided);
    if asked && o.status == Status::Passed && run.verdict.is_some() {
        let started = std::time::Instant::now();
        let timeout = job.settings.timeout;
        crate::run::assertion_guided::search(case, guided, overrides, timeout, extra, &mut o);
        o.duration += started.elapsed();
    }
    expectation(o)
}

/// The context mode a test's exploration used a program context in, if it did.
fn context_mode(run: &Run) -> Option<symx::context::ContextMode> {
    let name = run.verdict.as_ref()?.context_mode.as_deref()?;
    name.parse().ok()
}

/// Where an ordinary test panicked and with what message, from libtest's captured output:
/// `thread 'name' panicked at FILE:LINE:COL:` then the message line.
fn panic_site(output: &str) -> Option<(Location, String)> {
    let mut lines = output.lines();
    let site = lines.find_map(|l| l.split_once(" panicked at ").map(|(_, at)| at))?;
    let mut parts = site.trim_end_matches(':').rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?.to_string();
    let message = lines.next().unwrap_or("the test panicked").to_string();
    Some((Location { file, line, column }, message))
}

/// Applies the configuration's `expect`: the expected kind makes a failure a known bug.
fn expectation(mut o: Outcome) -> Outcome {
    let Some(expected) = &o.expected else {
        return o;
    };
    match &o.failure {
        Some(f) if &f.kind == expected => o.status = Status::ExpectedFailure,
        None if o.status == Status::Passed => {
            o.status = Status::UnexpectedPass;
            o.failure = Some(Finding::plain(
                "unexpected-pass",
                format!("the configuration expects a {expected}, but none was found"),
            ));
        }
        _ => {}
    }
    o
}

/// Ctrl-C: stop starting tests, kill running ones, then report what was found.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
}

/// The default number of workers: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_panic_site_of_an_ordinary_test_is_read_from_its_output() {
        let out =
            "---- t stdout ----\nthread 't' (42) panicked at tests/a.rs:41:5:\nboom\nnote: ...";
        let (at, message) = super::panic_site(out).unwrap();
        assert_eq!(
            (at.file.as_str(), at.line, at.column),
            ("tests/a.rs", 41, 5)
        );
        assert_eq!(message, "boom");
        assert!(super::panic_site("no panic here").is_none());
    }
}
