//! The predictive engine through the library's API (`cargo_symx::engine::predict`): record
//! one passing execution of a small program (the observed schedule forced with a guide),
//! predict from its trace, replay the witnesses in process, and check the stated outcome (the
//! paper's figures and small derived programs, `docs/papers.md`). The tests that need the
//! engine's internals (the oracle, the differential and the scale tests) are the library's
//! own.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use cargo_symx::engine::predict::{predict, predictions, Model, Options, Property, TraceAnalysis};
use symx::sync::atomic::AtomicI64;
use symx::sync::Mutex;
use symx::trace::Trace;
use symx::{Builder, Shared};
use symx_test_programs::classic::{locked_update, lost_update_symbolic as lost_update};
use symx_test_programs::observe;
use symx_test_programs::wang::{fig1 as wang_fig1, fig7 as wang_fig7};

mod atomicity;
mod blocking;
mod deadlock;
mod gaps;
mod lock_claims;

fn run_predict(trace: &Trace, opts: &Options, body: fn()) -> TraceAnalysis {
    predict(trace, opts, |guide| Builder::new().run_guided(guide, body))
}

/// Options that ask for no property: only the lock claims stay on (every query assumes them,
/// and their own check asks whether one breaks). A test turns on the property it checks.
fn claims_only() -> Options {
    Options {
        assertions: false,
        races: false,
        deadlocks: false,
        atomicity: false,
        ..Options::default()
    }
}

fn assertions_only(model: Model) -> Options {
    Options {
        model,
        races: false,
        deadlocks: false,
        ..Options::default()
    }
}

fn confirmed_assertions(out: &TraceAnalysis) -> Vec<String> {
    out.confirmed
        .iter()
        .filter(|p| matches!(p.property, Property::Assertion(_)))
        .map(|p| p.description.clone())
        .collect()
}

/// Every prediction replays: an unconfirmed one is an engine defect.
fn no_unconfirmed(out: &TraceAnalysis) {
    assert!(
        out.unconfirmed.is_empty(),
        "unconfirmed: {:#?}",
        out.unconfirmed
    );
}

// ---- The paper's Fig. 1 --------------------------------------------------------------

/// T1 to completion, then T2: the assertion holds in the observed run.
fn wang_fig1_observed() -> Trace {
    observe(&[1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2], wang_fig1)
}

#[test]
fn fig1_ctp_predicts_and_replay_confirms_the_assertion_failure() {
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
fn fig1_maximal_causal_model_cannot_predict_it() {
    let trace = wang_fig1_observed();
    for model in [Model::Mcm, Model::ValuesPreserved] {
        let found = predictions(&trace, &assertions_only(model));
        assert!(found.is_empty(), "{model:?}: {found:#?}");
    }
}

// ---- Fig. 7, where maximal causality also sees the bug -----------------------------------

#[test]
fn fig7_both_ctp_and_maximal_causal_model_predict_it() {
    let trace = observe(&[1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2], wang_fig7);
    for model in [Model::Ctp, Model::Mcm] {
        let out = run_predict(&trace, &assertions_only(model), wang_fig7);
        no_unconfirmed(&out);
        assert_eq!(confirmed_assertions(&out).len(), 1, "{model:?}");
    }
    // T2 must read y = 0 where it was observed to read 1: only an assertion sees that read.
    assert!(predictions(&trace, &assertions_only(Model::ValuesPreserved)).is_empty());
}

// ---- Races in Fig. 1 -----------------------------------------------------------------------

#[test]
fn fig1_predicts_the_race_on_y_only() {
    let trace = wang_fig1_observed();
    let opts = Options {
        assertions: false,
        ..Options::default()
    };
    let out = run_predict(&trace, &opts, wang_fig1);
    no_unconfirmed(&out);
    let races: Vec<u32> = out
        .confirmed
        .iter()
        .map(|p| match p.property {
            Property::DataRace(r) => r.obj,
            other => panic!("not a race: {other:?}"),
        })
        .collect();
    // Objects in first-use order: 1 = x, 3 = y. x is only ever accessed under the lock
    // (or read by both threads: read-read is not a race).
    assert_eq!(races, vec![3], "{:#?}", out.confirmed);
    let first = out.confirmed[0].description.clone();
    assert!(first.contains("data race on object 3"), "{first}");
}

// ---- Lost update -----------------------------------------------------------------------------

fn fetch_add_update() {
    let c = Arc::new(AtomicI64::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let c = c.clone();
            symx::thread::spawn(move || {
                c.fetch_add_sym(1, SeqCst);
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    symx::assert!(c.load_sym(SeqCst) == 2);
}

#[test]
fn lost_update_is_predicted_from_a_serial_run() {
    let trace = observe(&[1, 1, 2, 2], lost_update);
    let out = run_predict(&trace, &Options::default(), lost_update);
    no_unconfirmed(&out);
    let found = confirmed_assertions(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    // Both workers read 0 before either writes.
    let steps = &out.confirmed[0].witness.guide.steps;
    assert!(
        steps[0] != steps[1] && steps[..2].iter().all(|&t| t != 0),
        "{steps:?}"
    );
}

#[test]
fn correct_mutex_program_has_no_prediction() {
    let trace = observe(&[1, 1, 1, 1, 2, 2, 2, 2], locked_update);
    assert!(predictions(&trace, &Options::default()).is_empty());
    let out = run_predict(&trace, &Options::default(), locked_update);
    assert!(out.confirmed.is_empty() && out.unconfirmed.is_empty());
    assert!(
        out.candidates > 0,
        "the assertion and the conflicting pairs were asked"
    );
}

#[test]
fn fetch_add_is_one_event_and_has_no_prediction() {
    let trace = observe(&[1, 2], fetch_add_update);
    assert!(predictions(&trace, &Options::default()).is_empty());
}

// ---- Swapping critical sections -------------------------------------------------------------

fn swap_sections() {
    let x = Arc::new(Shared::new(0i32));
    let l = Arc::new(Mutex::new(()));
    let (x1, l1) = (x.clone(), l.clone());
    let t1 = symx::thread::spawn(move || {
        let _g = l1.lock().unwrap();
        x1.set(1);
    });
    let t2 = symx::thread::spawn(move || {
        let _g = l.lock().unwrap();
        symx::assert!(x.get() == 1);
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// One might expect MCM to miss this "because the read is pinned to 1"; under the paper's own
/// `CM_rho` (assertions kept symbolic) the read that only the assertion sees is not pinned, so
/// `Model::Mcm` does find it. Only the values-preserved model misses it.
#[test]
fn swapped_critical_sections_ctp_yes_values_preserved_no() {
    let trace = observe(&[1, 1, 1, 2, 2, 2], swap_sections);
    // x is written before it is read in the observed run: its initial value is not in the
    // trace, and the replay of the first witness shows it.
    let out = run_predict(&trace, &assertions_only(Model::Ctp), swap_sections);
    assert_eq!(confirmed_assertions(&out).len(), 1, "{out:#?}");
    assert_eq!(out.confirmed[0].witness.guide.steps, [2, 2]);
    assert!(out.unconfirmed.is_empty());
    assert_eq!(predictions(&trace, &assertions_only(Model::Mcm)).len(), 1);
    assert!(predictions(&trace, &assertions_only(Model::ValuesPreserved)).is_empty());
}

// ---- Races on an UnsafeCell, whose accesses are no scheduling points ------------------------

/// T1 writes the cell before its first step, then publishes with a store; T2 loads (the value
/// unused), then reads the cell. Observed T1 first: the load synchronises with the store, no
/// race. Predicted: T2's load first, and the two cell accesses race.
fn cell_publish() {
    /// What a hand-written channel would do: promise that its protocol makes sharing safe.
    struct Slot(symx::cell::UnsafeCell<i64>);
    // SAFETY: the test wants the accesses checked, not prevented.
    unsafe impl Sync for Slot {}
    let s = Arc::new((Slot(symx::cell::UnsafeCell::new(0i64)), AtomicI64::new(0)));
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        s1.0 .0.with_mut(|p| unsafe { *p = 1 });
        s1.1.store_sym(1, SeqCst);
    });
    let t2 = symx::thread::spawn(move || {
        let _ = s.1.load_sym(SeqCst);
        s.0 .0.with(|p| unsafe { *p });
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

#[test]
fn a_race_on_an_unsafe_cell_accessed_before_the_first_step_is_predicted() {
    let trace = observe(&[1, 2], cell_publish);
    let opts = Options {
        assertions: false,
        deadlocks: false,
        ..Options::default()
    };
    let out = run_predict(&trace, &opts, cell_publish);
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 1);
    assert_eq!(out.confirmed.len(), 1, "{out:#?}");
    assert!(matches!(out.confirmed[0].property, Property::DataRace(_)));
    // Only T2's load is scheduled before the race shows.
    assert_eq!(out.confirmed[0].witness.guide.steps, vec![2]);
}

// ---- A condvar hand-off keeps its order ------------------------------------------------------

fn hand_off() {
    use symx::sync::Condvar;
    let x = Arc::new(AtomicI64::new(0));
    let ready = Arc::new((Mutex::new(()), Condvar::new(), Shared::new(false)));
    let (x1, r1) = (x.clone(), ready.clone());
    let t1 = symx::thread::spawn(move || {
        x1.store_sym(1, SeqCst);
        let _g = r1.0.lock().unwrap();
        r1.2.set(true);
        r1.1.notify_one();
    });
    let t2 = symx::thread::spawn(move || {
        let mut g = ready.0.lock().unwrap();
        while !symx::branch(ready.2.get()) {
            g = ready.1.wait(g).unwrap();
        }
        drop(g);
        symx::assert!(x.load_sym(SeqCst) == 1);
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// The flag is written before it is read in the observed run, but the trace records its
/// initial value (`false`), so no witness leans on a guess: nothing is predicted and no query
/// needs asking again.
#[test]
fn hand_off_under_a_flag_is_not_predicted_to_fail() {
    let trace = observe(&[1, 1, 1, 1, 1, 2, 2, 2, 2, 2], hand_off);
    let out = run_predict(&trace, &assertions_only(Model::Ctp), hand_off);
    no_unconfirmed(&out);
    assert!(out.confirmed.is_empty(), "{out:#?}");
    assert_eq!(out.refined, 0);
}

// ---- Fork/join with branches ------------------------------------------------------------------

/// One of the scenario's two threads: if `other` is 0, `mine` becomes 1 then 2, else 0.
fn branch_on(other: Arc<AtomicI64>, mine: Arc<AtomicI64>) -> symx::thread::JoinHandle<()> {
    symx::thread::spawn(move || {
        let seen = other.load_sym(SeqCst);
        if symx::branch(seen.sym_eq(0)) {
            mine.store_sym(1, SeqCst);
            let next = mine.load_sym(SeqCst) + 1;
            mine.store_sym(next, SeqCst);
        } else {
            mine.store_sym(0, SeqCst);
        }
    })
}

// The threads keep the names `foo` and `bar` the scenario gives them.
#[allow(clippy::disallowed_names)]
fn fork_join_branches() {
    let (x, y) = (Arc::new(AtomicI64::new(0)), Arc::new(AtomicI64::new(0)));
    let foo = branch_on(y.clone(), x.clone());
    let bar = branch_on(x.clone(), y.clone());
    bar.join().unwrap();
    foo.join().unwrap();
    symx::assert!(x.load_sym(SeqCst) != y.load_sym(SeqCst));
}

/// foo entirely, then bar (x = 2, y = 0). The violating runs need bar's then-branch, which
/// this trace does not contain: the CTP of one trace cannot predict them (the paper's §8 merges
/// the branches of several traces for that).
#[test]
fn fork_join_branch_not_in_the_trace_is_not_predicted() {
    let trace = observe(&[1, 1, 1, 1, 2, 2], fork_join_branches);
    let out = run_predict(&trace, &Options::default(), fork_join_branches);
    assert!(
        out.confirmed.is_empty() && out.unconfirmed.is_empty(),
        "{out:#?}"
    );
}
