//! The schedule selector `F_E` (Bergan §3.6.2) and constrained execution through every
//! epoch of a run (§3.6.2's `EpochBarrier`): at the program's start, and again at each epoch
//! boundary, the pair of the epoch reached whose input constraint the state there satisfies
//! is chosen, and the run is held to its schedule up to the next boundary.
//!
//! The paper compiles each Σ_E into a decision tree the runtime evaluates at the boundary,
//! binding symbolic thread ids to the threads by their contexts. Here the driver does both:
//! it asks z3 whether the state satisfies each constraint in turn (the pairs of an epoch are
//! exclusive, so at most one does), and it reads the state by running the schedules chosen
//! so far once more, one boundary further, as the enumeration's runs go (a run is
//! deterministic given its inputs and schedules). A run of `n` epochs is so `n` runs, of
//! lengths growing with `n`: quadratic where the paper's is linear, without any runtime
//! support beyond constrained execution.
//!
//! The state at a boundary is what the epoch's constraints speak of: the program's inputs
//! and the values the boundary havocked, `name@k.t<thread>` (or `name@k.l<line>` for
//! threads in lockstep) at the run's `k`-th boundary, which the epoch's constraints call by
//! the depth its enumeration reached it at and by the threads of that first way there.
//! Results of abstracted functions are matched by name only in the first epoch (their names
//! count calls over the whole run); in a later epoch they are left free.

use std::collections::BTreeMap;

use symx::covering::{Epochs, HbSchedule};
use symx::{Guide, InputValues};
use z3::ast::Bool;

use super::{Enumeration, Executor, Options};
use crate::solver::dag::constant;
use crate::solver::path::input_var;
use crate::solver::replayed::Replayed;
use crate::solver::smt::{Answer, Smt};

/// How a run with given inputs went under constrained execution through its epochs.
#[derive(Debug)]
pub struct Followed {
    /// The pairs chosen, epoch after epoch (indices into `Enumeration::pairs`).
    pub pairs: Vec<usize>,
    pub end: Stop,
}

/// Where following a run ended.
#[derive(Debug)]
pub enum Stop {
    /// The last pair chosen ended the run (it exited, deadlocked or failed): the constrained
    /// run through every chosen schedule, whose `divergence` says where it left them.
    Ran(Box<Replayed>),
    /// A run left the schedules chosen so far before the boundary the next choice is made
    /// at: where.
    Diverged(String),
    /// No constraint of the epoch holds for the state at its start: an uncovered input (the
    /// paper has no fallback; the state is reported).
    Uncovered { epoch: usize, state: InputValues },
    /// The run crossed this many boundaries without ending (the bound of [`follow`]).
    TooLong(usize),
    /// A run could not be made.
    Error(String),
}

/// Runs the test with `inputs` (an input not given has the test's default) held to the
/// schedules the selector chooses at its start and at each epoch boundary, for at most
/// `max_epochs` epochs. `opts` are the enumeration's (bounded epochs, lockstep, symbolic
/// thread ids).
pub fn follow(
    exec: &mut dyn Executor,
    e: &Enumeration,
    opts: &Options,
    inputs: &InputValues,
    max_epochs: usize,
) -> Followed {
    let mut out = Followed {
        pairs: Vec::new(),
        end: Stop::TooLong(max_epochs),
    };
    let mut chain: Vec<HbSchedule> = Vec::new();
    let mut epoch = 0;
    while chain.len() < max_epochs {
        let k = chain.len();
        let probe = match k {
            0 => first_epoch(exec, opts, inputs),
            _ => exec.run_constrained_past(&chain, inputs),
        };
        let probe = match probe {
            Ok(p) => p,
            Err(why) => {
                out.end = Stop::Error(why);
                return out;
            }
        };
        if let Some(d) = probe.divergence {
            out.end = Stop::Diverged(d);
            return out;
        }
        let threads = match k {
            0 => BTreeMap::new(),
            _ => bind_threads(e, epoch, &probe.trace.epochs[k - 1].contexts, opts),
        };
        let state = state_at(&probe.trace, k, e.epochs[epoch].depth, &threads);
        let Some(i) = choose(e, epoch, &state) else {
            out.end = Stop::Uncovered { epoch, state };
            return out;
        };
        out.pairs.push(i);
        let pair = &e.pairs[i];
        let run_tid = |t: usize| {
            (threads.iter())
                .find(|(_, &mine)| mine == t)
                .map_or(t, |(&run, _)| run)
        };
        chain.push(pair.schedule.renumbered(run_tid));
        match pair.next_epoch {
            Some(next) => epoch = next,
            None => {
                out.end = match exec.run_constrained_epochs(&chain, inputs) {
                    Ok(ran) => Stop::Ran(Box::new(ran)),
                    Err(why) => Stop::Error(why),
                };
                return out;
            }
        }
    }
    out
}

/// The first epoch as the enumeration runs it: to the first boundary, or the end.
fn first_epoch(
    exec: &mut dyn Executor,
    opts: &Options,
    inputs: &InputValues,
) -> Result<Replayed, String> {
    let guide = Guide {
        inputs: inputs.clone(),
        ..Guide::default()
    };
    match opts.epochs {
        true => {
            let epochs = Epochs {
                stop_at: Some(1),
                no_lockstep: !opts.lockstep,
            };
            exec.run_epochs(&guide, &epochs)
        }
        false => exec.run(&guide),
    }
}

/// Symbolic thread ids bound to the run's threads (§3.6.2): each of the run's threads, by
/// id, to the thread of the epoch's first way there in the same context (ties in order of
/// id). With concrete thread ids the epoch's name fixes every thread: none is renamed.
fn bind_threads(
    e: &Enumeration,
    epoch: usize,
    run: &[(usize, String)],
    opts: &Options,
) -> BTreeMap<usize, usize> {
    let mut free: Vec<(usize, String)> = e.epochs[epoch].contexts.clone();
    let mut out = BTreeMap::new();
    for (t, context) in run {
        if !opts.symbolic_tids {
            out.insert(*t, *t);
            continue;
        }
        if let Some(at) = free.iter().position(|(_, c)| c == context) {
            out.insert(*t, free.remove(at).0);
        }
    }
    out
}

/// The state a run's trace shows at its `k`-th boundary, named as the constraints of an epoch
/// enumerated at `depth` name it: the program's inputs, and what the boundary havocked with
/// the run's threads renamed by `threads` (in the first epoch, abstracted results too).
fn state_at(
    trace: &symx::trace::Trace,
    k: usize,
    depth: u32,
    threads: &BTreeMap<usize, usize>,
) -> InputValues {
    let mut state = InputValues::new();
    for input in &trace.inputs {
        let name = match input.name.split_once('@') {
            None => Some(input.name.clone()),
            Some(_) if k == 0 => Some(input.name.clone()),
            Some((base, at)) => havocked_at(base, at, k, depth, threads),
        };
        if let Some(name) = name {
            state.insert(name, input.value);
        }
    }
    state
}

/// `base@<k>.t<thread>` or `base@<k>.l<line>` of boundary `k`, renamed to `depth` and the
/// epoch's threads; `None` for anything else (an earlier boundary's, an abstracted result).
fn havocked_at(
    base: &str,
    at: &str,
    k: usize,
    depth: u32,
    threads: &BTreeMap<usize, usize>,
) -> Option<String> {
    let (boundary, rest) = at.split_once('.')?;
    if boundary.parse::<usize>().ok()? != k {
        return None;
    }
    let rest = match rest.strip_prefix('t') {
        Some(t) => format!("t{}", threads.get(&t.parse().ok()?)?),
        None => rest.to_string(),
    };
    Some(format!("{base}@{depth}.{rest}"))
}

/// The first pair of `epoch` whose constraint `state` satisfies (a value the state does not
/// give is free).
fn choose(e: &Enumeration, epoch: usize, state: &InputValues) -> Option<usize> {
    let fixed: Vec<Bool> = (state.iter())
        .filter_map(|(name, &value)| {
            let ty = *e.inputs.get(name)?;
            Some(input_var(name, ty).eq(constant(ty, value)))
        })
        .collect();
    let mut smt = Smt::new(None);
    (e.pairs.iter().enumerate())
        .filter(|(_, p)| p.epoch == epoch)
        .find(|(_, p)| {
            let mut query = fixed.clone();
            query.push(p.constraint.clone());
            matches!(smt.check(&query), Answer::Sat(_))
        })
        .map(|(i, _)| i)
}
