//! Splitting one `#[symx::test]` across several worker processes (`--shards N`): shard 0 starts
//! first, and only once it says it is a symx test do shards 1.. start, so an ordinary test is
//! never run twice. Their verdicts are merged into one: executions add up, the exploration is
//! complete when every shard's is, the first failure (by shard) is the test's. How the runtime
//! splits the executions is in symx-rt's `worker::shard`.

use std::sync::Mutex;
use std::time::Duration;

use symx::__worker::protocol::{Overrides, Request, Shard, Verdict};

use crate::discover::TestCase;
use crate::progress::TestBar;
use crate::worker::{self, Event, Exit, Run};

fn request(overrides: &Overrides, shard: Option<Shard>) -> Request {
    Request::Explore {
        overrides: Overrides {
            shard,
            ..overrides.clone()
        },
        announce: false,
        traces: 0,
    }
}

/// Runs `case` as `count` shards; returns the merged run and the overrides that reproduce it
/// (those of the shard that crashed, if one did).
pub fn run(
    case: &TestCase,
    overrides: &Overrides,
    count: u32,
    extra: &[String],
    timeout: Duration,
    bar: &TestBar,
) -> (Run, Overrides) {
    if count <= 1 {
        let mut events = |e| {
            if let Event::Progress(n) = e {
                bar.executions(n)
            }
        };
        let run = worker::run(case, request(overrides, None), extra, timeout, &mut events);
        return (run, overrides.clone());
    }
    let progress = Mutex::new(vec![0u64; count as usize]);
    let report = |index: u32, n: u64| {
        let mut all = progress.lock().expect("progress");
        all[index as usize] = n;
        bar.executions(all.iter().sum());
    };
    let shard = |index| Some(Shard { index, count });
    let runs: Vec<Run> = std::thread::scope(|s| {
        let mut others = Vec::new();
        let first = worker::run(
            case,
            request(overrides, shard(0)),
            extra,
            timeout,
            &mut |e| match e {
                Event::Hello => {
                    for index in 1..count {
                        let report = &report;
                        others.push(s.spawn(move || {
                            let req = request(overrides, shard(index));
                            worker::run(case, req, extra, timeout, &mut |e| {
                                if let Event::Progress(n) = e {
                                    report(index, n)
                                }
                            })
                        }));
                    }
                }
                Event::Progress(n) => report(0, n),
            },
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
        let shard = Some(Shard {
            index: i as u32,
            count,
        });
        let o = Overrides {
            shard,
            ..overrides.clone()
        };
        return (runs.swap_remove(i), o);
    }
    let verdicts: Vec<Verdict> = runs.iter().filter_map(|r| r.verdict.clone()).collect();
    let mut rest = runs.split_off(1);
    let mut merged = runs.pop().expect("shard 0");
    if rest.iter().any(|r| r.exit == Some(Exit::Interrupted)) {
        merged.exit = Some(Exit::Interrupted);
    }
    for r in &mut rest {
        // Optimal DPOR runs whole in shard 0; the others saying so is no error.
        if !r.unsupported.iter().any(|u| u == "shard") {
            merged.errors.append(&mut r.errors);
        }
        merged.elapsed = merged.elapsed.max(r.elapsed);
    }
    merged.shards = verdicts.len() as u32;
    if !verdicts.is_empty() {
        merged.verdict = Some(merge_verdicts(verdicts));
    }
    (merged, overrides.clone())
}

fn merge_verdicts(verdicts: Vec<Verdict>) -> Verdict {
    let failure = verdicts.iter().find_map(|v| v.failure.clone());
    let stop = if failure.is_some() {
        "failure".to_string()
    } else {
        verdicts
            .iter()
            .map(|v| v.stop.clone())
            .find(|s| s != "exhausted")
            .unwrap_or_else(|| "exhausted".into())
    };
    Verdict {
        executions: verdicts.iter().map(|v| v.executions).sum(),
        complete: failure.is_none() && verdicts.iter().all(|v| v.complete),
        stop,
        preemption_bounded: verdicts.iter().any(|v| v.preemption_bounded),
        elapsed_ms: verdicts.iter().map(|v| v.elapsed_ms).max().unwrap_or(0),
        failure,
    }
}
