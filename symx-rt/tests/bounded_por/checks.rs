//! Checks of one pinned program: its distinct traces and executions under a strategy and
//! bound, and the assertions the pinned tests share (every trace or final state the DFS
//! reaches, the reduction reaches, in no more executions).

use super::*;

/// The distinct traces (canonical forms) `p` runs under `strategy`, and its executions.
pub(crate) fn distinct_traces(
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
pub(crate) fn three_counts(p: &Program, bound: u32) -> [(usize, u64); 3] {
    [
        distinct_traces(p, Strategy::Dpor, None, false),
        distinct_traces(p, Strategy::Dfs, Some(bound), false),
        distinct_traces(p, Strategy::Dpor, Some(bound), false),
    ]
}

/// Checks that the DFS runs `dfs` (distinct traces, executions) of `p` under `bound` and
/// `spurious`, and the reduction every one of those traces in no more executions.
pub(crate) fn runs_every_trace(p: &Program, bound: Option<u32>, spurious: bool, dfs: (usize, u64)) {
    assert_eq!(
        distinct_traces(p, Strategy::Dfs, bound, spurious),
        dfs,
        "{p:?}"
    );
    let (reduced, executions) = distinct_traces(p, Strategy::Dpor, bound, spurious);
    assert_eq!(reduced, dfs.0, "{p:?}");
    assert!(executions <= dfs.1, "{p:?}");
}

/// Checks that the DFS reaches `states` final states of `p` under `bound` (none: spurious
/// wake-ups on), the reduction every one of them, and the two run `executions`.
pub(crate) fn reaches_every_state(
    p: &Program,
    bound: Option<u32>,
    states: usize,
    executions: (u64, u64),
) {
    let d = explore(p, Strategy::Dfs, bound, bound.is_none());
    let b = explore(p, Strategy::Dpor, bound, bound.is_none());
    let at = format!("{p:?}, bound {bound:?}");
    assert_eq!(d.states.len(), states, "{at}");
    assert_eq!(b.states, d.states, "{at}");
    let counts = (d.report.executions(), b.report.executions());
    assert_eq!(counts, executions, "{at}");
}

/// The distinct traces of `body` under `strategy` and `bound`, and the executions.
pub(crate) fn traces_of(
    body: impl Fn(),
    strategy: Strategy,
    bound: u32,
) -> (HashSet<Vec<ObservedStep>>, u64) {
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

/// `steps` with each object named by the first (thread, thread's step) that uses it, not by the
/// first step of the execution: the same in every execution of a trace.
pub(crate) fn by_first_use(steps: &[ObservedStep]) -> Vec<ObservedStep> {
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
