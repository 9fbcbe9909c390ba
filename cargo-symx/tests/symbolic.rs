//! The symbolic engine on small programs, in process: the figures of Bergan's dissertation
//! ("Avoiding State-Space Explosion in Multithreaded Programs with Input-Covering Schedules and
//! Symbolic Execution", `docs/papers.md`), Fig. 1.2: an assertion failure, a deadlock, an
//! atomicity violation; bugs behind an input value and an interleaving at once, and the
//! counts and models the algorithm promises.

use std::sync::Arc;

use cargo_symx::engine::symbolic::{self, Options, SearchResult};
use cargo_symx::engine::InProcess;
use symx::sync::atomic::AtomicU8;
use symx::sync::atomic::Ordering::SeqCst;
use symx::sync::Mutex;
use symx::{Builder, Sym};
use symx_test_programs::symbolic::{
    behind_a_branch, cas_expecting_an_input, even_odd, guarded_increments, hash_collision,
    plain_cas_expecting_an_input, split_increment, thirty_seven,
};

fn search(body: fn(), opts: Options) -> SearchResult {
    let mut exec = InProcess::new(Builder::new(), body);
    symbolic::explore(&mut exec, &opts)
}

fn keep_going() -> Options {
    Options {
        keep_going: true,
        ..Options::default()
    }
}

/// The one finding, after checking that its token replays to the same failure with the
/// inputs it carries.
fn the_finding(out: &SearchResult, body: fn()) -> &symbolic::Finding {
    assert_eq!(out.findings.len(), 1, "{:#?}", out.findings);
    let f = &out.findings[0];
    let schedule: symx::Schedule = f.failure.token.parse().expect("a valid token");
    let again = Builder::new().replay(&schedule, body);
    let failure = again.failure().expect("the token replays the failure");
    assert_eq!(failure.kind().name(), f.failure.kind);
    f
}

// ---- Fig. 1.2, an assertion: X even and T2 first ------------------------------------

#[test]
fn an_assertion_fails_in_exactly_one_order_and_only_for_even_inputs() {
    let out = search(even_odd, keep_going());
    // Two input classes (X even, X odd), two critical-section orders in each.
    assert_eq!(out.classes, 2, "{out:#?}");
    let f = the_finding(&out, even_odd);
    assert_eq!(f.failure.kind, "panic");
    assert_eq!(f.inputs["X"] % 2, 0, "the failure needs X even");
    // T2's section ran first: its lock is the first step of a spawned thread.
    let first_lock = f.failure.steps.iter().find(|s| s.op.starts_with("lock"));
    assert_eq!(
        first_lock.map(|s| s.thread),
        Some(2),
        "{:#?}",
        f.failure.steps
    );
    // The odd class passes in both orders, and the branch's two sides were both taken.
    assert_eq!(out.executions, 4);
    assert_eq!((out.sides_covered, out.sides_feasible), (2, 2));
}

#[test]
fn without_going_on_the_search_stops_at_the_bug_and_is_not_complete() {
    let out = search(even_odd, Options::default());
    assert_eq!(out.findings.len(), 1);
    assert!(!out.complete);
}

// ---- Fig. 1.2, an atomicity violation: X0 outside {41, 42} ---------------------------

#[test]
fn an_atomicity_violation_fails_only_between_the_sections_and_outside_41_42() {
    let out = search(split_increment, Options::default());
    let f = the_finding(&out, split_increment);
    let x0 = f.inputs["X0"];
    assert!(x0 != 41 && x0 != 42, "X0 = {x0}");
    // T1's two sections, with T2's in between.
    let sections: Vec<usize> = f
        .failure
        .steps
        .iter()
        .filter(|s| s.op.starts_with("lock"))
        .map(|s| s.thread)
        .collect();
    assert_eq!(sections, [1, 2, 1], "{:#?}", f.failure.steps);
}

// ---- a bug that needs n == 37 and one interleaving of three threads -------------------

/// The inputs of the one bug a search with default settings finds (its token checked).
fn bug_inputs(body: fn()) -> symx::InputValues {
    let out = search(body, Options::default());
    the_finding(&out, body).inputs.clone()
}

#[test]
fn a_bug_behind_an_input_value_and_an_interleaving_is_found() {
    assert_eq!(bug_inputs(thirty_seven)["n"], 37);
}

#[test]
fn a_bit_vector_condition_no_random_input_meets_is_solved() {
    let x = bug_inputs(hash_collision)["x"] as u32;
    assert_eq!(x.wrapping_mul(2654435761), 0xDEAD_BEEF);
}

#[test]
fn a_bug_behind_a_branch_no_default_run_takes_is_found() {
    assert_eq!(bug_inputs(behind_a_branch)["mode"], 7);
}

#[test]
fn a_compare_exchange_expecting_an_input_is_solved_for_the_value_another_thread_wrote() {
    assert_eq!(bug_inputs(cas_expecting_an_input)["K"], 42);
    // The plain compare-exchange hides the relation: the search completes without the bug.
    let out = search(plain_cas_expecting_an_input, Options::default());
    assert!(out.findings.is_empty(), "{:#?}", out.findings);
}

#[test]
fn a_correct_program_is_complete_over_all_inputs() {
    let out = search(guarded_increments, Options::default());
    assert!(out.findings.is_empty(), "{:#?}", out.findings);
    assert!(out.complete, "{:?}", out.incomplete);
    assert_eq!(out.classes, 2);
    // n <= 100: one increment, one execution; n > 100: two orders of the sections.
    assert_eq!(out.executions, 3);
}

// ---- Fig. 1.2, a deadlock; and with the two locks chosen by inputs --------------------

fn lock_order() {
    let locks = Arc::new([Mutex::new(()), Mutex::new(())]);
    let l1 = locks.clone();
    let t1 = symx::thread::spawn(move || {
        let _a = l1[0].lock().unwrap();
        let _b = l1[1].lock().unwrap();
    });
    let _b = locks[1].lock().unwrap();
    let _a = locks[0].lock().unwrap();
    drop((_a, _b));
    t1.join().unwrap();
}

#[test]
fn a_lock_order_deadlock_without_inputs_is_left_to_the_exploration() {
    // No symbolic input: the first class is the whole search, and its DPOR finds the cycle.
    let out = search(lock_order, Options::default());
    let f = the_finding(&out, lock_order);
    assert_eq!(f.failure.kind, "deadlock");
    assert_eq!(out.classes, 1);
    assert!(f.inputs.is_empty());
}

#[symx::instrument]
fn chosen_locks() {
    let a: Sym<usize> = symx::any_named("a");
    let b: Sym<usize> = symx::any_named("b");
    symx::assume(a < 2usize && b < 2usize);
    let locks = Arc::new([Mutex::new(()), Mutex::new(())]);
    let l1 = locks.clone();
    let t1 = symx::thread::spawn(move || {
        let _first = l1[a].lock().unwrap();
        let _second = l1[b].lock().unwrap();
    });
    {
        let _first = locks[b].lock().unwrap();
        let _second = locks[a].lock().unwrap();
    }
    t1.join().unwrap();
}

#[test]
fn locks_chosen_by_inputs_deadlock_across_threads_only_when_they_differ() {
    let out = search(chosen_locks, keep_going());
    let mut by_kind: Vec<(String, bool)> = out
        .findings
        .iter()
        .map(|f| (f.failure.kind.clone(), f.inputs["a"] == f.inputs["b"]))
        .collect();
    by_kind.sort();
    by_kind.dedup();
    // a == b: each thread relocks the lock it holds (a self-deadlock); a != b: the cross
    // deadlock of the lock-order inversion. Every failure is a deadlock.
    assert!(by_kind.iter().all(|(k, _)| k == "deadlock"), "{by_kind:?}");
    assert_eq!(by_kind.len(), 2, "both a == b and a != b fail: {by_kind:?}");
    let cross = out
        .findings
        .iter()
        .find(|f| f.inputs["a"] != f.inputs["b"])
        .expect("a cross deadlock");
    assert!(cross.failure.message.contains("thread 0") && cross.failure.message.contains("1"));
}

// ---- operations that panic for some operand -----------------------------------------

#[symx::instrument]
fn average() {
    let a: Sym<u8> = symx::any_named("a");
    let b: Sym<u8> = symx::any_named("b");
    let s = Arc::new(AtomicU8::new(0));
    let s1 = s.clone();
    let t = symx::thread::spawn(move || s1.store_sym(a, SeqCst));
    let x = s.load_sym(SeqCst);
    t.join().unwrap();
    // Overflows when the load saw a's write and a + b > 255.
    let _mean = (x + b) / 2u8;
}

/// Where the build checks overflow (`overflow-checks`, on in debug builds), `x + b` panics,
/// and symx records that check; a release build wraps, as Rust does, and there is nothing to
/// find: the search ends complete and clean.
#[test]
fn an_overflow_that_needs_an_input_and_an_order_is_found_by_solving() {
    let out = search(average, Options::default());
    if !cfg!(debug_assertions) {
        assert!(out.findings.is_empty() && out.complete, "{out:#?}");
        return;
    }
    let f = the_finding(&out, average);
    assert_eq!(f.failure.kind, "panic");
    assert!(
        f.failure.message.contains("overflow"),
        "{}",
        f.failure.message
    );
    assert!(f.inputs["a"] + f.inputs["b"] > 255, "{:?}", f.inputs);
}

// ---- a model of one slice of the path says nothing about the other inputs -------------

thread_local! {
    static SEEN: std::cell::RefCell<std::collections::BTreeSet<(u8, u8)>> =
        const { std::cell::RefCell::new(std::collections::BTreeSet::new()) };
}

/// The value's low three bits, each a branch, so that every value is a path of its own.
fn low_bits(v: Sym<u8>) -> u8 {
    for bit in 0..3 {
        symx::branch(((v >> bit) & 1u8).sym_eq(1u8));
    }
    v.peek() & 7
}

#[symx::instrument]
fn indexed_add() {
    let x: Sym<u8> = symx::any_named("x");
    symx::assume(x < 16u8);
    let y: Sym<u8> = symx::any_named("y");
    symx::assume(y < 8u8);
    let a = Arc::new([AtomicU8::new(0), AtomicU8::new(0)]);
    let a1 = a.clone();
    let t1 = symx::thread::spawn(move || a1[0].store_sym(y, SeqCst));
    let a2 = a.clone();
    let t2 = symx::thread::spawn(move || {
        a2[(y & 1u8).cast::<usize>()].fetch_add_sym(x, SeqCst);
    });
    t1.join().unwrap();
    t2.join().unwrap();
    let seen = (
        low_bits(a[0].load_sym(SeqCst)),
        low_bits(a[1].load_sym(SeqCst)),
    );
    SEEN.with(|s| s.borrow_mut().insert(seen));
}

#[test]
fn flipping_a_condition_on_one_input_keeps_the_values_of_the_others() {
    // Found by the differential test against brute force. The second atomic holds x only when
    // y is odd; from the class (x = 0, y = 1), flipping a bit of x asks about x alone (the
    // conditions on y are independent), and the counterexample cache answered with an
    // earlier model that also said y = 0: the class (x = 1, y = 0) was explored instead, and
    // no class with y odd and x & 7 != 0 ever was.
    SEEN.with(|s| s.borrow_mut().clear());
    let out = search(indexed_add, keep_going());
    assert!(out.complete, "{:?}", out.incomplete);
    let seen = SEEN.with(|s| s.borrow().clone());
    // y even: (y, 0); y odd: (y, x & 7) for every x & 7.
    assert_eq!(seen.len(), 4 + 4 * 8, "{seen:?}");
}
