//! Golden traces: five small programs whose recorded trace is checked in. A difference means
//! the trace format or what the runtime records changed: if on purpose, bump
//! `symx::trace::TRACE_VERSION` (unless the change is additive: new event kinds, fields or
//! expression nodes that old content does not use) and regenerate with
//! `SYMX_BLESS=1 cargo test --test golden_traces`.
//!
//! Each program runs once under `Builder::run_guided` with an empty guide (the thread that
//! ran last continues while it can), so the execution is fixed.

use std::path::PathBuf;

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Condvar, Mutex};
use symx::trace::Trace;
use symx::{Builder, Guide};
use symx_test_programs::wang::fig1;

fn golden(name: &str, body: impl Fn()) {
    let guide = Guide {
        inputs: [("k".to_string(), 200)].into_iter().collect(),
        ..Guide::default()
    };
    let run = Builder::new().name(name).run_guided(&guide, body);
    assert_eq!(run.divergence, None);
    run.trace.check_consistency().unwrap();
    let json = run.trace.to_json();
    assert_eq!(Trace::from_json(&json).unwrap(), run.trace, "round trip");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/{name}.json"));
    if std::env::var_os("SYMX_BLESS").is_some() {
        std::fs::write(&path, &json).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (SYMX_BLESS=1 writes it)", path.display()));
    assert!(
        expected == json,
        "the trace of `{name}` differs from {}: bump TRACE_VERSION if the format changed, \
         then regenerate with SYMX_BLESS=1\n--- now:\n{json}",
        path.display()
    );
}

#[test]
fn lost_update() {
    golden("lost_update", || {
        let c = Arc::new(AtomicUsize::new(0));
        let c2 = c.clone();
        let t = symx::thread::spawn(move || {
            let v = c2.load(Ordering::SeqCst);
            c2.store(v + 1, Ordering::SeqCst);
        });
        let v = c.load(Ordering::SeqCst);
        c.store(v + 1, Ordering::SeqCst);
        t.join().unwrap();
    });
}

#[test]
fn mutex_counter() {
    golden("mutex_counter", || {
        let m = Arc::new(Mutex::new(0));
        let m2 = m.clone();
        let t = symx::thread::spawn(move || *m2.lock().unwrap() += 1);
        *m.lock().unwrap() += 1;
        t.join().unwrap();
        assert_eq!(*m.lock().unwrap(), 2);
    });
}

#[test]
fn condvar_hand_off() {
    golden("condvar_hand_off", || {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let pair2 = pair.clone();
        let t = symx::thread::spawn(move || {
            let (m, cv) = &*pair2;
            *m.lock().unwrap() = true;
            cv.notify_one();
        });
        let (m, cv) = &*pair;
        let mut ready = m.lock().unwrap();
        while !*ready {
            ready = cv.wait(ready).unwrap();
        }
        drop(ready);
        t.join().unwrap();
    });
}

/// Its checked-in trace records the overflow checks of a debug build; a build that wraps
/// records none.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "the golden trace has the overflow checks of a debug build"
)]
fn wang_fig1() {
    golden("wang_fig1", fig1);
}

/// The permutation the paper predicts, rho' = (t1-t4) t9-t13 (t5-t8), does fail: T2 reads
/// x = 2, takes the same branch, and finds y = 0.
#[test]
fn wang_fig1_predicted_permutation_fails() {
    let guide = Guide {
        steps: vec![1, 1, 1, 1, 2, 2, 2],
        ..Guide::default()
    };
    let run = Builder::new().run_guided(&guide, fig1);
    assert_eq!(run.divergence, None);
    let failure = run.report.failure().expect("the assertion fails");
    assert_eq!(failure.kind(), symx::FailureKind::Panic);
    assert!(
        failure.message().contains("y == 1"),
        "{}",
        failure.message()
    );
}

#[test]
fn input_decides_the_lock() {
    golden("input_decides_the_lock", || {
        let locks = Arc::new((Mutex::new(0), Mutex::new(0)));
        let l2 = locks.clone();
        let t = symx::thread::spawn(move || *l2.1.lock().unwrap() += 1);
        let k = symx::any_named::<u8>("k");
        let m = if symx::branch(k.sym_lt(128u8)) {
            &locks.0
        } else {
            &locks.1
        };
        *m.lock().unwrap() += 1;
        t.join().unwrap();
    });
}
