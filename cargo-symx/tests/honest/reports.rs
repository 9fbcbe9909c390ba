//! Reports of what went wrong, with the schedule that caused it: a thread that never reaches a
//! scheduling point, a spin without a hint, a data race.

use super::*;

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
