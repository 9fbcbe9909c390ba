//! Announce mode: a chooser wrapper that reports every execution start and every decision the
//! moment it is taken, so that a process killed by its test leaves its schedule prefix behind.
//! Where the reports go is the caller's business ([`Announcer`]; `cargo symx`'s worker sends
//! them to the driver).

use crate::builder::{Announcement, Announcer};
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::{Event, ThreadId};

/// `inner`, announcing its choices to `to`.
pub(crate) struct Announcing {
    inner: Box<dyn Chooser>,
    to: Announcer,
    executions: u64,
}

impl Announcing {
    pub fn new(inner: Box<dyn Chooser>, to: Announcer) -> Self {
        Announcing {
            inner,
            to,
            executions: 0,
        }
    }

    fn announce(&self, a: Announcement) {
        self.to.announce(a)
    }
}

impl Chooser for Announcing {
    fn next_execution(&mut self) -> bool {
        let more = self.inner.next_execution();
        if more {
            self.announce(Announcement::Execution {
                index: self.executions,
            });
            self.executions += 1;
        }
        more
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let asked = self.inner.choose_thread(point);
        // The scheduler runs the first enabled thread when the chooser names another one.
        let t = if point.can_run(asked) {
            asked
        } else {
            point.first()
        };
        // A chooser that is asked only at choices is asked only where the scheduler records a
        // decision; one that sees every step (DPOR, never run under a preemption bound) makes a
        // recorded decision exactly where more than one thread can run.
        if !self.inner.sees_every_step() || point.candidates.len() > 1 {
            self.announce(Announcement::Decision { value: t as u32 });
        }
        t
    }

    fn sees_every_step(&self) -> bool {
        self.inner.sees_every_step()
    }

    fn choose_value(&mut self, n: usize) -> usize {
        let v = self.inner.choose_value(n).min(n - 1);
        self.announce(Announcement::Decision { value: v as u32 });
        v
    }

    fn unfinished(
        &mut self,
        pending: &[crate::rt::chooser::Candidate],
        after: &[crate::rt::op::Enablers],
    ) {
        self.inner.unfinished(pending, after)
    }

    fn end_execution(&mut self, events: &[Event]) {
        self.inner.end_execution(events)
    }

    fn shallow(&self) -> bool {
        self.inner.shallow()
    }

    fn estimate(&self) -> Option<f64> {
        self.inner.estimate()
    }

    fn save(&self) -> Option<crate::json::Json> {
        self.inner.save()
    }

    fn restore(&mut self, state: crate::json::Json) -> Result<(), String> {
        self.inner.restore(state)
    }
}
