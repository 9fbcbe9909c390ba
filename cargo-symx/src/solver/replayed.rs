//! What the replay of a witness showed, whichever way it ran: in process
//! (`symx::Builder::run_guided`, the engine's own tests) or in a worker process answering
//! `run_one` (`cargo symx`). The engine judges this one shape, so `confirm` does not care where
//! the program ran; this module owns the conversions and nothing else.

use symx::__worker::protocol::{FailureReport, Ran};
use symx::trace::Trace;
use symx::GuidedRun;

/// One replayed execution.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// How it failed, as every report shows a failure (kind, message, steps, replay token).
    pub failure: Option<FailureReport>,
    pub trace: Trace,
    /// Where the program did not offer what the witness asked for.
    pub divergence: Option<String>,
    /// Preemptions it took.
    pub preemptions: u32,
}

impl Replayed {
    /// The failure's kind (`panic`, `data-race`, ...), if it failed.
    pub fn kind(&self) -> Option<&str> {
        self.failure.as_ref().map(|f| f.kind.as_str())
    }
}

/// What a replay function may return: a replay, or why none could run (a worker that crashed
/// or refused), which confirms nothing.
pub trait IntoReplayed {
    fn into_replayed(self) -> Result<Replayed, String>;
}

impl IntoReplayed for Result<Replayed, String> {
    fn into_replayed(self) -> Result<Replayed, String> {
        self
    }
}

impl IntoReplayed for GuidedRun {
    fn into_replayed(self) -> Result<Replayed, String> {
        Ok(self.into())
    }
}

impl From<GuidedRun> for Replayed {
    fn from(run: GuidedRun) -> Replayed {
        Replayed {
            failure: run.report.failure().map(symx::__worker::failure_report),
            trace: run.trace,
            divergence: run.divergence,
            preemptions: run.preemptions,
        }
    }
}

impl From<Ran> for Replayed {
    fn from(ran: Ran) -> Replayed {
        Replayed {
            failure: ran.failure,
            trace: *ran.trace,
            divergence: ran.divergence,
            preemptions: ran.preemptions,
        }
    }
}
