//! Barrier invariants (the paper's §4.3): `N` threads at the top of a barrier loop, and
//! barrier matching for threads in lockstep.

use symx::context::{self, Barriers, ContextMode};
use symx::Sym;

use super::{explore, labels};

/// Three threads at the top of `loop { work(); b.wait(); }` with `b = Barrier::new(3)`
/// created before the context; one iteration each.
fn three_at_a_barrier() {
    let b = Barriers::new("b", 1);
    b.expect(Sym::constant(0), 3);
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let b = b.clone();
            symx::thread::spawn(move || {
                b.wait(Sym::constant(0));
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn full_has_exactly_the_vector_f_f_t_and_no_deadlock() {
    let out = explore(ContextMode::Full, three_at_a_barrier);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    assert_eq!(labels(&out), vec![vec!["F", "F", "T"]], "{out:#?}");
}

#[test]
fn naive_has_six_of_the_eight_vectors_and_a_false_deadlock() {
    let out = explore(ContextMode::Naive, three_at_a_barrier);
    let vectors = labels(&out);
    assert_eq!(vectors.len(), 6, "{vectors:?}");
    assert!(vectors.contains(&vec!["F".into(), "F".into(), "F".into()]));
    assert!(out.failures_of("deadlock") >= 1, "{out:#?}");
}

const Z: u32 = 2;

/// Two threads inside `for i in 0..Z { b.wait(); /* context */ work(i); }` with
/// `Barrier::new(2)`; each thread's `i` is generalised. With `matched`, barrier matching
/// says the two are in the same iteration.
fn lockstep() {
    let b = Barriers::new("b", 1);
    b.expect(Sym::constant(0), 2);
    let i1: Sym<u32> = symx::any_named("i1");
    let i2: Sym<u32> = symx::any_named("i2");
    symx::assume(i1.sym_lt(Z) & i2.sym_lt(Z));
    context::sync_fact("i1 == i2 (barrier matching)", i1.sym_eq(i2));
    let threads: Vec<_> = [i1, i2]
        .into_iter()
        .map(|i| {
            let b = b.clone();
            symx::thread::spawn(move || {
                let mut i = i + 1u32;
                while symx::branch(i.sym_lt(Z)) {
                    b.wait(Sym::constant(0));
                    i += 1u32;
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn barrier_matching_removes_the_spurious_deadlock() {
    assert_eq!(explore(ContextMode::Full, lockstep).failures.len(), 0);
    assert_eq!(explore(ContextMode::NoRd, lockstep).failures.len(), 0);
    assert!(explore(ContextMode::NoSi, lockstep).failures_of("deadlock") >= 1);
    assert!(explore(ContextMode::Naive, lockstep).failures_of("deadlock") >= 1);
}
