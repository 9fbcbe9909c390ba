//! End-to-end tests of the symbolic exploration: `cargo symx test` on
//! `tests/fixtures/symbolic`, whose tests draw symbolic inputs. Each checks the exit code, the
//! kind and inputs of a failure, that its token replays, and what the `symbolic` report says.

mod common;

use common::*;
use serde_json::Value;

fn report(args: &[&str]) -> (std::process::Output, Value) {
    json_report("fixture-symbolic", args)
}

#[test]
fn inputs_are_explored_by_default_and_a_failure_carries_its_inputs() {
    let (out, report) = report(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    let bug = test(&report, "thirty_seven");
    assert_eq!(bug["status"], "failed", "{bug:#}");
    let f = &bug["failure"];
    assert_eq!(f["kind"], "panic");
    assert_eq!(f["inputs"]["n"], 37, "{f:#}");
    let token = f["token"].as_str().unwrap();
    assert!(
        token.starts_with("symx3-"),
        "the token carries the input: {token}"
    );
    assert_replays("fixture-symbolic", token, "the order 3-2-1 with n = 37");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("inputs: n = 37"), "{}", text(&out));

    let proved = test(&report, "increments_are_exact");
    assert_eq!(proved["status"], "passed", "{proved:#}");
    let s = &proved["symbolic"];
    assert_eq!(
        (&s["complete"], &s["classes"]),
        (&Value::from(true), &Value::from(2))
    );
    assert_eq!(proved["complete"], true);

    let pinned = test(&report, "pinned_input");
    assert_eq!(pinned["status"], "passed", "{pinned:#}");
    let s = &pinned["symbolic"];
    assert_eq!(s["complete"], false, "{s:#}");
    assert_eq!(pinned["complete"], false);
    let pin = &s["pins"][0]["location"];
    assert_eq!(pin["file"], "symbolic/tests/symbolic.rs", "{s:#}");
    assert_eq!(pin["line"], 25, "the `concrete()` call");
}

#[test]
fn the_attributes_branch_depth_bounds_the_search_and_the_flag_overrides_it() {
    let (_, bounded) = report(&["two_branches"]);
    let t = test(&bounded, "two_branches_one_allowed");
    let s = &t["symbolic"];
    assert_eq!(s["max_branch_depth"], 1, "{s:#}");
    assert_eq!(s["complete"], false);
    let why = s["incomplete"].as_array().unwrap();
    assert!(
        why.iter()
            .any(|w| w.as_str().unwrap().contains("max_branch_depth")),
        "{s:#}"
    );

    let (_, deeper) = report(&["two_branches", "--max-branch-depth", "2"]);
    let s = &test(&deeper, "two_branches_one_allowed")["symbolic"];
    assert_eq!(
        (&s["max_branch_depth"], &s["complete"]),
        (&Value::from(2), &Value::from(true))
    );
    // a <= 10 or not, times b <= 10 or not.
    assert_eq!(s["classes"], 4, "{s:#}");
}

#[test]
fn without_symbolic_exploration_the_default_inputs_pass() {
    let (out, report) = report(&["--no-symbolic"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = test(&report, "thirty_seven");
    assert_eq!(t["status"], "passed");
    assert_eq!(t["symbolic"], Value::Null);
}
