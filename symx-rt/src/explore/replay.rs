//! Replay: makes exactly the recorded choices, and notes where the program stops offering them.

use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

pub(crate) struct Replay {
    decisions: Vec<u32>,
    next: usize,
    started: bool,
    divergence: Option<String>,
}

impl Replay {
    pub fn new(decisions: &[u32]) -> Self {
        Replay {
            decisions: decisions.to_vec(),
            next: 0,
            started: false,
            divergence: None,
        }
    }

    fn take(&mut self) -> Option<u32> {
        let d = self.decisions.get(self.next).copied();
        self.next += 1;
        if d.is_none() && self.divergence.is_none() {
            self.divergence = Some(format!(
                "the token records {} choices but the program asks for more",
                self.decisions.len()
            ));
        }
        d
    }
}

impl Chooser for Replay {
    fn next_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let at = self.next;
        let Some(d) = self.take() else {
            return point.first();
        };
        if let Some(c) = point.candidates.iter().find(|c| c.thread as u32 == d) {
            return c.thread;
        }
        if self.divergence.is_none() {
            let runnable: Vec<String> = point
                .candidates
                .iter()
                .map(|c| c.thread.to_string())
                .collect();
            self.divergence = Some(format!(
                "choice {at} (step {}) runs thread {d}, but only threads {} can run there",
                point.step + 1,
                runnable.join(", ")
            ));
        }
        point.first()
    }

    fn choose_value(&mut self, n: usize) -> usize {
        let at = self.next;
        match self.take() {
            Some(d) if (d as usize) < n => d as usize,
            Some(d) => {
                if self.divergence.is_none() {
                    self.divergence = Some(format!(
                        "choice {at} takes alternative {d}, but the program offers only {n}"
                    ));
                }
                0
            }
            None => 0,
        }
    }
}
