//! `notify_one` and `notify_all` over symbolic queue names (the paper's §4.2): the
//! `|WQ| + 1` and `2^|WQ|` outcome rules, pruned by the facts, and initial waiters whose
//! order is unknown.

use symx::context::{self, Condvars, ContextMode, Locks};
use symx::Sym;

use super::{explore, outcomes, vectors_of};

/// t1 waits on condvar `a`, then t2 on `b` (known order); t3 notifies `c`.
fn waiters_then_notify(facts: fn(Sym<usize>, Sym<usize>, Sym<usize>), all: bool) {
    let a = context::identity("a", 3);
    let b = context::identity("b", 3);
    let c = context::identity("c", 3);
    facts(a, b, c);
    let cvs = Condvars::new("cv", 3);
    let m = Locks::new("m", 1);
    let zero = Sym::constant(0usize);
    let t1 = context::spawn_waiting_at(1, &cvs, a, &m, zero, drop);
    let t2 = context::spawn_waiting_at(2, &cvs, b, &m, zero, drop);
    let t3 = symx::thread::spawn(move || {
        if all {
            cvs.notify_all(c);
        } else {
            cvs.notify_one(c);
        }
    });
    t3.join().unwrap();
    // Whoever was not woken still waits: the exploration ends in a deadlock then, which
    // is what a context with a missed wake-up is; the counts are the notify's.
    let _ = (t1, t2);
}

fn wakes(out: &cargo_symx::engine::context::ContextResult) -> Vec<String> {
    outcomes(out, "wake")
}

fn no_facts() {
    waiters_then_notify(|_, _, _| {}, false)
}

fn a_is_c() {
    waiters_then_notify(|a, _, c| context::value_fact("a == c", a.sym_eq(c)), false)
}

fn only_b_is_c() {
    waiters_then_notify(
        |a, b, c| context::value_fact("a != c, b == c", a.sym_ne(c) & b.sym_eq(c)),
        false,
    )
}

#[test]
fn notify_one_has_three_outcomes_without_facts() {
    let out = explore(ContextMode::Full, no_facts);
    assert_eq!(
        wakes(&out),
        ["wake nobody", "wake thread 1", "wake thread 2"],
        "{out:#?}"
    );
}

#[test]
fn notify_one_has_one_outcome_when_a_is_c() {
    let out = explore(ContextMode::Full, a_is_c);
    assert_eq!(wakes(&out), ["wake thread 1"], "{out:#?}");
}

#[test]
fn notify_one_wakes_t2_when_only_b_is_c() {
    let out = explore(ContextMode::Full, only_b_is_c);
    assert_eq!(wakes(&out), ["wake thread 2"], "{out:#?}");
}

fn all_no_facts() {
    waiters_then_notify(|_, _, _| {}, true)
}

#[test]
fn notify_all_has_four_subsets_without_facts() {
    let out = explore(ContextMode::Full, all_no_facts);
    assert_eq!(
        wakes(&out),
        ["wake {1, 2}", "wake {1}", "wake {2}", "wake {}"],
        "{out:#?}"
    );
}

/// The same with `a`, `b`, `c` one concrete object: nothing to choose.
fn all_one_object() {
    let cvs = Condvars::new("cv", 1);
    let m = Locks::new("m", 1);
    let zero = Sym::constant(0usize);
    let _t1 = context::spawn_waiting_at(1, &cvs, zero, &m, zero, drop);
    let _t2 = context::spawn_waiting_at(2, &cvs, zero, &m, zero, drop);
    symx::thread::spawn(move || assert_eq!(cvs.notify_all(zero), 2))
        .join()
        .unwrap();
}

#[test]
fn notify_all_on_one_concrete_object_has_one_outcome() {
    let out = explore(ContextMode::Full, all_one_object);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    assert!(wakes(&out).is_empty(), "{out:#?}");
}

/// t1 and t2 are both inside a wait on one condvar, in an order nobody knows; t3 notifies
/// twice.
fn two_initial_waiters() {
    let cvs = Condvars::new("cv", 1);
    let m = Locks::new("m", 1);
    let zero = Sym::constant(0usize);
    let _t1 = context::spawn_waiting(&cvs, zero, &m, zero, drop);
    let _t2 = context::spawn_waiting(&cvs, zero, &m, zero, drop);
    symx::thread::spawn(move || {
        assert!(cvs.notify_one(zero));
        assert!(cvs.notify_one(zero));
    })
    .join()
    .unwrap();
}

#[test]
fn unknown_waiter_order_gives_two_vectors_not_four() {
    let out = explore(ContextMode::Full, two_initial_waiters);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    // The second notify has one waiter left and one outcome: only the first one chooses.
    let expected: Vec<Vec<String>> =
        vec![vec!["wake thread 1".into()], vec!["wake thread 2".into()]];
    assert_eq!(vectors_of(&out, "wake"), expected, "{out:#?}");
}
