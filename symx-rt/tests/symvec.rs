//! `SymVec`: symbolic-index reads and writes recorded as one array term (`const_array`,
//! `store`, `select`), with no forking and a bounds check; its concrete values follow the
//! execution. The recorded term is re-evaluated under other inputs and compared with a plain
//! vector doing the same.

mod common;

use common::one_trace as trace_with;
use symx::trace::format::{CheckOp, EventKind, Expr, Verdict};
use symx::{Shared, Sym, SymVec};

/// The compound-pointer program of Bergan et al. (a guarded load through a symbolic slot): one
/// path, and the loaded value is `i == j ? v1 : (i == 1 ? vx : init)` for every `i`, `j`.
#[test]
fn a_symbolic_slot_read_is_one_expression_over_the_indices() {
    let t = trace_with(&[("i", 2), ("j", 2)], || {
        let (i, j): (Sym<usize>, Sym<usize>) = (symx::any_named("i"), symx::any_named("j"));
        let mut slots = SymVec::from(vec![5u32; 4]);
        slots.set(1usize, 70u32);
        slots.set(j, 11u32);
        let h = slots.get(i);
        assert_eq!(h.peek(), 11);
        Shared::new(0u32).set(h);
    });
    let kinds: Vec<EventKind> = t.events.iter().map(|e| e.kind).collect();
    assert!(
        !kinds.contains(&EventKind::Element) && !kinds.contains(&EventKind::Pin),
        "no forking: {kinds:?}"
    );
    let checks: Vec<CheckOp> = t
        .events
        .iter()
        .filter_map(|e| e.check.map(|c| c.op))
        .collect();
    assert_eq!(checks, [CheckOp::Index, CheckOp::Index]);
    let written = t.events.iter().find_map(|e| e.write).unwrap().expr;
    assert!(matches!(t.exprs[written as usize], Expr::Select { .. }));
    for i in 0..4i128 {
        for j in 0..4i128 {
            let inputs = |k: u32| Some([i, j][k as usize] as u128);
            let got = symx::trace::eval(&t.exprs, written, inputs, |_| None).unwrap();
            let mut plain = [5u32; 4];
            plain[1] = 70;
            plain[j as usize] = 11;
            assert_eq!(got, plain[i as usize] as u128, "i = {i}, j = {j}");
        }
    }
}

#[test]
fn symbolic_values_stored_at_plain_indices_are_read_back() {
    let t = trace_with(&[("x", -3)], || {
        let x: Sym<i64> = symx::any_named("x");
        let mut v: SymVec<i64> = SymVec::new();
        v.push(1);
        v.push(x);
        v.push(x * 2);
        let all: Vec<i64> = v.iter().map(|e| e.peek()).collect();
        assert_eq!(all, [1, -3, -6]);
        let last = v.pop().unwrap();
        assert_eq!((last.peek(), v.len()), (-6, 2));
        Shared::new(0i64).set(last + v.get(1usize));
    });
    let written = t.events.iter().find_map(|e| e.write).unwrap().expr;
    for x in [-100i128, 0, 7] {
        let bits = |_| Some(symx::trace::format::Ty::I64.from_i128(x));
        let got = symx::trace::eval(&t.exprs, written, bits, |_| None).unwrap();
        assert_eq!(symx::trace::format::Ty::I64.to_i128(got), 3 * x);
    }
}

#[test]
fn plain_use_records_no_array() {
    let t = trace_with(&[], || {
        let mut v = SymVec::from_elem(3u8, 5);
        v.set(2usize, 9u8);
        let s: u32 = v.iter().map(|e| e.peek() as u32).sum();
        assert_eq!(s, 21);
        Shared::new(0u8).set(v.get(2usize));
    });
    assert!(t.exprs.iter().all(|e| !e.is_array()), "{:?}", t.exprs);
}

#[test]
fn an_index_out_of_bounds_fails_its_recorded_check_and_panics() {
    let t = trace_with(&[("i", 4)], || {
        let i: Sym<usize> = symx::any_named("i");
        let v = SymVec::from(vec![true, false]);
        let _ = v.get(i);
    });
    let check = t.events.iter().find_map(|e| e.check).unwrap();
    assert_eq!((check.op, check.holds), (CheckOp::Index, false));
    assert!(matches!(&t.verdict, Verdict::Fail { message, .. }
        if message.contains("index out of bounds: the len is 2 but the index is 4")));
}

#[test]
fn the_check_rejects_a_select_that_does_not_evaluate_to_the_value_written() {
    let t = trace_with(&[("i", 0)], || {
        let i: Sym<usize> = symx::any_named("i");
        let v = SymVec::from(vec![1u16, 2]);
        Shared::new(0u16).set(v.get(i));
    });
    let mut bad = t.clone();
    let select = bad
        .exprs
        .iter()
        .position(|e| matches!(e, Expr::Select { .. }))
        .unwrap();
    // Read element 1 (2) where the execution wrote element 0 (1): the store of element 1
    // holds the constant index 1.
    let one = bad
        .exprs
        .iter()
        .position(|e| matches!(e, Expr::Const { value: 1, .. }))
        .unwrap() as u32;
    if let Expr::Select { index, .. } = &mut bad.exprs[select] {
        *index = one;
    }
    let err = bad.check_consistency().unwrap_err();
    assert!(
        err.contains("wrote 1 but its expression evaluates to 2"),
        "{err}"
    );
    let mut not_array = t.clone();
    if let Expr::Select { array, .. } = &mut not_array.exprs[select] {
        *array = 0; // the input node
    }
    let err = not_array.check_consistency().unwrap_err();
    assert!(err.contains("as an array"), "{err}");
}
