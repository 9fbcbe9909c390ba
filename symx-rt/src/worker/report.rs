//! Turns the runtime's [`Failure`] and [`Step`]s into the protocol's structured reports.

use super::protocol::{FailureReport, Location, StepReport};
use crate::report::{Failure, SourceLocation, Step};

pub(crate) fn location(l: &SourceLocation) -> Location {
    Location {
        file: l.file.clone(),
        line: l.line,
        column: l.column,
    }
}

pub(crate) fn step(s: &Step) -> StepReport {
    StepReport {
        index: s.index,
        thread: s.thread,
        thread_label: s.thread_label.clone(),
        op: s.operation.clone(),
        order: s.order.clone(),
        obj: s.object.clone(),
        value: s.value.clone(),
        location: location(&s.location),
        omitted: s.omitted,
    }
}

pub fn failure(f: &Failure) -> FailureReport {
    FailureReport {
        kind: f.kind().name().to_string(),
        message: f.message().to_string(),
        details: f.details().to_vec(),
        location: f.location().map(location),
        thread: f.thread(),
        preemptions: f.preemptions(),
        steps: f.steps().iter().map(step).collect(),
        token: f.schedule().to_string(),
    }
}

/// A stuck thread ([`crate::rt::watchdog`]) as a failure of kind `stuck` whose token replays
/// the schedule up to the step that never ended.
pub(crate) fn stuck(path: &str, s: &crate::rt::watchdog::Stuck) -> FailureReport {
    let mut details: Vec<String> = crate::rt::watchdog::Stuck::causes()
        .iter()
        .enumerate()
        .map(|(i, cause)| format!("likely cause {}: {cause}", i + 1))
        .collect();
    details.push(
        "the token replays the schedule up to that step (symx stopped the test there; the \
         prefix was not re-run to check)"
            .to_string(),
    );
    FailureReport {
        kind: "stuck".to_string(),
        message: s.message(),
        details,
        location: s.location.as_ref().map(location),
        thread: None,
        preemptions: 0,
        steps: Vec::new(),
        token: super::tokens::prefix_token(path, &s.decisions),
    }
}
