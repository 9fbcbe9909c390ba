//! End-to-end: verdicts that say what the run could not back. A selection without a
//! `#[symx::test]` is not a silent success (exit code 4 unless `--no-tests` says otherwise).

mod common;

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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: no #[symx::test] ran: none of the 2 tests that ran"),
        "{}",
        text(&out)
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
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no test matches the filter `no_such_test_anywhere`"),
        "{}",
        text(&out)
    );
    // A selection with a symx test is judged as before.
    let found = symx("test", &["-p", "fixture-clean", "locked_counter_is_exact"]);
    assert_eq!(found.status.code(), Some(0), "{}", text(&found));
    assert!(!String::from_utf8_lossy(&found.stderr).contains("no #[symx::test] ran"));
}
