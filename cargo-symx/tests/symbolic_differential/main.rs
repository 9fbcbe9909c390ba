//! The symbolic engine against brute force: random small concurrent programs with symbolic
//! inputs (`program/`), explored (a) at every input value by a plain DFS over every schedule
//! and (b) by the symbolic engine with DPOR; both must find the same failures and the same
//! final states, every failure the engine reports must replay from its token, and its inputs
//! must fail in the brute force too.
//!
//! **What is comparable.** A DFS, a DPOR and the engine's input classes all stop an
//! exploration at its first failure, and which failure comes first depends on the order each
//! explores in; so "the failures found" is only comparable when no failure can hide another.
//! Each program belongs to a family that fixes this:
//!
//! - *Panicky* programs fail only at their sites (assertions, overflowing arithmetic). A site
//!   can be disarmed: its condition becomes a branch whose failing side records the site and
//!   goes on. The brute force disarms every site, so no DFS stops early, and collects the set
//!   `S` of sites whose condition fails in some execution at some input. The engine explores
//!   with every site armed (and `keep_going`), each finding is replayed to learn its site,
//!   those sites are disarmed, and it explores again, until a search finds nothing. A site
//!   can fail with others disarmed only if it fails with all of them disarmed, and an
//!   execution with no failing armed site runs exactly as it does with them all disarmed; so
//!   the sites found over the rounds must be exactly `S` (whatever the engine meets first in
//!   each round), and the last round, which found nothing, must be complete and must end in
//!   exactly the brute force's final states (each with the sites that failed softly in it).
//! - *Deadlocky* and *Racy* programs fail only by deadlock, or only by data race, and every
//!   site is disarmed: the set of failure kinds (empty or that one kind) must be the same, and
//!   when no execution fails at any input, the engine must be complete and reach exactly the
//!   brute force's final states. A failing input stops its DFS, so final states are not
//!   compared then.
//!
//! The final state is a function of an execution's path condition and schedule (the program
//! branches on every bit it observes), so the engine's promise, every feasible (input class,
//! Mazurkiewicz trace) pair explored, means the same set, not a sample of it.
//!
//! `SYMX_DIFF_CASES` (default 500) and `SYMX_DIFF_FROM` (default 0) choose the programs, so
//! that a failing one can be run alone; `SYMX_DIFF_SLOW` prints the programs whose search
//! took over 0.3 s. `bench/symbolic/differential.sh` runs 10,000 in release.

mod oracle;
mod program;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

use cargo_symx::engine::symbolic::{self, Finding, Options};
use cargo_symx::engine::InProcess;
use symx::Builder;

use oracle::{brute_force, cases, overflow_checks, BruteForce, MAX_RUNS};
use program::{body, generate, Family, FinalState, Program};

/// What the engine found for one program.
#[derive(Default)]
struct Engine {
    sites: BTreeSet<usize>,
    kinds: BTreeSet<String>,
    /// The final states of the last search.
    finals: BTreeSet<FinalState>,
    complete: bool,
    rounds: u32,
    classes: u64,
    executions: u64,
    findings: u64,
    /// Findings whose inputs the solver found for a failing assertion or operation.
    solved: u64,
    queries: u64,
    solver_seconds: f64,
}

fn keep_going() -> Options {
    Options {
        keep_going: true,
        ..Options::default()
    }
}

/// Panicky programs: search, disarm the sites found, search again, until nothing is found.
fn engine_rounds(seed: u64, p: &Arc<Program>, bf: &BruteForce) -> Engine {
    let mut e = Engine::default();
    let mut disarmed = BTreeSet::new();
    loop {
        let d = Arc::new(disarmed.clone());
        let out = search(p, &d, &mut e);
        if out.findings.is_empty() {
            e.complete = out.complete;
            assert!(out.complete, "case {seed}: {:?}\n{p:?}", out.incomplete);
            return e;
        }
        for f in &out.findings {
            let (kind, site) = confirm(seed, p, &d, f);
            assert_eq!(kind, "panic", "case {seed}: {f:#?}\n{p:?}");
            let site = site.unwrap_or_else(|| panic!("case {seed}: no site failed\n{p:?}"));
            assert!(
                !disarmed.contains(&site),
                "case {seed}: disarmed site {site}"
            );
            let w = p.in_range(&f.inputs);
            assert!(
                bf.per_input[&w].0.contains(&site),
                "case {seed}: site {site} fails at {w:?} for the engine only\n{p:?}"
            );
            e.sites.insert(site);
        }
        disarmed.extend(e.sites.iter().copied());
    }
}

/// Deadlocky and racy programs: one search with every site disarmed.
fn engine_once(seed: u64, p: &Arc<Program>, bf: &BruteForce) -> Engine {
    let mut e = Engine::default();
    let d = Arc::new(p.all_sites());
    let out = search(p, &d, &mut e);
    e.complete = out.complete;
    for f in &out.findings {
        let (kind, _) = confirm(seed, p, &d, f);
        let w = p.in_range(&f.inputs);
        assert_eq!(
            bf.per_input[&w].1.as_deref(),
            Some(kind.as_str()),
            "case {seed}: a {kind} at {w:?} for the engine only\n{p:?}"
        );
        e.kinds.insert(kind);
    }
    if out.findings.is_empty() {
        assert!(out.complete, "case {seed}: {:?}\n{p:?}", out.incomplete);
    }
    e
}

/// One search of the engine; its final states replace `e.finals`.
fn search(
    p: &Arc<Program>,
    disarmed: &Arc<BTreeSet<usize>>,
    e: &mut Engine,
) -> symbolic::SearchResult {
    program::take_finals();
    let mut exec = InProcess::new(Builder::new(), body(p, disarmed));
    let out = symbolic::explore(&mut exec, &keep_going());
    e.finals = program::take_finals();
    assert!(
        out.pins.is_empty(),
        "the programs pin nothing: {:?}",
        out.pins
    );
    e.rounds += 1;
    e.classes += out.classes;
    e.executions += out.executions;
    e.findings += out.findings.len() as u64;
    e.solved += out.findings.iter().filter(|f| f.solved.is_some()).count() as u64;
    e.queries += out.solver.queries;
    e.solver_seconds += out.solver.time.as_secs_f64();
    out
}

/// Replays a finding's token: it must fail with the same kind. Its kind and, for a panic,
/// its site.
fn confirm(
    seed: u64,
    p: &Arc<Program>,
    disarmed: &Arc<BTreeSet<usize>>,
    f: &Finding,
) -> (String, Option<usize>) {
    let schedule: symx::Schedule = (f.failure.token.parse())
        .unwrap_or_else(|e| panic!("case {seed}: token {}: {e:?}", f.failure.token));
    program::last_site();
    let again = Builder::new().replay(&schedule, body(p, disarmed));
    let failure =
        (again.failure()).unwrap_or_else(|| panic!("case {seed}: {f:#?} does not replay\n{p:?}"));
    assert_eq!(failure.kind().name(), f.failure.kind, "case {seed}\n{p:?}");
    assert_eq!(failure.message(), f.failure.message, "case {seed}\n{p:?}");
    (f.failure.kind.clone(), program::last_site())
}

/// Counts over a run, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    programs: u64,
    by_family: BTreeMap<String, u64>,
    /// Programs with at least one failure, by kind.
    failing: BTreeMap<String, u64>,
    sites_failing: u64,
    findings: u64,
    solved: u64,
    rounds: u64,
    classes: u64,
    engine_executions: u64,
    brute_force_executions: u64,
    final_states: u64,
    queries: u64,
    solver_seconds: f64,
    engine_seconds: f64,
    brute_force_seconds: f64,
}

fn case(seed: u64, checked: bool, tally: &mut Tally) {
    let p = Arc::new(generate(seed, MAX_RUNS, checked));
    let t = Instant::now();
    let bf = brute_force(&p);
    tally.brute_force_seconds += t.elapsed().as_secs_f64();
    let t = Instant::now();
    let e = match p.family {
        Family::Panicky => {
            let e = engine_rounds(seed, &p, &bf);
            assert_eq!(e.sites, bf.sites, "case {seed}: failing sites\n{p:?}");
            assert!(bf.kinds.is_empty(), "case {seed}: {:?}\n{p:?}", bf.kinds);
            e
        }
        Family::Deadlocky | Family::Racy => {
            let e = engine_once(seed, &p, &bf);
            assert_eq!(e.kinds, bf.kinds, "case {seed}: failure kinds\n{p:?}");
            e
        }
        Family::Awaiting => unreachable!("`generate` draws no awaiting program"),
    };
    tally.engine_seconds += t.elapsed().as_secs_f64();
    if std::env::var_os("SYMX_DIFF_SLOW").is_some() && t.elapsed().as_secs_f64() > 0.3 {
        eprintln!(
            "case {seed}: {:.2} s, {} classes, {} queries, {} executions\n{p:?}",
            t.elapsed().as_secs_f64(),
            e.classes,
            e.queries,
            e.executions
        );
    }
    if bf.kinds.is_empty() {
        assert!(e.complete, "case {seed}\n{p:?}");
        assert_eq!(e.finals, bf.finals, "case {seed}: final states\n{p:?}");
        tally.final_states += bf.finals.len() as u64;
    }
    tally.programs += 1;
    *tally
        .by_family
        .entry(format!("{:?}", p.family))
        .or_default() += 1;
    if !bf.sites.is_empty() && p.family == Family::Panicky {
        *tally.failing.entry("panic".into()).or_default() += 1;
    }
    for k in &bf.kinds {
        *tally.failing.entry(k.clone()).or_default() += 1;
    }
    tally.sites_failing += e.sites.len() as u64;
    tally.findings += e.findings;
    tally.solved += e.solved;
    tally.rounds += e.rounds as u64;
    tally.classes += e.classes;
    tally.engine_executions += e.executions;
    tally.brute_force_executions += bf.executions;
    tally.queries += e.queries;
    tally.solver_seconds += e.solver_seconds;
}

#[test]
fn the_symbolic_engine_finds_what_every_input_times_every_schedule_finds() {
    let checked = overflow_checks();
    let started = Instant::now();
    let mut tally = Tally::default();
    let seeds = cases(500);
    let n = seeds.end - seeds.start;
    for seed in seeds {
        case(seed, checked, &mut tally);
    }
    eprintln!(
        "symbolic differential: {tally:?}, overflow checks: {checked}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The generator must exercise every kind of failure, not only agree on "nothing".
    if n >= 100 {
        for kind in ["panic", "deadlock", "data-race"] {
            assert!(tally.failing.get(kind).is_some_and(|&c| c > 0), "{tally:?}");
        }
        assert!(
            tally.programs > tally.failing.values().sum::<u64>(),
            "{tally:?}"
        );
    }
}
