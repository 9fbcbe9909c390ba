//! What the end-to-end tests share: running the real `cargo-symx` binary on the fixture crates
//! in `tests/fixtures` (all built into one target directory), and reading its reports.
// Each test binary uses some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs `cargo symx <command> <args>` on the fixture workspace (or `manifest`).
pub fn symx_in(manifest: &Path, command: &str, args: &[&str]) -> Output {
    symx_cmd(manifest, command, args)
        .output()
        .expect("cargo-symx runs")
}

pub fn symx_cmd(manifest: &Path, command: &str, args: &[&str]) -> Command {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-symx"));
    cmd.args(["symx", command, "--manifest-path"])
        .arg(manifest)
        .arg("--target-dir")
        .arg(target)
        .args(args)
        .env_remove("RUST_BACKTRACE");
    cmd
}

/// A scratch directory under the test target's temporary directory, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("symx-e2e-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a scratch directory")
}

pub fn symx(command: &str, args: &[&str]) -> Output {
    symx_in(&fixtures().join("Cargo.toml"), command, args)
}

pub fn text(o: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn test<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} is in the report: {report:#}"))
}

/// The process exited with `code` and its stderr says each of `says`.
pub fn assert_exit_saying(out: &Output, code: i32, says: &[&str]) {
    assert_eq!(out.status.code(), Some(code), "{}", text(out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for s in says {
        assert!(stderr.contains(s), "stderr says `{s}`:\n{}", text(out));
    }
}

/// `cargo symx replay <token>` shows the same failure again.
pub fn assert_replays(package: &str, token: &str, expect: &str) {
    let out = symx("replay", &["-p", package, token]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(expect),
        "replay of {token} shows `{expect}`:\n{}",
        text(&out)
    );
}

/// `cargo symx test -p <package> <args> --format json`: the process and its parsed report.
pub fn json_report(package: &str, args: &[&str]) -> (Output, Value) {
    let mut all = vec!["-p", package];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = symx("test", &all);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the JSON report parses ({e}):\n{}", text(&out)));
    assert_eq!(report["format"], "symx-test-report");
    assert_eq!(report["version"], 1);
    (out, report)
}

/// A printed `cargo symx ...` command, word by word, to run with this build's `cargo-symx`.
pub fn printed(command: &str) -> Command {
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(&words[..2], ["cargo", "symx"], "{command}");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-symx"));
    cmd.args(&words[1..]).env_remove("RUST_BACKTRACE");
    cmd
}

/// The printed replay `command` ran and showed its failure again.
pub fn assert_happens_again(command: &str, replayed: &Output) {
    assert_eq!(
        replayed.status.code(),
        Some(1),
        "{command}\n{}",
        text(replayed)
    );
    assert!(
        String::from_utf8_lossy(&replayed.stdout).contains("happens again"),
        "{command}\n{}",
        text(replayed)
    );
}
