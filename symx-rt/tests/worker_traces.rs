//! The worker protocol's trace requests, spoken to this very test binary as `cargo symx`
//! would: `run_one` (one guided execution, answered with its trace) and `explore` with
//! `traces` (the traces of the first executions).

use std::io::Write;
use std::process::{Command, Stdio};

use symx::__worker::protocol::{Message, LINE_PREFIX};
use symx::sync::{Arc, Mutex};
use symx::trace::format::{EventKind, Verdict};
use symx::Shared;

/// Fig. 1 of Wang et al. in small: T2 asserts what T1 writes in its second critical
/// section. It has a bug, so it runs only when served to the tests below.
#[symx::test]
#[ignore = "a buggy program served to the worker-protocol tests of this file"]
fn served_program() {
    let s = Arc::new((Mutex::new(()), Shared::new(0i32), Shared::new(0i32)));
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        {
            let _g = s1.0.lock().unwrap();
            s1.1.set(2);
        }
        let _g = s1.0.lock().unwrap();
        s1.2.set(1);
    });
    let s2 = s.clone();
    let t2 = symx::thread::spawn(move || {
        let _g = s2.0.lock().unwrap();
        if s2.1.get() > 0 {
            symx::assert!(s2.2.get() == 1, "y == 1");
        }
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// Runs this binary as a worker for `served_program` with one request line.
fn ask(request: &str) -> Vec<Message> {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "served_program",
            "--exact",
            "--include-ignored",
            "--nocapture",
        ])
        .env("SYMX_WORKER", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{request}").unwrap();
    let out = child.wait_with_output().unwrap();
    if std::env::var_os("SYMX_DEBUG_WORKER").is_some() {
        eprintln!("{}", String::from_utf8_lossy(&out.stdout));
    }
    String::from_utf8_lossy(&out.stdout)
        .split(LINE_PREFIX)
        .skip(1)
        .filter_map(|l| serde_json::from_str(l.lines().next().unwrap_or("")).ok())
        .collect()
}

#[test]
fn run_one_follows_the_prefix_and_answers_with_the_trace() {
    if std::env::var_os("SYMX_WORKER").is_some() {
        return; // this is the child serving `served_program`
    }
    // T1's first critical section (lock, set x, unlock), then T2 entirely: x > 0, y == 0.
    let messages = ask(r#"{"v": 1, "request": "run_one", "prefix": [1, 1, 1, 2, 2, 2]}"#);
    let ran = messages
        .iter()
        .find_map(|m| match m {
            Message::Ran(r) => Some(r),
            _ => None,
        })
        .expect("a `ran` answer");
    assert_eq!(ran.divergence, None);
    let failure = ran.failure.as_ref().expect("the assertion fails");
    assert_eq!(failure.kind, "panic");
    assert!(failure.message.contains("y == 1"), "{}", failure.message);
    ran.trace.check_consistency().unwrap();
    assert!(matches!(&ran.trace.verdict, Verdict::Fail { kind, .. } if kind == "panic"));
    let asserts = ran
        .trace
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Assert)
        .count();
    assert_eq!(asserts, 1);
}

#[test]
fn explore_sends_the_traces_of_the_first_executions() {
    if std::env::var_os("SYMX_WORKER").is_some() {
        return;
    }
    let messages = ask(r#"{"v": 1, "request": "explore", "traces": 2}"#);
    let traces: Vec<u64> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Trace { execution, trace } => {
                trace.check_consistency().unwrap();
                Some(*execution)
            }
            _ => None,
        })
        .collect();
    assert_eq!(traces, [1, 2]);
    let failed = messages
        .iter()
        .any(|m| matches!(m, Message::Verdict(v) if v.failure.is_some()));
    assert!(failed, "exploration finds the failing order");
}
