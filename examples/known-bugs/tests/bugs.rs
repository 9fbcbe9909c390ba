//! The known bugs as `#[symx::test]`s: `cargo symx test -p known-bugs -- --include-ignored`
//! expects each to fail with the kind `Cargo.toml` names.

#[symx::test]
#[ignore = "a known bug; cargo symx test checks its failure kind (see Cargo.toml)"]
fn lost_update() {
    known_bugs::lost_update();
}

#[symx::test]
#[ignore = "a known bug; cargo symx test checks its failure kind (see Cargo.toml)"]
fn lock_order_deadlock() {
    known_bugs::lock_order_deadlock();
}

#[symx::test]
#[ignore = "a known bug; cargo symx test checks its failure kind (see Cargo.toml)"]
fn unsynchronised_cell() {
    known_bugs::unsynchronised_cell();
}

#[symx::test]
#[ignore = "a known bug; cargo symx test checks its failure kind (see Cargo.toml)"]
fn check_then_withdraw() {
    known_bugs::check_then_withdraw();
}
