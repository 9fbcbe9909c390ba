//! `cargo symx` as a library: the binary (`main.rs`) parses the command line and calls
//! [`commands::run`]; everything else lives here, one folder per layer. From the top down
//! (a layer uses only the ones below it; `docs/architecture.md` draws the whole picture):
//!
//! - [`commands`]: one module per command (`test`, `list`, `replay`, `predict`) and the
//!   command line's types; the only layer that knows clap.
//! - [`config`]: settings from the manifests, profiles and flags, resolved per test.
//! - [`discover`]: `cargo metadata`, building the test targets, listing their tests.
//! - [`run`]: test selection, the worker pool and its `--jobs` budget, shards, crash and timeout
//!   recovery, and the run loop's side of the engine seam.
//! - [`worker_process`]: the driver's side of the worker protocol (one test binary, one
//!   request).
//! - [`engine`]: the z3-backed engines, one folder each, behind one seam.
//! - [`solver`]: what every engine shares: the concurrent trace program, the expression DAG as
//!   z3 bit-vectors, replays and the solver itself.
//! - [`report`]: the outcome model, progress, colour and every output format.

// The workspace's `missing_docs` is for the API users link (symx-rt). This library's public
// items serve its own binary and integration tests, so the lint stays off here.
#![allow(missing_docs)]

pub mod commands;
pub mod config;
pub mod discover;
pub mod engine;
pub mod report;
pub mod run;
pub mod solver;
pub mod worker_process;

/// Exit code: a confirmed bug (failure, crash, timeout, or an expected failure that did not
/// happen).
pub const EXIT_BUG: u8 = 1;
/// Exit code: a usage, configuration or build error.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the selection held no `#[symx::test]` (with `--no-tests=fail`, the default);
/// nextest's code for "no tests ran".
pub const EXIT_NO_TESTS: u8 = 4;
/// Exit code: interrupted (Ctrl-C) before any bug was found.
pub const EXIT_INTERRUPTED: u8 = 130;
