//! End-to-end: verdicts that say what the run could not back. A selection without a
//! `#[symx::test]` is not a silent success (exit code 4 unless `--no-tests` says otherwise).
//!
//! This file holds the selection's verdicts, the complete pass's assumptions and the shared
//! helpers; `features.rs` the features a run builds with and the replay commands it prints,
//! `misuse.rs` model threads and objects the model could not see, `reports.rs` stuck threads,
//! spins without a hint and the race report.

#[path = "../common/mod.rs"]
mod common;
mod features;
mod misuse;
mod reports;

use common::*;
use serde_json::Value;

#[test]
fn a_selection_of_ordinary_tests_only_exits_4_and_still_lists_them() {
    let out = symx("test", &["-p", "fixture-plain", "--format", "json"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("the JSON report parses");
    assert_eq!(report["summary"]["tests"], 2);
    assert_eq!(report["summary"]["symx_tests"], 0);
    assert_eq!(report["summary"]["passed"], 2);
    assert_eq!(test(&report, "ordinary_addition")["status"], "passed");
    assert_exit_saying(
        &out,
        4,
        &["error: no #[symx::test] ran: none of the 2 tests that ran"],
    );

    let warned = symx("test", &["-p", "fixture-plain", "--no-tests=warn"]);
    assert_eq!(warned.status.code(), Some(0), "{}", text(&warned));
    let stdout = String::from_utf8_lossy(&warned.stdout);
    assert!(stdout.contains("2 passed, 0 failed"), "{}", text(&warned));
    assert!(String::from_utf8_lossy(&warned.stderr).contains("warning: no #[symx::test] ran"));

    let accepted = symx("test", &["-p", "fixture-plain", "--no-tests", "pass"]);
    assert_eq!(accepted.status.code(), Some(0), "{}", text(&accepted));
    assert!(!String::from_utf8_lossy(&accepted.stderr).contains("no #[symx::test] ran"));
}

#[test]
fn a_filter_that_matches_nothing_exits_4_and_names_the_filter() {
    let out = symx("test", &["-p", "fixture-clean", "no_such_test_anywhere"]);
    assert_exit_saying(
        &out,
        4,
        &["no test matches the filter `no_such_test_anywhere`"],
    );
    // A misspelt filter: the names it nearly matches.
    let typo = symx("test", &["-p", "fixture-clean", "locked_countr_is_exact"]);
    assert_exit_saying(
        &typo,
        4,
        &["no test matches the filter `locked_countr_is_exact`: did you mean `locked_counter_is_exact`"],
    );
    // A test behind a feature this build lacks: the feature that has it.
    let featured = symx("test", &["-p", "fixture-featured", "command_line_feature"]);
    assert_exit_saying(
        &featured,
        4,
        &["no test matches the filter `command_line_feature`: \
           `lost_update_with_the_command_line_feature` is in a build with \
           `--features fixture-featured/extra`; this build has \
           `--features fixture-featured/model`"],
    );
    // A selection with a symx test is judged as before.
    let found = symx("test", &["-p", "fixture-clean", "locked_counter_is_exact"]);
    assert_eq!(found.status.code(), Some(0), "{}", text(&found));
    assert!(!String::from_utf8_lossy(&found.stderr).contains("no #[symx::test] ran"));
}

const STDLIB_TEST: &str = "counter_on_std_sync";

/// The failure of `name` in fixture-stdlib, which must fail (exit 1) with `kind`.
fn stdlib_failure(name: &str, kind: &str) -> Value {
    let (out, report) = json_report("fixture-stdlib", &[name]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let failure = test(&report, name)["failure"].clone();
    assert_eq!(failure["kind"], kind, "{failure:#}");
    failure
}

#[test]
fn a_complete_pass_says_it_assumed_sequential_consistency_and_names_the_bound() {
    let name = "two_threads_count_under_a_lock";
    let bound = ["--preemption-bound", "1"];
    let (out, report) = json_report("fixture-stdlib", &[name, bound[0], bound[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = test(&report, name);
    assert_eq!(
        (&t["complete"], &t["memory_model"], &t["preemption_bound"]),
        (
            &Value::Bool(true),
            &Value::from("sequentially-consistent"),
            &Value::from(1)
        ),
        "{t:#}"
    );
    let human = String::from_utf8_lossy(&out.stderr);
    for says in [
        "complete under sequential consistency, within preemption bound 1",
        "yes (SC, preemption bound 1)",
    ] {
        assert!(human.contains(says), "says `{says}`: {human}");
    }
    let out = symx(
        "test",
        &[
            "-p",
            "fixture-stdlib",
            name,
            bound[0],
            bound[1],
            "--format",
            "junit",
        ],
    );
    let junit = quick_junit::Report::deserialize_from_str(&String::from_utf8_lossy(&out.stdout))
        .expect("valid JUnit");
    let case = &junit.test_suites[0].test_cases[0];
    let property = |name: &str| {
        case.properties
            .iter()
            .find(|p| p.name.as_str() == name)
            .map(|p| p.value.to_string())
    };
    for (name, value) in [
        ("symx.strategy", "dpor"),
        ("symx.executions", "2"),
        ("symx.complete", "true"),
        ("symx.memory_model", "sequentially-consistent"),
        ("symx.preemption_bound", "1"),
    ] {
        assert_eq!(property(name).as_deref(), Some(value), "{name}");
    }
}
