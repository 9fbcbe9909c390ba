//! Deadlocks: a feasible cyclic wait on locks (not in the paper; `docs/papers.md`, "Beyond the
//! paper"). Each thread of the cycle holds a lock and is poised at the acquisition of the next
//! thread's: none of them can move again.
//!
//! The candidates come from the lock-order graph of the trace: a *wait* is an exclusive
//! acquisition made while the same thread holds another lock; a cycle is a sequence of waits
//! of distinct threads in which each waits for the lock the next one holds, the last for the
//! first's. Cycles of up to [`MAX_CYCLE`] threads are asked about, each once (rotations are
//! the same cycle).

use std::fmt;

use symx::trace::format::Location;
use symx::FailureKind;
use z3::ast::Bool;

use super::{at, loc, Check, Scan};
use crate::engine::predict::confirm;
use crate::engine::predict::encode::Encoding;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::replayed::Replayed;

/// A cyclic wait on locks: each thread of the cycle holds a lock and waits for the next one's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlock {
    pub cycle: Cycle,
}

impl Check for Deadlock {
    /// Cyclic waits of up to [`MAX_CYCLE`] threads.
    fn candidates(scan: &Scan) -> Vec<Self> {
        cycles(scan.ctp)
            .into_iter()
            .map(|cycle| Deadlock { cycle })
            .collect()
    }

    fn violation(&self, enc: &Encoding) -> Bool {
        cyclic_wait(enc, &self.cycle)
    }

    /// The runtime reported a deadlock with every thread of the cycle at its wait, never
    /// having made the acquisition (a spinning thread runs on past the recorded position
    /// of its acquisition, which it never reaches).
    fn confirm(&self, ctp: &Ctp, run: &Replayed) -> Result<(), String> {
        let failure = confirm::failure(run)?;
        let blocked = |w: &Wait| {
            let (wait, acquire) = (ctp.event(w.wait), ctp.event(w.acquire));
            let mine = || run.trace.events.iter().filter(|r| r.thread == wait.thread);
            let got_there = wait.index == 0 || mine().any(|r| r.index + 1 >= wait.index);
            let acquired = mine().any(|r| {
                r.index >= wait.index && r.kind == acquire.kind && r.location == acquire.location
            });
            got_there && !acquired
        };
        let all_blocked = self.cycle.waits().iter().all(blocked);
        confirm::judged(
            confirm::is(run, FailureKind::Deadlock) && all_blocked,
            failure,
        )
    }

    fn describe(&self, ctp: &Ctp, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let waits: Vec<String> = self
            .cycle
            .waits()
            .iter()
            .map(|w| at(ctp, w.acquire))
            .collect();
        write!(f, "deadlock: {} wait for each other", waits.join(" and "))
    }

    fn site(&self, ctp: &Ctp) -> Vec<Option<Location>> {
        self.cycle
            .waits()
            .iter()
            .map(|w| loc(ctp, w.acquire))
            .collect()
    }
}

/// The longest cycle asked about: every extra thread multiplies the candidates, and real
/// deadlocks of more than four threads are rare.
pub const MAX_CYCLE: usize = 4;

/// One thread's part of a cycle: it waits from `wait` on (the acquisition itself for a
/// built-in lock, the start of the `#[symx::acquire]` call for an annotated one) for the
/// acquisition `acquire`, while holding the lock it took at `held`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    pub wait: Ev,
    pub acquire: Ev,
    pub held: Ev,
}

/// A cyclic wait: `waits[i]` waits for the lock `waits[i + 1]` holds (cyclically).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cycle {
    waits: [Wait; MAX_CYCLE],
    len: usize,
}

impl Cycle {
    /// The threads' waits, in cycle order.
    pub fn waits(&self) -> &[Wait] {
        &self.waits[..self.len]
    }
}

/// A wait with its thread and the two locks, for building cycles.
#[derive(Clone, Copy, Debug)]
struct Edge {
    thread: usize,
    wait: Wait,
    /// The lock it waits for.
    wants: u32,
    /// The lock it holds.
    holds: u32,
}

/// Every cycle of the trace's lock-order graph with distinct threads, up to `MAX_CYCLE` long.
fn cycles(ctp: &Ctp) -> Vec<Cycle> {
    let edges = edges(ctp);
    let mut out = Vec::new();
    for (i, start) in edges.iter().enumerate() {
        let mut path = vec![i];
        extend(&edges, start, &mut path, &mut out);
    }
    out
}

/// Exclusive acquisitions made inside another exclusive section of the same thread.
fn edges(ctp: &Ctp) -> Vec<Edge> {
    let mut out = Vec::new();
    for (&wants, sections) in &ctp.sections {
        for s in sections.iter().filter(|s| !s.shared) {
            for (&holds, outer) in ctp.sections.iter().filter(|(&l, _)| l != wants) {
                // A section of the same thread open at this acquisition.
                for h in outer.iter().filter(|h| !h.shared && ctp.holds(h, s.wait)) {
                    out.push(Edge {
                        thread: s.thread,
                        wait: Wait {
                            wait: s.wait,
                            acquire: s.acquire,
                            held: h.acquire,
                        },
                        wants,
                        holds,
                    });
                }
            }
        }
    }
    out
}

/// Grows `path` (edge indices, the first the smallest of the cycle) by edges whose lock held
/// is the one the last edge wants; records the paths that close.
fn extend(edges: &[Edge], start: &Edge, path: &mut Vec<usize>, out: &mut Vec<Cycle>) {
    let last = &edges[*path.last().expect("a path")];
    if path.len() >= 2 && last.wants == start.holds {
        let mut waits = [start.wait; MAX_CYCLE];
        for (slot, &e) in waits.iter_mut().zip(path.iter()) {
            *slot = edges[e].wait;
        }
        out.push(Cycle {
            waits,
            len: path.len(),
        });
    }
    if path.len() == MAX_CYCLE {
        return;
    }
    for (j, next) in edges.iter().enumerate() {
        let fresh_thread = path.iter().all(|&p| edges[p].thread != next.thread);
        if j > path[0] && next.holds == last.wants && fresh_thread {
            path.push(j);
            extend(edges, start, path, out);
            path.pop();
        }
    }
}

/// `PHI_PRP` of a cycle: every thread of it got to where it waits without making the
/// acquisition, and holds its lock (the section's release comes after the acquisition in
/// program order, so it has not run). A thread in an annotated acquire call may have run
/// part of its spin: its events there read the lock's state and may only run as the claim
/// of mutual exclusion allows.
fn cyclic_wait(enc: &Encoding, cycle: &Cycle) -> Bool {
    let conj: Vec<Bool> = cycle
        .waits()
        .iter()
        .flat_map(|w| {
            [
                enc.reached(w.wait),
                enc.exec[w.acquire].not(),
                enc.exec[w.held].clone(),
            ]
        })
        .collect();
    Bool::and(&conj)
}
