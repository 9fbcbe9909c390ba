//! Helpers shared by the acceptance tests: explore, assert the failure kind, and check that
//! the reported schedule replays to the same failure.

#![allow(dead_code)]

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::trace::Trace;
use symx::{thread, Builder, Failure, FailureKind, Report};

/// Explores `body` and asserts it fails with `kind`; the failure's token must replay to the
/// same kind and message. Returns the failure for further assertions.
pub fn assert_fails(kind: FailureKind, body: impl Fn() + Copy) -> Failure {
    assert_fails_with(Builder::new(), kind, body)
}

pub fn assert_fails_with(builder: Builder, kind: FailureKind, body: impl Fn() + Copy) -> Failure {
    let report = builder.explore(body);
    let failure = report
        .failure()
        .unwrap_or_else(|| {
            panic!(
                "expected a {kind}, found none in {} executions",
                report.executions()
            )
        })
        .clone();
    assert_eq!(failure.kind(), kind, "wrong kind:\n{failure}");
    let token = failure.schedule().to_string();
    let schedule: symx::Schedule = token.parse().expect("the printed token parses");
    let again = builder
        .try_replay(&schedule, body)
        .expect("the token replays");
    let replayed = again.failure().expect("the replay fails again");
    assert_eq!(replayed.kind(), kind);
    assert_eq!(replayed.message(), failure.message());
    assert_eq!(replayed.steps().len(), failure.steps().len());
    failure
}

/// Explores `body` exhaustively and asserts no bug exists; returns the report.
pub fn assert_passes(body: fn()) -> Report {
    assert_passes_with(Builder::new(), body)
}

pub fn assert_passes_with(builder: Builder, body: fn()) -> Report {
    let report = builder.explore(body);
    if let Some(f) = report.failure() {
        panic!("unexpected failure:\n{f}");
    }
    assert!(report.complete(), "not exhausted: {report}");
    report
}

/// Whether integer overflow panics in this build (`overflow-checks`, which follows
/// `debug-assertions` unless a profile sets it apart: on in debug builds, off in release).
/// symx records an overflow check only where Rust would panic, so tests of those checks
/// expect them only then. (Probing with a caught overflow would print through the panic hook
/// that tests running beside this one rely on.)
pub fn overflow_checks() -> bool {
    cfg!(debug_assertions)
}

/// The one trace of `body` run with the named input values, checked for consistency and for
/// reading back from its JSON unchanged.
pub fn one_trace(inputs: &[(&str, i128)], body: impl Fn()) -> Trace {
    let inputs = inputs.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let mut traces = Vec::new();
    Builder::new()
        .inputs(inputs)
        .explore_traces(body, |t| traces.push(t.clone()));
    assert_eq!(traces.len(), 1);
    let t = traces.pop().unwrap();
    t.check_consistency()
        .unwrap_or_else(|e| panic!("{e}\n{}", t.to_json()));
    assert_eq!(
        Trace::from_json(&t.to_json()).unwrap(),
        t,
        "the JSON reads back"
    );
    t
}

/// `n` threads each doing `k` `fetch_add`s on one counter: (n·k)! / (k!)^n traces.
pub fn counters(n: usize, k: usize) {
    let c = Arc::new(AtomicUsize::new(0));
    let hs: Vec<_> = (0..n)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                for _ in 0..k {
                    c.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(c.load(Ordering::SeqCst), n * k);
}

/// `n` threads each adding one to a counter under one mutex `k` times.
pub fn mutex_counter(n: usize, k: usize) {
    let c = Arc::new(Mutex::new(0));
    let hs: Vec<_> = (0..n)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                for _ in 0..k {
                    *c.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(*c.lock().unwrap(), n * k);
}
