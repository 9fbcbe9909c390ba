//! End-to-end tests of annotated, hand-written locks: `cargo symx test` on
//! `tests/fixtures/annotated`, whose tests run the programs of
//! `symx_test_programs::annotated` on a guard-based spin mutex, a reader-writer spin lock
//! and `symx::sync`'s own locks. Each checks the exit code, the failure kind, and that the
//! token replays.

mod common;

use common::*;
use serde_json::{json, Value};

const PACKAGE: &str = "fixture-annotated";

/// `cargo symx test` on the fixture's tests whose names contain `filter` (`PROGRAM_on_LOCK`:
/// a filter `PROGRAM_on_` picks one program on both kinds of lock).
fn run(filter: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![filter];
    args.extend_from_slice(extra);
    let (out, report) = json_report(PACKAGE, &args);
    (out.status.code().expect("an exit code"), report)
}

/// The kind each test of `report` failed with (`None`: it passed), by test name.
fn verdicts(report: &Value) -> Vec<(String, Option<String>)> {
    let mut out: Vec<_> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let kind = t["failure"]["kind"].as_str().map(str::to_string);
            (t["name"].as_str().unwrap().to_string(), kind)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_check_then_set_lock_is_caught_by_a_plain_counter_test() {
    let (code, report) = run("check_then_set_counter", &[]);
    assert_eq!(code, 1, "{report:#}");
    let f = &test(&report, "check_then_set_counter")["failure"];
    assert_eq!(f["kind"], "misuse", "{f:#}");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("mutual exclusion is broken") && message.contains("CheckThenSet"),
        "{f:#}"
    );
    assert_replays(PACKAGE, f["token"].as_str().unwrap(), "misuse:");
}

#[test]
fn guard_drop_releases_the_named_lock_and_the_correct_lock_is_proven() {
    let (code, report) = run("counter_on_", &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        verdicts(&report),
        [
            ("counter_on_mutex".to_string(), None),
            ("counter_on_spin_mutex".to_string(), None)
        ]
    );
    assert_eq!(test(&report, "counter_on_spin_mutex")["complete"], true);
    // The spin mutex yields while it waits: the default's reduction covers yields, so its
    // pass is complete without a warning, like symx's own mutex's.
    for name in ["counter_on_spin_mutex", "counter_on_mutex"] {
        assert_eq!(test(&report, name)["warnings"], json!([]), "{name}");
    }
}

#[test]
fn readers_share_an_annotated_lock_and_read_then_write_is_a_self_deadlock() {
    let (code, report) = run("readers_on_", &[]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(test(&report, "readers_on_spin_rwlock")["complete"], true);

    let (code, report) = run("read_then_write_on_", &[]);
    assert_eq!(code, 1, "{report:#}");
    let deadlock = Some("deadlock".to_string());
    assert_eq!(
        verdicts(&report),
        [
            ("read_then_write_on_rwlock".to_string(), deadlock.clone()),
            ("read_then_write_on_spin_rwlock".to_string(), deadlock),
        ]
    );
    let f = &test(&report, "read_then_write_on_spin_rwlock")["failure"];
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("exclusively while it holds it shared"),
        "{f:#}"
    );
    assert_replays(PACKAGE, f["token"].as_str().unwrap(), "deadlock:");
}

#[test]
fn an_inversion_of_annotated_locks_is_predicted_and_confirmed_from_one_run() {
    let (code, report) = run("inversion_on_spin_mutex", &["--max-executions", "1"]);
    assert_eq!(code, 0, "the first execution passes: {report:#}");

    let (code, report) = run(
        "inversion_on_spin_mutex",
        &["--max-executions", "1", "--predict"],
    );
    assert_eq!(code, 1, "{report:#}");
    let t = test(&report, "inversion_on_spin_mutex");
    let f = &t["failure"];
    assert_eq!(
        (&f["kind"], &f["predicted"]),
        (&json!("deadlock"), &json!(true)),
        "{t:#}"
    );
    assert_eq!(t["predict"]["confirmed"], 1, "{t:#}");
    assert_replays(PACKAGE, f["token"].as_str().unwrap(), "deadlock:");
}

#[test]
fn a_prediction_whose_replay_fails_otherwise_is_reported_and_fails_the_run() {
    let name = "race_before_the_predicted_assertion";
    let (code, report) = run(name, &["--max-executions", "1"]);
    assert_eq!(code, 0, "the first execution passes: {report:#}");

    let (code, report) = run(
        name,
        &[
            "--max-executions",
            "1",
            "--predict",
            "--properties",
            "assert",
        ],
    );
    assert_eq!(code, 1, "{report:#}");
    let t = test(&report, name);
    let p = &t["predict"];
    assert_eq!(
        (&p["confirmed"], &p["failed_otherwise"], &p["unconfirmed"]),
        (&json!(0), &json!(1), &json!(0)),
        "{p:#}"
    );
    let f = &t["failure"];
    assert_eq!(
        (&f["kind"], &f["predicted"]),
        (&json!("data-race"), &json!(true)),
        "{f:#}"
    );
    assert!(
        f["details"][0]
            .as_str()
            .unwrap()
            .contains("failed another way than predicted"),
        "{f:#}"
    );
    assert_replays(PACKAGE, f["token"].as_str().unwrap(), "data-race:");
}

#[test]
fn arriving_at_a_barrier_without_barrier_init_is_misuse() {
    let (code, report) = run("unannounced_barrier", &[]);
    assert_eq!(code, 1, "{report:#}");
    let f = &test(&report, "unannounced_barrier")["failure"];
    assert_eq!(f["kind"], "misuse", "{f:#}");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("no barrier_init announced"),
        "{f:#}"
    );
}
