//! The features a run builds its tests with, and the replay commands and hints it prints:
//! each one works as printed.

use super::*;

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
