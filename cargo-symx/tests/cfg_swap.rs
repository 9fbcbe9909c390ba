//! End-to-end: `cargo symx test` builds with `--cfg symx` appended to the user's own rustflags,
//! wherever cargo takes those from, into a target directory of its own; a plain `cargo build`
//! afterwards finds its artifacts fresh. The fixture `swapped` is a library on the cfg swap.
//!
//! Every variant below gives the same effective flags (`--cfg user_flag`), so the symx build is
//! compiled once and the later variants find it fresh; the target directory is this test's own,
//! so the other end-to-end tests' builds do not invalidate it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

const PACKAGE: &str = "fixture-swapped";

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("cfg-swap")
}

/// A command in `cwd` with no rustflags of the test's own environment.
fn in_dir(program: &Path, cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(cwd)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUST_BACKTRACE");
    cmd
}

fn symx_test(cwd: &Path, env: &[(&str, &str)]) -> (Output, Value) {
    let out = in_dir(Path::new(env!("CARGO_BIN_EXE_cargo-symx")), cwd)
        .args([
            "symx",
            "test",
            "-p",
            PACKAGE,
            "--format",
            "json",
            "--manifest-path",
        ])
        .arg(fixtures().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir())
        .envs(env.iter().copied())
        .output()
        .expect("cargo-symx runs");
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("the JSON report parses ({e}):\n{}", text(&out)));
    (out, report)
}

/// `cargo build -v` of the fixture library, as the user builds it.
fn plain_build() -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    in_dir(Path::new(&cargo), &fixtures())
        .args(["build", "-v", "-p", PACKAGE, "--target-dir"])
        .arg(target_dir())
        .env("RUSTFLAGS", "--cfg user_flag")
        .output()
        .expect("cargo runs")
}

/// Both tests ran on the symx build with the user's flag: the flags test passed and the
/// library's lost update was found in the library's own source.
fn assert_swapped(out: &Output, report: &Value) {
    assert_eq!(out.status.code(), Some(1), "{}", text(out));
    let flags = test(report, "built_with_the_users_flags_and_the_swap");
    assert_eq!(flags["status"], "passed", "{flags:#}");
    let failure = &test(report, "the_library_loses_an_update")["failure"];
    assert_eq!(failure["kind"], "panic", "{failure:#}");
    let steps = failure["steps"].as_array().unwrap();
    assert!(
        steps
            .iter()
            .any(|s| s["location"]["file"] == "swapped/src/lib.rs"),
        "the interleaving points into the library: {failure:#}"
    );
}

#[test]
fn the_users_rustflags_stay_in_effect_from_every_source_and_a_plain_build_stays_fresh() {
    let built = plain_build();
    assert!(built.status.success(), "{}", text(&built));

    let fixtures = fixtures();
    let (out, report) = symx_test(&fixtures, &[("RUSTFLAGS", "--cfg user_flag")]);
    assert_swapped(&out, &report);
    // The printed replay command builds the same way, and works as printed.
    let command = test(&report, "the_library_loses_an_update")["failure"]["replay"]
        .as_str()
        .unwrap()
        .to_string();
    let replayed = printed(&command)
        .current_dir(&fixtures)
        .env("RUSTFLAGS", "--cfg user_flag")
        .output()
        .unwrap();
    assert_happens_again(&command, &replayed);

    // CARGO_ENCODED_RUSTFLAGS wins over RUSTFLAGS, as in cargo.
    let encoded = [
        ("CARGO_ENCODED_RUSTFLAGS", "--cfg\x1fuser_flag"),
        ("RUSTFLAGS", "--cfg decoy"),
    ];
    let (out, report) = symx_test(&fixtures, &encoded);
    assert_swapped(&out, &report);

    // From the configuration: build.rustflags, and target rustflags that override them.
    let configured = [
        "[build]\nrustflags = [\"--cfg\", \"user_flag\"]\n",
        "[build]\nrustflags = [\"--cfg\", \"decoy\"]\n\
         [target.'cfg(all())']\nrustflags = [\"--cfg\", \"user_flag\"]\n",
    ];
    for config in configured {
        let dir = scratch();
        std::fs::create_dir(dir.path().join(".cargo")).unwrap();
        std::fs::write(dir.path().join(".cargo/config.toml"), config).unwrap();
        let (out, report) = symx_test(dir.path(), &[]);
        assert_swapped(&out, &report);
    }

    let again = plain_build();
    let log = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{}", text(&again));
    assert!(log.contains("Fresh fixture-swapped"), "{log}");
    assert!(
        !log.contains("Compiling"),
        "the plain build was rebuilt:\n{log}"
    );
}
