//! The runtime side of input-covering schedules (Bergan, "Avoiding State-Space Explosion in
//! Multithreaded Programs with Input-Covering Schedules and Symbolic Execution", dissertation,
//! 2014, ch. 3): the schedule as a happens-before graph of synchronization (`schedule`), and
//! *constrained execution*, which holds a run to one such schedule for given inputs and says
//! where it left it (`follow`).
//!
//! The driver (`cargo symx schedules`) enumerates the (input constraint, schedule) pairs and
//! chooses the pair an input satisfies; this module only follows the schedule it is given.

pub(crate) mod abstraction;
pub(crate) mod epoch;
mod follow;
mod schedule;
mod shared;

pub use epoch::{epoch_marker, Epochs};
pub use follow::{conformance, conformance_epochs};
pub use schedule::{describe, kind_name, site, End, HbNode, HbSchedule};
pub use shared::Havocked;

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
        self.run_constrained_epochs(std::slice::from_ref(schedule), inputs, f)
    }

    /// [`Builder::run_constrained`] for a run cut into bounded epochs: held to `schedules[k]`
    /// in epoch `k`, and stopped at the end of the last when that ends at a boundary (an
    /// epoch's schedules are enumerated one epoch at a time), or at the boundary after it
    /// when the run left it so. One schedule that ends
    /// otherwise is a run not cut into epochs, unless the builder's [`Builder::epochs`] says
    /// to cut runs (as the enumeration that made the schedules did); its settings hold but for
    /// where the run stops.
    ///
    /// When the last schedule ends at a boundary and the builder's `Epochs::stop_at` names a
    /// later one, the run goes on past the schedules as the enumeration's runs do (the
    /// thread that ran last while it can, else the lowest) and stops there: how a driver
    /// reads the state at the end of the last schedule (the values the boundary havocked)
    /// to choose the next epoch's schedule. Only the epochs with a schedule are judged.
    pub fn run_constrained_epochs<F: Fn()>(
        &self,
        schedules: &[HbSchedule],
        inputs: &InputValues,
        f: F,
    ) -> GuidedRun {
        assert!(!schedules.is_empty(), "at least one schedule to follow");
        let n = schedules.len() as u32;
        let last_is_epoch = matches!(schedules.last().map(|s| &s.end), Some(End::Epoch { .. }));
        let past = (self.epochs.as_ref())
            .and_then(|e| e.stop_at)
            .filter(|&s| last_is_epoch && s > n);
        let b = match (n, last_is_epoch, &self.epochs) {
            (1, false, None) => self.clone(),
            // A run held to n schedules has no business past boundary n: one that
            // diverged there stops instead of running on (an infeasible schedule's run
            // may have a long way to its end).
            _ => self.clone().epochs(Some(Epochs {
                stop_at: past.or(Some(n)),
                ..self.epochs.clone().unwrap_or_default()
            })),
        };
        let mut follow = follow::Follow::new(schedules, past.is_some());
        let mut run = crate::explore::run_followed(&b, inputs, &mut follow, &f);
        run.divergence = follow.divergence().or_else(|| match past {
            Some(_) => follow::conformance_first(schedules, &run.trace),
            None => conformance_epochs(schedules, &run.trace),
        });
        run
    }
}
