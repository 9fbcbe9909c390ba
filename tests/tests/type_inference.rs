//! Linking symx must not change how the user's own code infers types.
//!
//! Every crate in a test's dependency graph adds its trait impls to the test's type inference:
//! when symx-rt depended on `serde_json`, whose `Value` implements `PartialEq<Value>` for the
//! integer types, the assertion below stopped compiling (E0283: the type of the sum is
//! ambiguous). And `#[symx::test]` rewrites the comparisons of its body so that they record
//! symbolic values: the rewrite must infer what the operator would (an operand whose type is
//! not known yet, such as a sum, is compared as the other operand's type, not as a symbolic
//! value). This file compiling is the test; the runs below check what it computes.

#[test]
fn a_sum_compared_by_assert_eq_infers_its_type() {
    let total: u32 = (0..4000).sum();
    assert_eq!(total, (0..4000).sum());
}

#[symx::test]
fn a_sum_compared_inside_a_symx_test_infers_its_type() {
    let t = symx::thread::spawn(|| (0..40u32).sum::<u32>());
    let total = t.join().unwrap();
    assert_eq!(total, (0..40).sum());
    assert_ne!(total, (0..39).sum());
    assert!(total == (0..40).sum() && total > (0..39).sum());
    assert_ne!(total, Default::default(), "{total} is zero");
}
