//! Checks the pinned programs share: an outcome recorded per execution of a plain symx program
//! (`record`) and the agreement of both strategies on it, and for a generated program its
//! agreement, its every trace reached (a trace run twice allowed) and its counts.

use super::*;

thread_local! {
    static OUTCOME: RefCell<Option<String>> = const { RefCell::new(None) };
}

pub(crate) fn record(outcome: String) {
    OUTCOME.with(|o| *o.borrow_mut() = Some(outcome));
}

pub(crate) fn take_outcome() -> Option<String> {
    OUTCOME.with(|o| o.borrow_mut().take())
}

/// Panics with every disagreement between DFS and DPOR on `body`, which must not fail.
pub(crate) fn assert_agree(body: fn()) {
    let ids = (true, false);
    let problems = differential(&body, &take_outcome, None, ids, &mut Stats::default());
    let texts: Vec<String> = problems
        .into_iter()
        .filter(|p| p.kind != Kind::Note)
        .map(|p| p.text)
        .collect();
    assert!(texts.is_empty(), "{}", texts.join("\n"));
}

/// Program `p` explored by the DFS and the optimal DPOR agrees (see [`compare`]); a pinned
/// program's disagreement is explained like a random one's.
pub(crate) fn assert_agrees(p: &Program) {
    let problems = compare(p, &mut Stats::default());
    assert!(problems.is_empty(), "{}", explain(p, &problems));
}

/// [`assert_agrees`] on the `Family::Woken` program of `threads` with one atomic and one mutex.
pub(crate) fn assert_agrees_with_one_lock(threads: Vec<Vec<Op>>) {
    assert_agrees(&Program {
        family: Family::Woken,
        atomics: 1,
        mutexes: 1,
        condvar: false,
        threads,
    });
}

/// [`assert_agrees`] but for traces run twice (a known gap, see `dpor`'s module doc).
pub(crate) fn assert_reaches_every_trace(p: &Program) {
    let twice = [Kind::Redundant, Kind::MoreExecutions];
    let problems: Vec<Problem> = (compare(p, &mut Stats::default()).into_iter())
        .filter(|pr| !twice.contains(&pr.kind))
        .collect();
    assert!(problems.is_empty(), "{}", explain(p, &problems));
}

/// [`assert_reaches_every_trace`], and the DFS's traces and the DPOR's executions on `p` are
/// `counts` (which bound the traces run twice).
pub(crate) fn assert_agrees_counting(p: &Program, counts: (usize, u64)) {
    assert_reaches_every_trace(p);
    let dfs = explore(&|| run(p), &take_final, Strategy::Dfs);
    let traces: HashSet<Vec<ObservedStep>> = (dfs.executions.iter())
        .map(|(t, _)| canonical_with_changes(t))
        .collect();
    let dpor = explore(&|| run(p), &take_final, Strategy::Dpor);
    assert_eq!((traces.len(), dpor.report.executions()), counts);
}
