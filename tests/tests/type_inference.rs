//! Linking symx must not change how the user's own code infers types. Every crate in a test's
//! dependency graph adds its trait impls to the test's type inference: when symx-rt depended on
//! `serde_json`, whose `Value` implements `PartialEq<Value>` for the integer types, the
//! assertion below stopped compiling (E0283: the type of the sum is ambiguous). This file
//! compiling is the test; the runs below only use what it links.

#[test]
fn a_sum_compared_by_assert_eq_infers_its_type() {
    let total: u32 = (0..4000).sum();
    assert_eq!(total, (0..4000).sum());
}

/// Makes the test crate link symx (a dependency no code names may not be loaded at all).
#[symx::test]
fn a_model_runs_beside_it() {
    let t = symx::thread::spawn(|| (0..40u32).sum::<u32>());
    assert_eq!(t.join().unwrap(), 780);
}
