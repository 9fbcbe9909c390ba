//! The persistent worker session: this binary runs itself as a worker of `session_subject`,
//! opens a session, asks for many guided executions on one stdin/stdout, and checks every
//! answer (a trace each, the failure exactly where the inputs make one). It also times the
//! session against one process per execution and prints both rates; set
//! `SYMX_SESSION_RUNS` (default 200) for a longer measurement:
//! `SYMX_SESSION_RUNS=5000 cargo test --release -p symx-rt --test worker_session -- --nocapture`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use symx::__worker::protocol::{
    InputValue, Message, Request, RequestLine, ENV_WORKER, LINE_PREFIX, PROTOCOL_VERSION,
};
use symx::sync::{Arc, Mutex};
use symx::Sym;

/// Two threads count under a lock; the assertion fails only for the input 37 (so plain
/// `cargo test`, which runs input 0, passes).
#[symx::test]
fn session_subject() {
    let n: Sym<u32> = symx::any_named("n");
    let count = Arc::new(Mutex::new(0));
    let c = count.clone();
    let t = symx::thread::spawn(move || *c.lock().unwrap() += 1);
    *count.lock().unwrap() += 1;
    t.join().unwrap();
    symx::assert!(n != 37u32, "n must not be 37");
}

fn worker() -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["session_subject", "--exact", "--test-threads=1"])
        .env(ENV_WORKER, PROTOCOL_VERSION.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn line(request: Request) -> String {
    let line = RequestLine {
        v: PROTOCOL_VERSION,
        request,
    };
    serde_json::to_string(&line).unwrap() + "\n"
}

/// Whether the `k`-th guided run gets the failing input: every third.
fn fails(k: usize) -> bool {
    matches!(k % 3, 0)
}

/// The input the `k`-th guided run gets.
fn input(k: usize) -> i128 {
    if fails(k) {
        37
    } else {
        1000 + k as i128
    }
}

/// The `k`-th guided run: on every other, a fixed order of the first steps.
fn run_one(k: usize) -> Request {
    Request::RunOne {
        prefix: if matches!(k % 2, 0) {
            vec![0, 0, 1]
        } else {
            vec![]
        },
        choices: vec![],
        inputs: vec![InputValue {
            name: "n".into(),
            value: input(k),
        }],
        epochs: None,
    }
}

/// Sends `requests` (from a thread of its own, so that neither side blocks on a full pipe)
/// and returns every protocol message the worker wrote, and whether it exited successfully.
fn converse(requests: String) -> (Vec<Message>, bool) {
    let mut child = worker();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
    let mut messages = Vec::new();
    for l in BufReader::new(child.stdout.take().unwrap()).lines() {
        let l = l.unwrap();
        if let Some(at) = l.find(LINE_PREFIX) {
            messages.push(serde_json::from_str(&l[at + LINE_PREFIX.len()..]).unwrap());
        }
    }
    writer.join().unwrap().unwrap();
    (messages, child.wait().unwrap().success())
}

fn runs() -> usize {
    std::env::var("SYMX_SESSION_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(200)
}

#[test]
fn one_worker_answers_many_guided_runs_in_a_session() {
    let n = runs();
    let mut requests = line(Request::Session);
    requests.extend((0..n).map(|k| line(run_one(k))));
    requests.push_str(&line(Request::End));
    let start = Instant::now();
    let (messages, passed) = converse(requests);
    let session_rate = n as f64 / start.elapsed().as_secs_f64();
    assert!(passed, "the worker ends the test normally after `end`");
    assert!(matches!(&messages[0], Message::Hello { .. }));
    assert!(matches!(&messages[1], Message::Session { serves }
            if serves == &["run_one", "replay", "run_constrained", "drive"]));
    assert_eq!(messages.len(), n + 2, "one answer per request");
    for (k, m) in messages[2..].iter().enumerate() {
        let Message::Ran(ran) = m else {
            panic!("answer {k}: {m:?}")
        };
        assert_eq!(ran.failure.is_some(), fails(k), "answer {k}");
        assert_eq!(ran.divergence, None, "answer {k}");
        assert_eq!(ran.trace.inputs[0].value, input(k));
        // Every execution starts afresh: the same two lock sections each time.
        let locks = ran.trace.events.iter().filter(|e| e.sync.len() == 1);
        assert_eq!(locks.count(), 4, "answer {k}");
    }

    // One process per execution, as without a session.
    let m = (n / 20).max(5);
    let start = Instant::now();
    for k in 0..m {
        let (messages, _) = converse(line(run_one(k)));
        assert!(matches!(messages.last(), Some(Message::Ran(_))));
    }
    let process_rate = m as f64 / start.elapsed().as_secs_f64();
    eprintln!(
        "guided executions per second: session {session_rate:.0} ({n} runs), \
         one process each {process_rate:.0} ({m} runs)"
    );
}

#[test]
fn a_session_answers_what_it_cannot_serve_and_goes_on() {
    let mut requests = line(Request::Session);
    requests.push_str("not json\n");
    requests.push_str(&line(Request::Session));
    requests.push_str(&line(run_one(1)));
    // No `end`: the end of input closes the session too.
    let (messages, passed) = converse(requests);
    assert!(passed);
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| match m {
            Message::Hello { .. } => "hello",
            Message::Session { .. } => "session",
            Message::Error { .. } => "error",
            Message::Unsupported { .. } => "unsupported",
            Message::Ran(_) => "ran",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["hello", "session", "error", "unsupported", "ran"]);
}

/// A driven execution in a session: each scheduling point comes as a `point` with the trace so
/// far and waits for a `decide`; naming thread 0 runs its step, naming none abandons the
/// execution there, whose `ran` then ends as discarded with no failure.
#[test]
fn a_driven_execution_asks_at_every_point_and_stops_when_told() {
    let mut requests = line(Request::Session);
    requests.push_str(&line(Request::Drive {
        inputs: vec![InputValue {
            name: "n".into(),
            value: 37,
        }],
    }));
    requests.push_str(&line(Request::Decide { thread: Some(0) }));
    requests.push_str(&line(Request::Decide { thread: None }));
    requests.push_str(&line(Request::End));
    let (messages, passed) = converse(requests);
    assert!(passed, "the worker ends the test normally after `end`");
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| match m {
            Message::Point { .. } => "point",
            Message::Ran(_) => "ran",
            Message::Hello { .. } => "hello",
            Message::Session { .. } => "session",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["hello", "session", "point", "point", "ran"]);
    let Message::Point { step, trace, .. } = &messages[3] else {
        unreachable!()
    };
    assert_eq!(*step, 1, "the second point comes after one step");
    let Message::Ran(ran) = &messages[4] else {
        unreachable!()
    };
    assert!(ran.failure.is_none(), "{ran:?}");
    assert_eq!(ran.trace.verdict, symx::trace::format::Verdict::Discarded);
    assert_eq!(
        ran.trace.events.len(),
        trace.events.len(),
        "the trace ends where the driver stopped it"
    );
}
