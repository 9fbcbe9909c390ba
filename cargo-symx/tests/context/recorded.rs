//! Recorded contexts: the program runs from its start under one fixed schedule until every
//! thread that can still run stops at the explored checkpoint; only the schedules after it
//! are explored, the synchronization state there is recorded, and a failure that needs
//! generalised values is confirmed by a run from the start or labelled as unconfirmed.

use cargo_symx::engine::context::{self, ContextResult};
use cargo_symx::engine::symbolic::Options;
use cargo_symx::engine::InProcess;
use symx::sync::{Arc, Barrier, Mutex};
use symx::{thread, Sym};
use symx_test_programs::contexts::two_phases;

fn explore_from(label: Option<&str>, body: fn()) -> ContextResult {
    let builder = symx::Builder::new().context(label).keep_going(true);
    let mut exec = InProcess::new(builder, body);
    context::explore(&mut exec, &Options::default())
}

#[test]
fn the_prefix_runs_once_and_only_the_context_is_explored() {
    // From the start: every order of the six critical sections of two threads, C(6, 3).
    let start = explore_from(None, two_phases);
    assert_eq!(start.paths, 20, "{start:#?}");
    // From the context: the prefix once, then the two orders of the last two sections.
    let ctx = explore_from(Some("core"), two_phases);
    assert_eq!(ctx.paths, 2, "{ctx:#?}");
    assert_eq!(ctx.failures.len(), 0);
    let recorded = ctx.recorded.expect("the context was entered");
    assert_eq!(recorded.label, "core");
    assert_eq!(
        recorded.facts,
        [
            "thread 0 (main) is waiting #1 (for the thread to finish on Thread#0)",
            "thread 1 is at the checkpoint",
            "thread 2 is at the checkpoint",
        ]
    );
}

/// At the checkpoint thread 1 holds the lock, thread 2 waits at the barrier, thread 3 waits
/// for the lock.
fn held_and_waiting() {
    let m = Arc::new(Mutex::new(()));
    let b = Arc::new(Barrier::new(2));
    let (m1, b1) = (m.clone(), b.clone());
    let t1 = thread::spawn(move || {
        let g = m1.lock().unwrap();
        symx::checkpoint!("inside");
        drop(g);
        b1.wait();
    });
    let t2 = thread::spawn(move || {
        b.wait();
    });
    let t3 = thread::spawn(move || {
        drop(m.lock().unwrap());
    });
    for t in [t1, t2, t3] {
        t.join().unwrap();
    }
}

#[test]
fn lock_owners_waiters_and_barrier_counts_are_recorded_facts() {
    let out = explore_from(Some("inside"), held_and_waiting);
    let recorded = out.recorded.clone().expect("the context was entered");
    assert_eq!(
        recorded.facts,
        [
            "Mutex created at recorded.rs:43 is held by thread 1",
            "Barrier created at recorded.rs:44 has seen 1 of 2 threads",
            "thread 0 (main) is waiting #1 (for the thread to finish on Thread#0)",
            "thread 2 is waiting #2 (for the other threads to arrive on Barrier created at \
             recorded.rs:44)",
            "thread 1 is at the checkpoint",
            "thread 3 waits to lock Mutex created at recorded.rs:43",
        ],
        "{out:#?}"
    );
    // After the context only thread 1 can move; its unlock and barrier arrival order the rest.
    assert_eq!(out.paths, 1, "{out:#?}");
    assert_eq!(out.failures.len(), 0);
}

/// Two threads at one checkpoint: one context, both captures generalised.
fn both_at_the_checkpoint() {
    let hs: Vec<_> = (1..=2u32)
        .map(|k| {
            thread::spawn(move || {
                let x = Sym::from(10 * k);
                let x = symx::checkpoint!("pair", x);
                if symx::branch(x.sym_eq(25u32)) {
                    panic!("x is 25");
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}

#[test]
fn several_threads_checkpoints_form_one_context() {
    let out = explore_from(Some("pair"), both_at_the_checkpoint);
    let recorded = out.recorded.clone().expect("the context was entered");
    assert!(recorded
        .facts
        .contains(&"thread 1 is at the checkpoint".to_string()));
    assert!(recorded
        .facts
        .contains(&"thread 2 is at the checkpoint".to_string()));
    // Each thread's x is its own input; either can be 25: two failing sides, neither
    // computed by the program (the run computed 10 and 20 from no input).
    let names: Vec<Vec<&str>> = (out.failures.iter())
        .map(|f| f.generalised.iter().map(|g| g.name.as_str()).collect())
        .collect();
    assert!(names.contains(&vec!["pair.t1.x"]), "{out:#?}");
    assert!(names.contains(&vec!["pair.t2.x"]), "{out:#?}");
    assert_eq!(out.confirmed_failures(), 0, "{out:#?}");
}

/// The capture is computed from an input drawn before the checkpoint.
fn computed_from_input(step: u32, bad: u32) {
    let n: Sym<u32> = symx::any_named("n");
    let x = n * step + 1u32;
    let x = symx::checkpoint!("calc", x);
    if symx::branch(x.sym_eq(bad)) {
        panic!("x is {bad}");
    }
}

#[test]
fn a_generalised_failure_the_prefix_can_compute_is_confirmed() {
    // x = n + 1: the failure at x == 7 needs n == 6, and the run from the start with n = 6
    // fails the same way.
    let out = explore_from(Some("calc"), || computed_from_input(1, 7));
    assert_eq!(out.failures.len(), 1, "{out:#?}");
    let f = &out.failures[0];
    assert_eq!(f.generalised.len(), 1);
    assert_eq!((f.generalised[0].value, f.generalised[0].recorded), (7, 1));
    let c = f.confirmation.as_ref().expect("confirmed from the start");
    assert_eq!(c.inputs, [("n".to_string(), 6)]);
    assert!(f.confirmed());
}

#[test]
fn a_generalised_failure_no_prefix_input_computes_stays_unconfirmed() {
    // x = 2n + 1 is odd: x == 8 is reachable only from the generalised context.
    let out = explore_from(Some("calc"), || computed_from_input(2, 8));
    assert_eq!(out.failures.len(), 1, "{out:#?}");
    assert!(out.failures[0].confirmation.is_none());
    assert_eq!(out.confirmed_failures(), 0);
}
