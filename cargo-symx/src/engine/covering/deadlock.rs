//! The deadlock check over Σ (Bergan §3.1, §3.6.3): a schedule deadlocks when some thread
//! does not end with an exit, so each pair is checked on its own, and when none deadlocks
//! the program cannot deadlock *under constrained execution* (Property 2: Σ is then every
//! schedule that can occur). A deadlocking pair is *confirmed* when a constrained run of its
//! schedule with a model of its constraint deadlocks (that run's replay token is the
//! witness); otherwise it is *unconfirmed*, and the reason says why (possibly infeasible).
//!
//! In a later epoch the constraint speaks of the havocked state at the epoch's start
//! (`name@k.t<thread>`), which a model may give values the program never computes (the
//! over-approximate start of §3.3.3). There the run that confirms is made with the model's
//! program inputs only, the havocked state being what the program computes; when it does
//! not deadlock the pair is flagged *possibly infeasible* (§8.5 of the paper's evaluation:
//! the infeasible deadlocks of radix and pfscan).

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
    /// A deadlock in a later epoch that the program's own state did not reach: the
    /// havocked inputs its constraint needs, and why the run did not confirm it.
    PossiblyInfeasible { havocked: Vec<String>, why: String },
}

/// The verdict on each deadlocking pair, by its index in `Enumeration::pairs`.
#[derive(Clone, Debug, Default)]
pub struct Verdicts {
    pub deadlocks: Vec<(usize, InputValues, DeadlockVerdict)>,
    /// Pairs the rely-guarantee discharge proved infeasible, with the part of their
    /// constraint unreachable at their epoch's start (`super::discharge`).
    pub proved_infeasible: Vec<(usize, String)>,
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

    /// The part of pair `i`'s constraint the discharge proved unreachable, if it did.
    pub fn infeasible(&self, i: usize) -> Option<&str> {
        (self.proved_infeasible.iter())
            .find(|(k, _)| *k == i)
            .map(|(_, part)| part.as_str())
    }

    /// Deadlocking pairs flagged possibly infeasible.
    pub fn possibly_infeasible(&self) -> usize {
        (self.deadlocks.iter())
            .filter(|(_, _, v)| matches!(v, DeadlockVerdict::PossiblyInfeasible { .. }))
            .count()
    }
}

/// Whether an input is havocked state at an epoch boundary (`name@k.<who>`), not a program
/// input.
pub fn is_havocked(name: &str) -> bool {
    name.contains('@')
}

/// Checks every deadlocking pair of `e` by running its schedule constrained, with its model.
pub fn check_deadlocks(executor: &mut dyn Executor, e: &Enumeration) -> Verdicts {
    let mut out = Verdicts {
        proved_infeasible: (super::discharge(executor, e).into_iter())
            .filter_map(|d| Some((d.pair, d.unreachable?)))
            .collect(),
        ..Verdicts::default()
    };
    for (i, pair) in e.pairs.iter().enumerate().filter(|(_, p)| p.deadlocks()) {
        let havocked: Vec<String> = (pair.model.keys())
            .filter(|n| is_havocked(n) && pair.constraint_text.contains(n.as_str()))
            .cloned()
            .collect();
        let own: InputValues = (pair.model.iter())
            .filter(|(n, _)| !is_havocked(n))
            .map(|(n, v)| (n.clone(), *v))
            .collect();
        let inputs = if pair.epoch == 0 { &pair.model } else { &own };
        let verdict = match executor.run_constrained_epochs(&pair.chain(), inputs) {
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
        let verdict = match verdict {
            DeadlockVerdict::Unconfirmed(why) if pair.epoch > 0 => {
                DeadlockVerdict::PossiblyInfeasible { havocked, why }
            }
            v => v,
        };
        out.deadlocks.push((i, inputs.clone(), verdict));
    }
    out
}
