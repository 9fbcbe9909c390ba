//! The runtime side of input-covering schedules (Bergan, "Avoiding State-Space Explosion in
//! Multithreaded Programs with Input-Covering Schedules and Symbolic Execution", dissertation,
//! 2014, ch. 3): the schedule as a happens-before graph of synchronization (`schedule`), and
//! *constrained execution*, which holds a run to one such schedule for given inputs and says
//! where it left it (`follow`).
//!
//! The driver (`cargo symx schedules`) enumerates the (input constraint, schedule) pairs and
//! chooses the pair an input satisfies; this module only follows the schedule it is given.

mod follow;
mod schedule;

pub use follow::conformance;
pub use schedule::{describe, kind_name, site, End, HbNode, HbSchedule};

use crate::builder::{Builder, GuidedRun};
use crate::sym::InputValues;

impl Builder {
    /// Runs `f` once with `inputs` (over the builder's), held to `schedule`'s happens-before
    /// order. The run's `divergence` says where it first left the schedule (a thread did
    /// something the schedule does not have next, or its own schedule differs from
    /// `schedule` at the end); a run that fails early on a prefix of `schedule` kept to it.
    pub fn run_constrained<F: Fn()>(
        &self,
        schedule: &HbSchedule,
        inputs: &InputValues,
        f: F,
    ) -> GuidedRun {
        let mut follow = follow::Follow::new(schedule);
        let mut run = crate::explore::run_followed(self, inputs, &mut follow, &f);
        run.divergence = follow.divergence().or_else(|| {
            let ran = HbSchedule::of(&run.trace)?;
            conformance(schedule, &ran)
        });
        run
    }
}
