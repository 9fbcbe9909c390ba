//! The observed run a predictive test starts from: one execution forced along a given
//! schedule, whose trace the engine predicts other interleavings from.

use symx::trace::Trace;
use symx::{Builder, Guide};

/// The trace of the execution of `body` that follows `steps` (then the last thread runs on).
/// Panics unless the schedule is followed and the run passes: a prediction starts from a
/// passing run.
pub fn observe(steps: &[usize], body: impl Fn()) -> Trace {
    let guide = Guide {
        steps: steps.to_vec(),
        ..Guide::default()
    };
    let run = Builder::new().run_guided(&guide, body);
    assert_eq!(
        run.divergence, None,
        "the observed schedule must be followed"
    );
    assert!(run.report.failure().is_none(), "the observed run must pass");
    run.trace
}
