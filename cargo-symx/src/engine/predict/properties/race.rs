//! Data races (Wang et al., "Symbolic Predictive Analysis for Concurrent Programs", §5.2):
//! two conflicting accesses to a `Shared` or `UnsafeCell` by different threads that are both
//! the next event of their thread after some feasible prefix (the paper's "simultaneously
//! enabled"), so they can run back to back.
//!
//! The candidates are the conflicting pairs on racy objects (read-read pairs are not races),
//! less the pairs a common lock protects (the lockset filter: both threads inside sections of
//! one lock is infeasible, so the query would be UNSAT anyway).

use std::fmt;

use symx::trace::format::{EventKind, Location};
use symx::FailureKind;
use z3::ast::Bool;

use super::{at, loc, Check, Scan};
use crate::engine::predict::confirm;
use crate::engine::predict::encode::Encoding;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::replayed::Replayed;

/// `first` and `second` (different threads, same object, at least one write) are both the
/// next event of their thread after some feasible prefix: they can be adjacent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataRace {
    pub first: Ev,
    pub second: Ev,
    pub obj: u32,
}

impl Check for DataRace {
    fn candidates(scan: &Scan) -> Vec<Self> {
        let ctp = scan.ctp;
        let mut out = Vec::new();
        for (&obj, accesses) in &ctp.accesses {
            if !ctp.racy_object(obj) {
                continue;
            }
            let locksets: Vec<Vec<u32>> = accesses.iter().map(|&e| lockset(ctp, e)).collect();
            for (i, &a) in accesses.iter().enumerate() {
                for (j, &b) in accesses.iter().enumerate().skip(i + 1) {
                    let conflict = writes(ctp, a) || writes(ctp, b);
                    let guarded = locksets[i].iter().any(|l| locksets[j].contains(l));
                    if conflict && !guarded && ctp.thread(a) != ctp.thread(b) {
                        out.push(DataRace {
                            first: a,
                            second: b,
                            obj,
                        });
                    }
                }
            }
        }
        out
    }

    /// Both accesses are at the edge of their thread's prefix.
    fn violation(&self, enc: &Encoding) -> Bool {
        Bool::and(&[at_the_edge(enc, self.first), at_the_edge(enc, self.second)])
    }

    /// The runtime reported a data race at the two accesses, or on the same object.
    fn confirm(&self, ctp: &Ctp, run: &Replayed) -> Result<(), String> {
        let failure = confirm::failure(run)?;
        let replayed = confirm::by_position(run);
        let exact = confirm::same_place(ctp, &replayed, self.first)
            && confirm::same_place(ctp, &replayed, self.second);
        // The runtime reports the first happens-before race it meets: the witness's prefix
        // may already hold an unordered pair on the same object, a real race as well.
        let on_obj = racing_object(run).is_some_and(|ro| replay_id(ctp, run, self.obj) == Some(ro));
        confirm::judged(
            confirm::is(run, FailureKind::DataRace) && (exact || on_obj),
            failure,
        )
    }

    fn describe(&self, ctp: &Ctp, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "data race on object {}: {} and {}",
            self.obj,
            at(ctp, self.first),
            at(ctp, self.second)
        )
    }

    fn site(&self, ctp: &Ctp) -> Vec<Option<Location>> {
        vec![loc(ctp, self.first), loc(ctp, self.second)]
    }

    /// Scheduled accesses are poised: the schedule runs them back to back (an unscheduled
    /// one, an `UnsafeCell`'s, already ran in the prefix).
    fn poised(&self, ctp: &Ctp) -> Vec<Ev> {
        [self.first, self.second]
            .into_iter()
            .filter(|&e| !ctp.eager(e))
            .collect()
    }
}

/// The locks held exclusively at `e` by its own thread.
fn lockset(ctp: &Ctp, e: Ev) -> Vec<u32> {
    ctp.sections
        .iter()
        .filter(|(_, ss)| ss.iter().any(|s| !s.shared && ctp.holds(s, e)))
        .map(|(&l, _)| l)
        .collect()
}

fn writes(ctp: &Ctp, e: Ev) -> bool {
    let ev = ctp.event(e);
    ev.write.is_some()
        || matches!(
            ev.kind,
            EventKind::Store | EventKind::SharedWrite | EventKind::CellWrite
        )
}

/// The access `e` is at the edge of its thread's prefix, where nothing of its thread can have
/// ordered it against another thread's: a scheduled access is the thread's next step (the
/// paper's "simultaneously enabled"); an access that is no step (an `UnsafeCell`'s) ran and
/// its thread's next step did not, since it runs as soon as its thread gets there, possibly
/// before the thread's first step.
fn at_the_edge(enc: &Encoding, e: Ev) -> Bool {
    if !enc.ctp.eager(e) {
        return Bool::and(&[enc.reached(e), enc.exec[e].not()]);
    }
    let next = enc.ctp.later(e).iter().find(|&&n| !enc.ctp.eager(n));
    match next {
        Some(&n) => Bool::and(&[enc.exec[e].clone(), enc.exec[n].not()]),
        None => enc.exec[e].clone(),
    }
}

/// The object of the access at which a racy replay stopped (its last access event).
fn racing_object(run: &Replayed) -> Option<u32> {
    run.trace
        .events
        .iter()
        .rev()
        .find(|ev| ev.step.is_some())
        .and_then(|ev| ev.obj)
}

/// The replay's id of the original object `obj`, through any access both runs share.
fn replay_id(ctp: &Ctp, run: &Replayed, obj: u32) -> Option<u32> {
    let replayed = confirm::by_position(run);
    ctp.accesses.get(&obj)?.iter().find_map(|&e| {
        let ev = ctp.event(e);
        let r = replayed.get(&(ev.thread, ev.index))?;
        (r.kind == ev.kind && r.location == ev.location)
            .then_some(r.obj)
            .flatten()
    })
}
