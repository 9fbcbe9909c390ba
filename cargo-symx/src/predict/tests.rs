//! End-to-end tests of the engine: record one passing execution of a small program (the
//! observed schedule forced with a guide), predict from its trace, replay the witnesses in
//! process, and check the stated outcome (the digest's acceptance scenarios, §7).

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use symx::sync::atomic::AtomicI64;
use symx::sync::Mutex;
use symx::trace::Trace;
use symx::{Builder, Guide, Shared};

use super::{predict, predictions, Model, Options, Outcome, Property};

/// The trace of the execution of `body` that follows `steps` (then the last thread runs on).
fn observe(steps: &[usize], body: fn()) -> Trace {
    let guide = Guide {
        steps: steps.to_vec(),
        ..Guide::default()
    };
    let run = Builder::new().run_guided(&guide, body);
    assert_eq!(run.divergence, None, "the observed schedule must be followed");
    assert!(run.report.failure().is_none(), "the observed run must pass");
    run.trace
}

fn run_predict(trace: &Trace, opts: &Options, body: fn()) -> Outcome {
    predict(trace, opts, |guide| Builder::new().run_guided(guide, body))
}

fn assertions_only(model: Model) -> Options {
    Options {
        model,
        races: false,
        ..Options::default()
    }
}

fn confirmed_assertions(out: &Outcome) -> Vec<String> {
    out.confirmed
        .iter()
        .filter(|p| matches!(p.property, Property::Assertion { .. }))
        .map(|p| p.description.clone())
        .collect()
}

/// Every prediction replays: an unconfirmed one is an engine defect.
fn no_unconfirmed(out: &Outcome) {
    assert!(
        out.unconfirmed.is_empty(),
        "unconfirmed: {:#?}",
        out.unconfirmed
    );
}

// ---- S1: the paper's Fig. 1 ----------------------------------------------------------

fn wang_fig1() {
    struct S {
        l: Mutex<()>,
        x: Shared<i32>,
        y: Shared<i32>,
    }
    let s = Arc::new(S {
        l: Mutex::new(()),
        x: Shared::new(0),
        y: Shared::new(0),
    });
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        let a = s1.x.get();
        {
            let _g = s1.l.lock().unwrap();
            s1.x.set(a + 2);
        }
        s1.y.set(a + 1);
        let _g = s1.l.lock().unwrap();
        s1.x.set(a + 1);
    });
    let s2 = s.clone();
    let t2 = symx::thread::spawn(move || {
        let b = 0;
        let _g = s2.l.lock().unwrap();
        if symx::branch(s2.x.get().sym_gt(b)) {
            symx::assert!(s2.y.get() == 1, "y == 1");
        }
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// T1 to completion, then T2: the assertion holds in the observed run.
fn wang_fig1_observed() -> Trace {
    observe(&[1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2], wang_fig1)
}

#[test]
fn s1_fig1_ctp_predicts_and_replay_confirms_the_assertion_failure() {
    let trace = wang_fig1_observed();
    let out = run_predict(&trace, &assertions_only(Model::Ctp), wang_fig1);
    no_unconfirmed(&out);
    let found = confirmed_assertions(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("s2.y.get() == 1"), "{found:?}");
    // The witness: T1 up to its first unlock, then T2 (x = 2 > 0, y = 0).
    let w = &out.confirmed[0].witness;
    assert_eq!(w.guide.steps, vec![1, 1, 1, 1, 2, 2, 2]);
    assert_eq!(w.context_switches, 1);
}

#[test]
fn s1_fig1_maximal_causal_model_cannot_predict_it() {
    let trace = wang_fig1_observed();
    let found = predictions(&trace, &assertions_only(Model::Mcm));
    assert!(found.is_empty(), "{found:#?}");
}
