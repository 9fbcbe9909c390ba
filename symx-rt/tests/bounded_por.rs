//! Differential test of the bounded partial-order reduction (strategy `dpor` with a preemption
//! bound, or with spurious wake-ups) against plain DFS under the same settings and against the
//! unbounded optimal DPOR, on random small programs (the generator of `dpor_vs_dfs`).
//!
//! For every program, bound (0, 1 or 2, by seed) and spurious wake-ups (on for a quarter of
//! the seeds, where a second comparison runs both without a bound):
//! - the reduction finds a failure of the program's one possible kind exactly when the DFS
//!   does (the bug sets agree);
//! - without a failure, every Mazurkiewicz trace the DFS runs, the reduction runs too
//!   (complete for the bound), and it reaches every final state the DFS reaches (the only
//!   check of completeness in `Family::Untouched`, whose object ids differ between executions
//!   of one trace);
//! - it runs no more executions than the DFS on each program, and over all programs no more
//!   than the unbounded optimal DPOR. The programs where it runs more than the optimal DPOR,
//!   and the traces it runs more than once, are counted and printed: bounded partial-order
//!   reduction does not promise either per program. With spurious wake-ups, which the optimal
//!   DPOR does not explore, the programs where the bound made it run more executions than the
//!   same test's unbounded exploration (the reduction with spurious wake-ups, no bound) are
//!   counted too.
//!
//! A disagreement is reported with the seed and the smallest program shrunk from it.

#[allow(dead_code)]
mod random_programs;

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use random_programs::{
    canonical_ignoring_fairness as canonical, generate, run, show, shrink, take_final, Family,
    FinalState, Program,
};
use symx::__private::{explore_observed, ObservedStep};
use symx::{Builder, FailureKind, Report, Strategy};

/// More executions than this in the bounded DFS and the program is skipped (and counted).
const MAX_EXECUTIONS: u64 = 100_000;

/// Steps of one execution past which it is a step-limit failure. Two waiters that wake
/// spuriously can keep each other going for ever (each one's re-check is a step that lets the
/// other wake again); the default limit of 100,000 steps made each such execution cost seconds
/// in the reduction's analysis. The programs' real executions have well under 100 steps.
const MAX_STEPS: u64 = 5_000;

struct Run {
    report: Report,
    /// How many executions ran each distinct trace (canonical form), tallied as they come:
    /// the larger runs would not fit in memory as a list of every execution's trace.
    traces: HashMap<Vec<ObservedStep>, u64>,
    /// The final states reached (compared where object ids are not stable, `Family::Untouched`).
    states: HashSet<FinalState>,
}

fn explore(p: &Program, strategy: Strategy, bound: Option<u32>, spurious: bool) -> Run {
    let builder = Builder::new()
        .strategy(strategy)
        .preemption_bound(bound)
        .spurious_wakeups(spurious)
        .max_executions(Some(MAX_EXECUTIONS))
        .max_steps(MAX_STEPS);
    let mut traces = HashMap::new();
    let mut states = HashSet::new();
    take_final();
    let report = explore_observed(
        &builder,
        || run(p),
        |steps| {
            *traces.entry(canonical(steps)).or_insert(0) += 1;
            states.extend(take_final());
        },
    );
    take_final();
    Run {
        report,
        traces,
        states,
    }
}

fn kind(r: &Report) -> Option<FailureKind> {
    r.failure().map(|f| f.kind())
}

#[derive(Default)]
struct Stats {
    programs: u64,
    skipped: u64,
    failing: u64,
    dfs: u64,
    bpor: u64,
    dpor: u64,
    /// Programs where the reduction ran more executions than the unbounded optimal DPOR.
    over_dpor: u64,
    /// Of those, the programs explored with spurious wake-ups, which the optimal DPOR explores
    /// without (it has no spurious wake-ups, `explore::make`), and of these the ones where
    /// the reduction ran more distinct traces than the optimal DPOR ran executions.
    over_spurious: u64,
    over_traces: u64,
    /// With spurious wake-ups, the comparison with the same test's own unbounded exploration
    /// (the reduction without a bound, with spurious wake-ups too): of the programs compared,
    /// those where the bound made the reduction run more executions than that.
    spurious_compared: u64,
    over_unbounded: u64,
    /// Of the others, per program, the reduction's and the optimal DPOR's executions.
    over_by: Vec<(u64, u64)>,
    /// Programs where it ran more executions than the DFS under the same settings.
    over_dfs: u64,
    /// Traces the reduction ran more than once, summed over programs.
    repeated: u64,
}

/// Every way the reduction disagrees with the DFS on `p` under `bound` and `spurious`.
fn compare(p: &Program, bound: Option<u32>, spurious: bool, stats: &mut Stats) -> Vec<String> {
    let dfs = explore(p, Strategy::Dfs, bound, spurious);
    // Too large, or a livelock of spurious wake-ups (no execution ends): skipped.
    if kind(&dfs.report) == Some(FailureKind::StepLimit)
        || dfs.report.failure().is_none() && !dfs.report.complete()
    {
        stats.skipped += 1;
        return Vec::new();
    }
    let bpor = explore(p, Strategy::Dpor, bound, spurious);
    stats.programs += 1;
    let at = format!("bound {bound:?}, spurious wake-ups {spurious}");
    let mut problems = Vec::new();
    if kind(&dfs.report) != kind(&bpor.report) {
        problems.push(format!(
            "{at}: DFS found {:?} in {} executions, the reduction {:?}{}",
            kind(&dfs.report),
            dfs.report.executions(),
            kind(&bpor.report),
            bpor.report
                .failure()
                .map(|f| format!(" with {} preemptions:\n{f}", f.preemptions()))
                .unwrap_or_default()
        ));
    }
    if dfs.report.failure().is_some() || bpor.report.failure().is_some() {
        stats.failing += 1;
        return problems;
    }
    if !bpor.report.complete() {
        problems.push(format!("{at}: the reduction stopped early"));
    }
    let missed_states = dfs.states.difference(&bpor.states).count();
    if missed_states > 0 {
        problems.push(format!(
            "{at}: the reduction missed {missed_states} of the DFS's {} final states",
            dfs.states.len()
        ));
    }
    // Object ids are stable only where main touched every object first; a woken thread's
    // changes are no steps of `canonical`'s traces (`dpor_vs_dfs.rs` compares them with
    // `canonical_with_changes`), so `Woken` programs compare final states.
    let stable_ids = !(p.family == Family::Untouched || p.family.has_arcs());
    let missing: Vec<&Vec<ObservedStep>> = (dfs.traces.keys())
        .filter(|t| stable_ids && !bpor.traces.contains_key(*t))
        .collect();
    if let Some(first) = missing.first() {
        problems.push(format!(
            "{at}: the reduction missed {} of the DFS's traces, e.g. {}",
            missing.len(),
            show(first)
        ));
    }
    let dpor = explore(p, Strategy::Dpor, None, false);
    stats.dfs += dfs.report.executions();
    stats.bpor += bpor.report.executions();
    stats.dpor += dpor.report.executions();
    stats.repeated += bpor.traces.values().filter(|&&n| n > 1).count() as u64;
    if dpor.report.failure().is_none() && bpor.report.executions() > dpor.report.executions() {
        stats.over_dpor += 1;
        if spurious {
            stats.over_spurious += 1;
            let traces = bpor.traces.len() as u64;
            stats.over_traces += u64::from(traces > dpor.report.executions());
        } else {
            (stats.over_by).push((bpor.report.executions(), dpor.report.executions()));
        }
    }
    if bpor.report.executions() > dfs.report.executions() {
        stats.over_dfs += 1;
        problems.push(format!(
            "{at}: the reduction ran {} executions, the DFS {}",
            bpor.report.executions(),
            dfs.report.executions()
        ));
    }
    problems
}

/// Every disagreement on `p` for its seed's settings.
fn compare_seed(p: &Program, seed: u64, stats: &mut Stats) -> Vec<String> {
    let bound = (seed % 3) as u32;
    let spurious = (seed / 3) % 4 == 3;
    let before = stats.bpor;
    let mut problems = compare(p, Some(bound), spurious, stats);
    if spurious {
        let bounded = stats.bpor - before;
        problems.extend(compare(p, None, true, stats));
        let unbounded = stats.bpor - before - bounded;
        if bounded > 0 && unbounded > 0 {
            stats.spurious_compared += 1;
            stats.over_unbounded += u64::from(bounded > unbounded);
        }
    }
    problems
}

fn check_many(families: &[Family], first: u64, count: u64, max_interleavings: f64, progress: bool) {
    let start = Instant::now();
    let mut stats = Stats::default();
    let mut reports = Vec::new();
    for &family in families {
        for seed in first..first + count {
            let p = generate(seed, family, max_interleavings);
            let (dfs, bpor, dpor) = (stats.dfs, stats.bpor, stats.dpor);
            let problems = compare_seed(&p, seed, &mut stats);
            if progress {
                eprintln!(
                    "seed {seed} {family:?}: DFS {}, reduction {}, optimal DPOR {} executions; \
                     {}; {:.0?}",
                    stats.dfs - dfs,
                    stats.bpor - bpor,
                    stats.dpor - dpor,
                    memory(),
                    start.elapsed()
                );
            }
            if problems.is_empty() {
                continue;
            }
            if reports.len() >= 3 {
                reports.push(format!(
                    "seed {seed}, family {family:?}: {}",
                    problems.join("; ")
                ));
                continue;
            }
            let small = shrink(&p, |q| {
                !compare_seed(q, seed, &mut Stats::default()).is_empty()
            });
            let again = compare_seed(&small, seed, &mut Stats::default());
            reports.push(format!(
                "seed {seed}, family {family:?}:\n{p:?}\n{}\nshrunk to:\n{small:?}\n{}",
                problems.join("\n"),
                again.join("\n")
            ));
        }
    }
    println!(
        "{} comparisons ({} with a failure), {} skipped; executions without a failure: \
         DFS {}, reduction {}, unbounded optimal DPOR {}; the reduction ran more than the \
         optimal DPOR on {} programs, more than the DFS on {}, and {} traces more than once; \
         {:.1?}",
        stats.programs,
        stats.failing,
        stats.skipped,
        stats.dfs,
        stats.bpor,
        stats.dpor,
        stats.over_dpor,
        stats.over_dfs,
        stats.repeated,
        start.elapsed()
    );
    if stats.over_dpor > 0 {
        println!(
            "of the {} over the optimal DPOR, {} with spurious wake-ups ({} with more distinct \
             traces than its executions); the {} others {}",
            stats.over_dpor,
            stats.over_spurious,
            stats.over_traces,
            stats.over_by.len(),
            over_by(&stats.over_by)
        );
    }
    if stats.spurious_compared > 0 {
        println!(
            "with spurious wake-ups, against the same test's unbounded exploration (spurious \
             wake-ups too): {} of {} programs over it under the bound",
            stats.over_unbounded, stats.spurious_compared
        );
    }
    assert!(
        reports.is_empty(),
        "{} programs disagree:\n\n{}",
        reports.len(),
        reports.join("\n\n")
    );
    assert!(
        stats.programs >= count * families.len() as u64 * 9 / 10,
        "too many programs skipped"
    );
    assert!(stats.bpor <= stats.dfs, "more executions than the DFS");
    assert!(
        stats.bpor <= stats.dpor,
        "more executions than the optimal DPOR"
    );
}

/// How far over the optimal DPOR the programs over it are (`over`: per program, the
/// reduction's and the optimal DPOR's executions): how many by each excess, and by each ratio
/// (the worst: 0.00 when none is over).
fn over_by(over: &[(u64, u64)]) -> String {
    let excess: &[(u64, &str)] = &[(1, "1"), (2, "2"), (3, "3"), (5, "4-5"), (10, "6-10")];
    let mut by_excess = vec![0; excess.len() + 1];
    let ratios: &[(f64, &str)] = &[(1.05, "1.05"), (1.1, "1.1"), (1.25, "1.25"), (1.5, "1.5")];
    let mut by_ratio = vec![0; ratios.len() + 1];
    let mut worst = (0.0, 0, 0);
    for &(bpor, dpor) in over {
        by_excess[excess.partition_point(|&(e, _)| e < bpor - dpor)] += 1;
        let ratio = bpor as f64 / dpor as f64;
        by_ratio[ratios.partition_point(|&(r, _)| r < ratio)] += 1;
        if ratio > worst.0 {
            worst = (ratio, bpor, dpor);
        }
    }
    let show = |names: Vec<&str>, counts: &[u64], last: &str| {
        (names.iter().chain([&last]).zip(counts))
            .map(|(n, c)| format!("{n}: {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "are over it by (executions) {}; by ratio up to {}; worst {:.2} ({} / {})",
        show(excess.iter().map(|e| e.1).collect(), &by_excess, "more"),
        show(ratios.iter().map(|r| r.1).collect(), &by_ratio, "more"),
        worst.0,
        worst.1,
        worst.2
    )
}

/// The process's resident and peak resident memory (Linux; empty elsewhere), for the progress
/// lines of the long runs.
fn memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map_or("?".to_string(), |v| v.trim().to_string())
    };
    format!("RSS {}, peak {}", field("VmRSS:"), field("VmHWM:"))
}

// 500 programs in two halves, so that the test harness runs them side by side.
#[test]
fn bounded_dpor_agrees_with_bounded_dfs_on_random_programs() {
    check_many(&Family::ALL, 0, 63, 2_000.0, false);
}

#[test]
fn bounded_dpor_agrees_with_bounded_dfs_on_more_random_programs() {
    check_many(&Family::ALL, 63, 62, 2_000.0, false);
}

/// Programs that yield and spin (`Family::Yielding`; the other families never yield): every
/// trace and final state of the DFS, at bounds 0 to 2 and with spurious wake-ups on a
/// quarter, as `random_programs`. Before the reduction modelled the scheduler's fairness rule
/// (as the optimal DPOR does) it missed final states of 2 of these 248 comparisons (see
/// [`a_yield_races_with_the_steps_that_let_its_thread_go`]).
#[test]
fn programs_that_yield() {
    check_many(&[Family::Yielding], 0, 200, 2_000.0, false);
}

/// 2,000 larger programs that yield (release: `cargo test --release -p symx-rt --test
/// bounded_por -- --ignored --nocapture many_programs_that_yield`).
#[test]
#[ignore = "long: 2,000 larger programs that yield"]
fn many_programs_that_yield() {
    check_many(&[Family::Yielding], 1_000, 2_000, 20_000.0, true);
}

/// The smallest program of `Family::Yielding` whose final state the reduction missed before it
/// modelled the fairness rule (shrunk from the first 200 seeds; without a bound, with spurious
/// wake-ups on, where the reduction is the classic DPOR with sleep sets; a program missed at
/// bound 0 shrank to another): thread 1 swaps `x` to 2; thread 2 yields, then spawns a
/// child that compare-exchanges `x` from 2 to 3, adds 2 to `x` and joins the child. Whether
/// the child's compare-exchange succeeds depends on where thread 2's yield falls against
/// thread 1's swap: a yield gives way until another thread changes something, so the swap
/// lets thread 2 go. A yield touches no object, so no race showed that order until a yield
/// wrote the fairness object and a step that changes something read it.
#[test]
fn a_yield_races_with_the_steps_that_let_its_thread_go() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Yielding,
        atomics: 1,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Swap(0, 2))],
            vec![
                Yield,
                SpawnJoin {
                    child: vec![Atomic(Cas(0, 2, 3))],
                    between: vec![Atomic(FetchAdd(0, 2))],
                },
            ],
        ],
    };
    for (bound, spurious) in [(Some(0), false), (None, true), (Some(1), false)] {
        let dfs = explore(&p, Strategy::Dfs, bound, spurious);
        let bpor = explore(&p, Strategy::Dpor, bound, spurious);
        let at = format!("bound {bound:?}, spurious wake-ups {spurious}");
        assert_eq!(dfs.states.difference(&bpor.states).count(), 0, "{at}");
    }
}

/// Objects used first by whichever thread runs first (`Family::Untouched`, final states
/// compared): a sleeping event names its object as its own branch did, and a step on the
/// object under another name did not wake it before a first use woke every sleeper.
#[test]
fn bounded_dpor_agrees_with_bounded_dfs_on_objects_used_first_by_any_thread() {
    check_many(&[Family::Untouched], 0, 150, 2_000.0, false);
}

/// Threads that change objects in code right after a wait returns (`Family::Woken`: `Arc`
/// counts read and references dropped after joins that waited; final states compared): the
/// bounded reduction races those changes apart from the waking step (`apart::Part::Woken`) and
/// with their past (`look::Look::races_with_pasts`), orders the reversed sequence's events
/// after them (`bounded::initials`), and a sleeping event carries those that come with it
/// where it runs later (`bounded::waits`).
#[test]
fn bounded_dpor_on_programs_with_woken_changes() {
    check_many(&[Family::Woken], 0, 150, 2_000.0, false);
}

/// Threads that branch on a value just read (`Family::Branching`: a load's, a swap's, a
/// compare-exchange's success, a lock's guarded value), with arms that drop `Arc` references,
/// read counts or store: the code after an operation changes other objects depending on what
/// the operation returned (final states compared, as for `Family::Woken`).
#[test]
fn bounded_dpor_on_programs_that_branch() {
    check_many(&[Family::Branching], 0, 150, 2_000.0, false);
}

/// Larger `Family::Woken` programs (seeds of session 18's search, up to 10,000 interleavings,
/// bounds 0 to 3) on which the bounded reduction missed a final state of the bounded DFS
/// until session 19: a change's races with its past, a race's second event taking its changes
/// along, and sleeping ends carrying their joiners' changes (the three tests above
/// `a_conservative_point_no_cut_needs_is_not_run`, shrunk from these seeds and a fresh one).
#[test]
fn larger_programs_with_woken_changes_once_missed() {
    let mut problems = Vec::new();
    for seed in [20_059, 20_060, 20_120, 20_129] {
        let p = generate(seed, Family::Woken, 10_000.0);
        for bound in 0..=3 {
            let found = compare(&p, Some(bound), false, &mut Stats::default());
            problems.extend(found.into_iter().map(|pr| format!("seed {seed}: {pr}")));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `Family::Woken` programs of the fresh-seed searches (`seed_range` at 5,000 interleavings,
/// bounds 0 to 3 and without a bound with spurious wake-ups) on which the bounded reduction
/// missed a final state of the bounded DFS until session 20: of session 19's (seeds 8,000,000
/// to 8,001,999), 8,001,262 at bounds 2 and 3 and without a bound (2 of 26) and 8,001,284
/// without a bound (1 of 95); of session 20's (8,002,000 to 8,011,999), 8,003,964 without a
/// bound (1 of 57) and 8,006,623 at bound 3 and without a bound (1 of 54). Each was a `try_lock`
/// moved by a reversal, which may get the other result where it lands
/// (`a_moved_try_lock_takes_the_other_path`, shrunk from the first two).
#[test]
fn fresh_programs_with_woken_changes_once_missed() {
    for (seed, bound, states, executions) in [
        (8_001_262, Some(2), 26, (86, 30)),
        (8_001_262, Some(3), 26, (120, 30)),
        (8_001_262, None, 26, (124, 30)),
        (8_001_284, None, 95, (892, 121)),
        (8_003_964, None, 57, (236, 78)),
        (8_006_623, Some(3), 54, (490, 65)),
        (8_006_623, None, 54, (500, 64)),
    ] {
        let p = generate(seed, Family::Woken, 5_000.0);
        reaches_every_state(&p, bound, states, executions);
    }
}

/// A `try_lock` that a reversal moves before an operation on its mutex may get the other
/// result there, and its step's code take the other path: the initials of the reversed
/// sequence take it to change anything such code can (`events::Access::Touches`,
/// `bounded::initials`), as the optimal DPOR's wakeup sequences do. `succeeds`: `t1: x = 1`,
/// `t2: if m.try_lock() { drop(arc0) }; x.cas(0, 3)`, `t3: x.cas(0, 1); lock m {}`. The final
/// state where main reads the counts after `t1`'s end with `t2`'s reference still held and
/// `t2`'s section between `t3`'s compare-exchange and lock needs `t1` at the state after
/// `t3`'s compare-exchange; the race of `t2`'s `try_lock`, failed inside `t3`'s section, with
/// `t3`'s lock took `t2` for an initial of `t1.t2` (as it ran, it dropped nothing), asleep
/// there, for cover. 24 of the DFS's 26 final states before at bound 2 and without a bound
/// (seed 8,001,262, shrunk). `fails`: `t1: x.cas(2, 1)`, `t2: x += 2; spawn c { x = 2 };
/// try_lock m {}; join c`, `t3: lock m { x += 1 }; x.swap(3)`: the `try_lock` that succeeded,
/// moved inside `t3`'s section, fails, and its step joins the child that ended and ends `t2`
/// (dropping its references; main, waiting for it, reads the counts). 91 of 92 without a
/// bound before (seed 8,001,284, shrunk).
#[test]
fn a_moved_try_lock_takes_the_other_path() {
    use random_programs::{AtomicOp::*, Op::*};
    let succeeds = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Atomic(Store(0, 1))],
            vec![
                TryLocked {
                    mutex: 0,
                    add: 1,
                    body: vec![Release { arc: 0 }],
                },
                Atomic(Cas(0, 0, 3)),
            ],
            vec![
                Atomic(Cas(0, 0, 1)),
                Locked {
                    mutex: 0,
                    add: 1,
                    body: vec![],
                },
            ],
        ],
    };
    let fails = Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Atomic(Cas(0, 2, 1))],
            vec![
                Atomic(FetchAdd(0, 2)),
                SpawnJoin {
                    child: vec![Atomic(Store(0, 2))],
                    between: vec![TryLocked {
                        mutex: 0,
                        add: 2,
                        body: vec![],
                    }],
                },
            ],
            vec![
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![Atomic(FetchAdd(0, 1))],
                },
                Atomic(Swap(0, 3)),
            ],
        ],
    };
    reaches_every_state(&succeeds, Some(2), 26, (67, 30));
    reaches_every_state(&succeeds, None, 26, (89, 30));
    reaches_every_state(&fails, None, 92, (892, 121));
}

/// A step whose code joined a thread that had ended and then changed objects could have come to
/// the join before that thread's end and waited, and the switch away from it would then have
/// been free (`bounded::look::Look::joined_earlier`): `t1: x += 1`, `t2: spawn c { load x;
/// x.swap(3) }; y += 1; join c; drop(arc1); y = 2`, bound 0. The final state where main reads
/// the `Arc` counts after `t1`'s end with `t2`'s drop before them and its end after them, and
/// `c`'s load before `t1`'s add, has one schedule within the bound: `t2`'s add, blocking in
/// the join, `c`, whose end wakes `t2` (its drop), then `t1` (free: `c` ended) and `t2`'s
/// store. The race of the drop with main's reads asked for `t2` before `t1` only where `c` had
/// ended already, where `t2` runs on to its end. 3 of the DFS's 4 final states before (seed
/// 8,003,450 of `Family::Woken` at 5,000 interleavings, session 20's fresh-seed search, is this
/// very program); 4 in 5 executions now, as many as the optimal DPOR. With two adds before the
/// join, `t2`'s first add can run after `c`'s end too, and `t2` must be asked for before it:
/// the rule asking only after `t2`'s previous event missed the state there.
#[test]
fn a_join_that_did_not_wait_could_have_waited() {
    use random_programs::{AtomicOp::*, Op::*};
    for adds in [1, 2] {
        let p = Program {
            family: Family::Woken,
            atomics: 2,
            mutexes: 0,
            condvar: false,
            threads: vec![
                vec![Atomic(FetchAdd(0, 1))],
                vec![
                    SpawnJoin {
                        child: vec![Atomic(Load(0)), Atomic(Swap(0, 3))],
                        between: vec![Atomic(FetchAdd(1, 1)); adds],
                    },
                    Release { arc: 1 },
                    Atomic(Store(1, 2)),
                ],
            ],
        };
        reaches_every_state(&p, Some(0), 4, (7, 5));
    }
}

/// Found after session 20's rules landed together: seed 8,009,321 of `Family::Woken` (5,000
/// interleavings) missed 1 of the bounded DFS's 18 final states at bounds 2 and 3 with a
/// race's own point under a bound asking for its own thread alone; main 0570580 reached it.
/// Shrunk (bound 2): `t1: x += 1`, `t2: y += 1; spawn c { x = 2 }; y.cas(2, 3); join c; y =
/// 2`, `t3: y = 2`, 1 of 17 missed. The point asks for an initial as well now
/// (`Node::ask_initials`); this fails with that line reverted.
#[test]
fn a_race_under_a_bound_asks_for_an_initial_as_well() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(FetchAdd(0, 1))],
            vec![
                Atomic(FetchAdd(1, 1)),
                SpawnJoin {
                    child: vec![Atomic(Store(0, 2))],
                    between: vec![Atomic(Cas(1, 2, 3))],
                },
                Atomic(Store(1, 2)),
            ],
            vec![Atomic(Store(1, 2))],
        ],
    };
    let problems = compare(&p, Some(2), false, &mut Stats::default());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Under a bound a race's own point asks for its own thread where it is awake there
/// (`bounded::node::Node::ask_initials`), not for any initial of the reversed sequence:
/// without a bound one initial's branch covers the reversal, under a bound only through the
/// schedules that start with it, which may cost more. Found by session 19's fresh-seed search
/// (seed 41,194 of `Asserting`, `Awaiting` and `Untouched` at bound 1, the only one of 8,400
/// comparisons of seeds 41,000 to 41,699). Shrunk: `t1: lock m { m.data += 2 }; load x`,
/// `t2: load x; x += 1`, `t3: y += 1; if try_lock m { m.data += 2 }`, bound 1. The race of
/// `t3`'s `try_lock` with `t1`'s unlock has initials `t2` and `t3` at the unlock, and `t2` was
/// asked for there; but the final state where `t3`'s `try_lock` fails and `t1` loads `x`
/// before `t2` adds has only `t1: lock; t3: y += 1, try_lock fails, ends; t1: unlock, load x;
/// t2` within the bound (one preemption, from `t1` to `t3`): `t2` first at the unlock pays a
/// second one, from `t2` to `t3`. Until session 20 the reduction reached 5 of the DFS's 6
/// final states in 13 executions (the seed's program: 13 of 14), now all 6 in 16.
#[test]
fn a_race_under_a_bound_asks_for_its_own_thread() {
    use random_programs::{AtomicOp::*, Op};
    let locked = |try_lock: bool| {
        let (mutex, add, body) = (0, 2, vec![]);
        if try_lock {
            Op::TryLocked { mutex, add, body }
        } else {
            Op::Locked { mutex, add, body }
        }
    };
    let p = Program {
        family: Family::Asserting,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![locked(false), Op::Atomic(Load(0))],
            vec![Op::Atomic(Load(0)), Op::Atomic(FetchAdd(0, 1))],
            vec![Op::Atomic(FetchAdd(1, 1)), locked(true)],
        ],
    };
    reaches_every_state(&p, Some(1), 6, (32, 16));
    let mut problems = Vec::new();
    for family in [Family::Asserting, Family::Awaiting, Family::Untouched] {
        let p = generate(41_194, family, 5_000.0);
        let found = compare(&p, Some(1), false, &mut Stats::default());
        problems.extend(found.into_iter().map(|pr| format!("{family:?}: {pr}")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A conservative point asks, where the racing thread sleeps, for every thread that can run
/// (`bounded::node::Node::ask_conservative`): the sleeper covers only the traces it starts,
/// and the reversed trace may start with another thread. Found by session 20's fresh-seed
/// search (seeds 42,000 to 43,999 of six families at bounds 0 to 3: seed 43,084 of
/// `Yielding` missed a final state at every bound, 43,002 at bound 1; both missed on main
/// too). Shrunk (no yield left): `t1: y.swap(2)`, `t2: x.cas(0, 3); load y`, `t3: spawn-join
/// { x.swap(3) }; load y`, bound 0: the state where the child's swap comes before `t2`'s
/// compare-exchange, `t3` loads `y` before `t1`'s swap and `t2` after it needs, after the
/// child, `t3`, `t1`, `t2` in that order (each switch free, at an end). `t1` ran first at the
/// start and sleeps through the child's swap; the race of its swap with `t2`'s load (reversed
/// sequence: `t3`'s load, then the swap) is cut by the bound where it is (inside `t2`'s
/// run), and its conservative point at the start of `t2`'s run asked for `t1`, asleep there,
/// so nothing ran `t3` there. 6 of the DFS's 7 final states before, all 7 in 8 executions now.
#[test]
fn a_conservative_point_for_a_sleeping_thread_asks_for_every_thread() {
    use random_programs::{AtomicOp::*, Op};
    let child = vec![Op::Atomic(Swap(0, 3))];
    let p = Program {
        family: Family::Yielding,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Swap(1, 2))],
            vec![Op::Atomic(Cas(0, 0, 3)), Op::Atomic(Load(1))],
            vec![
                Op::SpawnJoin {
                    child,
                    between: vec![],
                },
                Op::Atomic(Load(1)),
            ],
        ],
    };
    reaches_every_state(&p, Some(0), 7, (12, 8));
    let mut problems = Vec::new();
    for (seed, bounds) in [(43_084, 0..=3), (43_002, 1..=1)] {
        let p = generate(seed, Family::Yielding, 5_000.0);
        for bound in bounds {
            let found = compare(&p, Some(bound), false, &mut Stats::default());
            problems.extend(found.into_iter().map(|pr| format!("seed {seed}: {pr}")));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Two more programs of session 20's fresh-seed search that main (0570580) missed at bound 0
/// and the rule of [`a_race_under_a_bound_asks_for_its_own_thread`] reaches (a race asks for
/// its own thread, not for another initial of the reversed sequence), shrunk. Seed 42,141 of
/// `Deadlocky`: `t1: lock m {}; load y`, `t2: y.swap(1)`, `t3: signal; load y` (1 of the
/// DFS's 4 final states missed before); seed 43,881 of `Asserting` (also `Awaiting` and
/// `Untouched`): `t1: load x; assert y == 2`, `t2: signal (notify_all); load y`, `t3:
/// y.swap(3)` (1 of its traces missed before).
#[test]
fn races_under_bound_0_ask_for_their_own_threads() {
    use random_programs::{AtomicOp::*, Op};
    let signal = |all: bool| Op::Signal { all, inside: false };
    let locked = Program {
        family: Family::Deadlocky,
        atomics: 2,
        mutexes: 2,
        condvar: true,
        threads: vec![
            vec![
                Op::Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![],
                },
                Op::Atomic(Load(1)),
            ],
            vec![Op::Atomic(Swap(1, 1))],
            vec![signal(false), Op::Atomic(Load(1))],
        ],
    };
    reaches_every_state(&locked, Some(0), 4, (6, 5));
    let asserting = Program {
        family: Family::Asserting,
        atomics: 2,
        mutexes: 0,
        condvar: true,
        threads: vec![
            vec![
                Op::Atomic(Load(0)),
                Op::Assert {
                    atomic: 1,
                    value: 2,
                },
            ],
            vec![signal(true), Op::Atomic(Load(1))],
            vec![Op::Atomic(Swap(1, 3))],
        ],
    };
    let problems = compare(&asserting, Some(0), false, &mut Stats::default());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// 3,000 larger programs of `Family::Untouched`: before the child-at-conservative-points
/// rule, all agreed but seed 3,799 (see
/// `a_thread_waiting_for_a_child_gets_the_child_at_its_conservative_points`).
#[test]
#[ignore = "long: 3,000 larger programs, about 30 s in release"]
fn bounded_dpor_agrees_with_bounded_dfs_on_more_programs_objects_used_first_by_any_thread() {
    check_many(&[Family::Untouched], 1_000, 3_000, 20_000.0, false);
}

/// Seed 3,799 of `Family::Untouched`, shrunk: the reduction missed one of the bounded DFS's
/// 10 final states at bound 1, also with every object touched first by main (so not a matter
/// of naming objects by first use): thread 1 loads `a` twice (a retry), then `try_lock`s twice;
/// thread 2 spawns a child that adds to `a`, joins it, compare-exchanges `b` (so that its
/// lock's own enabler is not the child's end), then locks. The missed schedule: thread
/// 1's two loads, a preemption to the child, thread 2's critical section (free: the child
/// ended), then thread 1. Thread 2's lock races with thread 1's first `try_lock` only once
/// the child runs after it, where the bound then hides thread 2; its conservative points come
/// before the child let thread 2 go, so they ask for the child there (see `backtrack::race`).
/// (Without the compare-exchange: 15 DFS executions; the reduction's 11 became 12.)
#[test]
fn a_thread_waiting_for_a_child_gets_the_child_at_its_conservative_points() {
    use random_programs::{AtomicOp::*, Op};
    for family in [Family::Untouched, Family::NoFail] {
        let p = Program {
            family,
            atomics: 2,
            mutexes: 1,
            condvar: false,
            threads: vec![
                vec![
                    Op::Retry {
                        atomic: 0,
                        value: 1,
                    },
                    Op::TryLocked {
                        mutex: 0,
                        add: 2,
                        body: vec![Op::Atomic(Load(0))],
                    },
                    Op::TryLocked {
                        mutex: 0,
                        add: 1,
                        body: vec![],
                    },
                ],
                vec![
                    Op::SpawnJoin {
                        child: vec![Op::Atomic(FetchAdd(0, 1))],
                        between: vec![],
                    },
                    Op::Atomic(Cas(1, 0, 2)),
                    Op::Locked {
                        mutex: 0,
                        add: 2,
                        body: vec![],
                    },
                ],
            ],
        };
        let problems = compare(&p, Some(1), false, &mut Stats::default());
        assert!(problems.is_empty(), "{family:?}: {}", problems.join("\n"));
    }
}

/// The smallest program (seed 147 of `Family::Untouched`, shrunk) whose final state the
/// first step's sleep lost, at bound 0: thread 1 ran first (a free choice) and slept in thread
/// 2's branch, whose `load, load, cas, swap` then needed a preemption of thread 1's that the
/// sleep rule assumed free. Session 10's narrower wake-up (waking at a first use only the
/// sleepers with a name not bound in this execution) missed it, which is how the first
/// step's sleep was found.
#[test]
fn the_first_step_puts_nothing_to_sleep() {
    use random_programs::{AtomicOp::*, Op};
    let p = Program {
        family: Family::Untouched,
        atomics: 1,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Load(0)), Op::Atomic(Cas(0, 0, 3))],
            vec![Op::Atomic(Load(0))],
            vec![Op::Atomic(Swap(0, 3))],
        ],
    };
    for bound in 0..=2 {
        let problems = compare(&p, Some(bound), false, &mut Stats::default());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}

/// Found by the `Awaiting` family (seed 106, shrunk): thread 2 takes the lock, loads 2
/// (thread 1's store) and blocks for good on `assume(v != 2)` while holding it, so thread 1's
/// `lock` is never a step and only its pending operation at the end shows the race of the two
/// acquisitions. The reduction once missed the trace where thread 1's critical section comes
/// between thread 2's add and its lock.
#[test]
fn a_thread_blocked_by_its_assume_holding_a_lock_is_explored() {
    runs_every_trace(&lock_held_by_a_failed_assume(false), None, true, (5, 9));
}

/// Thread `waiting_first as usize` adds, locks and waits for good on `assume(v != 2)`; the
/// other stores 2 and takes the same lock.
fn lock_held_by_a_failed_assume(waiting_first: bool) -> Program {
    use random_programs::{AtomicOp::*, Op::*};
    let stores = vec![
        Atomic(Store(0, 2)),
        Locked {
            mutex: 0,
            add: 2,
            body: vec![],
        },
    ];
    let waits = vec![
        Atomic(FetchAdd(0, 1)),
        Locked {
            mutex: 0,
            add: 2,
            body: vec![Await {
                atomic: 0,
                value: 2,
            }],
        },
    ];
    Program {
        family: Family::Awaiting,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: if waiting_first {
            vec![waits, stores]
        } else {
            vec![stores, waits]
        },
    }
}

/// 12,505 comparisons of larger programs (the numbers in the module doc of `explore/bounded`):
/// `cargo test --release -p symx-rt --test bounded_por -- --ignored --nocapture
/// larger_programs`, about 3 minutes.
#[test]
#[ignore = "long: about 3 minutes in release"]
fn bounded_dpor_agrees_with_bounded_dfs_on_larger_programs() {
    check_many(&Family::ALL, 5_000, 2_000, 5_000.0, false);
}

/// 12,500 programs of up to 20,000 interleavings, printing each program's counts and the
/// process's memory: `cargo test --release -p symx-rt --test bounded_por -- --ignored
/// --nocapture many_random_programs`, about 8 minutes, under 150 MB.
#[test]
#[ignore = "long: 12,500 larger programs, about 8 minutes in release"]
fn bounded_dpor_agrees_with_bounded_dfs_on_many_random_programs() {
    check_many(&Family::ALL, 1_000_000, 2_500, 20_000.0, true);
}

/// Compares the programs of fresh seeds at every bound asked for (the tests above take one
/// bound per seed, 0 to 2), to look for misses the fixed seeds do not show:
/// `SYMX_BPOR_FIRST=<seed> SYMX_BPOR_COUNT=<n> SYMX_BPOR_FAMILY=<family>[,<family>…]
/// SYMX_BPOR_BOUNDS=0,1,2,3 cargo test --release -p symx-rt --test bounded_por -- --ignored
/// --exact seed_range --nocapture`. `SYMX_BPOR_FAMILY` defaults to every family (the five of
/// `Family::ALL`, `Yielding`, `Untouched`, `Woken`, `Branching`), `SYMX_BPOR_BOUNDS` to 0 to
/// 3;
/// `SYMX_BPOR_MAX`: the programs' size in interleavings (5,000 by default, as the larger run);
/// `SYMX_BPOR_SPURIOUS=1` adds a comparison without a bound, spurious wake-ups on; and
/// `SYMX_BPOR_SHRINK=1` prints each missing program shrunk. Fails on any disagreement.
#[test]
#[ignore = "a search over fresh seeds; reads SYMX_BPOR_FIRST, SYMX_BPOR_COUNT and others"]
fn seed_range() {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let number = |name: &str| -> u64 {
        let v = var(name).unwrap_or_else(|| panic!("set {name}"));
        v.parse()
            .unwrap_or_else(|_| panic!("{name}: {v:?} is not a number"))
    };
    let (first, count) = (number("SYMX_BPOR_FIRST"), number("SYMX_BPOR_COUNT"));
    let more = [
        Family::Yielding,
        Family::Untouched,
        Family::Woken,
        Family::Branching,
    ];
    let all = (Family::ALL.into_iter()).chain(more);
    let families: Vec<Family> = match var("SYMX_BPOR_FAMILY") {
        None => all.collect(),
        Some(names) => (names.split(','))
            .map(|n| {
                (all.clone().find(|f| format!("{f:?}") == n))
                    .unwrap_or_else(|| panic!("SYMX_BPOR_FAMILY: no family {n:?}"))
            })
            .collect(),
    };
    let bounds: Vec<u32> = var("SYMX_BPOR_BOUNDS").map_or(vec![0, 1, 2, 3], |b| {
        (b.split(',')
            .map(|n| n.parse().expect("SYMX_BPOR_BOUNDS: numbers")))
        .collect()
    });
    let max = var("SYMX_BPOR_MAX").map_or(5_000.0, |m| m.parse().expect("SYMX_BPOR_MAX"));
    let spurious = var("SYMX_BPOR_SPURIOUS").is_some_and(|s| s == "1");
    let shrinking = var("SYMX_BPOR_SHRINK").is_some_and(|s| s == "1");
    let start = Instant::now();
    let mut missed = Vec::new();
    for &family in &families {
        let mut stats = Stats::default();
        for seed in first..first + count {
            let p = generate(seed, family, max);
            let settings =
                (bounds.iter().map(|&b| (Some(b), false))).chain(spurious.then_some((None, true)));
            for (bound, spurious) in settings {
                let problems = compare(&p, bound, spurious, &mut stats);
                if problems.is_empty() {
                    continue;
                }
                println!("seed {seed} {family:?}: {}", problems.join("; "));
                if shrinking {
                    let small = shrink(&p, |q| {
                        !compare(q, bound, spurious, &mut Stats::default()).is_empty()
                    });
                    println!("shrunk to:\n{small:?}");
                }
                missed.push((seed, family, bound));
            }
        }
        println!(
            "{family:?}: seeds {first}..{}, bounds {bounds:?}{}: {} comparisons ({} with a \
             failure), {} skipped; DFS {}, reduction {}, optimal DPOR {} executions; {} over \
             the optimal DPOR; {:.0?}",
            first + count,
            if spurious { " and spurious" } else { "" },
            stats.programs,
            stats.failing,
            stats.skipped,
            stats.dfs,
            stats.bpor,
            stats.dpor,
            stats.over_dpor,
            start.elapsed()
        );
    }
    assert!(missed.is_empty(), "seeds that disagree: {missed:?}");
}

/// The distinct traces (canonical forms) `p` runs under `strategy`, and its executions.
fn distinct_traces(
    p: &Program,
    strategy: Strategy,
    bound: Option<u32>,
    spurious: bool,
) -> (usize, u64) {
    let run = explore(p, strategy, bound, spurious);
    assert!(run.report.complete() && run.report.failure().is_none());
    (run.traces.len(), run.report.executions())
}

/// `p`'s (distinct traces, executions) under the unbounded optimal DPOR, the DFS under
/// `bound` and the reduction under `bound`, in that order: the three counts the small
/// programs below pin.
fn three_counts(p: &Program, bound: u32) -> [(usize, u64); 3] {
    [
        distinct_traces(p, Strategy::Dpor, None, false),
        distinct_traces(p, Strategy::Dfs, Some(bound), false),
        distinct_traces(p, Strategy::Dpor, Some(bound), false),
    ]
}

/// Smallest programs the reduction once missed traces of (found by the larger runs below and
/// shrunk), with spurious wake-ups on and no bound, where it is the classic reduction with
/// sleep sets: each must run every trace the DFS runs.
#[test]
fn the_smallest_programs_once_missed_run_every_trace() {
    use random_programs::{AtomicOp::*, Op::*};
    // A race reversed by running a thread that sleeps there: thread 1's compare-exchange
    // before thread 3's add needs thread 2's swap first (Flanagan and Godefroid add the racing
    // thread itself; the source-set rule adds an initial of the reversed sequence).
    let sleeping = Program {
        family: Family::AtomicsOnly,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Load(0)), Atomic(Cas(1, 1, 3))],
            vec![Atomic(Swap(0, 1))],
            vec![Atomic(Load(0)), Atomic(FetchAdd(1, 1))],
        ],
    };
    // A notify that ends a wait a spurious wake-up could have ended: the spurious wake-up is
    // then no longer pending, so no later step shows its race with the notify.
    let disabled = Program {
        family: Family::NoFail,
        atomics: 2,
        mutexes: 0,
        condvar: true,
        threads: vec![
            vec![WaitWhile],
            vec![Signal {
                all: false,
                inside: false,
            }],
        ],
    };
    runs_every_trace(&sleeping, None, true, (8, 30));
    runs_every_trace(&disabled, None, true, (5, 20));
}

/// Checks that the DFS runs `dfs` (distinct traces, executions) of `p` under `bound` and
/// `spurious`, and the reduction every one of those traces in no more executions.
fn runs_every_trace(p: &Program, bound: Option<u32>, spurious: bool, dfs: (usize, u64)) {
    assert_eq!(
        distinct_traces(p, Strategy::Dfs, bound, spurious),
        dfs,
        "{p:?}"
    );
    let (reduced, executions) = distinct_traces(p, Strategy::Dpor, bound, spurious);
    assert_eq!(reduced, dfs.0, "{p:?}");
    assert!(executions <= dfs.1, "{p:?}");
}

/// Smallest programs the reduction once missed traces of under a preemption bound of 1 (found
/// by the larger runs and shrunk): each trace's one schedule within the bound preempts a thread
/// so that another thread soon blocks (on a lock, on a join) and the switch back is free.
#[test]
fn the_smallest_programs_once_missed_under_a_bound_run_every_trace() {
    use random_programs::{AtomicOp::*, Op::*};
    // Thread 2's load between thread 1's store and add: thread 2 must run inside thread 1's
    // critical section, where its lock then blocks; the start of thread 1's run is too early.
    let inside = Program {
        family: Family::NoFail,
        atomics: 1,
        mutexes: 2,
        condvar: false,
        threads: vec![
            vec![
                Locked {
                    mutex: 1,
                    add: 2,
                    body: vec![Atomic(Store(0, 2))],
                },
                Atomic(FetchAdd(0, 1)),
            ],
            vec![
                Atomic(Load(0)),
                Locked {
                    mutex: 1,
                    add: 1,
                    body: vec![Atomic(Store(0, 1))],
                },
            ],
        ],
    };
    // Thread 3's swap inside thread 2's first critical section, then thread 2 on to its end:
    // the branch where thread 2 unlocks first must not put that unlock to sleep, since moving
    // it ahead of the swap lets thread 3's lock run and makes the switch back a preemption.
    let release = Program {
        family: Family::Deadlocky,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Atomic(Store(0, 1))],
            vec![
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![Atomic(FetchAdd(0, 1))],
                },
                Atomic(FetchAdd(0, 1)),
                TryLocked {
                    mutex: 0,
                    add: 1,
                    body: vec![],
                },
            ],
            vec![
                Atomic(Swap(0, 1)),
                Locked {
                    mutex: 0,
                    add: 1,
                    body: vec![],
                },
            ],
        ],
    };
    // Thread 1 preempts the child while it holds the lock, blocks on it, thread 2 loads and
    // blocks on the join: the reversal of thread 2's last compare-exchange and thread 1's swap
    // is out of the bound where they race and needs thread 1 that much earlier.
    let joined = Program {
        family: Family::NoFail,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                Atomic(Store(0, 1)),
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![Atomic(Swap(0, 3))],
                },
            ],
            vec![
                SpawnJoin {
                    child: vec![
                        Atomic(Cas(0, 1, 2)),
                        TryLocked {
                            mutex: 0,
                            add: 2,
                            body: vec![],
                        },
                    ],
                    between: vec![Atomic(Load(0))],
                },
                Atomic(Cas(0, 2, 2)),
            ],
        ],
    };
    runs_every_trace(&inside, Some(1), false, (5, 6));
    runs_every_trace(&release, Some(1), false, (22, 47));
    runs_every_trace(&joined, Some(1), true, (31, 53));
}

/// A thread that acquires a lock after another released it, but waits at that release (here
/// for its child's end, `look::Look::blocked_inside`): `t1: spawn-join { swap x }; x += 1;
/// lock m { store x }`, `t2: load x; lock m {}; store x`, bound 1. The trace where `t2`'s store
/// falls inside `t1`'s critical section fits the bound only by preempting `t2` inside its own
/// (before its unlock) for the child, whose end lets `t1` add and then block on `m`, a free
/// switch back. The rule asked for `t1` at the unlock only where `t1` can run there, and it
/// waits for its child: 11 of the 12 traces in 11 executions (found by a search of seeds
/// 21,000 to 21,399 at bounds 0 to 3, session 18; no differential's run had it). Now it asks
/// for the threads whose next events come before the acquisition and that can run there: 12
/// traces in 13 executions (the DFS 15, the unbounded optimal DPOR 13 for its 13 traces).
#[test]
fn a_thread_waiting_at_the_release_gets_what_it_waits_for() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::NoFail,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                SpawnJoin {
                    child: vec![Atomic(Swap(0, 3))],
                    between: vec![],
                },
                Atomic(FetchAdd(0, 1)),
                Locked {
                    mutex: 0,
                    add: 1,
                    body: vec![Atomic(Store(0, 2))],
                },
            ],
            vec![
                Atomic(Load(0)),
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![],
                },
                Atomic(Store(0, 1)),
            ],
        ],
    };
    assert_eq!(three_counts(&p, 1), [(13, 13), (12, 15), (12, 13)], "{p:?}");
}

/// `Family::Woken` (each thread holds the two `Arc`s to its end, main reads their counts after
/// each join, in code of no step: on the joined thread's last step as `Event::woke`):
/// `t1: load y`, `t2: x += 1`, `t3: y = 2; load x; y.swap(1)`, bound 1. The final state where
/// main reads the counts after `t1`'s end before `t2` ends needs `t1` right after `t3`'s store;
/// the race of `t3`'s load with `t2`'s add asks there for an initial of `t1.t2`, and `t2`'s end
/// (its drops) comes after main's reads on `t1`'s step, so `t1` is the only one. The initials
/// compared `t2` with `t1`'s step without those reads, took `t2` for one, and its sleep for
/// cover: 11 of the DFS's 12 final states, also without a bound (session 18). Now the events
/// of the reversed sequence come after the woken changes they conflict with
/// (`bounded::look::initials`).
#[test]
fn initials_follow_the_changes_of_woken_threads() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Load(1))],
            vec![Atomic(FetchAdd(0, 1))],
            vec![Atomic(Store(1, 2)), Atomic(Load(0)), Atomic(Swap(1, 1))],
        ],
    };
    for (bound, dfs, bpor) in [(Some(1), 18, 13), (None, 20, 13)] {
        let d = explore(&p, Strategy::Dfs, bound, bound.is_none());
        let b = explore(&p, Strategy::Dpor, bound, bound.is_none());
        assert_eq!(d.states.len(), 12, "bound {bound:?}");
        assert_eq!(b.states, d.states, "bound {bound:?}");
        assert_eq!(
            (d.report.executions(), b.report.executions()),
            (dfs, bpor),
            "bound {bound:?}"
        );
    }
}

/// Checks that the DFS reaches `states` final states of `p` under `bound` (none: spurious
/// wake-ups on), the reduction every one of them, and the two run `executions`.
fn reaches_every_state(p: &Program, bound: Option<u32>, states: usize, executions: (u64, u64)) {
    let d = explore(p, Strategy::Dfs, bound, bound.is_none());
    let b = explore(p, Strategy::Dpor, bound, bound.is_none());
    let at = format!("{p:?}, bound {bound:?}");
    assert_eq!(d.states.len(), states, "{at}");
    assert_eq!(b.states, d.states, "{at}");
    let counts = (d.report.executions(), b.report.executions());
    assert_eq!(counts, executions, "{at}");
}

/// A change apart from its step's operation comes after the step and after a past: what
/// main's code reads after a join that waited (the `Arc` counts of `Family::Woken`) comes after
/// the step that ended the joined thread and after main's last event; what a step's code
/// changes after joining a thread that had ended, after that thread's last event. An event
/// that conflicts with the change can come before it by coming before that past, and races
/// with it (`bounded::look::Look::races_with_pasts`). `t1: spawn c { load y }; load x;
/// join c`, `t2: y.cas(0, 2)`, bound 1: the final state where main reads the counts after
/// `t2`'s drops (its end), with `c`'s load before the compare-exchange, needs `t1`'s load
/// after `t2`'s end; the history raced `t2`'s drops only with `c`'s load, whose step carries
/// main's reads (`t1`'s end woke main). 2 of the DFS's 3 final states before (session 19, shrunk
/// from seed 20,060 of session 18's search). And `t1: y.cas(0, 2)`, `t2: spawn c { y.cas(2,
/// 1); load x }; y += 2; join c`, bound 2: `t2`'s drops after its join of an ended `c` race
/// with main's reads after `t1`'s end as with `c`'s load too (7 of 8 before).
#[test]
fn a_change_races_as_its_past() {
    use random_programs::{AtomicOp::*, Op::*};
    let woken = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![SpawnJoin {
                child: vec![Atomic(Load(1))],
                between: vec![Atomic(Load(0))],
            }],
            vec![Atomic(Cas(1, 0, 2))],
        ],
    };
    let joined = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Cas(1, 0, 2))],
            vec![SpawnJoin {
                child: vec![Atomic(Cas(1, 2, 1)), Atomic(Load(0))],
                between: vec![Atomic(FetchAdd(1, 2))],
            }],
        ],
    };
    for bound in [Some(1), None] {
        reaches_every_state(&woken, bound, 3, (6, 4));
    }
    for bound in [Some(2), None] {
        reaches_every_state(&joined, bound, 8, (12, 9));
    }
}

/// The race's second event takes the changes glued to its step along (what the code of the
/// threads it woke changes, whose past stays before the race's first event), and so comes after
/// the events of the reversed sequence they conflict with (`bounded::initials`): `t1: y.swap(3)`,
/// `t2: x.cas(2, 1); load y; y.cas(1, 1)`, `t3: x.swap(3)`, bound 1. The final state where main
/// reads the `Arc` counts after `t1`'s end, `t3` ended and `t2` not, with `t2`'s first
/// compare-exchange before `t3`'s swap, needs `t3` and `t1` between `t2`'s first two steps.
/// The race of `t2`'s load with `t1`'s swap, after `t3`'s, asked there for an initial of
/// `t3.t1`, and took `t1` for one, asleep from the branch where it ran first; but `t1`'s step
/// carries main's count reads, which come after `t3`'s drops. 11 of the DFS's 12 final states
/// before, also without a bound (session 19, shrunk from seed 8,000,161 of the fresh-seed
/// search).
#[test]
fn the_second_event_takes_its_woken_changes_along() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Swap(1, 3))],
            vec![Atomic(Cas(0, 2, 1)), Atomic(Load(1)), Atomic(Cas(1, 1, 1))],
            vec![Atomic(Swap(0, 3))],
        ],
    };
    reaches_every_state(&p, Some(1), 12, (18, 13));
    reaches_every_state(&p, None, 12, (20, 13));
}

/// A sleeping event whose thread's end a step it sleeps through made a joiner wait for carries
/// the joiner's changes from that step on (`bounded::waits::Waits`): `t1: y.cas(0, 2)`, `t2:
/// x += 2`, `t3: spawn c { y.cas(2, 1); load x }; y += 2; join c`, bound 2. The final state
/// where main reads the `Arc` counts after `t1`'s end before `t3`'s drops, with `c`'s load
/// before `t2`'s add, needs `c`'s load after `t3`'s add and `t1`'s end: there `c`'s end wakes
/// `t3`, whose drops come after main's reads. `c`'s load slept there, from the branch where it
/// ran right after `c`'s compare-exchange (where `t3`'s join found `c` ended and its drops came
/// in its own step), through `t3`'s add and `t1`'s end, which its event as it ran there commutes
/// with. 26 of the DFS's 27 final states before, also without a bound (session 19, shrunk from
/// seed 20,059 of session 18's search).
#[test]
fn a_sleeping_end_carries_what_its_joiner_changes() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Woken,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Cas(1, 0, 2))],
            vec![Atomic(FetchAdd(0, 2))],
            vec![SpawnJoin {
                child: vec![Atomic(Cas(1, 2, 1)), Atomic(Load(0))],
                between: vec![Atomic(FetchAdd(1, 2))],
            }],
        ],
    };
    for bound in [Some(2), None] {
        reaches_every_state(&p, bound, 27, (60, 31));
    }
}

/// `t1: store x; store y`, `t2: load y`, bound 1: two traces, both within the bound. The
/// race of `store y` and `load y` is reversed where it is (`t1, t2, t1`, spending the
/// preemption); its conservative point before `store x` (`t2, t1, t1`, the same trace) is
/// planted only if the scheduler hid a thread below it, and here the bound never cut anything:
/// two executions, as many as the optimal DPOR (before conservative points waited for a cut,
/// three).
#[test]
fn a_conservative_point_no_cut_needs_is_not_run() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::NoFail,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Store(0, 1)), Atomic(Store(1, 1))],
            vec![Atomic(Load(1))],
        ],
    };
    assert_eq!(three_counts(&p, 1), [(2, 2), (2, 3), (2, 2)]);
}

/// The smallest program of the CI test where the reduction runs more executions than the
/// optimal DPOR: `t1: lock m; load y; unlock m`, `t2: y += 2; x += 1`, bound 1, two traces.
/// The first execution runs t1 first; the race of `load y` with `y += 2` is reversed inside
/// the critical section (t2 runs after `lock`, spending the preemption, and then the bound
/// hides t1 while t2 runs on), so the conservative point before `lock` is planted and runs the
/// trace of t2 first a second time. Whether the cut mattered depends on what the
/// reversed branch would have needed, which nothing in it shows (see the module doc of the
/// bounded reduction).
#[test]
fn a_trace_can_run_twice_under_a_bound() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::NoFail,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![Locked {
                mutex: 0,
                add: 2,
                body: vec![Atomic(Load(1))],
            }],
            vec![Atomic(FetchAdd(1, 2)), Atomic(FetchAdd(0, 1))],
        ],
    };
    assert_eq!(three_counts(&p, 1), [(2, 2), (2, 5), (2, 3)]);
}

/// `t1: x.swap(1); x += 1; load y`, `t2: y.swap(1); x = 1; y = 2`, bound 2 (shrunk from
/// `generate(101, Family::NoFail, 2_000.0)`, the smallest of the 37 of seeds 0 to 299 of every
/// family, at the CI test's bounds, whose count `sleep::continue_half` lowers): 7 traces, 14
/// schedules within the bound. A thread half-asleep after a switch now continues down its run
/// while its steps commute with the branch's and release nothing (`continue_half`): 8
/// executions, 9 with half-sleeping for one step only (measured with the rule switched off in
/// a scratch build). One trace still runs twice; the optimal DPOR runs 7.
#[test]
fn a_half_asleep_thread_continues_down_its_run() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::NoFail,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Swap(0, 1)), Atomic(FetchAdd(0, 1)), Atomic(Load(1))],
            vec![Atomic(Swap(1, 1)), Atomic(Store(0, 1)), Atomic(Store(1, 2))],
        ],
    };
    assert_eq!(three_counts(&p, 2), [(7, 7), (7, 14), (7, 8)]);
}

/// `t1: x.swap(2); x.cas(0, 2)`, `t2: y.cas(0, 1); load x`, bound 1 (shrunk from seed 5,104 of
/// `Family::AtomicsOnly` of the larger runs): 3 traces (where `t2`'s load falls against
/// `t1`'s two steps). `t1` runs first, then `t2`'s branch (`cas y; load x; swap x; cas x`), where
/// the race of the load with the swap asks for `t1` after `cas y`. There `t1` is half-asleep
/// (its branch ran first, after a switch, and it could run on), and its run from there to its
/// end commutes with `cas y` and releases nothing: the branch would run `cas y; swap x; cas
/// x; load x`, the first execution's trace again, for one preemption, where `t1`'s branch ran
/// it for none (`bounded::sleep::runs_to_its_end`). 3 executions, as many as the optimal
/// DPOR; 4 before.
#[test]
fn a_half_asleep_thread_that_runs_to_its_end_is_covered() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::AtomicsOnly,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Swap(1, 2)), Atomic(Cas(1, 0, 2))],
            vec![Atomic(Cas(0, 0, 1)), Atomic(Load(1))],
        ],
    };
    assert_eq!(three_counts(&p, 1), [(3, 3), (3, 4), (3, 3)]);
}

/// `t1: lock m {}; x.cas(1, 1)`, `t2: x.cas(0, 1); x.swap(3)`, bound 1 (shrunk from seed
/// 5,026 of the larger runs): the race of the two compare-exchanges once also asked for `t2`
/// inside `t1`'s critical section, which ran `t2`'s events between `t1`'s `lock` and `unlock`:
/// the trace of the race's own point again, since `t2` never locks `m`. A point inside a
/// critical section is now asked only for a thread that acquires the lock after its release
/// (`bounded::look::Look::blocked_inside`): 4 executions instead of 5. One is still a
/// repeat, the conservative point before `lock` after the race's own point spent the
/// preemption (as in [`a_trace_can_run_twice_under_a_bound`]).
#[test]
fn a_thread_that_never_locks_is_not_run_inside_a_critical_section() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::NoFail,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                Locked {
                    mutex: 0,
                    add: 2,
                    body: vec![],
                },
                Atomic(Cas(0, 1, 1)),
            ],
            vec![Atomic(Cas(0, 0, 1)), Atomic(Swap(0, 3))],
        ],
    };
    assert_eq!(three_counts(&p, 1), [(3, 3), (3, 5), (3, 4)]);
}

/// The same program with its threads in the other order, under the optimal DPOR (no bound):
/// thread 1 takes the lock and blocks for good on its assume, so thread 2's `lock` never
/// becomes a step and its race with thread 1's acquisition shows only as the operation it
/// was left waiting to do. The optimal DPOR once ran 4 of the 5 traces here.
#[test]
fn the_optimal_dpor_reverses_races_with_operations_left_waiting() {
    for waiting_first in [true, false] {
        let p = lock_held_by_a_failed_assume(waiting_first);
        assert_eq!(distinct_traces(&p, Strategy::Dfs, None, false), (5, 9));
        assert_eq!(
            distinct_traces(&p, Strategy::Dpor, None, false),
            (5, 5),
            "{p:?}"
        );
    }
}

/// A single-producer single-consumer ring buffer of `capacity` slots (the bench's): the
/// producer pushes `items` values and the consumer pops them, each spinning with a yield
/// while the buffer is full or empty. The random programs never yield; a switch away from a
/// thread that yielded is free, like one away from a thread that blocked.
fn spsc(capacity: usize, items: usize) {
    use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use symx::thread;
    let slots: symx::sync::Arc<Vec<AtomicUsize>> =
        symx::sync::Arc::new((0..capacity).map(|_| AtomicUsize::new(0)).collect());
    let head = symx::sync::Arc::new(AtomicUsize::new(0));
    let tail = symx::sync::Arc::new(AtomicUsize::new(0));
    // Objects are numbered by first use: touch them in a fixed order first.
    for a in slots.iter().chain([&*head, &*tail]) {
        a.load(SeqCst);
    }
    let producer = {
        let (slots, head, tail) = (slots.clone(), head.clone(), tail.clone());
        thread::spawn(move || {
            for v in 1..=items {
                let t = tail.load(SeqCst);
                while t - head.load(SeqCst) == capacity {
                    thread::yield_now();
                }
                slots[t % capacity].store(v, SeqCst);
                tail.store(t + 1, SeqCst);
            }
        })
    };
    for want in 1..=items {
        let h = head.load(SeqCst);
        while tail.load(SeqCst) == h {
            thread::yield_now();
        }
        assert_eq!(slots[h % capacity].load(SeqCst), want);
        head.store(h + 1, SeqCst);
    }
    producer.join().unwrap();
}

/// The distinct traces of the SPSC queue under `strategy` and `bound`, and the executions.
fn spsc_traces(
    capacity: usize,
    items: usize,
    strategy: Strategy,
    bound: u32,
) -> (HashSet<Vec<ObservedStep>>, u64) {
    traces_of(|| spsc(capacity, items), strategy, bound)
}

/// The distinct traces of `body` under `strategy` and `bound`, and the executions.
fn traces_of(body: impl Fn(), strategy: Strategy, bound: u32) -> (HashSet<Vec<ObservedStep>>, u64) {
    let builder = Builder::new()
        .strategy(strategy)
        .preemption_bound(Some(bound))
        .max_executions(Some(MAX_EXECUTIONS));
    let mut traces = HashSet::new();
    let report = explore_observed(&builder, body, |steps| {
        traces.insert(canonical(steps));
    });
    assert!(report.complete() && report.failure().is_none());
    (traces, report.executions())
}

/// Spin loops with yields under a bound: the reduction runs every trace the DFS runs, in
/// exactly these many executions (DFS traces, DFS executions, reduction executions). Without
/// the points for a race the bound or a yield keeps from reversing where it is (at every
/// earlier step where the racing thread can run) it misses 1, 2, 1 and 16 of these traces; the
/// points inside a run are asked only where its thread holds a lock (at every step of the run
/// it ran 40, 123, 105 and 438 executions). Since the reduction models the scheduler's fairness
/// rule (session 12, which the programs of [`programs_that_yield`] needed), a yield also races
/// with the steps that let its thread go: 54, 151, 127 and 701 executions with the points at
/// earlier steps kept; asked only in executions where something can block (nothing does here),
/// 34, 87, 74 and 330 (34, 110, 89 and 378 before the model).
#[test]
fn spin_loops_run_every_trace_under_a_bound() {
    let rows = [
        ((1, 2, 2), (15, 80, 34)),
        ((1, 3, 2), (36, 194, 87)),
        ((2, 3, 2), (39, 179, 74)),
        ((1, 3, 3), (88, 1356, 330)),
    ];
    for ((capacity, items, bound), want) in rows {
        let (dfs, dfs_runs) = spsc_traces(capacity, items, Strategy::Dfs, bound);
        let (bpor, bpor_runs) = spsc_traces(capacity, items, Strategy::Dpor, bound);
        let at = format!("capacity {capacity}, {items} items, bound {bound}");
        assert_eq!(dfs.difference(&bpor).count(), 0, "missed traces: {at}");
        assert_eq!((dfs.len(), dfs_runs, bpor_runs), want, "{at}");
    }
}

/// The optimal DPOR (no bound) on the queue runs each of its traces once, under the relation
/// that models the scheduler's yield rule (`random_programs::canonical`), and every trace of the
/// steps other than yields: (executions, traces, traces of the steps other than yields) for
/// capacity 1 and one or two items; with one item, the same traces of the steps other than
/// yields as every interleaving (55 executions).
/// - A step that turned out quiet (a load) lets no thread that yielded go, so a yield asleep at
///   a node stays asleep past it. Before (until session 14) every step after a first yield
///   counted as one that may: the consumer's yield, asleep where the producer's loads came
///   first, woke at the first of them and ran again (9 and 378 executions).
/// - A yield's race with the change that let its thread go needs no branch where only the
///   yielding thread runs after that change (`reversals::yield_then_solo`): the consumer's
///   yields against the producer's last store (6 and 192 executions before).
#[test]
fn the_optimal_dpor_runs_each_trace_of_the_queue_once() {
    use random_programs::{canonical as with_yield_rule, canonical_without_yields};
    let explore = |strategy: Strategy, items: usize| {
        let builder = Builder::new().strategy(strategy);
        let (mut traces, mut memory, mut runs) = (HashSet::new(), HashSet::new(), 0);
        let report = explore_observed(
            &builder,
            || spsc(1, items),
            |steps| {
                runs += 1;
                traces.insert(with_yield_rule(steps));
                memory.insert(canonical_without_yields(steps));
            },
        );
        assert!(report.complete() && report.failure().is_none());
        (runs, traces.len(), memory)
    };
    for (items, want) in [(1, (4, 4, 3)), (2, (128, 128, 29))] {
        let (runs, traces, memory) = explore(Strategy::Dpor, items);
        assert_eq!((runs, traces, memory.len()), want, "{items} items");
    }
    let (dfs_runs, _, dfs) = explore(Strategy::Dfs, 1);
    assert_eq!(dfs_runs, 55);
    assert_eq!(dfs, explore(Strategy::Dpor, 1).2);
}

/// Where the queue's executions under a bound go (capacity 1, 3 items, bounds 1, 2, 4):
/// (executions, traces under the relation that models the yield rule, traces of the steps
/// other than yields). The reduction runs each trace of its relation once; what it runs over
/// the traces of the memory steps (which here are the spin-count outcomes, the bench's
/// `spin-outcomes`) is the yield rule's: where a yield falls against the other thread's stores
/// (a write of the fairness object against its reads) decides whether the yielding thread may
/// run before the next store, so each such order is a trace of its own. Loom reaches 10 / 43 /
/// 160 outcomes in 12 / 71 / 745 executions. A narrower rule (a yield let go only by a change
/// of an object read since the thread's last yield) moved none of the first two rows and took
/// 12 memory traces off the last (843 / 843 / 141); docs/bounded-por.md, session 18.
#[test]
fn the_queue_runs_one_execution_per_trace_of_the_yield_rule() {
    for (bound, want) in [(1, (14, 14, 9)), (2, (87, 87, 36)), (4, (879, 879, 153))] {
        let got = yield_rule_traces(|| spsc(1, 3), bound, |steps| steps.to_vec());
        assert_eq!(got, want, "bound {bound}");
    }
}

/// The bounded reduction's executions of `body` at `bound`, its distinct traces under the
/// relation that models the yield rule, and those of the steps other than yields, each
/// execution's steps taken through `named` first.
fn yield_rule_traces(
    body: impl Fn(),
    bound: u32,
    named: impl Fn(&[ObservedStep]) -> Vec<ObservedStep>,
) -> (u64, usize, usize) {
    use random_programs::{canonical as with_yield_rule, canonical_without_yields};
    let builder = Builder::new()
        .strategy(Strategy::Dpor)
        .preemption_bound(Some(bound))
        .max_executions(Some(MAX_EXECUTIONS));
    let (mut traces, mut memory, mut runs) = (HashSet::new(), HashSet::new(), 0);
    let report = explore_observed(&builder, body, |steps| {
        runs += 1;
        let steps = named(steps);
        traces.insert(with_yield_rule(&steps));
        memory.insert(canonical_without_yields(&steps));
    });
    assert!(report.complete() && report.failure().is_none());
    (runs, traces.len(), memory.len())
}

/// Why a conservative point waits for *any* thread hidden below it, not for the two threads of
/// its race (shrunk from a CI program that the narrower rule missed a trace of; it missed
/// traces of others at bounds 0 and 1 too). The missed trace runs thread 2's swap first, then thread
/// 1's store, its child's load and its swap. The reduction's first schedule of it reverses the
/// race of the swap with the store where the store runs, preempting thread 1 and spending the
/// bound, so that later the bound hides thread 1's *child*, a third thread; the conservative
/// point before thread 1's run saves that preemption for the child's turn.
#[test]
fn a_third_thread_hidden_by_the_bound_needs_the_conservative_point() {
    use random_programs::{AtomicOp::*, Op::*};
    let p = Program {
        family: Family::Awaiting,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![
                Atomic(Store(1, 2)),
                SpawnJoin {
                    child: vec![Atomic(Load(1))],
                    between: vec![],
                },
                Atomic(Swap(1, 1)),
            ],
            vec![
                Atomic(Swap(1, 1)),
                Atomic(Load(1)),
                Await {
                    atomic: 1,
                    value: 1,
                },
            ],
        ],
    };
    runs_every_trace(&p, Some(1), false, (12, 16));
}

/// The bench's channel pipeline: a producer sends 1 and 2, a doubler forwards them doubled,
/// main receives both, then joins the two.
fn pipeline() {
    use symx::sync::mpsc;
    use symx::thread;
    let (tx1, rx1) = mpsc::channel::<usize>();
    let (tx2, rx2) = mpsc::channel::<usize>();
    let producer = thread::spawn(move || {
        for i in 1..=2 {
            tx1.send(i).unwrap();
        }
    });
    let doubler = thread::spawn(move || {
        for _ in 0..2 {
            let v = rx1.recv().unwrap();
            tx2.send(v * 2).unwrap();
        }
    });
    let got = [rx2.recv().unwrap(), rx2.recv().unwrap()];
    assert_eq!(got, [2, 4]);
    producer.join().unwrap();
    doubler.join().unwrap();
}

/// Main drops its receiver after joining the doubler, which has then dropped the last sender:
/// when both joins find their thread finished, the drop is part of main's last receive's step
/// (no step comes between). It comes after the doubler's end, unlike the receive: races
/// apart from it (`Event::joined`), it no longer makes the receive race with the doubler's
/// sends and sender drop. (DFS executions, reduction executions) at bounds 1, 2 and 4; before,
/// the reduction ran 3, 10 and 10, then 2, 5 and 5 until the producer's pending disconnect said
/// which side it drops (see `a_pending_disconnect_says_which_side_it_drops`; the unbounded
/// optimal DPOR runs 2), and 4, 8 and 3 since a step that waited asks for its thread at the step
/// it waited for (`look::Look::blocked_earlier`, which channel programs whose only schedule
/// within the bound blocks earlier need), and 4, 5 and 3 since a race whose thread the bound
/// keeps from running where it is asks for it at fewer earlier steps (session 14,
/// `look::Look::race`). The traces are not compared: `canonical` takes every two steps on one
/// channel as dependent, coarser than the reductions' channels (`bounded_channels.rs` compares
/// outcomes instead).
#[test]
fn a_drop_after_joins_races_apart_from_its_step() {
    for (bound, want) in [(1, (9, 4)), (2, (44, 5)), (4, (192, 3))] {
        let (_, dfs) = traces_of(pipeline, Strategy::Dfs, bound);
        let (_, bpor) = traces_of(pipeline, Strategy::Dpor, bound);
        assert_eq!((dfs, bpor), want, "bound {bound}");
    }
}

/// A producer sends 1, 2 and 3 and drops its sender; main receives the three and drops the
/// receiver before it joins: two traces (which side goes first decides whether main's drop is
/// a disconnect the producer could see). While the producer's drop is pending (in the
/// execution where main's receiver goes first), it is known to be the last sender's
/// (`OpKind::SendersGone`), which commutes with every receive that took a message; when it was
/// a disconnect of either side, conflicting with everything on the channel, it raced with
/// main's receives too, and a fourth execution ran it before the second: 4 executions at
/// bounds 2 and 4, now 3 (bounds 0 and 1: 1 and 2, before too). The third runs the producer's
/// drop before main's last receive step, whose code reads whether the sender is gone (a real
/// race), and reaches the first execution's trace again: the producer's drop, which could wake
/// a receiver waiting, stays awake there under the bound (`puts_to_sleep`). At bound 1, 4
/// executions since a step that waited asks for its thread at the step it waited for (2 before).
#[test]
fn a_pending_disconnect_says_which_side_it_drops() {
    fn program() {
        use symx::sync::mpsc;
        let (tx, rx) = mpsc::channel::<usize>();
        let producer = symx::thread::spawn(move || {
            for i in 1..=3 {
                tx.send(i).unwrap();
            }
        });
        for i in 1..=3 {
            assert_eq!(rx.recv().unwrap(), i);
        }
        drop(rx);
        producer.join().unwrap();
    }
    for (bound, want) in [(0, 1), (1, 4), (2, 3), (4, 3)] {
        let (_, bpor) = traces_of(program, Strategy::Dpor, bound);
        assert_eq!(bpor, want, "bound {bound}");
    }
}

thread_local! {
    static SPINS: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The SPSC queue as the bench writes it (objects used first wherever the schedule has them),
/// recording how often each thread spun before each value as the execution's outcome.
fn spsc_counting_spins(capacity: usize, items: usize) {
    use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use symx::thread;
    let slots: symx::sync::Arc<Vec<AtomicUsize>> =
        symx::sync::Arc::new((0..capacity).map(|_| AtomicUsize::new(0)).collect());
    let head = symx::sync::Arc::new(AtomicUsize::new(0));
    let tail = symx::sync::Arc::new(AtomicUsize::new(0));
    let producer = {
        let (slots, head, tail) = (slots.clone(), head.clone(), tail.clone());
        thread::spawn(move || {
            let mut spins = Vec::new();
            for v in 1..=items {
                let t = tail.load(SeqCst);
                let mut n = 0;
                while t - head.load(SeqCst) == capacity {
                    n += 1;
                    thread::yield_now();
                }
                spins.push(n);
                slots[t % capacity].store(v, SeqCst);
                tail.store(t + 1, SeqCst);
            }
            spins
        })
    };
    let mut spins = Vec::new();
    for want in 1..=items {
        let h = head.load(SeqCst);
        let mut n = 0;
        while tail.load(SeqCst) == h {
            n += 1;
            thread::yield_now();
        }
        spins.push(n);
        assert_eq!(slots[h % capacity].load(SeqCst), want);
        head.store(h + 1, SeqCst);
    }
    let theirs = producer.join().unwrap();
    SPINS.with(|o| *o.borrow_mut() = Some(format!("{theirs:?} {spins:?}")));
}

/// Every outcome (spin counts) the bounded DFS reaches on [`spsc_counting_spins`], and the
/// executions, under `strategy` and `bound`.
fn spin_outcomes(
    capacity: usize,
    items: usize,
    strategy: Strategy,
    bound: u32,
) -> (HashSet<String>, u64) {
    let builder = Builder::new()
        .strategy(strategy)
        .preemption_bound(Some(bound))
        .max_executions(Some(MAX_EXECUTIONS));
    let mut outcomes = HashSet::new();
    let report = explore_observed(
        &builder,
        || spsc_counting_spins(capacity, items),
        |_| outcomes.extend(SPINS.with(|o| o.borrow_mut().take())),
    );
    assert!(report.complete() && report.failure().is_none());
    (outcomes, report.executions())
}

/// Before its first step the main thread is the one running, so a switch away from it there,
/// while it can take that step, is a preemption (CHESS's definition, and loom's); until
/// session 12 the scheduler counted none before the first step. `spawn(store x); load x` at
/// bound 0 is one execution (main's load first), at bound 1 two, for the DFS and the reduction.
///
/// The queue as the bench writes it (whose producer or consumer may step first), by its
/// spin-count outcomes, at bounds 0 to 3: the reduction reaches every outcome of the DFS. With
/// the free first step, a branch taken there had to keep its thread awake (moving it to the
/// front of a later branch added a preemption that branch did not pay): putting it to sleep
/// missed 1 of 15 outcomes at bound 1 and 5 of 50 at bound 2 (capacity 1, three values), 2 of
/// 11 and 4 of 24 with capacity 2. Now the main thread's branch at the first step sleeps like
/// any branch that continues the running thread. (DFS outcomes, DFS executions, reduction
/// executions; until session 20 the reduction's were 15 / 96 / 364 at capacity 1 and 15 / 80
/// at capacity 2, see
/// [`the_bench_queue_runs_one_execution_per_trace_of_the_yield_rule`].)
#[test]
fn a_switch_away_from_main_before_its_first_step_is_a_preemption() {
    use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let store_and_load = || {
        let x = symx::sync::Arc::new(AtomicUsize::new(0));
        let y = x.clone();
        symx::thread::spawn(move || y.store(1, SeqCst));
        x.load(SeqCst);
    };
    for (bound, want) in [(0, 1), (1, 2)] {
        let dfs = traces_of(store_and_load, Strategy::Dfs, bound);
        let bpor = traces_of(store_and_load, Strategy::Dpor, bound);
        assert_eq!(
            (dfs.0.len(), dfs.1, bpor.1),
            (want, want as u64, want as u64),
            "bound {bound}"
        );
    }
    for ((capacity, items, bound), want) in [
        ((1, 3, 0), (1, 1, 1)),
        ((1, 3, 1), (9, 19, 14)),
        ((1, 3, 2), (36, 194, 87)),
        ((1, 3, 3), (88, 1_356, 330)),
        ((2, 3, 1), (7, 20, 14)),
        ((2, 3, 2), (20, 179, 74)),
    ] {
        let (dfs, dfs_runs) = spin_outcomes(capacity, items, Strategy::Dfs, bound);
        let (bpor, bpor_runs) = spin_outcomes(capacity, items, Strategy::Dpor, bound);
        let at = format!("capacity {capacity}, {items} items, bound {bound}");
        assert_eq!(dfs.difference(&bpor).count(), 0, "missed outcomes: {at}");
        assert_eq!((dfs.len(), dfs_runs, bpor_runs), want, "{at}");
    }
}

/// The queue as the bench writes it (its main is the consumer, and objects are named by first
/// use) runs one execution per trace of the relation that models the yield rule, as the
/// test's queue does ([`the_queue_runs_one_execution_per_trace_of_the_yield_rule`]): capacity
/// 1, three values, bounds 1, 2, 4 (executions, those traces, traces of the steps other than
/// yields, which are the spin-count outcomes; the bounded DFS covers the same traces in 19 /
/// 194 / 7,250 executions). Until session 20 it ran 15 / 96 / 957: a race in main's first run
/// (the consumer's yield against the producer's slot store) also asked for the producer at the
/// run's start, step 0, Coons's conservative point; but no switch starts that run (before the
/// first step main counts as the one running), so running the producer there preempts main as
/// running it at the race does, and saves no preemption for later (`look::Look::race`).
#[test]
fn the_bench_queue_runs_one_execution_per_trace_of_the_yield_rule() {
    for (bound, want) in [(1, (14, 14, 9)), (2, (87, 87, 36)), (4, (879, 879, 153))] {
        let got = yield_rule_traces(|| spsc_counting_spins(1, 3), bound, by_first_use);
        assert_eq!(got, want, "bound {bound}");
    }
}

/// `steps` with each object named by the first (thread, thread's step) that uses it, not by the
/// first step of the execution: the same in every execution of a trace.
fn by_first_use(steps: &[ObservedStep]) -> Vec<ObservedStep> {
    let mut mine = HashMap::new();
    let mut first: HashMap<u32, (usize, usize)> = HashMap::new();
    for s in steps {
        let n = mine.entry(s.thread).or_insert(0usize);
        if let Some(o) = s.obj {
            let at = first.entry(o).or_insert((s.thread, *n));
            *at = (*at).min((s.thread, *n));
        }
        *n += 1;
    }
    let mut order: Vec<_> = first.iter().map(|(&o, &at)| (at, o)).collect();
    order.sort_unstable();
    let names: HashMap<u32, u32> = (order.iter().enumerate())
        .map(|(name, &(_, o))| (o, name as u32))
        .collect();
    let rename = |s: &ObservedStep| ObservedStep {
        obj: s.obj.map(|o| names[&o]),
        ..s.clone()
    };
    steps.iter().map(rename).collect()
}

/// Two programs of `many_random_programs` (seeds 1,000,884 and 1,000,035, bound 0) that ran a
/// trace twice until session 15 and now run as many executions as the optimal DPOR. At bound 0
/// a thread runs until it ends or blocks, and main waits in the threads' joins in order. The
/// rules that made the difference, together (none alone does it for the first program): a
/// thread's end is no release when its joiner waits in the join already
/// (`bounded::ends_release`), a branch after a switch puts its thread to sleep when the
/// thread cannot run after its step, a branch a conservative point asked for puts its thread
/// to sleep like any other (`bounded::puts_to_sleep`), and a race at the start of a thread's
/// run asks for no second, conservative point there (`bounded::look::Look::race`): 5 -> 4 and
/// 4 -> 2 executions.
#[test]
fn ends_and_branches_after_switches_put_their_threads_to_sleep() {
    use random_programs::{AtomicOp::*, Op::*};
    let atomics_only = Program {
        family: Family::NoFail,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Atomic(Swap(0, 3))],
            vec![
                Atomic(Store(1, 2)),
                Atomic(Cas(1, 2, 3)),
                Atomic(Store(1, 1)),
                Atomic(Load(0)),
            ],
            vec![Atomic(Load(0))],
        ],
    };
    let nested = Program {
        family: Family::Deadlocky,
        atomics: 1,
        mutexes: 2,
        condvar: true,
        threads: vec![
            vec![Atomic(Store(0, 1))],
            vec![Signal {
                all: false,
                inside: false,
            }],
            vec![Locked {
                mutex: 0,
                add: 1,
                body: vec![Locked {
                    mutex: 1,
                    add: 1,
                    body: vec![Atomic(Swap(0, 2))],
                }],
            }],
        ],
    };
    // (program, traces, DFS executions): the reduction runs each trace once, as the optimal DPOR.
    for (p, traces, dfs) in [(atomics_only, 4, 6), (nested, 2, 6)] {
        let once = (traces, traces as u64);
        assert_eq!(distinct_traces(&p, Strategy::Dpor, None, false), once);
        assert_eq!(
            distinct_traces(&p, Strategy::Dfs, Some(0), false),
            (traces, dfs)
        );
        assert_eq!(distinct_traces(&p, Strategy::Dpor, Some(0), false), once);
    }
}

/// Random programs whose main runs the first thread's operations itself, after spawning the
/// others (`random_programs::MAIN_WORKS`): main's first run, which no switch starts (before
/// the first step main counts as the one running), races with threads already running. A race
/// there asks for no conservative point at the run's start where the racing thread can run at
/// the race's own step (`look::Look::race`): both switches preempt main. Elsewhere main only
/// touches objects before it spawns and then joins, so no other test has such races.
#[test]
fn bounded_dpor_agrees_with_bounded_dfs_where_main_works() {
    check_where_main_works(0, 150, 2_000.0);
}

/// [`check_many`] over every family with main doing the first thread's work.
fn check_where_main_works(first: u64, count: u64, max_interleavings: f64) {
    random_programs::MAIN_WORKS.with(|m| m.set(true));
    let mut families = Family::ALL.to_vec();
    families.push(Family::Untouched);
    check_many(&families, first, count, max_interleavings, false);
}

/// [`bounded_dpor_agrees_with_bounded_dfs_where_main_works`] on 2,000 larger programs per
/// family (seeds from 1,000, up to 5,000 interleavings; 15,001 comparisons). Until session 20's
/// rules for the points under a bound, seed 1,522 missed a final state
/// ([`main_racing_with_spurious_wakeups_on_reaches_every_state`]); nothing else.
#[test]
#[ignore = "long (3 minutes in release)"]
fn bounded_dpor_agrees_with_bounded_dfs_on_more_programs_where_main_works() {
    check_where_main_works(1_000, 2_000, 5_000.0);
}

/// Seed 1,522 of `Family::AtomicsOnly` with main doing the first thread's work
/// ([`bounded_dpor_agrees_with_bounded_dfs_on_more_programs_where_main_works`]), shrunk: at
/// bound 1 with spurious wake-ups on, the reduction misses 1 of the bounded DFS's 9 final
/// states: `main: x.cas(0, 1); y.cas(0, 3)`, `t2: load y; y += 1`, `t3: y.swap(1); spawn-join
/// { load x }` (the test prints a missed trace). Found in session 20; it misses the same state
/// without that session's rule (no conservative point at the start of main's first run), so
/// it predates it. Reached since session 20's two rules for the points under a bound (a race
/// asks for its own thread where it is awake, a conservative point for a sleeper asks for
/// every thread, `docs/bounded-por.md`; which of the two it needs was not measured).
#[test]
fn main_racing_with_spurious_wakeups_on_reaches_every_state() {
    use random_programs::{AtomicOp::*, Op};
    random_programs::MAIN_WORKS.with(|m| m.set(true));
    let p = Program {
        family: Family::AtomicsOnly,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Cas(0, 0, 1)), Op::Atomic(Cas(1, 0, 3))],
            vec![Op::Atomic(Load(1)), Op::Atomic(FetchAdd(1, 1))],
            vec![
                Op::Atomic(Swap(1, 1)),
                Op::SpawnJoin {
                    child: vec![Op::Atomic(Load(0))],
                    between: vec![],
                },
            ],
        ],
    };
    let problems = compare(&p, Some(1), true, &mut Stats::default());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// Session 21 (bbranch): a step whose result may differ where a reversal moves it.

/// A step whose result may differ where a reversal moves it (`t1`'s swap) may take another
/// path there, whose code touches what its code did not where it ran (the count `t2`'s end
/// drops): the reversed trace may then have a later event of another thread before it, which
/// races with the race's first event through the step
/// (`bounded::look::Look::races_through_branches`). Seed 9,001,386 of `Family::Branching`
/// (session 20's fresh-seed search: 6 of the DFS's 38 final states missed at bound 3 and
/// without a bound), shrunk: `t1: if x.swap(2) != 1 { count(arc1) }; load x`, `t2: load y`,
/// `t3: y.swap(1); x = 1`, 2 of 15 missed before (14 executions): the states where `t3`'s swap
/// comes before `t2`'s load, `t2`'s end before `t1`'s swap (which reads 0 and counts 3), and
/// that before `t3`'s store. `locked` (seed 9,001,687 at bound 1, shrunk: `t1: lock m {};
/// load x`, `t2: spawn(y = 2; count(arc0)); lock m {}; join`, `t3: try_lock m {}`) was pinned
/// with it and is reached since session 20's rules for the points under a bound; kept. Fails
/// with the rule reverted (checked).
#[test]
fn a_step_that_may_branch_races_through_its_other_path() {
    use random_programs::{AtomicOp::*, Op, Read};
    let swapped = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![
                Op::Branch {
                    read: Read::Atomic(Swap(0, 2)),
                    value: 1,
                    then: vec![],
                    otherwise: vec![Op::Count { arc: 1 }],
                },
                Op::Atomic(Load(0)),
            ],
            vec![Op::Atomic(Load(1))],
            vec![Op::Atomic(Swap(1, 1)), Op::Atomic(Store(0, 1))],
        ],
    };
    let section = |try_lock: bool| {
        let (mutex, add, body) = (0, 1, vec![]);
        match try_lock {
            true => Op::TryLocked { mutex, add, body },
            false => Op::Locked { mutex, add, body },
        }
    };
    let locked = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![section(false), Op::Atomic(Load(0))],
            vec![Op::SpawnJoin {
                child: vec![Op::Atomic(Store(1, 2)), Op::Count { arc: 0 }],
                between: vec![section(false)],
            }],
            vec![section(true)],
        ],
    };
    reaches_every_state(&swapped, Some(3), 15, (30, 17));
    reaches_every_state(&swapped, None, 15, (30, 17));
    let seed = generate(9_001_386, Family::Branching, 5_000.0);
    reaches_every_state(&seed, Some(3), 38, (172, 42));
    reaches_every_state(&seed, None, 38, (210, 42));
    reaches_every_state(&locked, Some(1), 41, (98, 72));
    let seed = generate(9_001_687, Family::Branching, 5_000.0);
    reaches_every_state(&seed, Some(1), 49, (98, 77));
}

/// Known gap of `Family::Branching`, found by session 21's search of seeds 9,000,000 to
/// 9,001,999 (5,000 interleavings, bounds 0 to 3 and without a bound with spurious wake-ups),
/// missed on main 0db94f4 too, not by session 20's search of the same seeds (so it came with
/// a rule landed after that search; not looked for): seed 9,000,071 at bound 3, 1 of the DFS's
/// 12 final states. Shrunk: `t1: spawn c { y += 2 }; x.swap(3); join c; count(arc1); x = 1`,
/// `t2: if m.try_lock() { x.swap(1) }`: 1 of the DFS's 7 final states missed at bounds 2 and
/// 3 (not at 0, 1 or without a bound), one where `t2`'s swap comes before `t1`'s.
#[test]
#[ignore = "known gap: a final state missed under bounds 2 and 3 (Branching seed 9,000,071)"]
fn bounded_dpor_misses_a_state_of_a_program_that_branches_under_a_bound() {
    use random_programs::{AtomicOp::*, Op};
    let p = Program {
        family: Family::Branching,
        atomics: 2,
        mutexes: 1,
        condvar: false,
        threads: vec![
            vec![
                Op::SpawnJoin {
                    child: vec![Op::Atomic(FetchAdd(1, 2))],
                    between: vec![Op::Atomic(Swap(0, 3))],
                },
                Op::Count { arc: 1 },
                Op::Atomic(Store(0, 1)),
            ],
            vec![Op::TryLocked {
                mutex: 0,
                add: 1,
                body: vec![Op::Atomic(Swap(0, 1))],
            }],
        ],
    };
    let seed = generate(9_000_071, Family::Branching, 5_000.0);
    let mut problems = Vec::new();
    for (p, bound) in [(&p, Some(2)), (&p, Some(3)), (&seed, Some(3))] {
        let found = compare(p, bound, false, &mut Stats::default());
        problems.extend(found.into_iter().map(|pr| format!("{p:?}: {pr}")));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
