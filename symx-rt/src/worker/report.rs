//! Turns the runtime's [`Failure`] and [`Step`]s into the protocol's structured reports.

use super::protocol::{FailureReport, Location, StepReport};
use crate::report::{Failure, SourceLocation, Step};

fn location(l: &SourceLocation) -> Location {
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
        obj: s.object.clone(),
        value: s.value.clone(),
        location: location(&s.location),
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
