//! End to end: `cargo symx test --release --format json` on one fixture test
//! (`tests/fixture.rs`), timed from the command's start to its exit, with the symbolic
//! figures its JSON report gives (executions, engine seconds, solver seconds, the inputs of
//! the failure). Each run is a fresh `cargo symx` process; the build is done beforehand.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::programs::Program;

/// One `cargo symx test` run of one fixture test.
#[derive(Clone, Debug)]
pub struct E2eRun {
    /// Wall time of the whole command (cargo's up-to-date check, listing, the default
    /// exploration, the symbolic search, the report).
    pub seconds: f64,
    /// The test's own duration in the report.
    pub test_seconds: f64,
    /// The symbolic search's executions, seconds and solver seconds.
    pub executions: u64,
    pub symbolic_seconds: f64,
    pub solver_seconds: f64,
    /// The failing input value the report gives.
    pub found: Option<i128>,
}

/// Runs `symx` (a `cargo-symx` binary) on `p`'s fixture test.
pub fn run(symx: &Path, p: &Program) -> Result<E2eRun, String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let started = Instant::now();
    let out = Command::new(symx)
        .args(["symx", "test", "--release", "--format", "json"])
        .args(["--manifest-path", manifest])
        .arg(p.name)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", symx.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "no JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let test = doc["tests"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == p.name))
        .ok_or_else(|| format!("the report has no test {}", p.name))?;
    let sym = &test["symbolic"];
    Ok(E2eRun {
        seconds,
        test_seconds: test["duration"].as_f64().unwrap_or(f64::NAN),
        executions: sym["executions"].as_u64().unwrap_or(0),
        symbolic_seconds: sym["seconds"].as_f64().unwrap_or(f64::NAN),
        solver_seconds: sym["solver_seconds"].as_f64().unwrap_or(f64::NAN),
        found: test["failure"]["inputs"][p.input]
            .as_i64()
            .map(i128::from)
            .or_else(|| test["failure"]["inputs"][p.input].as_u64().map(i128::from)),
    })
}
