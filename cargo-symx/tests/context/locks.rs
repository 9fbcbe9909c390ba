//! Figure 2.1 of the dissertation: `Foo` about to lock `nodes[i].lock`, `Bar` inside its
//! critical section on `nodes[k].lock`.

use symx::context::{self, Cells, ContextMode, Locks};

use super::{explore, labels, outcomes, vectors};

/// The context: `Bar` (thread 2) holds `nodes[k].lock` and is inside its critical section
/// (`inside[k] == 1`); `Foo` (thread 1) is about to lock `nodes[i].lock`. With `same`,
/// reaching definitions say `k == i`.
fn figure_2_1(same: bool) {
    let i = context::identity("i", 2);
    let k = context::identity("k", 2);
    if same {
        context::value_fact("k == i", k.sym_eq(i));
    }
    let locks = Locks::new("node.lock", 2);
    let inside = Cells::known("inside", vec![0u8; 2]);
    let held = locks.held(k);
    inside.set(k, 1u8);
    let (l1, in1, in2) = (locks.clone(), inside.clone(), inside.clone());
    let foo_thread = symx::thread::spawn(move || {
        let guard = l1.lock(i);
        let others = in1.get(i);
        symx::assert!(others.sym_eq(0u8), "two critical sections on one node");
        drop(guard);
    });
    let bar_thread = symx::thread::spawn(move || {
        in2.set(k, 0u8);
        drop(held);
    });
    foo_thread.join().unwrap();
    bar_thread.join().unwrap();
}

fn same_node() {
    figure_2_1(true)
}

fn independent_nodes() {
    figure_2_1(false)
}

#[test]
fn full_when_k_is_i_foo_blocks_while_bar_holds_and_no_sections_overlap() {
    let out = explore(ContextMode::Full, same_node);
    assert_eq!(out.failures.len(), 0, "{:#?}", out.failures);
    // Foo acquires at once only on the path where Bar already released (its unlock had
    // nobody to wake); otherwise Foo blocks and Bar's unlock wakes it.
    let expected = vectors(&[&["acquire"], &["block", "wake thread 1", "acquire"]]);
    assert_eq!(labels(&out), expected, "{out:#?}");
}

#[test]
fn naive_when_k_is_i_lets_foo_in_beside_bar_and_reports_false_deadlocks() {
    let out = explore(ContextMode::Naive, same_node);
    // `taken` is free and `i`, `k` unrelated: Foo acquires nodes[k].lock while Bar holds
    // it (the overlap), or blocks on a lock nobody holds (a deadlock that cannot happen).
    assert_eq!(out.failures_of("panic"), 1, "{out:#?}");
    assert_eq!(out.failures_of("deadlock"), 2, "{out:#?}");
    assert!(labels(&out).contains(&vec!["block".to_string()]));
}

#[test]
fn no_si_when_k_is_i_overlaps_and_the_failure_depends_on_the_value_fact() {
    let out = explore(ContextMode::NoSi, same_node);
    assert_eq!(out.failures_of("panic"), 1, "{out:#?}");
    let facts: Vec<&str> = (out.failures[0].facts.iter())
        .map(|f| f.fact.text.as_str())
        .collect();
    assert_eq!(facts, ["k == i"]);
    assert_eq!(out.failures[0].facts[0].fact.provenance, "declared");
}

#[test]
fn full_with_independent_nodes_foo_may_block_or_acquire_but_never_overlaps() {
    let out = explore(ContextMode::Full, independent_nodes);
    assert_eq!(out.failures.len(), 0, "{:#?}", out.failures);
    assert_eq!(outcomes(&out, ""), ["acquire", "block", "wake thread 1"]);
    // Under `i != k` Bar's unlock wakes nobody it could: Foo never blocks there.
    assert!(!labels(&out)
        .iter()
        .any(|v| v.contains(&"wake nobody".to_string())));
}

/// Figure 2.1 with a may-held lock: Bar took `nodes[k].lock` on some paths to the context
/// only (and is inside its critical section exactly then), `k == i`.
fn may_hold_same_node() {
    let i = context::identity("i", 2);
    let k = context::identity("k", 2);
    context::value_fact("k == i", k.sym_eq(i));
    let locks = Locks::new("node.lock", 2);
    let inside = Cells::known("inside", vec![0u8; 2]);
    let maybe = locks.may_hold(k);
    let holds = maybe.holds();
    if symx::branch(holds) {
        inside.set(k, 1u8);
    }
    let (l1, in1, in2) = (locks.clone(), inside.clone(), inside.clone());
    let foo_thread = symx::thread::spawn(move || {
        let guard = l1.lock(i);
        symx::assert!(in1.get(i).sym_eq(0u8), "two critical sections on one node");
        drop(guard);
    });
    let bar_thread = symx::thread::spawn(move || {
        if symx::branch(holds) {
            in2.set(k, 0u8);
        }
        drop(maybe);
    });
    foo_thread.join().unwrap();
    bar_thread.join().unwrap();
}

#[test]
fn a_may_held_lock_lets_foo_acquire_or_block_and_sections_never_overlap() {
    let out = explore(ContextMode::Full, may_hold_same_node);
    assert_eq!(out.failures.len(), 0, "{:#?}", out.failures);
    // Foo acquires when Bar does not hold the lock (or released it), blocks when it does.
    assert_eq!(outcomes(&out, "acquire"), ["acquire"], "{out:#?}");
    assert_eq!(outcomes(&out, "block"), ["block"], "{out:#?}");
    // Without the lockset invariant, Foo enters beside Bar.
    let no_si = explore(ContextMode::NoSi, may_hold_same_node);
    assert!(no_si.failures_of("panic") >= 1, "{no_si:#?}");
}
