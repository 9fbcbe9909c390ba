//! Splitting one `#[symx::test]` across several worker processes (`--shards N`): shard 0 starts
//! first, and only once it says it is a symx test do shards 1.. start, so an ordinary test is
//! never run twice. Their verdicts are merged into one: executions add up, the exploration is
//! complete when every shard's is, the first failure (by shard) is the test's; once a shard
//! reports a failure the others are killed. How the runtime
//! splits the executions is in symx-rt's `worker::shard`. The shards of an optimal DPOR hand
//! each other work in a directory made fresh for the test (`Overrides::exchange`), where each
//! leaves a hash of every trace it ran: from those, the executions whose trace ran twice are
//! counted for the report.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use symx::__worker::protocol::{Overrides, Request, Shard, Verdict};
use symx::StopReason;

use crate::discover::TestCase;
use crate::report::progress::TestBar;
use crate::worker_process::{self, Event, Exit, Run};

fn request(overrides: &Overrides, shard: Option<Shard>, traces: u64) -> Request {
    Request::Explore {
        overrides: Overrides {
            shard,
            ..overrides.clone()
        },
        announce: false,
        traces,
        inputs: Vec::new(),
    }
}

/// Runs `case` as `count` shards; returns the merged run and the overrides that reproduce it
/// (those of the shard that crashed, if one did). The first `traces` executions' traces come
/// back in the run (from shard 0, which runs the first executions).
pub fn run(
    case: &TestCase,
    overrides: &Overrides,
    (count, traces): (u32, u64),
    extra: &[String],
    timeout: Duration,
    bar: &TestBar,
) -> (Run, Overrides) {
    if count <= 1 {
        let mut events = |e| match e {
            Event::Progress(n, total, estimate) => bar.executions(n, total, estimate),
            Event::Preemptions(max, bound) => bar.preemptions(max, bound),
            Event::Hello | Event::Failure => {}
        };
        let req = request(overrides, None, traces);
        let run = worker_process::run(case, req, extra, timeout, &mut events);
        return (run, overrides.clone());
    }
    let exchange = overrides.exchange.as_deref().map(Path::new);
    if let Some(dir) = exchange {
        // A directory left by an earlier run that was killed must not hand work around.
        let _ = std::fs::remove_dir_all(dir);
        let _ = std::fs::create_dir_all(dir);
    }
    let (mut run, reproduce) = run_shards(case, overrides, count, traces, extra, timeout, bar);
    if let Some(dir) = exchange {
        run.redundant = redundant(dir, &run);
        let _ = std::fs::remove_dir_all(dir);
    }
    (run, reproduce)
}

/// Of a complete exploration whose shards left the hashes of their traces in `dir`: the
/// executions beyond one per trace.
fn redundant(dir: &Path, run: &Run) -> Option<u64> {
    if !run.verdict.as_ref().is_some_and(|v| v.complete) {
        return None;
    }
    let mut left = false;
    // Sorted rather than hashed: hundreds of thousands of hashes, and the driver may be a
    // debug build, where a hash set of them costs a noticeable share of a split run.
    let mut hashes: Vec<u64> = Vec::new();
    for entry in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
        if !entry.file_name().to_string_lossy().starts_with("traces-") {
            continue;
        }
        left = true;
        let bytes = std::fs::read(entry.path()).ok()?;
        let of = bytes.chunks_exact(8);
        hashes.extend(of.map(|h| u64::from_le_bytes(h.try_into().expect("8 bytes"))));
    }
    let all = hashes.len() as u64;
    hashes.sort_unstable();
    hashes.dedup();
    left.then(|| all - hashes.len() as u64)
}

/// [`run`] with more than one shard.
fn run_shards(
    case: &TestCase,
    overrides: &Overrides,
    count: u32,
    traces: u64,
    extra: &[String],
    timeout: Duration,
    bar: &TestBar,
) -> (Run, Overrides) {
    let progress = Mutex::new(vec![(0u64, None); count as usize]);
    let report = |index: u32, n: u64, total: Option<u64>| {
        let mut all = progress.lock().expect("progress");
        all[index as usize] = (n, total);
        let totals: Option<u64> = all.iter().map(|(_, t)| *t).sum();
        bar.executions(all.iter().map(|(n, _)| n).sum(), totals, None);
    };
    // The first failure ends the test: the other shards are killed.
    let found = AtomicBool::new(false);
    let shard = |index| Some(Shard { index, count });
    let runs: Vec<Run> = std::thread::scope(|s| {
        let mut others = Vec::new();
        let (report, found) = (&report, &found);
        let mut first_events = |e| match e {
            Event::Hello => {
                for index in 1..count {
                    others.push(s.spawn(move || {
                        let req = request(overrides, shard(index), 0);
                        let mut events = |e| match e {
                            Event::Progress(n, t, _) => report(index, n, t),
                            Event::Preemptions(max, bound) => bar.preemptions(max, bound),
                            Event::Failure => found.store(true, Ordering::SeqCst),
                            Event::Hello => {}
                        };
                        worker_process::run_cancellable(
                            case,
                            req,
                            extra,
                            timeout,
                            &mut events,
                            Some(found),
                        )
                    }));
                }
            }
            Event::Progress(n, t, _) => report(0, n, t),
            Event::Preemptions(max, bound) => bar.preemptions(max, bound),
            Event::Failure => found.store(true, Ordering::SeqCst),
        };
        let req = request(overrides, shard(0), traces);
        let first = worker_process::run_cancellable(
            case,
            req,
            extra,
            timeout,
            &mut first_events,
            Some(found),
        );
        let mut runs = vec![first];
        runs.extend(
            others
                .into_iter()
                .map(|h| h.join().expect("a shard thread")),
        );
        runs
    });
    merge(runs, overrides, count)
}

fn merge(mut runs: Vec<Run>, overrides: &Overrides, count: u32) -> (Run, Overrides) {
    if let Some(i) = runs.iter().position(Run::crashed) {
        // A shard of an optimal DPOR explores what the others hand it, which a run on its
        // own cannot repeat: the whole exploration reaches the same executions.
        let alone = runs[i].symx_strategy.as_deref() != Some("dpor");
        let shard = alone.then_some(Shard {
            index: i as u32,
            count,
        });
        let o = Overrides {
            shard,
            exchange: None,
            ..overrides.clone()
        };
        return (runs.swap_remove(i), o);
    }
    // Shards that explored (the bounded reduction's shards 1.. decline).
    let started = runs
        .iter()
        .filter(|r| !r.unsupported.iter().any(|u| u == "shard"))
        .count() as u32;
    let verdicts: Vec<Verdict> = runs.iter().filter_map(|r| r.verdict.clone()).collect();
    // Shards killed because another found a failure count what they had run.
    let cancelled: u64 = runs
        .iter()
        .filter(|r| r.exit == Some(Exit::Cancelled))
        .map(|r| r.last_progress)
        .sum();
    let mut rest = runs.split_off(1);
    let mut merged = runs.pop().expect("shard 0");
    if rest.iter().any(|r| r.exit == Some(Exit::Interrupted)) {
        merged.exit = Some(Exit::Interrupted);
    }
    for r in &mut rest {
        // The bounded reduction runs whole in shard 0; the others saying so is no error.
        if !r.unsupported.iter().any(|u| u == "shard") {
            merged.errors.append(&mut r.errors);
        }
        merged.elapsed = merged.elapsed.max(r.elapsed);
    }
    merged.shards = started;
    if !verdicts.is_empty() {
        let mut verdict = merge_verdicts(verdicts);
        verdict.executions += cancelled;
        merged.verdict = Some(verdict);
    }
    (merged, overrides.clone())
}

fn merge_verdicts(verdicts: Vec<Verdict>) -> Verdict {
    let failure = verdicts.iter().find_map(|v| v.failure.clone());
    let exhausted = StopReason::Exhausted.name();
    let stop = if failure.is_some() {
        StopReason::Failure.name().to_string()
    } else {
        verdicts
            .iter()
            .map(|v| v.stop.clone())
            .find(|s| s != exhausted)
            .unwrap_or_else(|| exhausted.into())
    };
    Verdict {
        executions: verdicts.iter().map(|v| v.executions).sum(),
        complete: failure.is_none() && verdicts.iter().all(|v| v.complete),
        stop,
        preemption_bounded: verdicts.iter().any(|v| v.preemption_bounded),
        preemption_bound: verdicts.iter().filter_map(|v| v.preemption_bound).max(),
        elapsed_ms: verdicts.iter().map(|v| v.elapsed_ms).max().unwrap_or(0),
        failure,
        drew_inputs: verdicts.iter().any(|v| v.drew_inputs),
        idle_threads: verdicts.iter().map(|v| v.idle_threads).max().unwrap_or(0),
        shallow_executions: verdicts.iter().map(|v| v.shallow_executions).sum(),
        resumed: verdicts.iter().map(|v| v.resumed).sum(),
        // Each shard estimates its own part: their sum, once every shard has one.
        estimated_executions: verdicts.iter().map(|v| v.estimated_executions).sum(),
        context_mode: verdicts.iter().find_map(|v| v.context_mode.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symx::__worker::protocol::FailureReport;

    fn verdict(executions: u64, failure: Option<FailureReport>) -> Verdict {
        Verdict {
            executions,
            complete: failure.is_none(),
            stop: if failure.is_some() {
                "failure"
            } else {
                "exhausted"
            }
            .into(),
            preemption_bounded: false,
            preemption_bound: None,
            elapsed_ms: 1,
            failure,
            drew_inputs: false,
            idle_threads: 0,
            shallow_executions: 0,
            resumed: 0,
            estimated_executions: None,
            context_mode: None,
        }
    }

    fn failure() -> FailureReport {
        FailureReport {
            kind: "panic".into(),
            message: "boom".into(),
            details: vec![],
            location: None,
            thread: Some(1),
            preemptions: 0,
            steps: vec![],
            token: "symx1-x".into(),
        }
    }

    #[test]
    fn a_failure_in_one_shard_is_the_tests_and_cancelled_shards_count_their_progress() {
        let cancelled = Run {
            exit: Some(Exit::Cancelled),
            last_progress: 10,
            symx_strategy: Some("dfs".into()),
            ..Run::default()
        };
        let failed = Run {
            exit: Some(Exit::Code(0)),
            libtest: Some(crate::worker_process::Libtest::Ok),
            symx_strategy: Some("dfs".into()),
            verdict: Some(verdict(3, Some(failure()))),
            ..Run::default()
        };
        let (merged, _) = merge(vec![cancelled, failed], &Overrides::default(), 2);
        assert!(!merged.crashed());
        let v = merged.verdict.expect("a merged verdict");
        assert_eq!(v.failure.map(|f| f.message), Some("boom".into()));
        assert_eq!(
            (v.executions, v.complete, v.stop.as_str()),
            (13, false, "failure")
        );
        assert_eq!(merged.shards, 2);
    }

    #[test]
    fn complete_only_when_every_shard_is() {
        let v = merge_verdicts(vec![verdict(5, None), verdict(7, None)]);
        assert_eq!((v.executions, v.complete), (12, true));
        let mut partial = verdict(7, None);
        partial.complete = false;
        partial.stop = "time_budget".into();
        let v = merge_verdicts(vec![verdict(5, None), partial]);
        assert_eq!((v.complete, v.stop.as_str()), (false, "time_budget"));
    }
}
