//! `--format json`: the versioned machine-readable report, documented in
//! `docs/report-format.md`. A new optional field keeps the version; a changed meaning bumps it.

use std::time::Duration;

use serde::Serialize;

use crate::report::outcome::{Outcome, Status};

pub const FORMAT: &str = "symx-test-report";
pub const VERSION: u32 = 1;

#[derive(Serialize)]
struct Report<'a> {
    format: &'static str,
    version: u32,
    symx_version: &'static str,
    summary: Summary,
    tests: &'a [Outcome],
}

#[derive(Serialize)]
struct Summary {
    tests: usize,
    /// Tests that ran as a `#[symx::test]` (the rest are ordinary or ignored).
    symx_tests: usize,
    passed: usize,
    /// Confirmed bugs: failures, crashes, timeouts, unexpected passes.
    failed: usize,
    expected_failures: usize,
    ignored: usize,
    errors: usize,
    interrupted: bool,
    seconds: f64,
}

pub fn render(outcomes: &[Outcome], elapsed: Duration, interrupted: bool) -> String {
    let count = |s: Status| outcomes.iter().filter(|o| o.status == s).count();
    let report = Report {
        format: FORMAT,
        version: VERSION,
        symx_version: env!("CARGO_PKG_VERSION"),
        summary: Summary {
            tests: outcomes.len(),
            symx_tests: super::no_tests::symx_tests(outcomes),
            passed: count(Status::Passed),
            failed: outcomes.iter().filter(|o| o.status.is_bug()).count(),
            expected_failures: count(Status::ExpectedFailure),
            ignored: count(Status::Ignored),
            errors: count(Status::Error),
            interrupted,
            seconds: elapsed.as_secs_f64(),
        },
        tests: outcomes,
    };
    let mut text = serde_json::to_string_pretty(&report).expect("reports serialise");
    text.push('\n');
    text
}
