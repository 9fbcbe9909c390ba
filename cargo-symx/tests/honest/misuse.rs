//! What the model could not see: threads without a symx operation (a warning), and threads
//! or statics outside the model using its objects (misuse).

use super::*;

#[test]
fn model_threads_without_a_symx_operation_are_a_warning_in_every_format() {
    let out = symx(
        "test",
        &["-p", "fixture-stdlib", STDLIB_TEST, "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("the JSON report parses");
    let t = test(&report, "counter_on_std_sync");
    assert_eq!(t["status"], "passed", "{t:#}");
    assert_eq!(t["complete"], true, "{t:#}");
    let warnings = t["warnings"].as_array().expect("a warnings array");
    assert_eq!(warnings.len(), 1, "{t:#}");
    assert_eq!(warnings[0]["code"], "no-modelled-operations");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("2 model threads made no symx operation"),
        "{message}"
    );
    assert!(message.contains("std::sync"), "{message}");
    // The human report, on stderr beside a machine format: never `complete` alone.
    let human = String::from_utf8_lossy(&out.stderr);
    for says in [
        "warning[no-modelled-operations]: 2 model threads",
        "complete under sequential consistency, warning: no-modelled-operations",
        "yes, but see warning",
        "1 with warnings",
    ] {
        assert!(human.contains(says), "says `{says}`: {human}");
    }

    let out = symx(
        "test",
        &["-p", "fixture-stdlib", STDLIB_TEST, "--format", "junit"],
    );
    let junit = quick_junit::Report::deserialize_from_str(&String::from_utf8_lossy(&out.stdout))
        .expect("valid JUnit");
    let case = &junit.test_suites[0].test_cases[0];
    let property = case
        .properties
        .iter()
        .find(|p| p.name.as_str() == "symx.warning.no-modelled-operations")
        .expect("the warning as a property");
    assert!(property.value.as_str().starts_with("2 model threads"));
    let system_err = case.system_err.as_ref().expect("the warning in system-err");
    assert!(system_err
        .as_str()
        .contains("warning[no-modelled-operations]"));

    let out = symx(
        "test",
        &["-p", "fixture-stdlib", STDLIB_TEST, "--format", "sarif"],
    );
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("SARIF parses");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif:#}");
    assert_eq!(results[0]["level"], "warning");
    assert_eq!(results[0]["ruleId"], "symx/no-modelled-operations");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "stdlib/tests/stdlib.rs"
    );

    // Threads that use symx objects get no warning.
    let out = symx("test", &["-p", "fixture-clean", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("the JSON report parses");
    let t = test(&report, "locked_counter_is_exact");
    assert_eq!(t["warnings"], Value::Array(Vec::new()), "{t:#}");
}

#[test]
fn a_thread_symx_did_not_spawn_using_a_model_object_is_misuse() {
    let failure = stdlib_failure("std_thread_locks_a_model_mutex", "misuse");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with("Mutex of the model used by a thread symx did not spawn"),
        "{message}"
    );
    assert_eq!(failure["location"]["file"], "stdlib/tests/foreign.rs");
    assert_eq!(failure["location"]["line"], 10);
    let details = failure["details"].to_string();
    assert!(details.contains("symx::thread::spawn"), "{details}");
    let token = failure["token"].as_str().unwrap();
    assert_replays("fixture-stdlib", token, "misuse:");
}

#[test]
fn a_static_symx_object_whose_state_survives_an_execution_is_misuse() {
    let failure = stdlib_failure("static_mutex_keeps_state_across_executions", "misuse");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "Mutex created at stdlib/tests/statics.rs:6:28 was used by an earlier execution"
        ),
        "{message}"
    );
    assert!(
        message.contains("survive from one execution to the next"),
        "{message}"
    );
    assert_eq!(failure["location"]["file"], "stdlib/tests/statics.rs");
    assert_eq!(failure["location"]["line"], 6);
    let details = failure["details"].to_string();
    assert!(details.contains("lazy_static!"), "{details}");
}
