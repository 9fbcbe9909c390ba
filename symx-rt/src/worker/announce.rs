//! Announce mode: a strategy wrapper that reports every execution start and every decision to
//! the driver the moment it is taken, so that a crash leaves its schedule prefix behind.
//!
//! It is off unless the driver asks for it (one thread-local flag); the explorer's only hook is
//! [`wrap`], which returns the strategy unchanged when the flag is off.

use std::cell::Cell;

use super::protocol::Message;
use super::send;
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::{Event, ThreadId};

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
}

pub(crate) fn set(on: bool) {
    ON.with(|f| f.set(on));
}

/// The explorer's hook: `strategy` (or, for a shard of a depth-first exploration, the
/// sharded DFS that replaces it, see [`super::shard`]), announcing its choices when announce
/// mode is on.
pub(crate) fn wrap(strategy: Box<dyn Chooser>) -> Box<dyn Chooser> {
    let strategy = super::shard::substitute(strategy);
    if ON.with(Cell::get) {
        Box::new(Announcing {
            inner: strategy,
            executions: 0,
        })
    } else {
        strategy
    }
}

struct Announcing {
    inner: Box<dyn Chooser>,
    executions: u64,
}

impl Chooser for Announcing {
    fn next_execution(&mut self) -> bool {
        let more = self.inner.next_execution();
        if more {
            send(&Message::Execution {
                index: self.executions,
            });
            self.executions += 1;
        }
        more
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let asked = self.inner.choose_thread(point);
        // The scheduler runs the first enabled thread when the strategy names another one.
        let t = if point.can_run(asked) {
            asked
        } else {
            point.first()
        };
        // A strategy that is asked only at choices is asked only where the scheduler records a
        // decision; one that sees every step (DPOR, never run under a preemption bound) makes a
        // recorded decision exactly where more than one thread can run.
        if !self.inner.sees_every_step() || point.candidates.len() > 1 {
            send(&Message::Decision { value: t as u32 });
        }
        t
    }

    fn sees_every_step(&self) -> bool {
        self.inner.sees_every_step()
    }

    fn choose_value(&mut self, n: usize) -> usize {
        let v = self.inner.choose_value(n).min(n - 1);
        send(&Message::Decision { value: v as u32 });
        v
    }

    fn end_execution(&mut self, events: &[Event]) {
        self.inner.end_execution(events)
    }
}
