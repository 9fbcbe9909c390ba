//! The worker side of `cargo symx`: when the driver starts a test binary with
//! [`protocol::ENV_WORKER`] set, each `#[symx::test]` serves one request from the driver
//! (explore, replay, run one execution) over the line protocol of [`protocol`] instead of
//! exploring on its own. This module owns that conversation; it must not change what an
//! exploration does, only how its results travel.
//!
//! ## Why crashes are found by re-running in announce mode
//!
//! A test can kill its process (abort, segfault, stack overflow, `process::exit`) or hang inside
//! one execution. The driver must then report the schedule prefix that was running, and that
//! prefix must replay the crash. Two designs were considered:
//!
//! * mirror every decision of the current execution into a crash-safe place (a memory-mapped
//!   file) as it is taken: exact, but it puts a write on the scheduler's hottest path for every
//!   execution of every test, needs `unsafe` shared memory in the runtime, and a hook inside the
//!   scheduler that another part of the project keeps changing;
//! * explore normally at full speed, and only after a crash re-run the same exploration in
//!   *announce mode*, where every execution start and every decision is written to the driver
//!   unbuffered the moment it is taken (the explorer announces to whatever the builder's
//!   announcer says; the worker's sends each announcement to the driver). Exploration is
//!   deterministic (DPOR and DFS by construction, random and PCT from their seed), so the
//!   re-run reaches the same crash, and the decisions announced since the last execution start
//!   are its prefix.
//!
//! symx takes the second: it costs nothing when nothing crashes, and the driver confirms the
//! prefix by replaying it (a prefix that does not crash again, as with a test whose body is
//! itself nondeterministic, is reported as such rather than as a reproducer).

pub mod protocol;
pub mod report;

pub(crate) mod shard;

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use crate::builder::Builder;
use crate::builder::{Announcement, Announcer};
use crate::schedule::Schedule;
use protocol::{Message, Overrides, Ran, Replayed, Request, RequestLine, Verdict};

/// Writes one protocol line to stdout, bypassing libtest's output capture, and flushes it so
/// that it survives a crash that follows.
pub(crate) fn send(message: &Message) {
    let json = crate::json::to_string(message).expect("protocol messages serialise");
    let mut out = std::io::stdout().lock();
    // A driver that went away cannot be told anything more; the test then ends on its own.
    let _ = writeln!(out, "{}{json}", protocol::LINE_PREFIX).and_then(|()| out.flush());
}

/// The hook at the top of `run_test_with`: serves the driver and returns `true` in worker mode,
/// returns `false` (and does nothing) otherwise.
pub(crate) fn serve(path: &str, builder: &Builder, body: fn()) -> bool {
    let Ok(version) = std::env::var(protocol::ENV_WORKER) else {
        return false;
    };
    send(&Message::Hello {
        v: protocol::PROTOCOL_VERSION,
        test: path.to_string(),
        strategy: builder.strategy.kind().name().to_string(),
        symx_version: env!("CARGO_PKG_VERSION").to_string(),
        max_branch_depth: builder.max_branch_depth,
        assertion_guided: builder.assertion_guided,
    });
    arm_watchdog(path);
    if version.trim() != protocol::PROTOCOL_VERSION.to_string() {
        send(&Message::Error {
            message: format!(
                "the driver speaks worker protocol version {version}, this test binary speaks \
                 version {}; build the tests with a symx-rt matching cargo-symx",
                protocol::PROTOCOL_VERSION
            ),
        });
        return true;
    }
    match read_request() {
        Ok(RequestLine { request, .. }) => answer(builder, body, request),
        Err(message) => send(&Message::Error { message }),
    }
    true
}

/// Arms the runtime's watchdog when the driver asks for it: a stuck model thread is sent as
/// [`Message::Stuck`] with the schedule so far, and the process exits (nothing can stop the
/// thread).
fn arm_watchdog(path: &str) {
    let Some(limit) = std::env::var(protocol::ENV_STUCK_AFTER_MS)
        .ok()
        .and_then(|ms| ms.trim().parse().ok())
    else {
        return;
    };
    let path = path.to_string();
    let watching =
        crate::rt::watchdog::watch_this_thread(Duration::from_millis(limit), move |stuck| {
            send(&Message::Stuck {
                failure: report::stuck(&path, &stuck),
            });
            std::process::exit(protocol::EXIT_STUCK);
        });
    // A worker serves one test on this thread and then its process ends: watched for good.
    std::mem::forget(watching);
}

fn read_request() -> Result<RequestLine, String> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the request: {e}"))?;
    crate::json::from_str(&line).map_err(|e| format!("malformed request `{}`: {e}", line.trim()))
}

fn answer(builder: &Builder, body: fn(), request: Request) {
    match request {
        Request::Explore {
            overrides,
            announce,
            traces,
            inputs,
        } => {
            let mut builder = apply(builder, &overrides);
            if !inputs.is_empty() {
                builder = builder.inputs(inputs.into_iter().map(|i| (i.name, i.value)).collect());
            }
            let builder = match overrides.shard {
                None => builder,
                Some(shard) => match shard::prepare(builder.clone(), shard) {
                    Some(b) => b,
                    None if shard.index == 0 => builder,
                    None => {
                        return send(&Message::Unsupported {
                            request: "shard".into(),
                            reason: "optimal DPOR explores a test in one worker; shard 0 runs \
                                     all of it"
                                .into(),
                        })
                    }
                },
            };
            match explore(&builder, body, announce, traces) {
                Ok(verdict) => send(&Message::Verdict(verdict)),
                Err(message) => send(&Message::Error { message }),
            }
        }
        Request::Replay { token, every_step } => send(&Message::Replayed(replay(
            builder, body, &token, every_step,
        ))),
        Request::RunOne {
            prefix,
            choices,
            inputs,
            epochs,
        } => {
            let guide = crate::Guide {
                steps: prefix.into_iter().map(|t| t as usize).collect(),
                choices,
                inputs: inputs.into_iter().map(|i| (i.name, i.value)).collect(),
            };
            let builder = builder.clone().epochs(epochs);
            send(&Message::Ran(run_one(&builder, body, &guide)));
        }
        Request::RunConstrained {
            schedule,
            inputs,
            then,
            epochs,
        } => {
            let inputs = inputs.into_iter().map(|i| (i.name, i.value)).collect();
            let mut schedules = vec![*schedule];
            schedules.extend(then);
            let builder = builder.clone().epochs(epochs);
            let run = builder.run_constrained_epochs(&schedules, &inputs, body);
            send(&Message::Ran(ran(run)));
        }
        Request::Session => session(builder, body),
        // Outside a session there is nothing to end.
        Request::End => {}
        Request::Drive { .. } | Request::Decide { .. } => send(&Message::Unsupported {
            request: request_name(&request).into(),
            reason: "only a session answers it".into(),
        }),
    }
}

/// The request kinds a session answers: single guided executions, whose answers are small
/// and whose cost a process per request would dominate.
const SESSION_SERVES: [&str; 4] = ["run_one", "replay", "run_constrained", "drive"];

/// A persistent session: one answer per request line, in order, until `end` or the end of
/// input. Every execution is a fresh one (objects and `static` symx objects start afresh, as
/// in a process of its own); a crash ends the session like it ends any worker.
fn session(builder: &Builder, body: fn()) {
    send(&Message::Session {
        serves: SESSION_SERVES.iter().map(|s| s.to_string()).collect(),
    });
    loop {
        let Some(line) = next_line() else { return };
        let request = match crate::json::from_str::<RequestLine>(&line) {
            Ok(RequestLine { request, .. }) => request,
            Err(e) => {
                let message = format!("malformed request `{}`: {e}", line.trim());
                send(&Message::Error { message });
                continue;
            }
        };
        match request {
            Request::End => return,
            Request::RunOne { .. } | Request::Replay { .. } | Request::RunConstrained { .. } => {
                answer(builder, body, request)
            }
            Request::Drive { inputs } => {
                let inputs = inputs.into_iter().map(|i| (i.name, i.value)).collect();
                send(&Message::Ran(drive(builder, body, &inputs)));
            }
            Request::Explore { .. } | Request::Session | Request::Decide { .. } => {
                send(&Message::Unsupported {
                    request: request_name(&request).into(),
                    reason: format!("a session answers {}", SESSION_SERVES.join(", ")),
                })
            }
        }
    }
}

/// The next non-empty line of the worker's input; `None` at its end.
fn next_line() -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) if line.trim().is_empty() => continue,
            Ok(_) => return Some(line),
        }
    }
}

/// A driven execution: each scheduling point is sent as a `point` and decided by the
/// driver's `decide` line. A line that is not a decision, or the end of input, abandons the
/// execution.
fn drive(builder: &Builder, body: fn(), inputs: &crate::InputValues) -> Ran {
    let mut decide = |p: &crate::DrivenPoint<'_>| {
        send(&Message::Point {
            step: p.step,
            enabled: p.enabled.iter().map(|&t| t as u32).collect(),
            trace: Box::new(p.trace.clone()),
        });
        let decision = next_line().and_then(|l| crate::json::from_str::<RequestLine>(&l).ok());
        match decision.map(|d| d.request) {
            Some(Request::Decide { thread: Some(t) }) => crate::Drive::Run(t as usize),
            _ => crate::Drive::Stop,
        }
    };
    let run = builder.run_driven(inputs, &mut decide, body);
    Ran {
        failure: run.report.failure().map(report::failure),
        trace: Box::new(run.trace),
        divergence: run.divergence,
        preemptions: run.preemptions,
    }
}

fn request_name(request: &Request) -> &'static str {
    match request {
        Request::Explore { .. } => "explore",
        Request::Replay { .. } => "replay",
        Request::RunOne { .. } => "run_one",
        Request::RunConstrained { .. } => "run_constrained",
        Request::Session => "session",
        Request::Drive { .. } => "drive",
        Request::Decide { .. } => "decide",
        Request::End => "end",
    }
}

fn apply(builder: &Builder, o: &Overrides) -> Builder {
    let mut b = builder.clone();
    if let Some(bound) = o.preemption_bound {
        b = b.preemption_bound(Some(bound));
    }
    if let Some(max) = o.max_executions {
        b = b.max_executions(Some(max));
    }
    if let Some(max) = o.max_steps {
        b = b.max_steps(max);
    }
    if let Some(ms) = o.time_budget_ms {
        b = b.time_budget(Some(Duration::from_millis(ms)));
    }
    if let Some(file) = &o.checkpoint {
        b = b.checkpoint(Some(file.into())).resume(o.resume);
    }
    if o.keep_going {
        b = b.keep_going(true);
    }
    b.exchange = o.exchange.as_ref().map(Into::into);
    b
}

const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Explores as asked; an error when the checkpoint to resume from is refused.
fn explore(builder: &Builder, body: fn(), announce: bool, traces: u64) -> Result<Verdict, String> {
    crate::context::take_used();
    let start = Instant::now();
    let mut last = start;
    let mut traced = 0u64;
    let mut max_preemptions = 0u32;
    let mut send_trace = |trace: &crate::trace::Trace| {
        traced += 1;
        if traced <= traces {
            send(&Message::Trace {
                execution: traced,
                trace: Box::new(trace.clone()),
            });
        }
    };
    let mut b = builder.with_defaults().record_traces(traces > 0);
    b.announcer = announce.then(|| Announcer::new(announce_to_driver));
    let on_trace: Option<&mut dyn FnMut(&crate::trace::Trace)> =
        (traces > 0).then_some(&mut send_trace);
    let report = crate::explore::explore_resumable(
        &b,
        &body,
        &mut |o| {
            max_preemptions = max_preemptions.max(o.preemptions);
            if last.elapsed() >= PROGRESS_EVERY {
                last = Instant::now();
                send(&Message::Progress {
                    executions: o.executions,
                    elapsed_ms: start.elapsed().as_millis() as u64,
                    total: b.max_executions,
                    estimate: o.estimate().map(|e| e.round() as u64),
                    max_preemptions,
                    preemption_bound: b.preemption_bound,
                });
            }
        },
        on_trace,
    )
    .map_err(|e| e.to_string())?;
    Ok(Verdict {
        executions: report.executions(),
        complete: report.complete(),
        stop: report.stop_reason().name().to_string(),
        preemption_bounded: builder.preemption_bound.is_some(),
        preemption_bound: builder.preemption_bound,
        elapsed_ms: report.elapsed().as_millis() as u64,
        failure: report.failure().map(report::failure),
        drew_inputs: report.drew_inputs(),
        idle_threads: report.idle_threads(),
        shallow_executions: report.shallow_executions(),
        resumed: report.resumed(),
        estimated_executions: report.estimated_executions(),
        context_mode: crate::context::take_used().then(|| builder.context_mode.name().into()),
    })
}

/// Announce mode's reports, as protocol messages.
fn announce_to_driver(a: Announcement) {
    send(&match a {
        Announcement::Execution { index } => Message::Execution { index },
        Announcement::Decision { value } => Message::Decision { value },
    });
}

fn replay(builder: &Builder, body: fn(), token: &str, every_step: bool) -> Replayed {
    let run = token
        .parse::<Schedule>()
        .and_then(|schedule| builder.try_replay(&schedule, body));
    match run {
        Ok(report) => Replayed {
            steps: {
                let steps = report.replayed_steps().to_vec();
                let steps = if every_step {
                    steps
                } else {
                    crate::rt::diagnose::collapse_repeats(steps)
                };
                steps.iter().map(report::step).collect()
            },
            failure: report.failure().map(report::failure),
            error: None,
            moved: report
                .moved_locations()
                .map(|m| m.iter().map(report::location).collect()),
        },
        Err(e) => Replayed {
            steps: Vec::new(),
            failure: None,
            error: Some(e.to_string()),
            moved: None,
        },
    }
}

fn run_one(builder: &Builder, body: fn(), guide: &crate::Guide) -> Ran {
    ran(builder.run_guided(guide, body))
}

fn ran(run: crate::GuidedRun) -> Ran {
    Ran {
        failure: run.report.failure().map(report::failure),
        trace: Box::new(run.trace),
        divergence: run.divergence,
        preemptions: run.preemptions,
    }
}

/// Helpers the driver uses to name tests in tokens, re-exported for it only.
pub mod tokens {
    use crate::schedule::{test_hash, ReplayError, Schedule};

    /// The hash a replay token stores for the test named `path` (libtest's name of the test).
    pub fn test_hash_of(path: &str) -> u32 {
        test_hash(path)
    }

    /// The test hash stored in `token` (0 when the token names no test).
    pub fn token_test_hash(token: &str) -> Result<u32, ReplayError> {
        token.parse::<Schedule>().map(|s| s.test)
    }

    /// A token that replays the decisions of a crashed execution's prefix. It records no step
    /// count or fingerprint (the execution never ended), so a replay that does not crash again
    /// ends as a divergence rather than passing silently.
    pub fn prefix_token(path: &str, decisions: &[u32]) -> String {
        Schedule {
            test: test_hash(path),
            decisions: decisions.to_vec(),
            steps: 0,
            fingerprint: 0,
            inputs: Vec::new(),
            locations: Default::default(),
            old_format: None,
            context_mode: None,
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::protocol::*;
    use super::tokens::*;

    #[test]
    fn requests_and_messages_read_back_and_unknown_kinds_are_tolerated() {
        let line = r#"{"v":1,"request":"explore","overrides":{"preemption_bound":2,"shard":{"index":1,"count":2}}}"#;
        let parsed: RequestLine = crate::json::from_str(line).unwrap();
        match parsed.request {
            Request::Explore {
                overrides,
                announce,
                traces,
                ..
            } => {
                assert_eq!(overrides.preemption_bound, Some(2));
                assert_eq!(overrides.shard, Some(Shard { index: 1, count: 2 }));
                assert!(!announce);
                assert_eq!(traces, 0, "no traces unless asked");
            }
            other => panic!("{other:?}"),
        }
        let newer = r#"{"kind":"coverage","blocks":12}"#;
        assert!(matches!(
            crate::json::from_str::<Message>(newer).unwrap(),
            Message::Unknown
        ));
        let progress = r#"{"kind":"progress","executions":5,"elapsed_ms":7,"rate":1.5}"#;
        assert!(matches!(
            crate::json::from_str::<Message>(progress).unwrap(),
            Message::Progress { executions: 5, .. }
        ));
    }

    #[test]
    fn run_one_follows_the_guide_and_returns_the_trace() {
        fn lost_update() {
            use crate::sync::atomic::{AtomicUsize, Ordering};
            let n = crate::sync::Arc::new(AtomicUsize::new(0));
            let m = n.clone();
            let t = crate::thread::spawn(move || {
                let v = m.load(Ordering::SeqCst);
                m.store(v + 1, Ordering::SeqCst);
            });
            let v = n.load(Ordering::SeqCst);
            n.store(v + 1, Ordering::SeqCst);
            t.join().unwrap();
            assert_eq!(n.load(Ordering::SeqCst), 2);
        }
        let builder = crate::Builder::new().name("lost_update");
        // Both loads before both stores: the update is lost.
        let guide = crate::Guide {
            steps: vec![0, 1, 0, 1],
            ..Default::default()
        };
        let ran = super::run_one(&builder, lost_update, &guide);
        assert_eq!(ran.failure.as_ref().map(|f| f.kind.as_str()), Some("panic"));
        assert!(ran.divergence.is_none());
        let json = crate::json::to_string(&Message::Ran(ran)).unwrap();
        let Message::Ran(back) = crate::json::from_str(&json).unwrap() else {
            panic!("a ran message")
        };
        back.trace.check_consistency().unwrap();
        assert!(back.trace.events.len() >= 4);
    }

    #[test]
    fn prefix_tokens_name_their_test_and_carry_the_decisions() {
        let token = prefix_token("tests::crash", &[1, 0, 2]);
        assert_eq!(token_test_hash(&token), Ok(test_hash_of("tests::crash")));
        let schedule: crate::Schedule = token.parse().unwrap();
        assert_eq!(schedule.decisions(), &[1, 0, 2]);
        assert!(token_test_hash("symx1-garbage").is_err());
    }
}
