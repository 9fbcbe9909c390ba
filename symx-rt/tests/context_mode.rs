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
