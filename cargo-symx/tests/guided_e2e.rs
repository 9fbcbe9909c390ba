//! End-to-end tests of the assertion-guided search: `cargo symx test` on
//! `tests/fixtures/symbolic` with the attribute, the flag and the audit mode. Each checks the
//! exit code, what the `assertion_guided` report says, and that a failure's token replays.

mod common;

use common::*;
use serde_json::Value;

fn report(args: &[&str]) -> (std::process::Output, Value) {
    json_report("fixture-symbolic", args)
}

#[test]
fn the_attribute_prunes_fig2_to_one_full_execution_and_four_cut_short() {
    let (out, found) = report(&["fig2_guided"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = test(&found, "fig2_guided");
    assert_eq!(t["status"], "passed", "{t:#}");
    let g = &t["assertion_guided"];
    assert_eq!(
        (&g["executions"], &g["full"], &g["cut"]),
        (&5.into(), &1.into(), &4.into()),
        "{g:#}"
    );
    assert_eq!(g["complete"], true, "{g:#}");
    assert_eq!(g["assertions_only"], true, "{g:#}");
    assert!(g["summaries"].as_u64().unwrap() > 0, "{g:#}");
    // Tests that did not ask are not searched so.
    let (_, other) = report(&["increments_are_exact"]);
    assert!(test(&other, "increments_are_exact")
        .get("assertion_guided")
        .is_none());
}

#[test]
fn the_flag_searches_every_test_and_finds_the_bug_behind_an_input() {
    let (out, report) = report(&["thirty_seven", "--no-symbolic", "--assertion-guided"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = test(&report, "thirty_seven");
    assert_eq!(t["status"], "failed", "{t:#}");
    let f = &t["failure"];
    assert_eq!(f["inputs"]["n"], 37, "{f:#}");
    assert_replays(
        "fixture-symbolic",
        f["token"].as_str().unwrap(),
        "the order 3-2-1 with n = 37",
    );
    assert!(
        t["assertion_guided"]["executions"].as_u64().unwrap() > 0,
        "{t:#}"
    );
}

#[test]
fn the_audit_runs_both_searches_and_they_agree() {
    let (out, report) = report(&["increments_are_exact", "--assertion-guided=audit"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = test(&report, "increments_are_exact");
    let a = &t["assertion_guided"]["audit"];
    assert_eq!(a["agreed"], true, "{t:#}");
    assert!(
        a["executions"].as_u64().unwrap() >= t["assertion_guided"]["executions"].as_u64().unwrap(),
        "{t:#}"
    );
}
