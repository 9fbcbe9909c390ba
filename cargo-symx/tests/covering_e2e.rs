//! End-to-end tests of the input-covering-schedules commands on
//! `tests/fixtures/covering`: `schedules` writes the versioned schedule file and the
//! summary, `deadlock` confirms a deadlock with a witness and a replay command that works
//! (exit 1) and states its scope when there is none (exit 0), `test-schedules` runs one
//! constrained execution per schedule and chooses the schedule an `--input` selects.

mod common;

use common::*;
use serde_json::Value;

fn covering(command: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["-p", "fixture-covering"];
    all.extend_from_slice(args);
    symx(command, &all)
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn schedules_writes_the_file_and_the_summary() {
    let dir = scratch();
    let file = dir.path().join("lock.json");
    let out = covering(
        "schedules",
        &["lock_chosen_by_input", "--output", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let summary = stdout(&out);
    assert!(summary.contains("Σ_E min/max/avg"), "{summary}");
    assert!(summary.contains("2/2/2.0"), "{summary}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        (&v["format"], &v["version"]),
        (&"symx-schedules".into(), &1.into())
    );
    let schedules = v["epochs"][0]["schedules"].as_array().unwrap();
    let constraints: Vec<&str> = (schedules.iter())
        .map(|s| s["constraint"]["smt2"].as_str().unwrap())
        .collect();
    assert_eq!(constraints, ["(= x #x00000000)", "(not (= x #x00000000))"]);
    // Five workers, each a lock, an unlock and an exit.
    let workers = &schedules[1]["threads"];
    assert_eq!(workers["5"].as_array().unwrap().len(), 3, "{workers:#}");
}

#[test]
fn deadlock_confirms_an_input_triggered_deadlock_with_a_working_replay() {
    let out = covering("deadlock", &["self_deadlock_on_seven"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = stdout(&out);
    assert!(said.contains("deadlocks (confirmed)"), "{said}");
    assert!(said.contains("inputs: x = 7"), "{said}");
    assert!(said.contains("constrained execution only"), "{said}");
    let token = (said.split_whitespace())
        .find(|w| w.starts_with("symx3-"))
        .expect("a replay command with its token");
    assert_replays("fixture-covering", token, "self-deadlock");
}

#[test]
fn deadlock_states_its_scope_when_constrained_execution_avoids_one() {
    let out = covering("deadlock", &["lock_order_inversion"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = stdout(&out);
    assert!(
        said.contains("deadlock-free under constrained execution"),
        "{said}"
    );
    assert!(
        said.contains("may deadlock where constrained execution cannot"),
        "{said}"
    );
}

#[test]
fn test_schedules_runs_one_input_per_schedule_and_selects_by_input() {
    let out = covering("test-schedules", &["lock_chosen_by_input"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = stdout(&out);
    assert!(
        said.contains("2 constrained run(s) for 2 schedule(s)"),
        "{said}"
    );
    let out = covering(
        "test-schedules",
        &["lock_chosen_by_input", "--input", "x=5"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        stdout(&out).contains("with x = 5: 1 epoch(s), schedules E0#S1: ok"),
        "{}",
        text(&out)
    );
    // Loops cut into epochs: the selector chooses again at every boundary.
    let out = covering(
        "test-schedules",
        &["lock_loops_any_count", "--input", "x=3,y=1"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        stdout(&out)
            .contains("with x = 3, y = 1: 4 epoch(s), schedules E0#S3 E3#S1 E1#S1 E1#S0: ok"),
        "{}",
        text(&out)
    );
    // The schedule specialization example passes under constrained execution.
    let out = covering("test-schedules", &["specialization"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn discharge_proves_the_havocked_semaphore_schedules_infeasible_and_markers_counts_them() {
    let out = covering("discharge", &["semaphore_loops"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let said = stdout(&out);
    assert!(
        said.contains("4 of 11 schedule(s) over havocked shared state proved infeasible, of 15"),
        "{said}"
    );
    assert!(
        said.contains(
            "infeasible: no schedule into its epoch leaves (not (= count@1.s #x00000000))"
        ),
        "{said}"
    ); // Table 3.3's counts: the two loops are covered by their explicit markers, the
       // semaphore's wait loop is trivial.
    let out = covering("markers", &["semaphore_loops"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        stdout(&out).contains("0 epoch marker(s) with the placement's optimizations, 3 without"),
        "{}",
        text(&out)
    );
}
