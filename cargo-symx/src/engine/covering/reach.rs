//! `Search` (Bergan, Fig. 3.5): every reachable epoch and its input-covering set. Starting
//! from the program's start (E0), each epoch is searched (`SearchInEpoch`); every schedule
//! that ends at a boundary names the epoch it reaches, and an epoch not seen before is
//! searched in turn.
//!
//! An epoch is named by where its threads are at its boundary (at a marker, blocked at an
//! operation, finished). With *symbolic thread ids* (§3.4.1.3, the default) the name is the
//! multiset of those contexts, so threads running the same code at the same marker are
//! interchangeable; with concrete ids it is the list by thread.
//!
//! `MakeStateForEpoch` is replaced by replay and havoc: a run reaches the epoch by its first
//! way there (the inputs of the pairs that led to it, whose constraints are the epoch's
//! *entry* conditions, conjoined into every query of its search), and at the boundary the
//! loops' carried state becomes fresh inputs (`symx::covering`'s havoc), so the epoch's
//! constraints are stated over that state, not over the iteration that first got there.
//! Everything else is the state that way left: the epoch's Σ covers the states its entry
//! conditions describe, an under-approximation of the paper's over-approximate start.

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use symx::covering::End;
use z3::ast::Bool;

use super::{search_in_epoch, Enumeration, Executor, Options, Start};
use crate::solver::smt::Smt;

/// One reachable epoch.
#[derive(Clone, Debug)]
pub struct EpochInfo {
    /// `E0`, `E1`, ... in the order found.
    pub id: String,
    /// Where each thread was when a run first reached it, by thread id (empty for E0).
    pub contexts: Vec<(usize, String)>,
    /// Boundaries before it on the way it was first reached.
    pub depth: u32,
    /// |Σ_E|.
    pub schedules: usize,
}

/// Enumerates the input-covering schedules of `executor`'s test: Σ_E for every reachable
/// epoch E (Fig. 3.5 over Fig. 3.4).
pub fn enumerate(executor: &mut dyn Executor, opts: &Options) -> Enumeration {
    let started = Instant::now();
    let mut smt = Smt::new(opts.query_timeout);
    let mut out = Enumeration::default();
    let mut names: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let mut work: VecDeque<(usize, Start, Vec<symx::covering::HbSchedule>)> = VecDeque::new();
    out.epochs.push(EpochInfo {
        id: "E0".into(),
        contexts: Vec::new(),
        depth: 0,
        schedules: 0,
    });
    work.push_back((0, Start::default(), Vec::new()));
    while let Some((epoch, start, before)) = work.pop_front() {
        let (mut pairs, prefixes) =
            search_in_epoch(executor, opts, &start, started, &mut smt, &mut out);
        out.prefixes += prefixes;
        for p in &mut pairs {
            p.epoch = epoch;
            p.before = before.clone();
            let End::Epoch { contexts } = &p.schedule.end else {
                continue;
            };
            let name = epoch_name(contexts, opts.symbolic_tids);
            let next = match names.get(&name) {
                Some(&i) => i,
                None => {
                    let i = out.epochs.len();
                    names.insert(name, i);
                    out.epochs.push(EpochInfo {
                        id: format!("E{i}"),
                        contexts: contexts.clone(),
                        depth: start.depth + 1,
                        schedules: 0,
                    });
                    let mut entry = start.entry.clone();
                    entry.push(p.reach.clone());
                    let mut chain = before.clone();
                    chain.push(p.schedule.clone());
                    let next = Start {
                        depth: start.depth + 1,
                        entry: vec![Bool::and(&entry)],
                        model: p.model.clone(),
                    };
                    work.push_back((i, next, chain));
                    i
                }
            };
            p.next_epoch = Some(next);
        }
        out.epochs[epoch].schedules = pairs.len();
        out.pairs.extend(pairs);
        if !out.incomplete.is_empty() {
            break;
        }
    }
    out.solver = smt.stats.clone();
    out.complete = out.incomplete.is_empty();
    out.seconds = started.elapsed().as_secs_f64();
    out
}

/// An epoch's name: its threads' contexts, as a multiset (symbolic thread ids) or by thread.
fn epoch_name(contexts: &[(usize, String)], symbolic_tids: bool) -> Vec<String> {
    let mut name: Vec<String> = match symbolic_tids {
        true => contexts.iter().map(|(_, c)| c.clone()).collect(),
        false => contexts.iter().map(|(t, c)| format!("{t}: {c}")).collect(),
    };
    if symbolic_tids {
        name.sort();
    }
    name
}
