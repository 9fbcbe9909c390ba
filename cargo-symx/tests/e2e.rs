//! End-to-end: the real `cargo-symx` binary on the fixture crates in `tests/fixtures`, all
//! built into one target directory. Each test checks exit codes, kinds, locations and that
//! every reported replay token reproduces its failure.

mod common;

use std::process::Command;

use common::*;
use serde_json::Value;

#[test]
fn a_clean_crate_passes_with_exit_code_0() {
    let (out, report) = json_report("fixture-clean", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let symx_test = test(&report, "locked_counter_is_exact");
    assert_eq!(symx_test["status"], "passed");
    assert_eq!(symx_test["strategy"], "dpor");
    assert_eq!(symx_test["complete"], true);
    assert!(symx_test["executions"].as_u64().unwrap() >= 2);
    let ordinary = test(&report, "an_ordinary_test_passes");
    assert_eq!(ordinary["status"], "passed");
    assert_eq!(ordinary["strategy"], Value::Null);
    assert_eq!(report["summary"]["passed"], 4);

    let human = symx("test", &["-p", "fixture-clean"]);
    assert_eq!(human.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&human.stdout);
    assert!(stdout.contains("4 passed, 0 failed"), "{}", text(&human));
    assert!(stdout.contains("complete?"), "the summary table is printed");
    assert!(
        !stdout.contains('\u{1b}'),
        "no colour when stdout is not a terminal"
    );
    let forced = symx("test", &["-p", "fixture-clean", "--color", "always"]);
    assert!(String::from_utf8_lossy(&forced.stdout).contains("\u{1b}[1;32m"));
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(
        stderr.contains("does not list its tests like libtest (harness = false?)"),
        "{}",
        text(&human)
    );
}

#[test]
fn a_deadlock_and_a_data_race_are_reported_with_kinds_locations_and_tokens() {
    let (out, report) = json_report("fixture-bugs", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let deadlock = &test(&report, "lock_order_deadlock")["failure"];
    assert_eq!(deadlock["kind"], "deadlock");
    let steps = deadlock["steps"].as_array().unwrap();
    assert!(!steps.is_empty());
    for s in steps {
        assert_eq!(s["location"]["file"], "bugs/tests/bugs.rs", "{s}");
    }
    let race = &test(&report, "unsynchronised_write_races")["failure"];
    assert_eq!(race["kind"], "data-race");
    assert_eq!(race["location"]["file"], "bugs/tests/bugs.rs");
    assert_eq!(race["location"]["line"], 28);
    assert_eq!(test(&report, "this_one_is_fine")["status"], "passed");
    let ordinary = test(&report, "an_ordinary_test_fails");
    assert_eq!(ordinary["status"], "failed");
    assert_eq!(ordinary["failure"]["location"]["line"], 41, "{ordinary:#}");
    assert!(ordinary["failure"]["message"]
        .as_str()
        .unwrap()
        .contains("ordinary arithmetic"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("interleaving"),
        "the human report goes to stderr"
    );

    // A saved report replays too: its first token is used.
    let scratch = scratch();
    let saved = scratch.path().join("bugs-report.json");
    std::fs::write(&saved, &out.stdout).unwrap();
    let from_file = symx("replay", &["-p", "fixture-bugs", saved.to_str().unwrap()]);
    assert_eq!(from_file.status.code(), Some(1), "{}", text(&from_file));
    let replayed = String::from_utf8_lossy(&from_file.stdout);
    assert!(replayed.contains("happens again"), "{}", text(&from_file));

    for (name, kind) in [
        ("lock_order_deadlock", "deadlock"),
        ("unsynchronised_write_races", "data-race"),
    ] {
        let token = test(&report, name)["failure"]["token"].as_str().unwrap();
        assert_replays("fixture-bugs", token, &format!("{kind}:"));
    }
}

#[test]
fn junit_and_sarif_reports_parse_back() {
    let out = symx("test", &["-p", "fixture-bugs", "--format", "junit"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let junit = quick_junit::Report::deserialize_from_str(&String::from_utf8_lossy(&out.stdout))
        .expect("valid JUnit");
    assert_eq!(junit.tests, 4);
    assert_eq!(junit.failures, 3);
    let case = junit.test_suites[0]
        .test_cases
        .iter()
        .find(|c| c.name.as_str() == "lock_order_deadlock")
        .expect("the deadlock test case");
    match &case.status {
        quick_junit::TestCaseStatus::NonSuccess { ty, .. } => {
            assert_eq!(ty.as_ref().map(|t| t.as_str()), Some("deadlock"))
        }
        other => panic!("a failure, not {other:?}"),
    }

    let scratch = scratch();
    let file = scratch.path().join("bugs.sarif");
    let out = symx(
        "test",
        &[
            "-p",
            "fixture-bugs",
            "--format",
            "sarif",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let sarif: serde_sarif::sarif::Sarif =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).expect("valid SARIF");
    let results = sarif.runs[0].results.as_ref().unwrap();
    let errors = results
        .iter()
        .filter(|r| serde_json::to_value(r.level).unwrap() == "error")
        .count();
    assert_eq!(errors, 3, "deadlock, race, failed ordinary test");
    // `this_one_is_fine` spawns a thread that makes no symx operation.
    let warnings: Vec<_> = results
        .iter()
        .filter(|r| serde_json::to_value(r.level).unwrap() == "warning")
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].rule_id.as_deref(),
        Some("symx/no-modelled-operations")
    );
    assert!(
        results.iter().all(|r| r.locations.is_some()),
        "code scanning needs a location for every result"
    );
    for rule in ["symx/deadlock", "symx/data-race"] {
        let r = results
            .iter()
            .find(|r| r.rule_id.as_deref() == Some(rule))
            .unwrap_or_else(|| panic!("a {rule} result"));
        let loc = r.locations.as_ref().unwrap()[0]
            .physical_location
            .as_ref()
            .unwrap();
        let uri = loc.artifact_location.as_ref().unwrap().uri.as_deref();
        assert_eq!(uri, Some("bugs/tests/bugs.rs"));
        assert!(loc.region.as_ref().unwrap().start_line.unwrap() > 0);
    }
}

#[test]
fn crashes_and_hangs_are_reported_with_a_replaying_prefix_and_the_run_goes_on() {
    let (out, report) = json_report("fixture-crashes", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    for (name, status, kind, says) in [
        ("segfaults_via_unsafe", "crashed", "crash", "SIGSEGV"),
        ("aborts", "crashed", "crash", "SIGABRT"),
        ("exits_the_process", "crashed", "crash", "code 3"),
    ] {
        let t = test(&report, name);
        assert_eq!(t["status"], status, "{t:#}");
        assert_eq!(
            t["source"], "crashes/tests/crashes.rs",
            "where SARIF pins it"
        );
        let f = &t["failure"];
        assert_eq!(f["kind"], kind);
        assert!(f["message"].as_str().unwrap().contains(says), "{f:#}");
        let details = f["details"].to_string();
        assert!(details.contains("reproduces the crash (checked)"), "{f:#}");
        let token = f["token"].as_str().expect("a token for the prefix");
        assert_replays("fixture-crashes", token, "crashed again");
    }
    // A model thread that runs off its stack is a failure of the test, not a crash.
    let overflow = &test(&report, "overflows_its_stack")["failure"];
    assert_eq!(overflow["kind"], "stack-overflow", "{overflow:#}");
    let message = overflow["message"].as_str().unwrap();
    assert!(
        message.contains("overflowed its stack of 256 KiB") && message.contains("stack_size"),
        "{overflow:#}"
    );
    let token = overflow["token"].as_str().expect("a token");
    assert_replays("fixture-crashes", token, "overflowed its stack");
    // A hang inside a model thread is found by the watchdog, with the schedule so far.
    let t = test(&report, "loops_forever");
    assert_eq!(t["status"], "timed-out", "{t:#}");
    let f = &t["failure"];
    assert_eq!(f["kind"], "stuck");
    let message = f["message"].as_str().unwrap();
    assert!(
        message.contains("without reaching a scheduling point since its last symx operation"),
        "{f:#}"
    );
    let token = f["token"].as_str().expect("a token for the prefix");
    assert_replays("fixture-crashes", token, "a thread is stuck again");
    assert_eq!(
        test(&report, "an_ordinary_test_after_them_passes")["status"],
        "passed"
    );
    assert_eq!(
        test(&report, "a_symx_test_after_them_passes")["status"],
        "passed"
    );
}

#[test]
fn a_compile_error_exits_2_and_shows_cargos_error() {
    let out = symx("test", &["-p", "fixture-broken"]);
    assert_exit_saying(
        &out,
        2,
        &["error[E0308]: mismatched types", "broken/src/lib.rs"],
    );
}

#[test]
fn an_unknown_configuration_key_exits_2_naming_key_and_file() {
    let manifest = fixtures().join("bad-config/Cargo.toml");
    let out = symx_in(&manifest, "test", &[]);
    assert_exit_saying(&out, 2, &["time-budgett", ".config/symx.toml"]);

    let manifest = fixtures().join("bad-metadata/Cargo.toml");
    let out = symx_in(&manifest, "test", &[]);
    let says = [
        "unknown field `timout`",
        "[package.metadata.symx]",
        "bad-metadata/Cargo.toml",
    ];
    assert_exit_saying(&out, 2, &says);
}

#[test]
fn usage_errors_and_corrupt_tokens_exit_2() {
    let out = symx("test", &["--format", "xml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = symx("replay", &["-p", "fixture-clean", "symx1-AAAAbroken"]);
    assert_exit_saying(&out, 2, &["corrupted"]);
    // A sound token of a test that does not exist here.
    let stranger = symx::__worker::tokens::prefix_token("no_such_test", &[1, 0]);
    let out = symx("replay", &["-p", "fixture-clean", &stranger]);
    assert_exit_saying(&out, 2, &["no test"]);
}

#[test]
fn list_shows_symx_and_ordinary_tests() {
    let out = symx("list", &["-p", "fixture-clean"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("fixture-clean::clean locked_counter_is_exact"),
        "{stdout}"
    );
    assert!(
        stdout.contains("fixture-clean::clean an_ordinary_test_passes"),
        "{stdout}"
    );
}

#[cfg(unix)] // sends SIGINT with kill(1)
#[test]
fn ctrl_c_stops_the_run_and_reports_what_was_found() {
    let args = [
        "-p",
        "fixture-crashes",
        "--jobs",
        "1",
        "--timeout",
        "10m",
        "loops_forever",
    ];
    let mut child = symx_cmd(&fixtures().join("Cargo.toml"), "test", &args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for cargo's `Finished` (the build is shared with the other tests), then for the
    // hanging test to be under way.
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while std::io::BufRead::read_line(&mut stderr, &mut line).unwrap() > 0
        && !line.contains("Finished")
    {
        line.clear();
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(started.elapsed().as_secs() < 10, "it stops promptly");
    assert_eq!(out.status.code(), Some(130), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 interrupted"), "{}", text(&out));
}

/// `dfs_counter_is_exact` of the clean fixture, run with `args`: its JSON record (it passes).
fn dfs_counter(args: &[&str]) -> Value {
    let mut all = vec!["dfs_counter"];
    all.extend_from_slice(args);
    let (out, report) = json_report("fixture-clean", &all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    test(&report, "dfs_counter_is_exact").clone()
}

#[test]
fn shards_split_a_dfs_exploration_and_together_cover_it() {
    let run = |args: &[&str]| {
        let t = dfs_counter(args);
        assert_eq!(t["complete"], true, "{t:#}");
        assert_eq!(t["strategy"], "dfs");
        (
            t["executions"].as_u64().unwrap(),
            t["shards"].as_u64().unwrap(),
        )
    };
    let (whole, one) = run(&[]);
    let (sharded, two) = run(&["--shards", "2"]);
    assert_eq!((one, two), (1, 2), "the second run is split in two");
    // One process at a time: the shards take turns instead of waiting on each other forever.
    let (serial, two_again) = run(&["--shards", "2", "--jobs", "1"]);
    assert_eq!((serial, two_again), (sharded, 2));
    assert!(whole >= 90, "{whole}");
    // A small tree: revealing foreign keys runs a few executions twice.
    assert!(
        sharded >= whole && sharded < whole * 3 / 2,
        "{sharded} vs {whole}"
    );
}

/// `dpor_counter_is_exact` of the clean fixture (optimal DPOR, 2,520 traces), run with `args`:
/// (executions, shards, the executions whose trace ran twice).
fn dpor_counter(args: &[&str]) -> (u64, u64, Option<u64>) {
    let mut all = vec!["dpor_counter"];
    all.extend_from_slice(args);
    let (out, report) = json_report("fixture-clean", &all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = test(&report, "dpor_counter_is_exact");
    assert_eq!(
        (t["complete"].as_bool(), t["strategy"].as_str()),
        (Some(true), Some("dpor"))
    );
    let n = |k: &str| t[k].as_u64();
    (
        n("executions").unwrap(),
        n("shards").unwrap(),
        n("redundant_executions"),
    )
}

#[test]
fn shards_split_an_optimal_dpor_exploration_and_count_the_traces_run_twice() {
    assert_eq!(dpor_counter(&[]), (2_520, 1, None));
    let (executions, shards, redundant) = dpor_counter(&["--shards", "2"]);
    assert_eq!(shards, 2);
    let redundant = redundant.expect("a split exploration counts its traces run twice");
    // Every trace once, and the ones run twice counted: exactly the sequential executions.
    assert_eq!(
        executions - redundant,
        2_520,
        "{executions} executions, {redundant} twice"
    );
    // Shards that cannot run side by side: the first explores everything, the other nothing.
    assert_eq!(
        dpor_counter(&["--shards", "2", "--jobs", "1"]),
        (2_520, 2, Some(0))
    );
}

#[test]
fn flags_and_profiles_reach_the_exploration() {
    let dfs = dfs_counter;
    let t = dfs(&["--max-executions", "5"]);
    assert_eq!(
        (t["executions"].as_u64(), t["complete"].as_bool()),
        (Some(5), Some(false))
    );
    assert_eq!(t["stop"], "max_executions");
    let t = dfs(&["--time-budget", "0ms"]);
    assert_eq!(
        (t["stop"].as_str(), t["complete"].as_bool()),
        (Some("time_budget"), Some(false))
    );
    let t = dfs(&["--profile", "quick"]);
    assert_eq!(t["executions"], 3, "{t:#}");
    // A flag beats the profile.
    let t = dfs(&["--profile", "quick", "--max-executions", "4"]);
    assert_eq!(t["executions"], 4, "{t:#}");

    let out = symx("test", &["-p", "fixture-clean", "--profile", "nope"]);
    assert_exit_saying(&out, 2, &["no profile `nope`", "quick"]);
}

#[test]
fn a_crash_that_a_rerun_does_not_reproduce_is_reported_without_a_token() {
    let scratch = scratch();
    let marker = scratch.path().join("crash-marker");
    let out = symx_cmd(
        &fixtures().join("Cargo.toml"),
        "test",
        &["-p", "fixture-crashes", "crashes_once", "--format", "json"],
    )
    .env("SYMX_FIXTURE_MARKER", &marker)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = test(&report, "crashes_once_outside_symx_control");
    assert_eq!(t["status"], "crashed");
    assert_eq!(t["failure"]["token"], Value::Null, "{t:#}");
    assert!(
        t["failure"]["details"]
            .to_string()
            .contains("nondeterministic"),
        "{t:#}"
    );
}

#[test]
fn a_missing_cargo_is_a_usage_error_that_says_so() {
    let empty = scratch();
    let out = symx_cmd(&fixtures().join("Cargo.toml"), "list", &[])
        .env_remove("CARGO")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_exit_saying(&out, 2, &["cannot find `cargo` on PATH"]);
}
