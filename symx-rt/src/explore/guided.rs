//! Guided: one execution that follows a given sequence of threads (one per visible step) and
//! of choices, then lets the thread that ran last go on while it can. It is how an engine
//! outside the runtime (a predicted schedule, a solver's path) gets the execution it wants.

use crate::builder::Guide;
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

pub(crate) struct Guided {
    steps: Vec<usize>,
    choices: Vec<u32>,
    next_choice: usize,
    last: Option<ThreadId>,
    started: bool,
    divergence: Option<String>,
}

impl Guided {
    pub fn new(guide: &Guide) -> Self {
        Guided {
            steps: guide.steps.clone(),
            choices: guide.choices.clone(),
            next_choice: 0,
            last: None,
            started: false,
            divergence: None,
        }
    }

    /// Where the program did not offer what the guide asked for, first place only.
    pub fn divergence(&self) -> Option<String> {
        self.divergence.clone()
    }
}

impl Chooser for Guided {
    fn next_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn sees_every_step(&self) -> bool {
        true
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let wanted = self.steps.get(point.step as usize).copied();
        let chosen = match wanted {
            Some(t) if point.can_run(t) => t,
            Some(t) => {
                if self.divergence.is_none() {
                    let runnable: Vec<String> = point
                        .candidates
                        .iter()
                        .map(|c| c.thread.to_string())
                        .collect();
                    self.divergence = Some(format!(
                        "step {} is thread {t}'s, but only threads {} can run there",
                        point.step + 1,
                        runnable.join(", ")
                    ));
                }
                point.first()
            }
            None => self
                .last
                .filter(|&l| point.can_run(l))
                .unwrap_or(point.first()),
        };
        self.last = Some(chosen);
        chosen
    }

    fn choose_value(&mut self, n: usize) -> usize {
        let pick = self.choices.get(self.next_choice).copied().unwrap_or(0) as usize;
        self.next_choice += 1;
        if pick >= n && self.divergence.is_none() {
            self.divergence = Some(format!(
                "choice {} takes alternative {pick}, but the program offers only {n}",
                self.next_choice - 1
            ));
        }
        pick.min(n - 1)
    }
}
