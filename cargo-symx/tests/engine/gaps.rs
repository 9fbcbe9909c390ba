//! The regressions for the gaps of the paper's literal encoding (gaps A, B and C in
//! `docs/papers.md`) and the context bound with its unsat-core lift, each a small program
//! recorded and predicted from.

use super::*;

// ---- Gap A, a blocked check-and-set's write is not visible ----------------------------------

fn check_and_set() {
    let x = Arc::new(AtomicI64::new(0));
    let x1 = x.clone();
    let t1 = symx::thread::spawn(move || {
        // Succeeds only while x == 0: the guard of its write.
        let _ = x1.compare_exchange(0, 5, SeqCst, SeqCst);
    });
    let t2 = symx::thread::spawn(move || {
        x.store_sym(1, SeqCst);
        symx::assert!(x.load_sym(SeqCst) != 5);
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

#[test]
fn gap_a_blocked_check_and_set_is_not_predicted() {
    let trace = observe(&[1, 2, 2], check_and_set);
    let found = predictions(&trace, &assertions_only(Model::Ctp));
    assert!(found.is_empty(), "{found:#?}");
}

// ---- Gap B, a thread that diverged after a changed read --------------------------------------

fn diverged_thread() {
    let (x, y, w) = (
        Arc::new(AtomicI64::new(0)),
        Arc::new(AtomicI64::new(0)),
        Arc::new(AtomicI64::new(0)),
    );
    let (x1, y1, w1) = (x.clone(), y.clone(), w.clone());
    let t1 = symx::thread::spawn(move || {
        let a = y1.load_sym(SeqCst);
        w1.store_sym(a, SeqCst);
        if symx::branch(a.sym_eq(0)) {
            x1.store_sym(1, SeqCst);
            let _r = x1.load_sym(SeqCst);
        }
    });
    let t2 = symx::thread::spawn(move || y.store_sym(1, SeqCst));
    let t3 = symx::thread::spawn(move || {
        symx::assert!(w.load_sym(SeqCst) != 1);
    });
    for t in [t1, t2, t3] {
        t.join().unwrap();
    }
}

#[test]
fn gap_b_violation_needs_a_thread_stopped_before_its_flipped_branch() {
    let trace = observe(&[1, 1, 1, 1, 3, 2], diverged_thread);
    let out = run_predict(&trace, &assertions_only(Model::Ctp), diverged_thread);
    no_unconfirmed(&out);
    assert_eq!(confirmed_assertions(&out).len(), 1);
    // T2; T1's read and write; T3 — T1 never reaches its branch's body.
    assert_eq!(out.confirmed[0].witness.guide.steps, vec![2, 1, 1, 3]);
}

// ---- Gap C, the bound counts levels, not context switches --------------------------------------

fn levels() {
    let (x, y) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicI64::new(0)));
    let (x1, y2) = (x.clone(), y.clone());
    let t1 = symx::thread::spawn(move || x1.store_sym(1, SeqCst));
    let t2 = symx::thread::spawn(move || y2.store_sym(1, SeqCst));
    let t3 = symx::thread::spawn(move || {
        symx::assert!(x.load_sym(SeqCst) + y.load_sym(SeqCst) != 2);
    });
    for t in [t1, t2, t3] {
        t.join().unwrap();
    }
}

#[test]
fn gap_c_bound_one_admits_a_witness_with_two_switches() {
    let trace = observe(&[3, 3, 1, 2], levels);
    let bounded = |b| Options {
        bound: Some(b),
        ..assertions_only(Model::Ctp)
    };
    assert!(predictions(&trace, &bounded(0)).is_empty());
    let out = run_predict(&trace, &bounded(1), levels);
    no_unconfirmed(&out);
    assert_eq!(confirmed_assertions(&out).len(), 1);
    // The report gives the witness's true count, not the bound.
    assert_eq!(out.confirmed[0].witness.context_switches, 2);
}

// ---- Context bounds on Fig. 1 and the unsat-core lift -----------------------------------------

#[test]
fn fig1_prefix_mode_finds_it_at_bound_one() {
    let trace = wang_fig1_observed();
    let bounded = |b| Options {
        bound: Some(b),
        ..assertions_only(Model::Ctp)
    };
    assert!(predictions(&trace, &bounded(0)).is_empty());
    assert_eq!(predictions(&trace, &bounded(1)).len(), 1);
}

#[test]
fn fig1_mcm_bounded_proof_lifts_to_all_interleavings() {
    let trace = wang_fig1_observed();
    let opts = Options {
        bound: Some(2),
        ..assertions_only(Model::Mcm)
    };
    let out = run_predict(&trace, &opts, wang_fig1);
    assert!(out.confirmed.is_empty());
    assert_eq!(out.proved_unbounded, 1, "{out:#?}");
}
