//! One program explored by the DFS and the optimal DPOR, and every way the two explorations
//! disagree: failures and their kinds, final states, executions, traces run twice, traces one
//! ran and the other did not; and the report of a disagreeing program, shrunk.

use super::*;

/// At most this many redundant traces or missing traces are printed per program.
const SHOWN: usize = 3;

/// One exploration: the report and, per execution, its steps and final outcome.
pub(crate) struct Run<S> {
    pub(crate) report: Report,
    pub(crate) executions: Vec<(Vec<ObservedStep>, Option<S>)>,
}

pub(crate) fn explore<S>(
    body: &dyn Fn(),
    take: &dyn Fn() -> Option<S>,
    strategy: Strategy,
) -> Run<S> {
    // The DPOR alone: the default's shallow passes would only add executions to compare.
    let builder = Builder::new()
        .shallow_first(false)
        .strategy(strategy)
        .max_executions(Some(MAX_EXECUTIONS));
    // A failure makes the explorer re-run executions to minimise it, and those leave their
    // outcomes behind too: start clean.
    take();
    let mut executions = Vec::new();
    let report = explore_observed(&builder, body, |steps| {
        executions.push((steps.to_vec(), take()))
    });
    Run { report, executions }
}

/// The ways the two explorations can disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A failure the program's family cannot have.
    ImpossibleFailure,
    /// One found a failure and the other none, or another kind.
    Failures,
    /// The DPOR stopped before exhausting the program.
    Incomplete,
    /// The sets of final states differ.
    States,
    /// The DPOR ran more executions than the DFS.
    MoreExecutions,
    /// The DPOR ran one Mazurkiewicz trace more than once.
    Redundant,
    /// The DPOR ran a trace the DFS never did.
    UnknownTrace,
    /// The DPOR ran fewer traces than the DFS.
    MissingTraces,
    /// Not a disagreement, only printed: in a program that yields, traces the DPOR ran more than
    /// once, or traces under the fairness rule's relation it did not run while running every trace
    /// of the steps other than yields (see `random_programs::canonical_without_yields`).
    Note,
}

pub(crate) struct Problem {
    pub(crate) kind: Kind,
    pub(crate) text: String,
}

pub(crate) fn problem(kind: Kind, text: String) -> Problem {
    Problem { kind, text }
}

/// Totals over a batch of programs.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    pub(crate) programs: u64,
    pub(crate) skipped: u64,
    pub(crate) failing: u64,
    pub(crate) dfs_executions: u64,
    pub(crate) dpor_executions: u64,
}

pub(crate) fn kind(r: &Report) -> Option<FailureKind> {
    r.failure().map(|f| f.kind())
}

/// Explores `body` with both strategies and returns every disagreement. `take` collects the
/// outcome an execution recorded (`None` when it did not get to record one); `allowed` is the
/// only failure kind the program may have. A program the DFS cannot exhaust within
/// [`MAX_EXECUTIONS`] is counted in `stats.skipped` and not compared.
/// `stable_ids`: every object has the same id in every execution of a trace, so traces
/// compare by id and none may be missing (without it, only a repeated or unknown trace shows:
/// equal forms are still one trace, and the DPOR's schedules are ones the DFS ran). `changes`:
/// the changes made by code between two operations have stable ids too, and are part of the
/// traces (`random_programs::canonical_with_changes`).
pub(crate) fn differential<S: Ord + Clone + Debug>(
    body: &dyn Fn(),
    take: &dyn Fn() -> Option<S>,
    allowed: Option<FailureKind>,
    (stable_ids, changes): (bool, bool),
    stats: &mut Stats,
) -> Vec<Problem> {
    let canonical = |t: &[ObservedStep]| match changes {
        true => canonical_with_changes(t),
        false => canonical(t),
    };
    let dfs = explore(body, take, Strategy::Dfs);
    if dfs.report.failure().is_none() && !dfs.report.complete() {
        stats.skipped += 1;
        return Vec::new();
    }
    let dpor = explore(body, take, Strategy::Dpor);
    stats.programs += 1;
    stats.dfs_executions += dfs.report.executions();
    stats.dpor_executions += dpor.report.executions();
    let mut problems = Vec::new();

    // Failures: both stop at the first one, so only whether and which kind can be compared.
    for (name, r) in [("DFS", &dfs.report), ("DPOR", &dpor.report)] {
        if let Some(k) = kind(r).filter(|&k| Some(k) != allowed) {
            let text = format!("{name} found a {k}:\n{}", r.failure().expect("a failure"));
            problems.push(problem(Kind::ImpossibleFailure, text));
        }
    }
    if kind(&dfs.report) != kind(&dpor.report) {
        let shown = dfs.report.failure().or(dpor.report.failure());
        let text = format!(
            "DFS found {:?} in {} executions, DPOR {:?} in {}{}",
            kind(&dfs.report),
            dfs.report.executions(),
            kind(&dpor.report),
            dpor.report.executions(),
            shown
                .map(|f| format!("; the failure:\n{f}"))
                .unwrap_or_default()
        );
        problems.push(problem(Kind::Failures, text));
    }
    let failed = dfs.report.failure().is_some() || dpor.report.failure().is_some();
    if failed {
        stats.failing += 1;
    } else {
        if !dpor.report.complete() {
            let text = format!("DPOR stopped: {:?}", dpor.report.stop_reason());
            problems.push(problem(Kind::Incomplete, text));
        }
        let states = |r: &Run<S>| -> BTreeSet<S> {
            r.executions.iter().filter_map(|(_, s)| s.clone()).collect()
        };
        let (want, got) = (states(&dfs), states(&dpor));
        if want != got {
            let text = format!(
                "final states differ:\n  only DFS:  {:?}\n  only DPOR: {:?}",
                want.difference(&got).collect::<Vec<_>>(),
                got.difference(&want).collect::<Vec<_>>()
            );
            problems.push(problem(Kind::States, text));
        }
        if dpor.report.executions() > dfs.report.executions() {
            let text = format!(
                "DPOR ran {} executions, DFS {}",
                dpor.report.executions(),
                dfs.report.executions()
            );
            problems.push(problem(Kind::MoreExecutions, text));
        }
    }

    // With yields, the fairness rule's object makes the DPOR run some traces twice, and which
    // step let a yielding thread go is part of a trace but not always of the DPOR's relation:
    // both are only noted, and no trace is missed is checked on the steps other than yields.
    let yields = dfs
        .executions
        .iter()
        .any(|(t, _)| t.iter().any(|s| s.op == "yield"));
    // Mazurkiewicz traces (of the failing run too: it must not repeat an earlier one).
    let forms = |r: &Run<S>| -> Vec<Vec<ObservedStep>> {
        r.executions.iter().map(|(t, _)| canonical(t)).collect()
    };
    let dpor_forms = forms(&dpor);
    let mut repeated: Vec<(&[ObservedStep], usize)> = tally(&dpor_forms)
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .collect();
    repeated.sort_by_cached_key(|(form, _)| show(form));
    if !repeated.is_empty() {
        let mut text = format!(
            "DPOR ran {} traces more than once, in {} executions; for example:",
            repeated.len(),
            dpor.report.executions()
        );
        for (form, _) in repeated.iter().take(SHOWN) {
            for (i, (t, _)) in dpor.executions.iter().enumerate() {
                if canonical(t) == *form {
                    text += &format!("\n  #{i}: {}", show(t));
                }
            }
        }
        let kind = if yields { Kind::Note } else { Kind::Redundant };
        problems.push(problem(kind, text));
    }
    if !failed {
        let dfs_forms: HashSet<Vec<ObservedStep>> = forms(&dfs).into_iter().collect();
        let dpor_set: HashSet<Vec<ObservedStep>> = dpor_forms.into_iter().collect();
        let mut extra: Vec<String> = dpor_set.difference(&dfs_forms).map(|t| show(t)).collect();
        extra.sort();
        for t in extra.into_iter().take(SHOWN) {
            let text = format!("DPOR ran a trace DFS never saw: {t}");
            problems.push(problem(Kind::UnknownTrace, text));
        }
        if stable_ids {
            let kind = if yields {
                Kind::Note
            } else {
                Kind::MissingTraces
            };
            problems.extend(missing(&dfs_forms, &dpor_set, kind, ""));
        }
        if stable_ids && yields {
            let real = |r: &Run<S>| -> HashSet<Vec<ObservedStep>> {
                r.executions
                    .iter()
                    .map(|(t, _)| canonical_without_yields(t))
                    .collect()
            };
            let (want, got) = (real(&dfs), real(&dpor));
            problems.extend(missing(
                &want,
                &got,
                Kind::MissingTraces,
                " (yields left out)",
            ));
        }
    }
    problems
}

/// The traces (canonical forms) of `dfs` that `dpor` lacks, as a problem of `kind`.
pub(crate) fn missing(
    dfs: &HashSet<Vec<ObservedStep>>,
    dpor: &HashSet<Vec<ObservedStep>>,
    kind: Kind,
    what: &str,
) -> Option<Problem> {
    let mut lacking: Vec<String> = dfs
        .difference(dpor)
        .map(|t| format!("\n  {}", show(t)))
        .collect();
    if lacking.is_empty() {
        return None;
    }
    lacking.sort();
    let text = format!(
        "DFS ran {} traces{what}, DPOR {} of them; missing, for example:{}",
        dfs.len(),
        dfs.len() - lacking.len(),
        lacking.into_iter().take(SHOWN).collect::<String>()
    );
    Some(problem(kind, text))
}

/// The failure kind a program of `family` may have.
pub(crate) fn allowed(family: Family) -> Option<FailureKind> {
    match family {
        Family::AtomicsOnly
        | Family::NoFail
        | Family::Awaiting
        | Family::Yielding
        | Family::Untouched
        | Family::Woken
        | Family::Branching => None,
        Family::Asserting => Some(FailureKind::Panic),
        Family::Deadlocky => Some(FailureKind::Deadlock),
    }
}

/// The disagreements of `p`'s two explorations (notes left out).
pub(crate) fn compare(p: &Program, stats: &mut Stats) -> Vec<Problem> {
    compare_noting(p, stats).0
}

/// The disagreements of `p`'s two explorations, and the notes (`Kind::Note`) apart.
pub(crate) fn compare_noting(p: &Program, stats: &mut Stats) -> (Vec<Problem>, Vec<Problem>) {
    let ids = (p.family != Family::Untouched, p.family.has_arcs());
    let all = differential(&|| run(p), &take_final, allowed(p.family), ids, stats);
    all.into_iter().partition(|pr| pr.kind != Kind::Note)
}

/// The report for a disagreeing program: its problems, then the smallest program shrunk from
/// it that still has the first of them, with that program's problems.
pub(crate) fn explain(p: &Program, problems: &[Problem]) -> String {
    let first = problems[0].kind;
    let small = shrink(p, |q| {
        compare(q, &mut Stats::default())
            .iter()
            .any(|pr| pr.kind == first)
    });
    let texts = |ps: &[Problem]| ps.iter().map(|pr| pr.text.clone()).collect::<Vec<_>>();
    let mut out = format!("{p:?}\n{}", texts(problems).join("\n"));
    if small != *p {
        let again = compare(&small, &mut Stats::default());
        out += &format!("\nshrunk to:\n{small:?}\n{}", texts(&again).join("\n"));
    }
    out
}
