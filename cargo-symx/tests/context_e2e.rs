//! End-to-end tests of exploring a program context under `cargo symx test`, on
//! `tests/fixtures/symbolic/tests/context.rs`: the per-context report (mode, paths, the
//! infeasible paths avoided against the naive initial state, solver share), failures with
//! the facts they depend on and whether they are confirmed, and tokens that replay in the
//! mode that found them.

mod common;

use common::*;
use serde_json::Value;

fn report(args: &[&str]) -> (std::process::Output, Value) {
    json_report("fixture-symbolic", args)
}

#[test]
fn a_declared_context_is_reported_with_the_paths_naive_explores_in_vain() {
    let (out, report) = report(&["aliased_lock"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let c = &test(&report, "aliased_lock")["context"];
    assert_eq!(c["mode"], "full", "{c:#}");
    assert_eq!(
        (&c["failing"], &c["complete"]),
        (&Value::from(0), &Value::from(true))
    );
    // Foo acquires after Bar released, or blocks and is woken: two completed paths (the
    // default inputs' path, discarded by a fact, is explored too).
    assert_eq!(
        (&c["paths"], &c["completed"]),
        (&Value::from(3), &Value::from(2)),
        "{c:#}"
    );
    // The naive state adds the overlap (Foo inside while Bar is: failing when Foo reads
    // Bar's mark, passing when Bar cleared it first) and deadlocks on a lock nobody holds.
    // Every class of execution a search of every schedule (DFS) reaches is among these 7
    // paths; the overlap's passing paths come from the race of Foo's failing read with
    // Bar's store, left to do when the failure ended the execution.
    assert_eq!(c["naive_completed"], 7, "{c:#}");
    assert_eq!(c["infeasible_avoided"], 5, "{c:#}");
    let share = c["solver_share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share), "{c:#}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("context: fixture-symbolic::context aliased_lock: mode full, 3 paths"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_naive_failure_replays_in_naive_whatever_the_attribute_says() {
    let (out, report) = report(&["aliased_lock", "--context-mode", "naive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let f = &test(&report, "aliased_lock")["failure"];
    assert_eq!(f["kind"], "panic", "{f:#}");
    let token = f["token"].as_str().unwrap();
    assert!(
        token.starts_with("symx4-"),
        "the token carries the mode: {token}"
    );
    // Replayed without --context-mode: the attribute says full, the token naive.
    assert_replays(
        "fixture-symbolic",
        token,
        "two critical sections on one node",
    );
}

#[test]
fn a_failure_that_needs_a_generalised_value_is_not_confirmed() {
    let (out, report) = report(&["generalised_r2"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = test(&report, "generalised_r2");
    let c = &t["context"];
    assert_eq!(c["mode"], "no-rd", "{c:#}");
    assert_eq!(
        (&c["failing"], &c["confirmed"]),
        (&Value::from(1), &Value::from(0)),
        "{c:#}"
    );
    let g = &c["failures"][0]["generalised"][0];
    assert_eq!(
        (&g["name"], &g["recorded"]),
        (&Value::from("ctx.t0.r2"), &Value::from(5)),
        "{c:#}"
    );
    assert_ne!(g["value"], 5);
    // r2 is the constant 5 before the checkpoint: no input of the prefix computes another.
    assert!(c["failures"][0].get("replay").is_none(), "{c:#}");
    // The recorded context: the main thread alone, stopped at the checkpoint.
    assert_eq!(c["recorded"]["label"], "ctx", "{c:#}");
    assert_eq!(
        c["recorded"]["facts"],
        serde_json::json!(["thread 0 (main) is at the checkpoint"]),
        "{c:#}"
    );
    let details = t["failure"]["details"].as_array().unwrap();
    assert!(
        details
            .iter()
            .any(|d| d.as_str().unwrap().starts_with("not confirmed")),
        "{t:#}"
    );
}
