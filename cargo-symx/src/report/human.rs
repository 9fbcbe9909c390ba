//! The report people read: each failure with its kind, message, interleaving (one column per
//! thread, with source locations) and replay command, then the summary table and totals.

use std::fmt::Write as _;
use std::time::Duration;

use symx::__worker::protocol::StepReport;

use super::table;
use crate::report::outcome::{Finding, Outcome, Status};
use crate::report::style::Style;

pub fn render(outcomes: &[Outcome], elapsed: Duration, style: Style) -> String {
    let mut out = String::new();
    for o in outcomes.iter().filter(|o| o.failure.is_some()) {
        failure(&mut out, o, style);
    }
    for o in outcomes.iter().filter(|o| !o.warnings.is_empty()) {
        warnings(&mut out, o, style);
    }
    out.push_str(&super::predicted::unconfirmed(outcomes));
    if !outcomes.is_empty() {
        out.push('\n');
        out.push_str(&summary_table(outcomes));
    }
    out.push('\n');
    out.push_str(&totals(outcomes, elapsed, style));
    out.push('\n');
    if let Some(line) = super::predicted::totals(outcomes) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&super::symbolic::lines(outcomes));
    out.push_str(&super::context::lines(outcomes));
    out.push_str(&super::guided::lines(outcomes));
    out
}

fn failure(out: &mut String, o: &Outcome, style: Style) {
    let f = o.failure.as_ref().expect("filtered");
    let _ = writeln!(
        out,
        "\n{} {}::{} {}",
        style.status(o.status),
        o.package,
        o.target,
        style.bold(&o.name)
    );
    if let Some(expected) = &o.expected {
        let _ = writeln!(out, "  expected by the configuration: {expected}");
    }
    out.push_str(&finding(f, style));
    for more in o.findings().skip(1) {
        out.push('\n');
        out.push_str(&finding(more, style));
    }
    // A symx failure says everything in its interleaving; other failures need the test's words.
    let plain = o.strategy.is_none() || matches!(o.status, Status::Crashed | Status::TimedOut);
    if plain && !o.output.trim().is_empty() {
        output(out, &o.output);
    }
}

/// `   WARN pkg::target name` and each warning of the test, with its code.
fn warnings(out: &mut String, o: &Outcome, style: Style) {
    let _ = writeln!(
        out,
        "\n{} {}::{} {}",
        style.warn_label(),
        o.package,
        o.target,
        style.bold(&o.name)
    );
    for w in &o.warnings {
        let _ = writeln!(out, "  warning[{}]: {}", w.code, w.message);
    }
}

/// Kind, message, location, details, interleaving and replay command of one failure.
pub fn finding(f: &Finding, style: Style) -> String {
    let mut out = String::new();
    // The runtime's messages may start with the kind already ("deadlock: no thread ...").
    let message = f
        .message
        .strip_prefix(&format!("{}: ", f.kind))
        .unwrap_or(&f.message);
    let _ = writeln!(out, "  {}: {message}", style.bold(&f.kind));
    if f.predicted {
        let _ = writeln!(out, "  {}", super::predicted::MARK);
    }
    if let Some(l) = &f.location {
        let _ = writeln!(out, "  at {l}");
    }
    if let Some(inputs) = super::symbolic::inputs(f) {
        let _ = writeln!(out, "  inputs: {inputs}");
    }
    for d in &f.details {
        let _ = writeln!(out, "    {d}");
    }
    if !f.steps.is_empty() {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "\n  interleaving ({} step{}, {} preemption{}, sequentially consistent):",
            f.steps.len(),
            plural(f.steps.len()),
            f.preemptions,
            plural(f.preemptions as usize)
        );
        for line in interleaving(&f.steps).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    replay(&mut out, f, style);
    out
}

fn output(out: &mut String, text: &str) {
    let _ = writeln!(out, "\n  output of the test:");
    let lines: Vec<&str> = text.lines().collect();
    let shown = &lines[lines.len().saturating_sub(40)..];
    for line in shown {
        let _ = writeln!(out, "  | {line}");
    }
}

fn replay(out: &mut String, f: &Finding, style: Style) {
    if let Some(token) = &f.token {
        let _ = writeln!(out, "\n  replay token: {token}");
    }
    if let Some(cmd) = &f.replay {
        let _ = writeln!(out, "  replay with:  {}", style.bold(cmd));
    }
}

/// The steps as a table: step number, one column per thread, source location.
pub fn interleaving(steps: &[StepReport]) -> String {
    let mut threads: Vec<(usize, String)> = Vec::new();
    for s in steps {
        if !threads.iter().any(|(t, _)| *t == s.thread) {
            threads.push((s.thread, s.thread_label.clone()));
        }
    }
    threads.sort_by_key(|(t, _)| *t);
    let mut header = vec!["#".to_string()];
    header.extend(threads.iter().map(|(_, l)| l.clone()));
    header.push("location".to_string());
    let rows: Vec<Vec<String>> = steps
        .iter()
        .map(|s| {
            let mut row = vec![if s.omitted > 0 {
                "…".to_string()
            } else {
                s.index.to_string()
            }];
            row.extend(
                threads
                    .iter()
                    .map(|(t, _)| match (*t == s.thread, s.omitted) {
                        (false, _) => String::new(),
                        (true, 0) => step_text(s),
                        (true, n) => format!("{n} more steps: repeating {}", step_text(s)),
                    }),
            );
            row.push(s.location.to_string());
            row
        })
        .collect();
    table::render(&header, &rows, 60)
}

/// `load(Relaxed) AtomicBool created at lazy.rs:9 = true`: one step in a cell or a line.
pub fn step_text(s: &StepReport) -> String {
    let mut text = s.what();
    if let Some(o) = &s.obj {
        text.push(' ');
        text.push_str(o);
    }
    if !s.value.is_empty() {
        text.push_str(" = ");
        text.push_str(&s.value);
    }
    text
}

fn summary_table(outcomes: &[Outcome]) -> String {
    let header: Vec<String> = [
        "test",
        "strategy",
        "executions",
        "complete?",
        "verdict",
        "time",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let rows: Vec<Vec<String>> = outcomes
        .iter()
        .map(|o| {
            let verdict = match &o.failure {
                Some(f) if f.predicted => format!("{} ({}, predicted)", o.status.label(), f.kind),
                Some(f) => format!("{} ({})", o.status.label(), f.kind),
                None => o.status.label().to_string(),
            };
            vec![
                o.id(),
                o.strategy.clone().unwrap_or_else(|| "-".into()),
                match (o.executions, o.redundant_executions) {
                    (Some(n), Some(r)) => format!("{n} ({r} redundant)"),
                    (Some(n), None) => n.to_string(),
                    (None, _) => "-".into(),
                },
                match o.complete {
                    Some(true) if !o.warnings.is_empty() => "yes, but see warning".into(),
                    Some(true) => match o.preemption_bound {
                        Some(b) => format!("yes (SC, preemption bound {b})"),
                        None if o.preemption_bounded => "yes (SC, bounded)".into(),
                        None => "yes (SC)".into(),
                    },
                    Some(false) => format!("no ({})", o.stop.as_deref().unwrap_or("stopped")),
                    None => "-".into(),
                },
                verdict,
                format!("{:.2}s", o.duration.as_secs_f64()),
            ]
        })
        .collect();
    table::render(&header, &rows, 96)
}

/// `symx: 12 tests: 10 passed, 1 failed, 1 expected failure (3.20s)`
pub fn totals(outcomes: &[Outcome], elapsed: Duration, style: Style) -> String {
    let count = |s: Status| outcomes.iter().filter(|o| o.status == s).count();
    let mut parts = vec![format!("{} passed", count(Status::Passed))];
    let bugs = outcomes.iter().filter(|o| o.status.is_bug()).count();
    parts.push(format!("{bugs} failed"));
    for (status, what) in [
        (Status::ExpectedFailure, "expected failures"),
        (Status::Ignored, "ignored"),
        (Status::Error, "errors"),
        (Status::Interrupted, "interrupted"),
    ] {
        let n = count(status);
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    let warned = outcomes.iter().filter(|o| !o.warnings.is_empty()).count();
    if warned > 0 {
        parts.push(format!("{warned} with warnings"));
    }
    let head = format!("symx: {} tests:", outcomes.len());
    format!(
        "{} {} ({:.2}s)",
        style.bold(&head),
        parts.join(", "),
        elapsed.as_secs_f64()
    )
}
