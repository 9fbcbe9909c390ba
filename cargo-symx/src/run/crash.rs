//! Crashes and timeouts: a worker that died or hung is reported with the schedule prefix that
//! was running, recovered by re-running the test in announce mode (why that design: see the
//! `worker` module of symx-rt) and confirmed by replaying the prefix.

use std::time::Duration;

use symx::__worker::protocol::{Overrides, Request};
use symx::__worker::tokens::prefix_token;

use crate::discover::TestCase;
use crate::report::kind::DriverKind;
use crate::report::outcome::Finding;
use crate::worker_process::{self, Exit, Run};

/// `crash` or `timeout`, and what happened in words.
pub fn describe(run: &Run, timeout: Duration) -> (&'static str, String) {
    match &run.exit {
        Some(Exit::TimedOut) => (
            DriverKind::Timeout.name(),
            format!(
                "still running after {timeout:.1?}, killed (raise `timeout` or set `time-budget`)"
            ),
        ),
        Some(Exit::Signal(n, name)) => (
            DriverKind::Crash.name(),
            format!("the test process was killed by {name} (signal {n})"),
        ),
        Some(Exit::Code(c)) => (
            DriverKind::Crash.name(),
            format!("the test process exited with code {c} in the middle of the test"),
        ),
        _ => (
            DriverKind::Crash.name(),
            "the test process ended without an answer".to_string(),
        ),
    }
}

/// The finding for a crashed or hung `first` run of `case`.
pub fn recover(
    case: &TestCase,
    overrides: &Overrides,
    timeout: Duration,
    extra: &[String],
    first: &Run,
) -> Finding {
    let (kind, message) = describe(first, timeout);
    let mut finding = Finding::plain(kind, message);
    if first.symx_strategy.is_none() {
        return finding;
    }
    let request = Request::Explore {
        overrides: overrides.clone(),
        announce: true,
        traces: 0,
        inputs: Vec::new(),
    };
    let again = worker_process::run(case, request, extra, timeout, &mut |_| {});
    if !again.crashed() || describe(&again, timeout).0 != kind {
        finding.details.push(
            "re-running the exploration to find the schedule did not crash the same way: the \
             test is nondeterministic outside symx's control, so no replay token can be given"
                .into(),
        );
        return finding;
    }
    let token = prefix_token(&case.name, &again.announced);
    let replay = worker_process::run(
        case,
        Request::Replay {
            token: token.clone(),
            every_step: false,
        },
        extra,
        timeout,
        &mut |_| {},
    );
    let reproduced = replay.crashed() && describe(&replay, timeout).0 == kind;
    finding.details.push(format!(
        "schedule prefix of the execution that was running: {} decision(s); {}",
        again.announced.len(),
        if reproduced {
            "replaying it reproduces the crash (checked)"
        } else {
            "replaying it did NOT reproduce the crash"
        }
    ));
    finding.token = Some(token);
    finding
}
