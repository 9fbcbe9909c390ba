//! Turns the runtime's [`Failure`] and [`Step`]s into the protocol's structured reports.

use super::protocol::{FailureReport, Location, StepReport};
use crate::report::{Failure, FailureKind, SourceLocation, Step};

/// The stable name of a failure kind in every machine-readable output.
pub fn kind_name(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Panic => "panic",
        FailureKind::Deadlock => "deadlock",
        FailureKind::DataRace => "data-race",
        FailureKind::StepLimit => "step-limit",
        FailureKind::Misuse => "misuse",
    }
}

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
        kind: kind_name(f.kind()).to_string(),
        message: f.message().to_string(),
        details: f.details().to_vec(),
        location: f.location().map(location),
        thread: f.thread(),
        preemptions: f.preemptions(),
        steps: f.steps().iter().map(step).collect(),
        token: f.schedule().to_string(),
    }
}
