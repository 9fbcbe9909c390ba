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

#[test]
fn configured_and_command_line_features_build_the_tests_and_their_replay_commands_work() {
    let out = symx(
        "test",
        &[
            "-p",
            "fixture-featured",
            "--features",
            "extra",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("the JSON report parses");
    assert_eq!(report["summary"]["symx_tests"], 2, "{report:#}");
    for name in [
        "lost_update_with_the_configured_feature",
        "lost_update_with_the_command_line_feature",
    ] {
        let failure = &test(&report, name)["failure"];
        assert_eq!(failure["kind"], "panic", "{failure:#}");
        let command = failure["replay"].as_str().unwrap();
        assert!(command.contains("--features extra "), "{command}");
        assert!(command.contains("--target-dir "), "{command}");
        let replayed = printed(command).output().expect("cargo-symx runs");
        assert_happens_again(command, &replayed);
    }
    // Without the command line's feature only the configured one is built.
    let out = symx("test", &["-p", "fixture-featured", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("the JSON report parses");
    assert_eq!(report["summary"]["tests"], 1, "{report:#}");
    let failure = &test(&report, "lost_update_with_the_configured_feature")["failure"];
    assert!(!failure["replay"].as_str().unwrap().contains("--features"));
}

#[test]
fn a_token_or_trace_of_a_test_built_only_with_another_feature_names_that_feature() {
    let (out, report) = json_report(
        "fixture-featured",
        &["--features", "extra", "command_line_feature"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let failure = &test(&report, "lost_update_with_the_command_line_feature")["failure"];
    let token = failure["token"].as_str().unwrap();
    // Replayed without the feature, even with -p: the cause is the feature, not the package.
    let out = symx("replay", &["-p", "fixture-featured", token]);
    assert_exit_saying(
        &out,
        2,
        &["no test among the 1 tests built is the token's: \
           `lost_update_with_the_command_line_feature` is in a build with \
           `--features fixture-featured/extra`; this build has \
           `--features fixture-featured/model` (add `--features fixture-featured/extra`)"],
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("select its package"));
}

#[test]
fn the_replay_hint_of_plain_cargo_test_builds_with_the_features_the_run_had() {
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("plain-cargo-test");
    let manifest = fixtures().join("featured/Cargo.toml");
    let run = |command: &str| {
        std::process::Command::new("sh")
            .args(["-c", command])
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUST_BACKTRACE")
            .output()
            .expect("sh runs")
    };
    let first = format!(
        "cargo test --manifest-path {} --features extra command_line_feature",
        manifest.display()
    );
    let out = run(&first);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let hint = (stdout.lines())
        .find_map(|l| l.trim().strip_prefix("replay with:"))
        .unwrap_or_else(|| panic!("a replay hint:\n{}", text(&out)))
        .trim();
    assert!(hint.starts_with("SYMX_REPLAY=symx3-"), "{hint}");
    assert!(
        hint.contains(&format!(
            "cargo test --manifest-path {} ",
            manifest.display()
        )),
        "{hint}"
    );
    assert!(hint.contains(" --features extra "), "{hint}");
    assert!(
        hint.ends_with("lost_update_with_the_command_line_feature -- --exact --include-ignored"),
        "{hint}"
    );
    // Pasted as printed: the same failure again.
    let again = run(hint);
    assert_eq!(again.status.code(), Some(101), "{hint}\n{}", text(&again));
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(said.contains("replayed:"), "{hint}\n{}", text(&again));
    assert!(
        said.contains("an update was lost"),
        "{hint}\n{}",
        text(&again)
    );
    assert!(said.contains("0 passed; 1 failed"), "{said}");
}

const STDLIB_TEST: &str = "counter_on_std_sync";

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

/// The failure of `name` in fixture-stdlib, which must fail (exit 1) with `kind`.
fn stdlib_failure(name: &str, kind: &str) -> Value {
    let (out, report) = json_report("fixture-stdlib", &[name]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let failure = test(&report, name)["failure"].clone();
    assert_eq!(failure["kind"], kind, "{failure:#}");
    failure
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

#[test]
fn a_thread_that_never_reaches_a_scheduling_point_is_reported_within_seconds() {
    let name = "busy_wait_on_a_std_atomic";
    // A 10 s timeout arms the watchdog at 5 s.
    let started = std::time::Instant::now();
    let (out, report) = json_report("fixture-stdlib", &[name, "--timeout", "10s"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = test(&report, name);
    assert_eq!(t["status"], "timed-out", "{t:#}");
    let failure = &t["failure"];
    assert_eq!(failure["kind"], "stuck", "{failure:#}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with("thread 0 (main) ran for 5s without reaching a scheduling point"),
        "{message}"
    );
    let details = failure["details"].to_string();
    assert!(
        details.contains("likely cause 1: a loop that waits"),
        "{details}"
    );
    assert!(
        details.contains("likely cause 2: a blocking call"),
        "{details}"
    );
    // Reported by the watchdog, not at the timeout after a re-run.
    assert!(t["duration"].as_f64().unwrap() < 9.0, "{t:#}");
    let token = failure["token"].as_str().unwrap();
    let replayed = symx(
        "replay",
        &["-p", "fixture-stdlib", token, "--timeout", "4s"],
    );
    assert_exit_saying(&replayed, 1, &[]);
    let stdout = String::from_utf8_lossy(&replayed.stdout);
    assert!(
        stdout.contains("a thread is stuck again"),
        "{}",
        text(&replayed)
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
}

#[test]
fn a_stuck_thread_under_plain_cargo_test_is_reported_within_seconds_and_its_prefix_replays() {
    let name = "busy_wait_on_a_std_atomic";
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("plain-cargo-test");
    let manifest = fixtures().join("stdlib/Cargo.toml");
    let run = |command: &str, stuck_after: Option<&str>| {
        let mut sh = std::process::Command::new("sh");
        sh.args(["-c", command])
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUST_BACKTRACE")
            .env_remove("SYMX_STUCK_AFTER_MS");
        if let Some(ms) = stuck_after {
            sh.env("SYMX_STUCK_AFTER_MS", ms);
        }
        let started = std::time::Instant::now();
        (sh.output().expect("sh runs"), started.elapsed())
    };
    let cargo_test = format!(
        "cargo test --manifest-path {} --target-dir {} --test stuck",
        manifest.display(),
        target.display()
    );
    let (built, _) = run(&format!("{cargo_test} --no-run"), None);
    assert!(built.status.success(), "{}", text(&built));
    // Default settings: the watchdog reports it after 10 s, instead of libtest waiting forever.
    let (out, took) = run(&format!("{cargo_test} {name} -- --exact"), None);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(took < std::time::Duration::from_secs(25), "{took:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for says in [
        format!("symx: `{name}` is stuck: thread 0 (main) ran for 10s without reaching a scheduling point"),
        "likely cause 1: a loop that waits".to_string(),
        "likely cause 2: a blocking call".to_string(),
        "symx: a stuck model thread cannot be stopped: the test process exits".to_string(),
    ] {
        assert!(stderr.contains(&says), "says `{says}`:\n{}", text(&out));
    }
    let hint = (stderr.lines())
        .find_map(|l| l.trim().strip_prefix("replay with:"))
        .unwrap_or_else(|| panic!("a replay hint:\n{}", text(&out)))
        .trim();
    assert!(hint.starts_with("SYMX_REPLAY=symx3-"), "{hint}");
    assert!(
        hint.ends_with(&format!("{name} -- --exact --include-ignored")),
        "{hint}"
    );
    // Pasted as printed (with a shorter limit, to keep the test quick): the schedule up to
    // there gets the thread stuck again, and the watchdog says so.
    let (again, took) = run(hint, Some("2000"));
    assert_eq!(again.status.code(), Some(101), "{hint}\n{}", text(&again));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains(&format!(
            "symx: `{name}` is stuck: thread 0 (main) ran for 2s"
        )),
        "{hint}\n{}",
        text(&again)
    );
    assert!(took < std::time::Duration::from_secs(60), "{took:?}");
}

#[test]
fn a_spin_without_a_hint_is_a_step_limit_with_a_short_token_and_collapsed_rows() {
    let name = "spin_without_a_hint";
    let (out, report) = json_report("fixture-stdlib", &[name]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = test(&report, name);
    assert!(t["duration"].as_f64().unwrap() < 30.0, "{t:#}");
    let failure = &t["failure"];
    assert_eq!(failure["kind"], "step-limit", "{failure:#}");
    let steps = failure["steps"].as_array().unwrap();
    assert!(steps.len() < 20, "{} rows", steps.len());
    let spinning = steps
        .iter()
        .find(|s| s["omitted"].as_u64().unwrap_or(0) > 99_000)
        .unwrap_or_else(|| panic!("a summary row: {failure:#}"));
    assert_eq!(spinning["op"], "load");
    assert_eq!(spinning["order"], "Acquire");
    assert_eq!(spinning["obj"], "AtomicBool created at spin.rs:8");
    assert_eq!(spinning["value"], "false");
    assert_eq!(spinning["location"]["line"], 11);
    let token = failure["token"].as_str().unwrap();
    assert!(token.len() < 200, "{} characters", token.len());
    assert_replays("fixture-stdlib", token, "step-limit:");
    // `--trace` prints every step: the spin is not collapsed.
    let traced = symx("replay", &["-p", "fixture-stdlib", "--trace", token]);
    assert_eq!(traced.status.code(), Some(1), "{}", text(&traced));
    let rows = String::from_utf8_lossy(&traced.stdout)
        .lines()
        .filter(|l| l.contains("load(Acquire) AtomicBool created at spin.rs:8"))
        .count();
    assert!(rows > 99_000, "{rows} rows of the spin");

    let out = symx("test", &["-p", "fixture-stdlib", name]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(human.contains("more steps: repeating load"), "{human}");
}

const LAZY: &str = "a_relaxed_flag_does_not_publish_the_value";

#[test]
fn a_race_report_shows_orderings_the_types_written_and_where_objects_were_created() {
    let failure = stdlib_failure(LAZY, "data-race");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with("data race on UnsafeCell created at lazy.rs:20:"),
        "{message}"
    );
    let steps = failure["steps"].as_array().unwrap();
    let ops: Vec<(&str, &str, &str, &str)> = steps
        .iter()
        .map(|s| {
            let field = |k: &str| s[k].as_str().unwrap_or("");
            (field("op"), field("order"), field("obj"), field("value"))
        })
        .collect();
    assert_eq!(
        ops,
        [
            (
                "store",
                "Release",
                "AtomicBool created at lazy.rs:19",
                "true"
            ),
            (
                "load",
                "Relaxed",
                "AtomicBool created at lazy.rs:19",
                "true"
            ),
        ]
    );
    let details = failure["details"].to_string();
    assert!(
        details.contains(
            "load(Relaxed) AtomicBool created at lazy.rs:19 at stdlib/tests/lazy.rs:30:23 \
             synchronises with nothing by itself"
        ),
        "{details}"
    );
    let out = symx("test", &["-p", "fixture-stdlib", LAZY]);
    let human = String::from_utf8_lossy(&out.stdout);
    assert!(
        human.contains("load(Relaxed) AtomicBool created at lazy.rs:19 = true"),
        "{human}"
    );

    // SARIF: the interleaving is a code flow with a thread flow per thread, in step order.
    let out = symx("test", &["-p", "fixture-stdlib", LAZY, "--format", "sarif"]);
    let sarif: Value = serde_json::from_slice(&out.stdout).expect("SARIF parses");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "symx/data-race", "{sarif:#}");
    assert!(result.get("relatedLocations").is_none(), "{result:#}");
    let flows = result["codeFlows"][0]["threadFlows"].as_array().unwrap();
    let flow = |id: &str| {
        let f = flows.iter().find(|f| f["id"] == id).expect("a thread flow");
        let steps: Vec<(u64, String)> = f["locations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let text = l["location"]["message"]["text"].as_str().unwrap();
                (l["executionOrder"].as_u64().unwrap(), text.to_string())
            })
            .collect();
        steps
    };
    assert_eq!(flows.len(), 2, "{result:#}");
    assert_eq!(
        flow("1"),
        [(
            1,
            "store(Release) AtomicBool created at lazy.rs:19 = true".into()
        )]
    );
    assert_eq!(
        flow("0"),
        [(
            2,
            "load(Relaxed) AtomicBool created at lazy.rs:19 = true".into()
        )]
    );
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

#[test]
fn a_plain_test_calling_symx_model_prints_a_replay_hint_that_builds_its_package() {
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("plain-cargo-test");
    let manifest = fixtures().join("stdlib/Cargo.toml");
    let run = |command: &str| {
        std::process::Command::new("sh")
            .args(["-c", command])
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUST_BACKTRACE")
            .output()
            .expect("sh runs")
    };
    // No #[symx::test] in this binary tells the runtime how it was built: the manifest comes
    // from cargo's environment, the target directory from the binary's path.
    let first = format!(
        "cargo test --manifest-path {} --target-dir {} --test model_only",
        manifest.display(),
        target.display()
    );
    let out = run(&first);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let hint = (stdout.lines())
        .find_map(|l| l.trim().strip_prefix("replay with:"))
        .unwrap_or_else(|| panic!("a replay hint:\n{}", text(&out)))
        .trim();
    for says in [
        format!("cargo test --manifest-path {} ", manifest.display()),
        format!("--target-dir {} ", target.display()),
    ] {
        assert!(hint.contains(&says), "says `{says}`: {hint}");
    }
    assert!(
        hint.ends_with(
            "a_plain_test_runs_a_model_that_loses_an_update -- --exact --include-ignored"
        ),
        "{hint}"
    );
    // Pasted as printed: the same failure again.
    let again = run(hint);
    assert_eq!(again.status.code(), Some(101), "{hint}\n{}", text(&again));
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(said.contains("replayed:"), "{hint}\n{}", text(&again));
    assert!(
        said.contains("an update was lost"),
        "{hint}\n{}",
        text(&again)
    );
}
