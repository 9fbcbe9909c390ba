//! The programs as `#[symx::test]`s: what `cargo symx test` explores end to end, and the test
//! binary whose worker the `rate` measurement drives. Under plain `cargo test` they run at the
//! default inputs (all zero), where none of the bugs shows, so they pass.

use symx_test_programs::symbolic as programs;

#[symx::test]
fn thirty_seven() {
    programs::thirty_seven();
}

#[symx::test]
fn hash_collision() {
    programs::hash_collision();
}

#[symx::test]
fn behind_a_branch() {
    programs::behind_a_branch();
}
