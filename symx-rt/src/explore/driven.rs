//! Driven: one execution whose every scheduling decision is taken by a function outside the
//! runtime that sees the execution so far (its trace) and may abandon it. It is how an engine
//! that decides from the state reached (assertion-guided pruning: stop as soon as a summary
//! covers the state) runs the program.

use crate::builder::{Drive, DrivenPoint};
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

pub(crate) struct Driven<'d> {
    decide: &'d mut dyn FnMut(&DrivenPoint<'_>) -> Drive,
    started: bool,
    stop: bool,
    divergence: Option<String>,
}

impl<'d> Driven<'d> {
    pub fn new(decide: &'d mut dyn FnMut(&DrivenPoint<'_>) -> Drive) -> Self {
        Driven {
            decide,
            started: false,
            stop: false,
            divergence: None,
        }
    }

    /// Where the driver named a thread that could not run, first place only.
    pub fn divergence(&self) -> Option<String> {
        self.divergence.clone()
    }
}

impl Chooser for Driven<'_> {
    fn next_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn sees_every_step(&self) -> bool {
        true
    }

    fn wants_trace(&self) -> bool {
        true
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let trace = point.trace.expect("a driven chooser is shown the trace");
        let enabled: Vec<usize> = point.candidates.iter().map(|c| c.thread).collect();
        let shown = DrivenPoint {
            step: point.step,
            enabled: &enabled,
            trace,
        };
        match (self.decide)(&shown) {
            Drive::Run(t) if point.can_run(t) => t,
            Drive::Run(t) => {
                if self.divergence.is_none() {
                    self.divergence = Some(format!(
                        "step {} is thread {t}'s, but only threads {enabled:?} can run there",
                        point.step + 1
                    ));
                }
                point.first()
            }
            Drive::Stop => {
                self.stop = true;
                point.first()
            }
        }
    }

    fn stop(&mut self) -> bool {
        self.stop
    }

    fn choose_value(&mut self, _n: usize) -> usize {
        0
    }
}
