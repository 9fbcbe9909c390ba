//! Under plain `cargo test`: every known bug fails with exactly the kind the configuration in
//! `Cargo.toml` expects, so the expectations `cargo symx test` checks cannot go stale.

use symx::Builder;

fn expected_kinds() -> toml::Table {
    let manifest: toml::Table = include_str!("../Cargo.toml").parse().unwrap();
    manifest["package"]["metadata"]["symx"]["expect"]
        .as_table()
        .unwrap()
        .clone()
}

#[test]
fn every_known_bug_fails_with_the_expected_kind() {
    let expected = expected_kinds();
    assert_eq!(
        expected.len(),
        known_bugs::BUGS.len() + known_bugs::INPUT_BUGS.len()
    );
    for (name, body) in known_bugs::BUGS {
        let report = Builder::new().explore(body);
        let failure = report.failure().unwrap_or_else(|| panic!("{name} fails"));
        let kind = failure.kind().name();
        assert_eq!(Some(kind), expected[*name].as_str(), "{name}: {failure}");
    }
}

#[test]
fn every_bug_that_needs_an_input_passes_at_the_default_and_fails_with_its_input() {
    let expected = expected_kinds();
    for bug in known_bugs::INPUT_BUGS {
        let name = bug.name;
        let report = Builder::new().explore(bug.body);
        assert!(
            report.failure().is_none(),
            "{name} passes at the default inputs"
        );
        let values = bug
            .failing_inputs
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        let report = Builder::new().inputs(values).explore(bug.body);
        let failure = report.failure().unwrap_or_else(|| panic!("{name} fails"));
        let kind = failure.kind().name();
        assert_eq!(Some(kind), expected[name].as_str(), "{name}: {failure}");
    }
}
