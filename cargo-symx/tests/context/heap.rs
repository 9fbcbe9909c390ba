//! Figure 2.7 (the paper's Figure 7): a store through `x`, a load through `y`, where `x` and
//! `y` may or may not be the same object: no fork at the memory operations, one at the
//! assertion.

use symx::context::{self, Cells, ContextMode};

use super::explore;

fn store_then_load(known_same: bool) {
    let x = context::identity("x", 2);
    let y = context::identity("y", 2);
    if known_same {
        context::value_fact("x == y", x.sym_eq(y));
    }
    let heap = Cells::<i64>::unknown("heap", 2);
    heap.set(x, 5i64);
    let z = heap.get(y);
    symx::assert!(z.sym_eq(5i64), "z == 5");
}

fn may_alias() {
    store_then_load(false)
}

fn must_alias() {
    store_then_load(true)
}

/// `x` and `y` of different alias classes (`i64` cells and `u8` cells).
fn different_classes() {
    let x = context::identity("x", 2);
    let y = context::identity("y", 2);
    Cells::<i64>::unknown("wide", 2).set(x, 5i64);
    let z = Cells::<u8>::unknown("narrow", 2).get(y);
    symx::assert!(z.sym_eq(5u8), "z == 5");
}

fn input(f: &cargo_symx::engine::context::FailedPath, name: &str) -> i128 {
    (f.inputs.iter().find(|(n, _)| n == name))
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no input {name}: {:?}", f.inputs))
}

#[test]
fn the_load_is_an_ite_and_the_assertion_fails_only_when_x_and_y_differ() {
    let out = explore(ContextMode::Full, may_alias);
    // One path to the assertion, then its two sides.
    assert_eq!(out.completed, 2, "{out:#?}");
    assert_eq!(out.failures.len(), 1, "{out:#?}");
    let f = &out.failures[0];
    let (x, y) = (input(f, "x"), input(f, "y"));
    assert_ne!(x, y, "{f:#?}");
    assert_ne!(input(f, &format!("heap[{y}]")), 5, "{f:#?}");
}

#[test]
fn with_the_fact_x_is_y_nothing_fails() {
    let out = explore(ContextMode::Full, must_alias);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    // Dropping the value fact brings the failure back.
    let out = explore(ContextMode::NoRd, must_alias);
    assert_eq!(out.failures.len(), 1, "{out:#?}");
}

#[test]
fn different_alias_classes_never_alias() {
    let out = explore(ContextMode::Full, different_classes);
    assert_eq!(out.failures.len(), 1, "{out:#?}");
    let f = &out.failures[0];
    let y = input(f, "y");
    // The load is the narrow cell's own content whatever `x` is.
    assert_ne!(input(f, &format!("narrow[{y}]")), 5, "{f:#?}");
    // The default inputs already fail; the failing side needs no `x` at all.
    assert_eq!(out.completed, 1, "{out:#?}");
}
