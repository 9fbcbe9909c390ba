//! Assertion-guided pruning against the unpruned search and brute force, on the random
//! programs of the symbolic differential test (its generator and brute force, reused):
//!
//! - with every site armed, the pruned and the unpruned search (both going on after each
//!   failure) report the same failing sites, and every failure either reports replays from
//!   its token to the same message;
//! - the pruned search, run in rounds that disarm the sites found so far (as the symbolic
//!   differential test does, so that no failure hides another), finds exactly the sites the
//!   brute force finds failing at some input in some schedule, each at inputs where the brute
//!   force sees it fail, and its last round is complete.
//!
//! Only *panicky* programs are compared: pruning keeps assertion failures, not the deadlocks
//! and data races of the other families (docs/assertion-guided.md). The *awaiting* family
//! adds bounded waits (a failed assumption discards the execution) and statistics counters
//! bumped blindly (the slice's case) and sometimes read back (which breaks the slice).
//!
//! `SYMX_DIFF_CASES` (default 500 programs, in four shards that run in parallel) and
//! `SYMX_DIFF_FROM` choose the programs; `bench/guided-differential` runs 10,000.

#[path = "../symbolic_differential/oracle.rs"]
mod oracle;
#[path = "../symbolic_differential/program/mod.rs"]
mod program;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use cargo_symx::engine::assertion_guided::{self, Finding, Options, SearchResult};
use cargo_symx::engine::InProcess;
use symx::Builder;

use oracle::{brute_force, cases, overflow_checks, BruteForce, MAX_RUNS};
use program::{body, generate, generate_in, Family, Program};

fn search(p: &Arc<Program>, disarmed: &BTreeSet<usize>, prune: bool) -> SearchResult {
    let mut exec = InProcess::new(Builder::new(), body(p, &Arc::new(disarmed.clone())));
    let opts = Options {
        prune,
        // The reference is DPOR alone; the pruned search slices.
        slice: prune,
        keep_going: true,
        ..Options::default()
    };
    assertion_guided::explore(&mut exec, &opts)
}

/// Replays a finding: the same message; its site.
fn site_of(seed: u64, p: &Arc<Program>, disarmed: &BTreeSet<usize>, f: &Finding) -> usize {
    let schedule: symx::Schedule = (f.failure.token.parse())
        .unwrap_or_else(|e| panic!("case {seed}: token {}: {e:?}", f.failure.token));
    program::last_site();
    let again = Builder::new().replay(&schedule, body(p, &Arc::new(disarmed.clone())));
    let failure =
        (again.failure()).unwrap_or_else(|| panic!("case {seed}: {f:#?} does not replay\n{p:?}"));
    assert_eq!(failure.message(), f.failure.message, "case {seed}\n{p:?}");
    assert_eq!(f.failure.kind, "panic", "case {seed}: {f:#?}\n{p:?}");
    program::last_site().unwrap_or_else(|| panic!("case {seed}: no site failed\n{p:?}"))
}

fn sites(seed: u64, p: &Arc<Program>, d: &BTreeSet<usize>, out: &SearchResult) -> BTreeSet<usize> {
    out.findings
        .iter()
        .map(|f| site_of(seed, p, d, f))
        .collect()
}

#[derive(Debug, Default)]
struct Tally {
    programs: u64,
    failing: u64,
    rounds: u64,
    pruned_executions: u64,
    unpruned_executions: u64,
    /// Programs whose pruned search ended with a slice, and that dropped one on the way.
    sliced: u64,
    unsliced: u64,
    cut: u64,
    brute_force_seconds: f64,
    search_seconds: f64,
    solver_seconds: f64,
}

fn case(seed: u64, family: Family, checked: bool, tally: &mut Tally) -> bool {
    let p = Arc::new(match family {
        Family::Awaiting => generate_in(family, seed, MAX_RUNS, checked),
        _ => generate(seed, MAX_RUNS, checked),
    });
    if p.family != family {
        return false;
    }
    let t = Instant::now();
    let bf: BruteForce = brute_force(&p);
    tally.brute_force_seconds += t.elapsed().as_secs_f64();
    let t = Instant::now();
    let none = BTreeSet::new();
    let pruned = search(&p, &none, true);
    let unpruned = search(&p, &none, false);
    tally.solver_seconds += (pruned.solver.time + unpruned.solver.time).as_secs_f64();
    let (a, b) = (
        sites(seed, &p, &none, &pruned),
        sites(seed, &p, &none, &unpruned),
    );
    assert_eq!(
        a, b,
        "case {seed}: pruned and unpruned failing sites\n{p:?}"
    );
    assert!(
        unpruned.complete || !unpruned.findings.is_empty(),
        "case {seed}: {unpruned:#?}"
    );
    tally.unpruned_executions += unpruned.executions;
    tally.sliced += u64::from(!pruned.sliced.is_empty());
    tally.unsliced += u64::from(!pruned.unsliced.is_empty());
    let mut found = BTreeSet::new();
    let mut out = pruned;
    loop {
        tally.rounds += 1;
        tally.pruned_executions += out.executions;
        tally.cut += out.cut;
        if out.findings.is_empty() {
            assert!(out.complete, "case {seed}: {:?}\n{p:?}", out.incomplete);
            break;
        }
        let disarmed = found.clone();
        for f in &out.findings {
            let site = site_of(seed, &p, &disarmed, f);
            let w = p.in_range(&f.inputs);
            assert!(
                bf.per_input[&w].0.contains(&site),
                "case {seed}: site {site} fails at {w:?} for the pruned search only\n{p:?}"
            );
            found.insert(site);
        }
        out = search(&p, &found, true);
        tally.solver_seconds += out.solver.time.as_secs_f64();
    }
    tally.search_seconds += t.elapsed().as_secs_f64();
    assert_eq!(
        found, bf.sites,
        "case {seed}: failing sites against brute force\n{p:?}"
    );
    tally.programs += 1;
    tally.failing += u64::from(!found.is_empty());
    true
}

/// Runs one shard of the programs: the panicky ones among the seeds from `SYMX_DIFF_FROM`
/// that are `shard` modulo [`SHARDS`], until it has its share of `SYMX_DIFF_CASES` (default
/// 500). The shards are separate tests so that they run in parallel.
fn shard(shard: u64, family: Family) {
    let checked = overflow_checks();
    let started = Instant::now();
    let mut tally = Tally::default();
    let wanted = match family {
        Family::Awaiting => cases(400),
        _ => cases(500),
    };
    let n = (wanted.end - wanted.start).div_ceil(SHARDS);
    let mut seed = wanted.start + (shard + SHARDS - wanted.start % SHARDS) % SHARDS;
    while tally.programs < n {
        case(seed, family, checked, &mut tally);
        seed += SHARDS;
    }
    eprintln!(
        "assertion-guided differential, {family:?} shard {shard}: {tally:?}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if n >= 100 {
        assert!(
            tally.failing > 0 && tally.failing < tally.programs,
            "{tally:?}"
        );
        assert!(tally.cut > 0, "pruning never cut an execution: {tally:?}");
    }
    // Both ends of slicing are exercised. Without overflow checks the generated programs
    // differ (no overflow sites), and a release build's shard 1 drops no slice; assertion_guided's
    // `a_slice_an_execution_breaks_is_dropped_and_the_search_restarted` pins one in every build.
    if family == Family::Awaiting && n >= 50 {
        assert!(
            tally.sliced > 0 && (tally.unsliced > 0 || !checked),
            "{tally:?}"
        );
    }
}

const SHARDS: u64 = 4;

#[test]
fn pruning_finds_the_failing_sites_of_the_unpruned_search_and_of_brute_force_0() {
    shard(0, Family::Panicky);
}

#[test]
fn pruning_finds_the_failing_sites_of_the_unpruned_search_and_of_brute_force_1() {
    shard(1, Family::Panicky);
}

#[test]
fn pruning_finds_the_failing_sites_of_the_unpruned_search_and_of_brute_force_2() {
    shard(2, Family::Panicky);
}

#[test]
fn pruning_finds_the_failing_sites_of_the_unpruned_search_and_of_brute_force_3() {
    shard(3, Family::Panicky);
}

#[test]
fn with_bounded_waits_and_counters_0() {
    shard(0, Family::Awaiting);
}

#[test]
fn with_bounded_waits_and_counters_1() {
    shard(1, Family::Awaiting);
}

/// The same search twice in one process (each with its own hash seeds and its own solver
/// context, as each test of a run has) takes the same paths:
/// the same executions, cuts and solver checks, and the same findings with the same tokens.
/// A search that depended on a hash order would report, in another run, failures other than
/// the ones a user is shown, and CI could disagree with the developer's machine.
#[test]
fn the_same_search_twice_runs_the_same_executions_and_finds_the_same_tokens() {
    let checked = overflow_checks();
    let (mut seed, mut compared) = (7_000, 0);
    while compared < 20 {
        seed += 1;
        let p = Arc::new(generate(seed, MAX_RUNS, checked));
        if p.family != Family::Panicky {
            continue;
        }
        compared += 1;
        let none = BTreeSet::new();
        // Each on a thread of its own: z3's context is per thread, and a context that
        // already holds other terms may give other (equally valid) models.
        let fresh = || {
            let (p, none) = (p.clone(), none.clone());
            std::thread::spawn(move || search(&p, &none, true))
                .join()
                .unwrap()
        };
        let (a, b) = (fresh(), fresh());
        let shape = |r: &SearchResult| (r.executions, r.full, r.cut, r.checks, r.summaries);
        assert_eq!(shape(&a), shape(&b), "case {seed}\n{p:?}");
        let tokens = |r: &SearchResult| -> Vec<String> {
            r.findings.iter().map(|f| f.failure.token.clone()).collect()
        };
        assert_eq!(tokens(&a), tokens(&b), "case {seed}\n{p:?}");
    }
}
