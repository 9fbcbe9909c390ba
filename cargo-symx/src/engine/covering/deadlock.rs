//! The deadlock check over Σ (Bergan §3.1, §3.6.3): a schedule deadlocks when some thread
//! does not end with an exit, so each pair is checked on its own, and when none deadlocks
//! the program cannot deadlock *under constrained execution* (Property 2: Σ is then every
//! schedule that can occur). A deadlocking pair is *confirmed* when a constrained run of its
//! schedule with a model of its constraint deadlocks (that run's replay token is the
//! witness); otherwise it is *unconfirmed*, and the reason says why (possibly infeasible).

use symx::InputValues;

use super::{Enumeration, Executor};

/// What the check says about one deadlocking pair.
#[derive(Clone, Debug)]
pub enum DeadlockVerdict {
    /// The constrained run deadlocked.
    Confirmed {
        /// The replay token of the deadlocked run.
        token: String,
        /// The failure's message (which threads wait for what).
        message: String,
    },
    /// No run showed it: why.
    Unconfirmed(String),
}

/// The verdict on each deadlocking pair, by its index in `Enumeration::pairs`.
#[derive(Clone, Debug, Default)]
pub struct Verdicts {
    pub deadlocks: Vec<(usize, InputValues, DeadlockVerdict)>,
}

impl Verdicts {
    pub fn confirmed(&self) -> usize {
        (self.deadlocks.iter())
            .filter(|(_, _, v)| matches!(v, DeadlockVerdict::Confirmed { .. }))
            .count()
    }

    pub fn unconfirmed(&self) -> usize {
        self.deadlocks.len() - self.confirmed()
    }
}

/// Checks every deadlocking pair of `e` by running its schedule constrained, with its model.
pub fn check_deadlocks(executor: &mut dyn Executor, e: &Enumeration) -> Verdicts {
    let mut out = Verdicts::default();
    for (i, pair) in e.pairs.iter().enumerate().filter(|(_, p)| p.deadlocks()) {
        let verdict = match executor.run_constrained_epochs(&pair.chain(), &pair.model) {
            Err(why) => DeadlockVerdict::Unconfirmed(format!("the run could not be made: {why}")),
            Ok(ran) => match (ran.failure, ran.divergence) {
                (Some(f), None) if f.kind == "deadlock" => DeadlockVerdict::Confirmed {
                    token: f.token.clone(),
                    message: f.message.clone(),
                },
                (_, Some(d)) => {
                    DeadlockVerdict::Unconfirmed(format!("the run left the schedule: {d}"))
                }
                (f, None) => DeadlockVerdict::Unconfirmed(format!(
                    "the run ended {} instead of deadlocking",
                    f.map_or("normally".to_string(), |f| format!("with a {}", f.kind))
                )),
            },
        };
        out.deadlocks.push((i, pair.model.clone(), verdict));
    }
    out
}
