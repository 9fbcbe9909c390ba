//! The verbs that run an exploration: [`Builder`]'s `explore`, `check`, `replay`, `try_replay`,
//! `explore_traces`, `run_guided` and `run_driven`, and [`model`]. They hand the builder's settings
//! down to the explorer (`explore`) and return its report; they live apart from the settings
//! (`builder`) because the explorer reads those.

use crate::builder::{Builder, Drive, DrivenPoint, Guide, GuidedRun};
use crate::report::Report;
use crate::schedule::{ReplayError, Schedule};
use crate::sym::InputValues;
use crate::trace::Trace;

impl Builder {
    /// Explores `f` recording every execution, and hands each trace to `on_trace`.
    pub fn explore_traces<F: Fn()>(&self, f: F, mut on_trace: impl FnMut(&Trace)) -> Report {
        let b = self.with_defaults().record_traces(true);
        crate::explore::explore_with(&b, &f, &mut |_| {}, Some(&mut on_trace))
    }

    /// Runs one execution of `f` that follows `guide` (which thread takes each step, which
    /// alternative each nondeterministic choice takes, the input values) and then lets the
    /// thread that ran last continue while it can; returns its report and its trace. The
    /// primitive the driver's engines are built on.
    pub fn run_guided<F: Fn()>(&self, guide: &Guide, f: F) -> GuidedRun {
        crate::explore::run_guided(self, guide, &f)
    }

    /// Runs one recorded execution of `f` with the symbolic `inputs` given, in which `decide`
    /// takes every scheduling decision, shown the execution so far; it may also abandon the
    /// execution (the trace then ends there, discarded). For engines that decide from the
    /// state an execution reaches; `divergence` says where `decide` named a thread that could
    /// not run. Nondeterministic choices (which waiter a `notify_one` wakes) take the first
    /// alternative.
    pub fn run_driven<F: Fn()>(
        &self,
        inputs: &InputValues,
        decide: &mut dyn FnMut(&DrivenPoint<'_>) -> Drive,
        f: F,
    ) -> GuidedRun {
        crate::explore::run_driven(self, inputs, decide, &f)
    }

    /// Explores `f`; a found bug is in the report, never a panic.
    pub fn explore<F: Fn()>(&self, f: F) -> Report {
        crate::explore::explore(&self.with_defaults(), &f)
    }

    /// Explores `f` and panics with the failure report if a bug is found (at the caller's
    /// line). Inside a test the exploration is named after it (libtest names each test's thread
    /// after the test), so its replay tokens name the test, a token of another test is
    /// rejected, and with `SYMX_REPLAY=TOKEN` in the environment `check` replays that token
    /// instead of exploring, as `#[symx::test]` does.
    #[track_caller]
    pub fn check<F: Fn()>(&self, f: F) -> Report {
        let b = self.named_after_the_calling_test();
        if let Ok(token) = std::env::var("SYMX_REPLAY") {
            return crate::private::replay_test(&b, &token, &f);
        }
        let report = b.explore(f);
        if let Some(failure) = report.failure() {
            panic!("\n{failure}");
        }
        report
    }

    /// The builder, named after the libtest test whose thread calls it unless it has a name.
    fn named_after_the_calling_test(&self) -> Builder {
        let thread = std::thread::current();
        match thread.name() {
            Some(test) if self.test_name.is_none() && test != "main" => self.clone().name(test),
            _ => self.clone(),
        }
    }

    /// Runs exactly the execution `schedule` describes; panics if the token does not fit.
    #[track_caller]
    pub fn replay<F: Fn()>(&self, schedule: &Schedule, f: F) -> Report {
        match self.try_replay(schedule, f) {
            Ok(report) => report,
            Err(e) => panic!("symx: {e}"),
        }
    }

    /// Runs exactly the execution `schedule` describes, or says why it cannot.
    pub fn try_replay<F: Fn()>(&self, schedule: &Schedule, f: F) -> Result<Report, ReplayError> {
        crate::explore::replay(self, schedule, &f)
    }
}

/// Explores `f` with the default settings and panics with the report if a bug is found
/// (the loom-style entry point); see [`Builder::check`], which it calls, for replaying a
/// failure with `SYMX_REPLAY`.
///
/// ```
/// use symx::sync::{Arc, Mutex};
///
/// // Every interleaving of the two increments ends with 2: no bug, no panic.
/// symx::model(|| {
///     let n = Arc::new(Mutex::new(0));
///     let m = n.clone();
///     let t = symx::thread::spawn(move || *m.lock().unwrap() += 1);
///     *n.lock().unwrap() += 1;
///     t.join().unwrap();
///     assert_eq!(*n.lock().unwrap(), 2);
/// });
/// ```
#[track_caller]
pub fn model<F: Fn()>(f: F) {
    Builder::new().check(f);
}
