//! End-to-end tests of the predictive checks: `cargo symx test --predict` and
//! `cargo symx predict` on `tests/fixtures/predict`, whose tests all pass in their first
//! execution. Each checks exit codes, kinds, the `predict` report and that tokens replay.

mod common;

use std::path::Path;
use std::process::Output;

use common::*;
use serde_json::{json, Value};

/// `cargo symx test --predict` on the fixture whose tests pass in their first execution.
fn predict_report(args: &[&str]) -> (Output, Value) {
    let mut all = vec!["--max-executions", "1"];
    all.extend_from_slice(args);
    json_report("fixture-predict", &all)
}

#[test]
fn predict_finds_a_lost_update_from_one_passing_execution_and_its_token_replays() {
    // Exploration alone, one execution: both tests pass.
    let (out, report) = predict_report(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(test(&report, "lost_update")["predict"], Value::Null);

    let (out, report) = predict_report(&["--predict"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let lost = test(&report, "lost_update");
    assert_eq!(lost["status"], "failed", "{lost:#}");
    assert_eq!(lost["executions"], 1);
    let f = &lost["failure"];
    assert_eq!(
        (&f["kind"], &f["predicted"]),
        (&json!("panic"), &json!(true))
    );
    assert_eq!(f["location"]["file"], "predict/tests/predict.rs");
    assert!(f["steps"].as_array().unwrap().len() >= 5, "{f:#}");
    let p = &lost["predict"];
    assert_eq!((&p["traces"], &p["confirmed"]), (&json!(1), &json!(1)));
    assert_eq!(p["unconfirmed"], 0, "{p:#}");
    assert_eq!(p["model"], "ctp");
    assert_eq!(
        p["queries"].as_u64().unwrap() as usize,
        p["query_seconds"].as_array().unwrap().len()
    );
    // The mutex makes the other test correct: asked, and nothing found.
    let locked = test(&report, "locked_update");
    assert_eq!(locked["status"], "passed", "{locked:#}");
    assert!(locked["predict"]["candidates"].as_u64().unwrap() > 0);
    assert_eq!(locked["predict"]["confirmed"], 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("predicted from a passing run"),
        "{}",
        text(&out)
    );
    // The token is the replayed run's: `cargo symx replay` shows the same failure.
    assert_replays("fixture-predict", f["token"].as_str().unwrap(), "panic:");

    // Atomic accesses never race: asking for races only finds nothing. The profile turns the
    // checks on and picks races, the flag picks the model.
    let (out, report) = predict_report(&["--profile", "predict-races", "--model", "mcm"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let p = &test(&report, "lost_update")["predict"];
    assert_eq!(
        (&p["properties"], &p["model"]),
        (&json!(["race"]), &json!("mcm"))
    );
    let (out, report) = predict_report(&["--predict", "--properties", "assert,race"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let p = &test(&report, "lost_update")["predict"];
    assert_eq!(p["properties"], json!(["assert", "race"]));
}

#[test]
fn predict_reads_a_saved_trace_and_rejects_unusable_ones() {
    let scratch = scratch();
    let dir = scratch.path();
    let out = symx_cmd(
        &fixtures().join("Cargo.toml"),
        "test",
        &[
            "-p",
            "fixture-predict",
            "lost_update",
            "--max-executions",
            "1",
        ],
    )
    .env("SYMX_TRACE_DIR", dir)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let saved = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("lost_update")
        })
        .unwrap_or_else(|| panic!("SYMX_TRACE_DIR holds the trace: {}", text(&out)));
    let predict = |file: &Path| {
        let args = ["-p", "fixture-predict", "--format", "json"];
        let mut cmd = symx_cmd(&fixtures().join("Cargo.toml"), "predict", &args);
        cmd.arg(file).output().unwrap()
    };
    let out = predict(&saved);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let f = &test(&report, "lost_update")["failure"];
    assert_eq!(
        (&f["kind"], &f["predicted"]),
        (&json!("panic"), &json!(true))
    );

    // Unusable traces exit 2 with a message that says what is wrong.
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut t = original.clone();
        edit(&mut t);
        t.to_string()
    };
    for (name, content, says) in [
        (
            "corrupt.json",
            "{\"format\": \"symx-trace\", \"vers".to_string(),
            "not a symx trace",
        ),
        (
            "newer.json",
            edited(&|t| t["version"] = json!(99)),
            "version 99",
        ),
        (
            "unknown.json",
            edited(&|t| t["colour"] = json!("red")),
            "unknown field `colour`",
        ),
        (
            "anonymous.json",
            edited(&|t| drop(t.as_object_mut().unwrap().remove("test"))),
            "names no test",
        ),
        (
            "stranger.json",
            edited(&|t| t["test"] = json!("no_such_test")),
            "`no_such_test`",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, content).unwrap();
        assert_exit_saying(&predict(&file), 2, &[says]);
    }
}

#[test]
fn an_unconfirmed_prediction_is_counted_never_a_failure_and_shown_with_verbose() {
    let scratch = scratch();
    let marker = scratch.path().join("seen");
    let run = |verbose: bool| {
        let _ = std::fs::remove_file(&marker);
        let mut args = vec!["-p", "fixture-predict", "changes_between_processes"];
        args.extend_from_slice(&["--max-executions", "1", "--predict", "--format", "json"]);
        if verbose {
            args.push("--verbose");
        }
        let out = symx_cmd(&fixtures().join("Cargo.toml"), "test", &args)
            .env("SYMX_FIXTURE_MARKER", &marker)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let t = test(&report, "changes_between_processes").clone();
        assert_eq!(t["status"], "passed", "{t:#}");
        assert_eq!(t["predict"]["confirmed"], 0, "{t:#}");
        assert!(t["predict"]["unconfirmed"].as_u64().unwrap() >= 1, "{t:#}");
        (t, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (quiet, stderr) = run(false);
    assert_eq!(quiet["predict"]["unconfirmed_details"], Value::Null);
    assert!(stderr.contains("--verbose shows them"), "{stderr}");
    let (verbose, stderr) = run(true);
    let details = verbose["predict"]["unconfirmed_details"]
        .as_array()
        .unwrap();
    assert!(
        details[0]["reason"]
            .as_str()
            .unwrap()
            .contains("the replay passed"),
        "{details:#?}"
    );
    assert!(stderr.contains("unconfirmed predictions of"), "{stderr}");
}

#[test]
fn a_predicted_atomicity_violation_fails_the_test_and_its_token_replays_the_interleaving() {
    let (out, report) = predict_report(&["--predict", "increments_meant_to_be_atomic"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = test(&report, "increments_meant_to_be_atomic");
    let f = &t["failure"];
    assert_eq!(
        (&f["kind"], &f["predicted"]),
        (&json!("atomicity-violation"), &json!(true))
    );
    assert!(f["message"].as_str().unwrap().contains("atomic"), "{f:#}");
    assert!(f["steps"].as_array().unwrap().len() >= 3, "{f:#}");
    // The other worker's write comes between the two accesses of the first: one preemption.
    assert_eq!(f["preemptions"], 1, "{f:#}");
    assert_eq!(t["predict"]["unconfirmed"], 0, "{t:#}");
    // The run does not fail by itself: replaying the token shows the interleaving, cleanly.
    let token = f["token"].as_str().expect("the replayed run's token");
    let out = symx("replay", &["-p", "fixture-predict", token]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no failure"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_failure_met_off_the_recorded_path_while_replaying_a_prediction_is_reported() {
    let (out, report) = predict_report(&["--predict", "reader_sees_the_intermediate_value"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = test(&report, "reader_sees_the_intermediate_value");
    let p = &t["predict"];
    // The W-R-W triplet is predicted; its replay panics in the reader instead.
    assert_eq!(
        (&p["confirmed"], &p["off_trace"]),
        (&json!(0), &json!(1)),
        "{p:#}"
    );
    let f = &t["failure"];
    assert_eq!(
        (&f["kind"], &f["predicted"]),
        (&json!("panic"), &json!(true)),
        "{f:#}"
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("intermediate value"),
        "{f:#}"
    );
    assert!(
        f["details"][0]
            .as_str()
            .unwrap()
            .contains("found while replaying"),
        "{f:#}"
    );
    assert_replays("fixture-predict", f["token"].as_str().unwrap(), "panic:");
}
