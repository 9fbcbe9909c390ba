//! Probabilistic Concurrency Testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010).
//!
//! Each execution gives the threads distinct random priorities above `depth` and picks
//! `depth - 1` change points among the steps; the highest-priority enabled thread always runs,
//! and at a change point the running thread's priority drops below every initial priority. A
//! bug of depth `d` among `n` threads and `k` steps is then found with probability at least
//! `1 / (n k^(d-1))`.
//!
//! Departures from the paper:
//! - the paper's i-th change point leaves priority `i`, its change points numbered as they
//!   are drawn; here they are sorted by step and the i-th in step order (from 1) leaves
//!   priority `depth - i`, so a thread demoted later ranks below every thread demoted before
//!   it, and the threads made to wait resume in the order they were made to (Coyote's and
//!   shuttle's PCT likewise demote each thread below the ones demoted before it);
//! - threads are created during the execution, so a thread gets its random priority when it is
//!   first seen;
//! - `k` is the largest step count seen so far (the paper assumes it known; the first execution
//!   runs without change points to learn it);
//! - the strategy is asked only where more than one thread can run, so a change point that
//!   falls on a step without a choice takes effect at the next choice.

use crate::rng::Rng;
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::{Event, ThreadId};

#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Pct {
    rng: Rng,
    depth: u32,
    /// Estimated steps per execution.
    k: u64,
    priorities: Vec<Option<u64>>,
    change_points: Vec<u64>,
    /// Change points already applied in this execution.
    applied: usize,
}

impl Pct {
    pub fn new(seed: u64, depth: u32) -> Self {
        Pct {
            rng: Rng::new(seed),
            depth: depth.max(1),
            k: 0,
            priorities: Vec::new(),
            change_points: Vec::new(),
            applied: 0,
        }
    }

    fn priority(&mut self, t: ThreadId) -> u64 {
        if self.priorities.len() <= t {
            self.priorities.resize(t + 1, None);
        }
        if let Some(p) = self.priorities[t] {
            return p;
        }
        // Random initial priorities, all above the change-point priorities 1..depth.
        let p = self.depth as u64 + 1 + (self.rng.next_u64() >> 8);
        self.priorities[t] = Some(p);
        p
    }
}

impl Chooser for Pct {
    fn next_execution(&mut self) -> bool {
        self.priorities.clear();
        let changes = if self.k == 0 {
            0
        } else {
            self.depth.saturating_sub(1)
        };
        self.change_points = (0..changes).map(|_| 1 + self.rng.below(self.k)).collect();
        // Applied in step order: the i-th leaves priority `depth - i` (see the module doc).
        self.change_points.sort_unstable();
        self.applied = 0;
        true
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let best = |s: &mut Self| {
            point
                .candidates
                .iter()
                .map(|c| (s.priority(c.thread), c.thread))
                .max()
                .map(|(_, t)| t)
                .expect("at least one enabled thread")
        };
        let mut chosen = best(self);
        while self.applied < self.change_points.len()
            && self.change_points[self.applied] <= point.step + 1
        {
            // The i-th change point leaves priority `depth - i`, below every initial priority
            // and below the change points before it.
            self.priorities[chosen] = Some((self.depth as usize - 1 - self.applied) as u64);
            self.applied += 1;
            chosen = best(self);
        }
        chosen
    }

    fn choose_value(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    fn end_execution(&mut self, events: &[Event]) {
        self.k = self.k.max(events.len() as u64);
    }

    fn save(&self) -> Option<crate::json::Json> {
        crate::explore::checkpoint::state_of(self)
    }

    fn restore(&mut self, state: crate::json::Json) -> Result<(), String> {
        *self = crate::explore::checkpoint::from_state(state)?;
        Ok(())
    }
}
