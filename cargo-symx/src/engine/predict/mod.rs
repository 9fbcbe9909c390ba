//! Symbolic predictive analysis (Wang et al., "Symbolic Predictive Analysis for Concurrent
//! Programs"; the corrections symx applies are in `docs/papers.md`): from one recorded
//! trace, ask z3 whether another feasible interleaving of its events violates a property, turn
//! each satisfying model into a schedule, replay it, and report only what the replay confirms.
//!
//! The pipeline, one module per job:
//! - `ctp`: the concurrent trace program of a `symx::trace::Trace` (PO, accesses, sections);
//! - `slice`: thread-local objects and the events that need an order variable (the paper's §9
//!   slicing);
//! - `dag`: the trace's expression DAG as z3 bit-vectors;
//! - `encode`: the prefix-mode formula (order variables, executed flags, pi-functions);
//! - `blocking`: condvar and barrier semantics;
//! - `properties`: one file per property (assertion, race, deadlock, atomicity, lock claim),
//!   each with its candidates, `PHI_PRP`, confirmation and description, behind one trait;
//! - `must_hb`: must-happen-before, the static filter of the atomicity and lock-claim
//!   candidates;
//! - `witness`: model -> ordered prefix -> `symx::Guide`;
//! - `replayed`: what a replay showed, from `Builder::run_guided` or a worker's `run_one`;
//! - `confirm`: does the replay fail the same way (the property judges, with the pieces here).
//!
//! This module owns the loop over candidates and the statistics; it never runs the program:
//! the caller passes a `replay` function (in process, `Builder::run_guided`; under
//! `cargo symx`, a worker process of the test).
//!
//! Choices the trace format forces, stated once:
//! - Initial values: the trace records each variable's value before its first access
//!   (`objects[].initial`), and `Ctp` takes it from there. A trace without it (written by an
//!   older runtime, or an object the runtime cannot see the start of) falls back to the first
//!   read when a read came first; when a write came first the encoding gives the object a free
//!   initial value. A witness that leaned on a wrong guess does not replay; the replay shows
//!   the real value (its first access to the object is then a read), and the query is asked
//!   again with it (`TraceAnalysis::refined`), so a guess is never reported.
//! - Thread-local code (branches, assertions) runs right after the thread's previous step, as
//!   in the runtime: a thread that got there runs it if its condition holds, and the first
//!   failing assertion of a run ends it.
//! - `check` events (the no-panic conditions of `Sym` operations: overflow, division by zero,
//!   an index out of bounds) are ignored here, not made assertion candidates: one per
//!   arithmetic operation on shared values would multiply the queries, while the reads they
//!   depend on can only return written values, which rarely overflow; the symbolic engine,
//!   whose inputs are free, is where they pay. A predicted run that hits a failing check
//!   panics there on replay and is reported as a replay that failed otherwise, never dropped.
//! - A replay that fails another way than predicted ran the real program on a schedule it
//!   can take: its failure is a bug (`TraceAnalysis::failed_otherwise`), whatever the
//!   prediction was; only replays that pass are unconfirmed.
//!   `element` events keep their guard like a pin (the same element).
//! - Condvar and wait-queue waits are matched to the notify that wakes them and barrier
//!   generations open together (`blocking`); channels, park and once are not modelled: their
//!   events keep their observed order, and the event after a blocking one waits for every
//!   such event observed before it (sound: it only removes interleavings).
//! - Atomics are sequentially consistent; plain-value atomic reads keep their observed value
//!   (the runtime pins them with a guard), `*_sym` ones are free.

mod blocking;
mod confirm;
mod encode;
mod must_hb;
pub mod properties;
mod slice;
mod witness;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use symx::trace::format::Location;
use symx::trace::Trace;
use symx::Guide;
use z3::SatResult;

pub use crate::solver::replayed::{IntoReplayed, Replayed};
pub use properties::Property;
pub use witness::Witness;

use crate::solver::ctp::Ctp;
use encode::{EncodeOptions, Encoding};

/// Which interleavings a prediction may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Model {
    /// The concurrent trace program: symbolic events, any value the guards allow (default).
    #[default]
    Ctp,
    /// The paper's `CM_rho` (§7.1), the maximal causal model over symbolic events: every read
    /// that decides the rest of the run (flows into a guard or a written value) returns its
    /// observed value; assertions stay symbolic. Kept as the reference for what concrete
    /// causal models predict.
    Mcm,
    /// Values preserved: every read returns its observed value, assertion operands included.
    ValuesPreserved,
}

/// What to ask and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub model: Model,
    /// The paper's context bound (§6): time stamps in `0..=b`. `None`: unbounded.
    pub bound: Option<u32>,
    pub assertions: bool,
    pub races: bool,
    pub deadlocks: bool,
    /// Atomicity violations of regions marked with `symx::atomic_region`.
    pub atomicity: bool,
    /// Whether a user-annotated lock's mutual exclusion can break (its implementation's
    /// atomics decide).
    pub lock_claims: bool,
    /// Re-solves allowed after a replay shows an initial value the trace did not.
    pub refinements: u32,
    /// Initial values the caller knows, by object id (the trace shows only those of objects
    /// read before they are written).
    pub initial: BTreeMap<u32, i128>,
    /// Solver time allowed per query; a query that runs out is counted as inconclusive.
    /// Proving a counting property (a total after many locked increments) is hard for the
    /// solver: the time grows exponentially with the number of critical sections.
    pub query_timeout: Option<Duration>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            model: Model::Ctp,
            bound: None,
            assertions: true,
            races: true,
            deadlocks: true,
            atomicity: true,
            lock_claims: true,
            refinements: 3,
            initial: BTreeMap::new(),
            query_timeout: Some(Duration::from_secs(30)),
        }
    }
}

/// A satisfying model of one property query, decoded.
#[derive(Clone, Debug)]
pub struct Prediction {
    /// The property query it satisfies (reports use `description`).
    pub property: Property,
    /// The property in words, with source locations.
    pub description: String,
    pub witness: Witness,
    /// Time z3 took on this query.
    pub solve_time: Duration,
    /// The replay that judged it (how it failed, as the runtime reports it, and its trace,
    /// whose `schedule` is the token of that run); `None` before the replay.
    pub replayed: Option<Replayed>,
}

/// What one trace gave.
#[derive(Debug, Default)]
pub struct TraceAnalysis {
    /// Predictions whose replay failed the same way: real bugs.
    pub confirmed: Vec<Prediction>,
    /// Predictions whose replay passed, or could not run: defects of ours, counted, never
    /// reported as bugs.
    pub unconfirmed: Vec<(Prediction, String)>,
    /// Predictions whose replay failed otherwise, in a thread that a flipped branch took into
    /// code the trace does not have (the prefix semantics stops such a thread; the program
    /// runs on): neither confirmed nor a defect of ours. The failure is the replay's own.
    pub off_trace: Vec<(Prediction, String)>,
    /// Predictions whose replay failed another way along the trace (a data race where a
    /// lock's exclusion was predicted to break, say): not the predicted bug, but a real
    /// failure of the program on a schedule it can take, with the replay's own token.
    pub failed_otherwise: Vec<(Prediction, String)>,
    /// Predictions dropped because they leaned on an initial value the trace does not show
    /// and the replay showed another (the query was asked again with it).
    pub refined: usize,
    /// Property candidates in the trace.
    pub candidates: usize,
    /// Solver time of every query, in order.
    pub solve_times: Vec<Duration>,
    /// Queries the solver gave up on (timeout): neither a prediction nor a proof.
    pub inconclusive: usize,
    /// Bounded queries that were UNSAT with an unsat core not mentioning the bound: the
    /// property holds in every interleaving of this trace (§6.3).
    pub proved_unbounded: usize,
}

/// Every property candidate of `trace` that some feasible prefix violates, with its witness,
/// unconfirmed (the solver's view only, nothing replayed): what an oracle's verdict is
/// compared with, and what a model or a bound admits before confirmation.
pub fn predictions(trace: &Trace, opts: &Options) -> Vec<Prediction> {
    let ctp = Ctp::new(trace);
    let enc = Encoding::new(&ctp, &encode_options(opts, opts.initial.clone()));
    properties::candidates(&ctp, opts)
        .iter()
        .filter_map(|p| query(&enc, p).0)
        .collect()
}

/// Predicts, replays each witness with `replay`, and sorts confirmed from unconfirmed. One
/// confirmed prediction per source location (assertion) or location pair (race).
pub fn predict<R: IntoReplayed>(
    trace: &Trace,
    opts: &Options,
    mut replay: impl FnMut(&Guide) -> R,
) -> TraceAnalysis {
    let ctp = Ctp::new(trace);
    let mut learned = opts.initial.clone();
    let mut enc = Encoding::new(&ctp, &encode_options(opts, learned.clone()));
    let props = properties::candidates(&ctp, opts);
    let mut out = TraceAnalysis {
        candidates: props.len(),
        ..TraceAnalysis::default()
    };
    let mut found: HashSet<Vec<Option<Location>>> = HashSet::new();
    for p in &props {
        let key = p.check().site(&ctp);
        if found.contains(&key) {
            continue;
        }
        let mut tries = 0;
        loop {
            let (prediction, stats) = query(&enc, p);
            out.solve_times.push(stats.time);
            out.proved_unbounded += stats.proved_unbounded as usize;
            out.inconclusive += stats.inconclusive as usize;
            let Some(mut prediction) = prediction else {
                break;
            };
            let run = match replay(&prediction.witness.guide).into_replayed() {
                Ok(run) => run,
                Err(why) => {
                    let why = format!("the replay could not run: {why}");
                    out.unconfirmed.push((prediction, why));
                    break;
                }
            };
            match confirm::check(&ctp, p, &run) {
                Ok(()) => {
                    found.insert(key);
                    prediction.replayed = Some(run);
                    out.confirmed.push(prediction);
                    break;
                }
                Err(why) if confirm::failed_off_the_trace(&ctp, &run) => {
                    prediction.replayed = Some(run);
                    out.off_trace.push((prediction, why));
                    break;
                }
                Err(why) if run.failure.is_some() => {
                    prediction.replayed = Some(run);
                    out.failed_otherwise.push((prediction, why));
                    break;
                }
                Err(why) => {
                    let why = match &run.divergence {
                        Some(d) => format!("{why} (the replay left the schedule: {d})"),
                        None => why,
                    };
                    let unknown = enc.unknown_initial.keys().copied();
                    let new = confirm::learned_initial(&ctp, &prediction.witness, &run, unknown);
                    if new.is_empty() || tries >= opts.refinements {
                        prediction.replayed = Some(run);
                        out.unconfirmed.push((prediction, why));
                        break;
                    }
                    out.refined += 1;
                    // The witness leaned on an initial value the trace did not show; the
                    // replay showed it: re-encode with it and ask again.
                    tries += 1;
                    learned.extend(new);
                    enc = Encoding::new(&ctp, &encode_options(opts, learned.clone()));
                }
            }
        }
    }
    out
}

fn encode_options(opts: &Options, initial: BTreeMap<u32, i128>) -> EncodeOptions {
    EncodeOptions {
        model: opts.model,
        bound: opts.bound,
        initial,
        timeout: opts.query_timeout,
    }
}

struct QueryStats {
    time: Duration,
    proved_unbounded: bool,
    inconclusive: bool,
}

/// One property query on the encoding's solver.
fn query(enc: &Encoding, p: &Property) -> (Option<Prediction>, QueryStats) {
    enc.solver.push();
    enc.solver.assert(p.check().formula(enc));
    // Every annotated lock's exclusion is assumed, except by the query that asks whether it
    // breaks.
    let questioned = p.check().questioned_lock();
    let claims = enc.claims.iter().filter(|(&l, _)| Some(l) != questioned);
    let assumptions: Vec<_> = enc
        .bound
        .iter()
        .chain(claims.map(|(_, c)| c))
        .cloned()
        .collect();
    let start = Instant::now();
    let result = enc.solver.check_assumptions(&assumptions);
    let time = start.elapsed();
    let mut stats = QueryStats {
        time,
        proved_unbounded: false,
        inconclusive: result == SatResult::Unknown,
    };
    let prediction = match result {
        SatResult::Sat => enc.solver.get_model().map(|m| Prediction {
            property: *p,
            description: properties::Describe(enc.ctp, p).to_string(),
            witness: witness::decode(enc, &m, p),
            solve_time: time,
            replayed: None,
        }),
        SatResult::Unsat => {
            // Proved for every interleaving when the bound is not needed for the proof.
            let core = enc.solver.get_unsat_core();
            stats.proved_unbounded = enc.bound.as_ref().is_some_and(|b| !core.contains(b));
            None
        }
        SatResult::Unknown => None,
    };
    enc.solver.pop(1);
    (prediction, stats)
}
