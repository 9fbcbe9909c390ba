//! The context mode reaches the test body: from the attribute, and from `SYMX_CONTEXT_MODE`
//! over it (what `cargo symx test --context-mode` sets for its workers).

use symx::context::{self, ContextMode};

#[symx::test(context_mode = "no-si")]
fn the_attribute_sets_the_mode() {
    let expected = match std::env::var(context::MODE_ENV) {
        Ok(name) => name.parse().unwrap(),
        Err(_) => ContextMode::NoSi,
    };
    assert_eq!(context::mode(), expected);
}

#[test]
fn facts_of_a_dropped_family_are_not_assumed() {
    for mode in ContextMode::ALL {
        let report = symx::Builder::new().context_mode(mode).check(|| {
            // Both facts are false at the default inputs: an execution that keeps either
            // is discarded.
            let x: symx::Sym<u8> = symx::any_named("x");
            context::value_fact("x == 1", x.sym_eq(1u8));
            context::sync_fact("x == 2", x.sym_eq(2u8));
        });
        let expected = u64::from(mode != ContextMode::Naive);
        assert_eq!(report.discarded(), expected, "{mode}");
    }
}

#[test]
fn modes_parse_from_their_names() {
    for mode in ContextMode::ALL {
        assert_eq!(mode.name().parse::<ContextMode>(), Ok(mode));
    }
    assert!("partial".parse::<ContextMode>().is_err());
}

/// Fails when the value fact `x == 1` is dropped (the default input is 0); in `full` the
/// execution is discarded.
fn fails_without_value_facts() {
    let x: symx::Sym<u8> = symx::any_named("x");
    context::value_fact("x == 1", x.sym_eq(1u8));
    if symx::branch(x.sym_ne(1u8)) {
        panic!("x is not 1");
    }
}

#[test]
fn a_failure_replays_in_the_mode_that_found_it() {
    let naive = symx::Builder::new().context_mode(ContextMode::Naive);
    let report = naive.explore(fails_without_value_facts);
    let failure = report.failure().expect("naive mode drops the fact");
    let token = failure.schedule().to_string();
    assert!(token.starts_with("symx4-"), "{token}");
    let schedule: symx::Schedule = token.parse().unwrap();
    assert_eq!(schedule.context_mode(), ContextMode::Naive);
    // Replayed by a builder in `full` (the attribute's default): the token's mode wins.
    let full = symx::Builder::new();
    assert!(full.explore(fails_without_value_facts).failure().is_none());
    let replayed = full
        .try_replay(&schedule, fails_without_value_facts)
        .unwrap();
    assert_eq!(replayed.failure().map(|f| f.kind().name()), Some("panic"));
}
