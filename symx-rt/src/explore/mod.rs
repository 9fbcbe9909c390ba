//! Exploration strategies behind one trait, and the loop that runs executions until the
//! strategy, a bound or a failure stops it.
//!
//! Each strategy is a [`Chooser`] (the runtime's seam): it decides; it never runs threads. At
//! each scheduling point it is shown every enabled thread with its pending operation
//! ([`SchedulingPoint`](crate::rt::chooser::SchedulingPoint)), and after each execution the execution's events.

pub(crate) mod announce;
mod bounded;
pub(crate) mod checkpoint;
pub(crate) mod dfs;
pub(crate) mod dpor;
mod driven;
pub(crate) mod estimate;
mod guided;
mod minimise;
mod pct;
mod random;
mod replay;
mod shallow;

use std::time::Instant;

use crate::builder::{Builder, Drive, DrivenPoint, Guide, GuidedRun};
use crate::report::{Failure, Report, SourceLocation, StopReason};
use crate::rt::chooser::Chooser;
use crate::rt::execution::location_hash;
use crate::rt::op::{Event, OpKind};
use crate::rt::scheduler::{run_execution, ExecutionResult};
use crate::schedule::{location_tag, test_hash, Locations, ReplayError, Schedule};
use crate::strategy::Strategy;
use crate::trace::Trace;

pub(crate) use replay::Replay;

/// The whole chooser an exploration runs, from `b`'s settings: the strategy (the DPOR is the
/// bounded partial-order reduction under a bound, see [`by_bpor`]), a DFS restricted to the
/// subtrees of one shard when `b` explores a shard, and announcing every choice when `b` has
/// an announcer.
fn make(b: &Builder) -> Box<dyn Chooser> {
    let strategy: Box<dyn Chooser> = match b.strategy {
        Strategy::Dpor if by_bpor(b) => {
            Box::new(bounded::Bpor::new(b.preemption_bound, b.spurious_wakeups))
        }
        // The shallow passes of a split exploration run in its first shard only.
        Strategy::Dpor if shallow_first(b) && b.shard.is_none_or(|s| s.index == 0) => {
            Box::new(shallow::ShallowFirst::new(optimal_dpor(b)))
        }
        Strategy::Dpor => Box::new(optimal_dpor(b)),
        Strategy::Dfs => Box::new(dfs::Dfs::new(b.shard)),
        Strategy::Random { seed } => Box::new(random::Random::new(seed)),
        Strategy::Pct { seed, depth } => Box::new(pct::Pct::new(seed, depth)),
    };
    match &b.announcer {
        Some(to) => Box::new(announce::Announcing::new(strategy, to.clone())),
        None => strategy,
    }
}

/// The optimal DPOR of `b`'s exploration, or of `b`'s shard of it (see `dpor::split`).
fn optimal_dpor(b: &Builder) -> dpor::Dpor {
    match (b.shard, &b.exchange) {
        (Some(part), Some(dir)) => dpor::Dpor::split(dir, part.index, part.count),
        _ => dpor::Dpor::default(),
    }
}

/// Whether `b`'s DPOR is the bounded partial-order reduction (`bounded`): under a preemption
/// bound, which breaks the optimal DPOR's assumption that every reordering of a race is
/// reachable (Coons, Musuvathi, McKinley 2013), and with spurious wake-ups, events no trace
/// shows until they happen, which the optimal DPOR's races never ask for.
pub(crate) fn by_bpor(b: &Builder) -> bool {
    b.preemption_bound.is_some() || b.spurious_wakeups
}

/// Whether `b`'s optimal DPOR runs preemption-bounded passes for shallow bugs alongside it
/// (see [`shallow`]): the default, unless turned off, an execution bound asks for exactly that
/// many executions, or every execution is wanted. (A preemption bound or spurious wake-ups
/// make the DPOR the bounded reduction instead, see [`by_bpor`].)
fn shallow_first(b: &Builder) -> bool {
    b.shallow_first && b.max_executions.is_none() && !b.keep_going
}

/// Runs executions of `body` as the builder says, until a failure, a bound, or exhaustion.
pub(crate) fn explore(b: &Builder, body: &dyn Fn()) -> Report {
    explore_with(b, body, &mut |_| {}, None)
}

/// [`explore`], showing every execution's events to `observe` (for tests of the strategies).
pub(crate) fn explore_observed(
    b: &Builder,
    body: &dyn Fn(),
    observe: &mut dyn FnMut(&[Event]),
) -> Report {
    explore_with(b, body, &mut |o| observe(o.events), None)
}

/// What the explorer shows its observer after each of the exploration's executions (not the
/// shallow passes').
pub(crate) struct Observed<'a> {
    pub events: &'a [Event],
    pub preemptions: u32,
    /// The exploration's executions so far, those before a checkpoint it resumed from
    /// included.
    pub executions: u64,
    strategy: &'a dyn Chooser,
}

impl Observed<'_> {
    /// The strategy's estimate of the executions of the whole exploration (see [`estimate`]).
    pub fn estimate(&self) -> Option<f64> {
        self.strategy.estimate()
    }
}

/// [`explore_observed`], showing also each execution's number of preemptions, and handing
/// each recorded trace to `on_trace`. A checkpoint that cannot be resumed from is a panic
/// with the reason (see [`explore_resumable`]).
pub(crate) fn explore_with(
    b: &Builder,
    body: &dyn Fn(),
    observe: &mut dyn FnMut(&Observed<'_>),
    on_trace: Option<&mut dyn FnMut(&Trace)>,
) -> Report {
    explore_resumable(b, body, observe, on_trace).unwrap_or_else(|e| panic!("symx: {e}"))
}

/// The executions run so far, of the exploration and of the default's shallow passes.
#[derive(Default)]
struct Counts {
    executions: u64,
    shallow: u64,
    discarded: u64,
}

/// [`explore_with`], or why its checkpoint cannot be resumed from.
pub(crate) fn explore_resumable(
    b: &Builder,
    body: &dyn Fn(),
    observe: &mut dyn FnMut(&Observed<'_>),
    mut on_trace: Option<&mut dyn FnMut(&Trace)>,
) -> Result<Report, checkpoint::ResumeError> {
    let start = Instant::now();
    let b = &recording_as_asked(b);
    let mut strategy = make(b);
    let mut n = Counts::default();
    let (mut last, resumed) = resume(b, strategy.as_mut(), &mut n, body)?;
    let mut advanced = last.is_some();
    let _catch = b.checkpoint.as_ref().map(|_| checkpoint::CatchCtrlC::new());
    let mut drew_inputs = false;
    let mut idle_threads = 0;
    let mut first_failure = None;
    // The estimate of the whole exploration, read after each of its executions (the strategy
    // has moved on to the next one when a bound stops it), when a bound can stop it.
    let estimating = b.max_executions.is_some() || b.time_budget.is_some();
    let mut estimate = None;
    let stop = loop {
        // A resumed strategy stands where its checkpoint left it: before its next execution.
        if !std::mem::take(&mut advanced) && !strategy.next_execution() {
            break StopReason::Exhausted;
        }
        let deep = !strategy.shallow();
        if deep && b.max_executions.is_some_and(|max| n.executions >= max) {
            break StopReason::MaxExecutions;
        }
        if b.time_budget.is_some_and(|t| start.elapsed() >= t) {
            break StopReason::TimeBudget;
        }
        if b.checkpoint.is_some() && checkpoint::interrupted() {
            break StopReason::Interrupted;
        }
        let mut outcome = run_execution(b.config(), strategy.as_mut(), body, false);
        if deep {
            n.executions += 1;
        } else {
            n.shallow += 1;
        }
        n.discarded += outcome.discarded as u64;
        drew_inputs |= outcome.drew_inputs;
        idle_threads = idle_threads.max(outcome.idle_threads);
        strategy.end_execution(&outcome.events);
        if deep && (estimating || b.checkpoint.is_some()) {
            estimate = strategy.estimate();
        }
        if deep {
            observe(&Observed {
                events: &outcome.events,
                preemptions: outcome.preemptions,
                executions: n.executions,
                strategy: strategy.as_ref(),
            });
        }
        if b.checkpoint.is_some() {
            last = Some(outcome_schedule(b, &outcome));
        }
        // A pass's traces are not the exploration's (its set of traces is the DPOR's), unless
        // the pass found the failure.
        let delivered = deep || outcome.failure.is_some();
        if let Some(mut trace) = outcome.trace.take().filter(|_| delivered) {
            let schedule = outcome_schedule(b, &outcome);
            let number = n.executions + n.shallow;
            deliver(b, number, &schedule, &mut trace, &mut on_trace);
        }
        if outcome.failure.is_some() && b.keep_going {
            // Every execution is wanted (a context's paths are counted): the first failure
            // is reported once the space is exhausted.
            first_failure.get_or_insert_with(|| reported(b, body, outcome));
            continue;
        }
        if outcome.failure.is_some() {
            let found = reported(b, body, outcome);
            let failure = minimise::fewest_preemptions(b, body, found);
            forget_checkpoint(b);
            // A failure ends the exploration: its count is every execution that ran.
            let all = n.executions + n.shallow;
            let mut report = finish(b, start, all, StopReason::Failure, Some(failure));
            report.shallow_executions = n.shallow;
            report.resumed = resumed;
            report.discarded = n.discarded;
            report.drew_inputs = drew_inputs;
            report.idle_threads = idle_threads;
            return Ok(report);
        }
        crate::rt::execution::recycle_trace(outcome.events);
    };
    match (stop, &last) {
        (StopReason::Exhausted, _) => forget_checkpoint(b),
        // A failure kept for the end would be lost by a checkpoint: none is taken.
        (_, Some(last)) if first_failure.is_none() => {
            save_checkpoint(b, strategy.as_ref(), &n, last)
        }
        _ => {}
    }
    let mut report = match first_failure {
        Some(found) => finish(b, start, n.executions, StopReason::Failure, Some(found)),
        None => finish(b, start, n.executions, stop, None),
    };
    if report.failure.is_none() && stop != StopReason::Exhausted {
        report.estimated = estimate;
    }
    report.shallow_executions = n.shallow;
    report.resumed = resumed;
    report.discarded = n.discarded;
    report.drew_inputs = drew_inputs;
    report.idle_threads = idle_threads;
    Ok(report)
}

/// Restores `strategy` and the counts from `b`'s checkpoint when `b` resumes and there is one,
/// after checking it belongs to this test, settings and program. Returns the last execution
/// run before it (`None`: nothing to resume) and how many executions ran before it.
fn resume(
    b: &Builder,
    strategy: &mut dyn Chooser,
    n: &mut Counts,
    body: &dyn Fn(),
) -> Result<(Option<Schedule>, u64), checkpoint::ResumeError> {
    let Some(path) = b.checkpoint.as_deref().filter(|_| b.resume) else {
        return Ok((None, 0));
    };
    let Some(c) = checkpoint::load(path, b)? else {
        return Ok((None, 0));
    };
    checkpoint::check_last(path, b, &c, body)?;
    let refuse = |why: String| checkpoint::ResumeError {
        path: path.to_path_buf(),
        why,
    };
    strategy
        .restore(c.state)
        .map_err(|e| refuse(format!("its state does not fit this strategy ({e})")))?;
    let last = c.last.parse().map_err(|e| refuse(format!("{e}")))?;
    *n = Counts {
        executions: c.executions,
        shallow: c.shallow,
        discarded: c.discarded,
    };
    Ok((Some(last), c.executions + c.shallow))
}

/// Saves the exploration's state to `b`'s checkpoint file, if it has one; a strategy that
/// cannot be resumed, or a file that cannot be written, is said on stderr (the exploration's
/// report stands either way).
fn save_checkpoint(b: &Builder, strategy: &dyn Chooser, n: &Counts, last: &Schedule) {
    let Some(path) = &b.checkpoint else { return };
    let counts = (n.executions, n.shallow, n.discarded);
    let written = match checkpoint::save(b, strategy, counts, last) {
        Some(c) => checkpoint::write(path, &c).map_err(|e| e.to_string()),
        None => Err("this strategy cannot be resumed".into()),
    };
    if let Err(why) = written {
        eprintln!("symx: no checkpoint saved to {}: {why}", path.display());
    }
}

/// Removes `b`'s checkpoint file: the exploration it belonged to has ended.
fn forget_checkpoint(b: &Builder) {
    if let Some(path) = &b.checkpoint {
        let _ = std::fs::remove_file(path);
    }
}

/// Recording is on when asked for, when traces go to a directory, or when
/// `SYMX_CHECK_TRACES` asks that every trace be checked.
fn recording_as_asked(b: &Builder) -> Builder {
    let mut b = b.clone();
    b.record |= b.trace_dir.is_some() || check_traces();
    b
}

/// Read once: the environment does not change under a running test binary's explorations.
fn check_traces() -> bool {
    static CHECK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CHECK.get_or_init(|| {
        std::env::var_os("SYMX_CHECK_TRACES").is_some_and(|v| !v.is_empty() && v != "0")
    })
}

/// Names the trace's test and schedule, checks it when asked, writes it and hands it on.
fn deliver(
    b: &Builder,
    n: u64,
    schedule: &Schedule,
    trace: &mut Trace,
    on_trace: &mut Option<&mut dyn FnMut(&Trace)>,
) {
    trace.test = b.test_name.clone();
    trace.schedule = Some(schedule.to_string());
    if check_traces() {
        if let Err(why) = trace.check_consistency() {
            panic!("symx internal error: execution {n} recorded an inconsistent trace: {why}");
        }
    }
    if let Some(dir) = &b.trace_dir {
        let failed = matches!(trace.verdict, crate::trace::format::Verdict::Fail { .. });
        dir.write(n, failed, trace);
    }
    if let Some(f) = on_trace {
        f(trace);
    }
}

fn outcome_schedule(b: &Builder, outcome: &ExecutionResult) -> Schedule {
    Schedule {
        test: b.test_name.as_deref().map_or(0, test_hash),
        decisions: outcome.decisions.clone(),
        steps: outcome.steps,
        fingerprint: outcome.fingerprint,
        inputs: outcome.inputs.clone(),
        locations: Locations {
            hash: outcome.locations,
            tags: location_tags(&outcome.events),
        },
        old_format: None,
        context_mode: crate::schedule::carried(b.context_mode),
    }
}

/// The short hashes of the distinct locations `events` ran at, sorted.
fn location_tags(events: &[Event]) -> Vec<u16> {
    let tags: std::collections::BTreeSet<u16> = events
        .iter()
        .map(|ev| location_tag(location_hash(ev.location)))
        .collect();
    tags.into_iter().collect()
}

/// The distinct locations of `events` that `recorded` does not know: where lines moved.
fn moved_locations(events: &[Event], recorded: &[u16]) -> Vec<SourceLocation> {
    let mut moved: Vec<SourceLocation> = Vec::new();
    for ev in events {
        let at = SourceLocation::from(ev.location);
        let tag = location_tag(location_hash(ev.location));
        if recorded.binary_search(&tag).is_err() && !moved.contains(&at) {
            moved.push(at);
        }
    }
    moved
}

/// Runs the one execution `guide` describes, recorded (see [`Builder::run_guided`]).
pub(crate) fn run_guided(b: &Builder, guide: &Guide, body: &dyn Fn()) -> GuidedRun {
    let mut strategy = guided::Guided::new(guide);
    let mut run = run_followed(b, &guide.inputs, &mut strategy, body);
    run.divergence = strategy.divergence();
    run
}

/// Runs one execution that `decide` drives, recorded (see [`Builder::run_driven`]).
pub(crate) fn run_driven(
    b: &Builder,
    inputs: &crate::sym::InputValues,
    decide: &mut dyn FnMut(&DrivenPoint<'_>) -> Drive,
    body: &dyn Fn(),
) -> GuidedRun {
    let mut strategy = driven::Driven::new(decide);
    let mut run = run_followed(b, inputs, &mut strategy, body);
    run.divergence = strategy.divergence();
    run
}

/// Runs one recorded execution with `inputs` (over the builder's) whose schedule `strategy`
/// decides: a guided run, or a constrained one (`crate::covering`).
pub(crate) fn run_followed(
    b: &Builder,
    inputs: &crate::InputValues,
    strategy: &mut dyn Chooser,
    body: &dyn Fn(),
) -> GuidedRun {
    let start = Instant::now();
    let mut b = b.with_defaults().record_traces(true);
    let mut all = b.inputs.as_deref().cloned().unwrap_or_default();
    all.extend(inputs.iter().map(|(k, v)| (k.clone(), *v)));
    b = b.inputs(all);
    strategy.next_execution();
    let mut outcome = run_execution(b.config(), strategy, body, true);
    let schedule = outcome_schedule(&b, &outcome);
    let mut trace = outcome
        .trace
        .take()
        .expect("a recorded execution has a trace");
    deliver(&b, 1, &schedule, &mut trace, &mut None);
    let rendered = outcome.rendered.clone();
    let discarded = outcome.discarded as u64;
    let drew_inputs = outcome.drew_inputs;
    let preemptions = outcome.preemptions;
    let failure = outcome.failure.is_some().then(|| to_failure(&b, outcome));
    let mut report = finish(&b, start, 1, StopReason::Exhausted, failure);
    report.replayed_steps = rendered;
    report.discarded = discarded;
    report.drew_inputs = drew_inputs;
    GuidedRun {
        report,
        trace,
        divergence: None,
        preemptions,
    }
}

fn finish(
    b: &Builder,
    start: Instant,
    executions: u64,
    stop: StopReason,
    failure: Option<Failure>,
) -> Report {
    Report {
        executions,
        stop,
        failure,
        elapsed: start.elapsed(),
        max_preemptions_bounded: b.preemption_bound.is_some(),
        shallow_executions: 0,
        resumed: 0,
        estimated: None,
        replayed_steps: Vec::new(),
        discarded: 0,
        drew_inputs: false,
        idle_threads: 0,
        moved: None,
    }
}

/// The failure an exploring execution found, as the report shows it. Exploration does not walk
/// the stack at a guard's drop (it would cost every unlock a walk); when the failing execution
/// unlocked, its schedule runs once more, rendered, so that each unlock shows where its guard
/// was dropped. Should that run not fail the same way (a body that is not deterministic), the
/// first rendering stands.
fn reported(b: &Builder, body: &dyn Fn(), outcome: ExecutionResult) -> Failure {
    let unlocked = outcome
        .events
        .iter()
        .any(|ev| matches!(ev.kind, OpKind::Unlock | OpKind::ReadUnlock));
    let decisions = outcome.decisions.clone();
    let found = to_failure(b, outcome);
    if !unlocked {
        return found;
    }
    let again = minimise::run_again(b, body, &decisions);
    if again.failure.is_none() {
        return found;
    }
    let again = to_failure(b, again);
    if minimise::same(&again, &found) && again.schedule == found.schedule {
        again
    } else {
        found
    }
}

pub(crate) fn to_failure(b: &Builder, outcome: ExecutionResult) -> Failure {
    let schedule = outcome_schedule(b, &outcome);
    let found = outcome.failure.expect("a failed execution");
    Failure {
        kind: found.kind,
        message: found.message,
        details: found.details,
        location: found.location,
        thread: found.thread,
        steps: crate::rt::diagnose::collapse_repeats(outcome.rendered),
        schedule,
        preemptions: outcome.preemptions,
        test_name: b.test_name.clone(),
    }
}

/// Runs exactly the execution `schedule` describes, or says why the program no longer has it.
pub(crate) fn replay(
    b: &Builder,
    schedule: &Schedule,
    body: &dyn Fn(),
) -> Result<Report, ReplayError> {
    if let Some(version) = schedule.old_format {
        return Err(ReplayError::OldVersion(version));
    }
    if let Some(name) = &b.test_name {
        if schedule.test != 0 && schedule.test != test_hash(name) {
            return Err(ReplayError::OtherTest);
        }
    }
    // The token's inputs, and zero for every other: whatever inputs the builder gives; and
    // the token's context mode, whatever the attribute or the environment says.
    let b = &b
        .clone()
        .inputs(schedule.inputs.iter().cloned().collect())
        .input_seed(0)
        .context_mode(schedule.context_mode());
    let start = Instant::now();
    let mut strategy = Replay::new(&schedule.decisions);
    strategy.next_execution();
    let outcome = run_execution(b.config(), &mut strategy, body, true);
    if schedule.is_prefix() {
        // Had it crashed or got stuck again, it would not have come back.
        let ending = match &outcome.failure {
            Some(f) => format!(" with a {}: {}", f.kind, f.message),
            None => String::new(),
        };
        return Err(ReplayError::Diverged(format!(
            "the token is the schedule up to an execution that crashed or got stuck; this run \
             followed its {} choices and went on to end after {} steps{ending}, without \
             crashing or getting stuck (does the test do something besides symx operations \
             that differs from run to run?)",
            schedule.decisions.len(),
            outcome.steps
        )));
    }
    if outcome.decisions.len() != schedule.decisions.len() {
        return Err(ReplayError::Diverged(format!(
            "the token records {} choices, this program made {}",
            schedule.decisions.len(),
            outcome.decisions.len()
        )));
    }
    if (outcome.steps, outcome.fingerprint) != (schedule.steps, schedule.fingerprint) {
        return Err(ReplayError::Diverged(format!(
            "the token records {} steps with fingerprint {:016x}; this program ran {} steps with \
             fingerprint {:016x} (the operations differ: threads, operation kinds or objects)",
            schedule.steps, schedule.fingerprint, outcome.steps, outcome.fingerprint
        )));
    }
    // The same operations: lines that moved do not matter, but are told.
    let moved = if outcome.locations == schedule.locations.hash {
        Vec::new()
    } else {
        moved_locations(&outcome.events, &schedule.locations.tags)
    };
    let moved_any = outcome.locations != schedule.locations.hash;
    let rendered = outcome.rendered.clone();
    let failure = outcome.failure.is_some().then(|| {
        let mut f = to_failure(b, outcome);
        f.schedule.test = schedule.test;
        f
    });
    let mut report = finish(b, start, 1, StopReason::Exhausted, failure);
    report.replayed_steps = rendered;
    report.moved = moved_any.then_some(moved);
    Ok(report)
}
