//! Uniformly random scheduling: every choice is an independent draw from a seeded generator.
//! Cheap per execution and good at shallow bugs; never exhausts anything.

use crate::rng::Rng;
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Random {
    rng: Rng,
}

impl Random {
    pub fn new(seed: u64) -> Self {
        Random {
            rng: Rng::new(seed),
        }
    }
}

impl Chooser for Random {
    fn next_execution(&mut self) -> bool {
        true
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let i = self.rng.below(point.candidates.len() as u64) as usize;
        point.candidates[i].thread
    }

    fn choose_value(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    fn save(&self) -> Option<crate::json::Json> {
        crate::explore::checkpoint::state_of(self)
    }

    fn restore(&mut self, state: crate::json::Json) -> Result<(), String> {
        *self = crate::explore::checkpoint::from_state(state)?;
        Ok(())
    }
}
