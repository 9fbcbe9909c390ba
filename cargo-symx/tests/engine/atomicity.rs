//! Atomicity violations (Wang et al.'s Figs. 5 and 9, and split critical sections): regions
//! marked with `symx::atomic_region`, a remote access predicted to fall between two of their
//! accesses, and the witness replayed to show the three accesses in that order.

use std::sync::Arc;

use std::sync::atomic::Ordering::SeqCst;

use symx::sync::atomic::AtomicI64;
use symx::sync::{Condvar, Mutex};
use symx::Shared;

use cargo_symx::engine::predict::{Options, Property, TraceAnalysis};
use symx_test_programs::classic::split_sections;

use super::{claims_only, no_unconfirmed, observe, run_predict};

fn atomicity_only() -> Options {
    Options {
        atomicity: true,
        ..claims_only()
    }
}

/// The confirmed violations' patterns, sorted.
fn patterns(out: &TraceAnalysis) -> Vec<String> {
    let mut found: Vec<String> = out
        .confirmed
        .iter()
        .map(|p| {
            assert!(matches!(p.property, Property::Atomicity(_)));
            let (_, pattern) = p.description.split_once('(').expect("a pattern");
            pattern.split_once(')').expect("a pattern").0.to_string()
        })
        .collect();
    found.sort();
    found
}

// ---- An erroneous prefix (Fig. 5 reconstructed) -------------------------------------------

fn fig5() {
    let x = Arc::new(AtomicI64::new(0));
    let x1 = x.clone();
    let t1 = symx::thread::spawn(move || {
        symx::atomic_region(|| {
            x1.store_sym(0, SeqCst);
            let a = x1.load_sym(SeqCst) + 1;
            if symx::branch(a.sym_eq(1)) {
                x1.store_sym(2, SeqCst);
            }
        })
    });
    let t2 = symx::thread::spawn(move || {
        x.store_sym(3, SeqCst);
        let _b = x.load_sym(SeqCst);
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// T1, then T2. The W-W-R violation `<X.set(0), X.set(3), X.get()>` flips T1's branch
/// (`a = 4`): only the prefix semantics sees it. The other three unserializable triplets
/// are feasible prefixes too (proto).
#[test]
fn erroneous_prefix_atomicity_violations_are_predicted_and_replayed() {
    let trace = observe(&[1, 1, 1, 2, 2], fig5);
    let out = run_predict(&trace, &atomicity_only(), fig5);
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 4);
    assert_eq!(patterns(&out), ["R-W-W", "W-R-W", "W-W-R", "W-W-W"]);
    let wwr = out
        .confirmed
        .iter()
        .find(|p| p.description.contains("(W-W-R)"))
        .expect("the W-W-R violation");
    // T1's X.set(0), T2's X.set(3), then T1's X.get() as the violation point.
    assert_eq!(wwr.witness.guide.steps, vec![1, 2, 1]);
    assert_eq!(wwr.witness.context_switches, 2);
}

// ---- Data prevents the violation (Fig. 9(a) reconstructed) ----------------------------------

fn fig9a() {
    let x = Arc::new(AtomicI64::new(0));
    let x1 = x.clone();
    let t1 = symx::thread::spawn(move || {
        symx::atomic_region(|| {
            let a = x1.load_sym(SeqCst);
            x1.store_sym(a + 1, SeqCst);
        })
    });
    let t2 = symx::thread::spawn(move || {
        symx::atomic_region(|| {
            let b = x.load_sym(SeqCst);
            if symx::branch(b.sym_gt(0)) {
                x.store_sym(b - 1, SeqCst);
            }
        })
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// T1, then T2. Both R-W-W triplets need T2 to write between T1's read and write, but T2
/// writes only after reading a positive value, which exists only once T1 wrote: no violation
/// (a model that ignores data reports one).
#[test]
fn data_prevents_the_atomicity_violation() {
    let trace = observe(&[1, 1, 2, 2], fig9a);
    let out = run_predict(&trace, &atomicity_only(), fig9a);
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 2);
    assert!(out.confirmed.is_empty(), "{:#?}", out.confirmed);
    assert_eq!(out.solve_times.len(), 2);
}

// ---- A condvar hand-off prevents the violation (Fig. 9(b) reconstructed) ---------------------

fn fig9b(wait: bool) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicI64::new(0));
        let ready = Arc::new((Mutex::new(()), Condvar::new(), Shared::new(false)));
        let (x1, r1) = (x.clone(), ready.clone());
        let t1 = symx::thread::spawn(move || {
            symx::atomic_region(|| {
                x1.store_sym(1, SeqCst);
                let _a = x1.load_sym(SeqCst) + 1;
                let _g = r1.0.lock().unwrap();
                r1.2.set(true);
                r1.1.notify_one();
            })
        });
        let t2 = symx::thread::spawn(move || {
            if wait {
                let mut g = ready.0.lock().unwrap();
                while !symx::branch(ready.2.get()) {
                    g = ready.1.wait(g).unwrap();
                }
            }
            x.store_sym(5, SeqCst);
        });
        t1.join().unwrap();
        t2.join().unwrap();
    }
}

/// T1, then T2. T2 writes X only after it saw the flag T1 sets after its region's accesses:
/// the W-W-R triplet `<X.set(1), X.set(5), X.get()>` is infeasible. Without the wait it is a
/// violation.
#[test]
fn condvar_hand_off_prevents_the_atomicity_violation() {
    let guarded = fig9b(true);
    let trace = observe(&[1, 1, 1, 1, 1, 1, 2, 2, 2, 2], &guarded);
    let out = super::predict(&trace, &atomicity_only(), |g| {
        symx::Builder::new().run_guided(g, &guarded)
    });
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 1);
    assert!(out.confirmed.is_empty(), "{:#?}", out.confirmed);

    let unguarded = fig9b(false);
    let trace = observe(&[1, 1, 1, 1, 1, 1, 2], &unguarded);
    let out = super::predict(&trace, &atomicity_only(), |g| {
        symx::Builder::new().run_guided(g, &unguarded)
    });
    no_unconfirmed(&out);
    assert_eq!(patterns(&out), ["W-W-R"]);
    assert_eq!(out.confirmed[0].witness.guide.steps, vec![1, 2, 1]);
}

// ---- Split critical sections inside an atomic region -----------------------------------------

/// T1, then T2. Two critical sections do not make an atomic region: T2's section fits
/// between them (R-W-W). (Merged into one section, the lockset filter drops the triplet
/// before any query: the atomicity module's own test.)
#[test]
fn split_critical_sections_break_the_atomic_region() {
    let split = split_sections(false);
    let trace = observe(&[1, 1, 1, 1, 1, 1, 2, 2, 2], &split);
    let out = super::predict(&trace, &atomicity_only(), |g| {
        symx::Builder::new().run_guided(g, &split)
    });
    no_unconfirmed(&out);
    assert_eq!(patterns(&out), ["R-W-W"]);
    assert_eq!(
        out.confirmed[0].witness.guide.steps,
        vec![1, 1, 1, 2, 2, 2, 1, 1]
    );
}
