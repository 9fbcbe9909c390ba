//! `--format sarif`: SARIF 2.1.0 for code scanning. Each failure is a result whose location is
//! the failing source line (for a deadlock, the last step of the interleaving; for a crash, the
//! first line of the test target), with the interleaving as a code flow: one thread flow per
//! thread, each step a location whose `executionOrder` is its step number, so that a viewer
//! can show the threads side by side in the order they ran. A test's warnings are results at
//! level `warning`.

use serde_sarif::sarif::{
    ArtifactLocation, CodeFlow, Location, Message, PhysicalLocation, Region, ReportingDescriptor,
    Result as SarifResult, ResultLevel, Run, Sarif, ThreadFlow, ThreadFlowLocation, Tool,
    ToolComponent,
};
use symx::__worker::protocol::{self, StepReport};

use crate::report::outcome::{Finding, Outcome, Status, Warning};

pub fn render(outcomes: &[Outcome]) -> Result<String, String> {
    let mut results: Vec<SarifResult> = outcomes
        .iter()
        .filter(|o| o.status.is_bug() || o.status == Status::ExpectedFailure)
        .flat_map(|o| o.findings().map(move |f| result(o, f)))
        .collect();
    results.extend(
        outcomes
            .iter()
            .flat_map(|o| o.warnings.iter().map(move |w| warning(o, w))),
    );
    let warning_codes = outcomes
        .iter()
        .flat_map(|o| o.warnings.iter().map(|w| w.code.as_str()));
    let mut kinds: Vec<&str> = outcomes
        .iter()
        .flat_map(|o| o.findings().map(|f| f.kind.as_str()))
        .chain(warning_codes)
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let rules: Vec<ReportingDescriptor> = kinds
        .into_iter()
        .map(|k| {
            ReportingDescriptor::builder()
                .id(rule_id(k))
                .name(k.to_string())
                .build()
        })
        .collect();
    let driver = ToolComponent::builder()
        .name("symx")
        .version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        .build();
    let sarif = Sarif::builder()
        .version(serde_json::json!("2.1.0"))
        .schema(serde_sarif::sarif::SCHEMA_URL.to_string())
        .runs(vec![run])
        .build();
    serde_json::to_string_pretty(&sarif)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| format!("cannot write the SARIF report: {e}"))
}

fn rule_id(kind: &str) -> String {
    format!("symx/{kind}")
}

fn result(o: &Outcome, f: &Finding) -> SarifResult {
    let mut text = format!("{} in {}: {}", f.kind, o.name, f.message);
    if f.predicted {
        text.push_str(&format!(" ({})", super::predicted::MARK));
    }
    if let Some(inputs) = super::symbolic::inputs(f) {
        text.push_str(&format!(" (inputs: {inputs})"));
    }
    if let Some(cmd) = &f.replay {
        text.push_str(&format!(" (replay: {cmd})"));
    }
    let level = if o.status == Status::ExpectedFailure {
        ResultLevel::Note
    } else {
        ResultLevel::Error
    };
    // Code scanning needs a place for every result: a crash or a failed ordinary test without
    // a panic site is pinned to the first line of its test target.
    let target_file = protocol::Location {
        file: o.source.clone(),
        line: 1,
        column: 1,
    };
    let primary = f
        .location
        .as_ref()
        .or(f.steps.last().map(|s| &s.location))
        .or((!o.source.is_empty()).then_some(&target_file));
    let mut result = SarifResult::builder()
        .rule_id(rule_id(&f.kind))
        .level(level)
        .message(Message::builder().text(text).build())
        .build();
    result.locations = primary.map(|l| vec![location(l, None)]);
    if !f.steps.is_empty() {
        result.code_flows = Some(vec![code_flow(&f.steps)]);
    }
    result
}

/// The interleaving as SARIF's construct for it: a thread flow per thread, in thread order,
/// whose locations carry the step numbers as their `executionOrder`.
fn code_flow(steps: &[StepReport]) -> CodeFlow {
    let mut threads: Vec<usize> = steps.iter().map(|s| s.thread).collect();
    threads.sort_unstable();
    threads.dedup();
    let flows: Vec<ThreadFlow> = threads
        .into_iter()
        .map(|t| {
            let mine = steps.iter().filter(|s| s.thread == t);
            let label = mine.clone().next().map(|s| s.thread_label.clone());
            let locations: Vec<ThreadFlowLocation> = mine.map(flow_location).collect();
            let mut flow = ThreadFlow::builder().locations(locations).build();
            flow.id = Some(t.to_string());
            flow.message = label.map(|l| Message::builder().text(l).build());
            flow
        })
        .collect();
    CodeFlow::builder().thread_flows(flows).build()
}

/// One step: `load(Relaxed) AtomicBool created at lazy.rs:9 = true`, or for a summary row of a
/// spin, `… 99998 more steps: repeating load AtomicBool created at spin.rs:9`.
fn flow_location(s: &StepReport) -> ThreadFlowLocation {
    let mut what = super::human::step_text(s);
    if s.omitted > 0 {
        what = format!("… {} more steps: repeating {what}", s.omitted);
    }
    let mut step = ThreadFlowLocation::builder()
        .location(location(&s.location, Some(what)))
        .build();
    step.execution_order = Some(s.index as i64);
    step
}

/// A warning about a test's verdict, at level `warning`, pinned to its test target's first line
/// (the runtime does not know the test function's line).
fn warning(o: &Outcome, w: &Warning) -> SarifResult {
    let text = format!("{} in {}: {}", w.code, o.name, w.message);
    let mut result = SarifResult::builder()
        .rule_id(rule_id(&w.code))
        .level(ResultLevel::Warning)
        .message(Message::builder().text(text).build())
        .build();
    let target_file = protocol::Location {
        file: o.source.clone(),
        line: 1,
        column: 1,
    };
    result.locations = (!o.source.is_empty()).then(|| vec![location(&target_file, None)]);
    result
}

fn location(l: &protocol::Location, message: Option<String>) -> Location {
    let physical = PhysicalLocation::builder()
        .artifact_location(ArtifactLocation::builder().uri(l.file.clone()).build())
        .region(
            Region::builder()
                .start_line(l.line as i64)
                .start_column(l.column as i64)
                .build(),
        )
        .build();
    let mut location = Location::builder().physical_location(physical).build();
    location.message = message.map(|m| Message::builder().text(m).build());
    location
}
