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
#[path = "../random_programs/mod.rs"]
mod random_programs;

mod blocked;
mod checks;
mod points;
mod queues;
mod sleep;
mod woken;

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use random_programs::{
    canonical_ignoring_fairness as canonical, generate, run, show, shrink, take_final, Family,
    FinalState, Program,
};

use symx::__private::{explore_observed, ObservedStep};
use symx::{Builder, FailureKind, Report, Strategy};

use checks::*;

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
    // changes are no steps of `canonical`'s traces (`dpor_vs_dfs/differential.rs` compares
    // them with `canonical_with_changes`), so `Woken` programs compare final states.
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

/// A name made in this execution may denote a sleeper's object (`Names::may_be_one`).
/// `Family::Branching` seed 9,000,071 at bound 3 (found by session 21's search of seeds
/// 9,000,000 to 9,001,999; missed since session 20's own-thread rule, which exposed it), 1 of
/// the DFS's 12 final states. Shrunk: `t1: spawn c { y += 2 }; x.swap(3); join c; count(arc1);
/// x = 1`, `t2: if m.try_lock() { x.swap(1) }`: 1 of the DFS's 7 final states missed at bounds
/// 2 and 3, one where `t2`'s swap comes before `t1`'s. The state needs `t2`'s unlock, whose step
/// drops `t2`'s `Arc` references, between `t1`'s swap, whose step reads `arc1`'s count (after
/// joining `c`, ended), and `t1`'s store. `t2`'s unlock slept there from the branch where it
/// ran before `c`'s add and was never woken: its drop named `arc1` by its own event, the first
/// use of `arc1` in that execution, and the count read, glued in this execution to another step
/// than before (`t1`'s swap, since `c` had ended), got a fresh name; the two were joined only
/// when the unlock ran, after the comparison that should have woken it. Fails with the rule
/// reverted (it was the ignored pin).
#[test]
fn a_fresh_name_may_be_a_sleepers_object() {
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

/// 3,000 larger programs of `Family::Untouched`: before the child-at-conservative-points
/// rule, all agreed but seed 3,799 (see
/// `a_thread_waiting_for_a_child_gets_the_child_at_its_conservative_points`).
#[test]
#[ignore = "long: 3,000 larger programs, about 30 s in release"]
fn bounded_dpor_agrees_with_bounded_dfs_on_more_programs_objects_used_first_by_any_thread() {
    check_many(&[Family::Untouched], 1_000, 3_000, 20_000.0, false);
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
