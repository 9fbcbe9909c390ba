//! Joins over symbolic thread identities: the paper's `pthread_join(t[i])` with an unknown
//! `i`, where a worker is still running at the context. The facts "slot k is running" keep a
//! join from returning before its thread exits; without them (`no-si`, `naive`) a join may
//! find a running worker already done, and the worker's missing result is a false panic.

use symx::context::{self, Cells, ContextMode, Threads};

use super::{explore, labels, vectors};

/// Two workers inside their last iteration, each about to store its result; the main
/// thread about to join worker `t`, an unknown index, and read its result.
fn join_an_unknown_worker() {
    let workers = Threads::new("worker", 2);
    let results = Cells::known("result", vec![0u8; 2]);
    let handles: Vec<_> = (0..2)
        .map(|k| {
            let results = results.clone();
            workers.spawn(k, move || results.set(k, 1u8))
        })
        .collect();
    let t = context::identity("t", 2);
    workers.join(t);
    let result = results.get(t);
    symx::assert!(result.sym_eq(1u8), "the joined worker's result is missing");
    for h in handles {
        h.join().unwrap();
    }
}

/// Worker 1 exited before the context, its result stored; worker 0 still runs.
fn join_with_one_worker_exited() {
    let workers = Threads::new("worker", 2);
    let results = Cells::known("result", vec![0u8, 1u8]);
    workers.exited(1);
    let r = results.clone();
    let running = workers.spawn(0, move || r.set(0usize, 1u8));
    let t = context::identity("t", 2);
    workers.join(t);
    symx::assert!(
        results.get(t).sym_eq(1u8),
        "the joined worker's result is missing"
    );
    running.join().unwrap();
}

#[test]
fn full_never_returns_from_a_join_before_the_worker_exits() {
    let out = explore(ContextMode::Full, join_an_unknown_worker);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    // The join finds worker t exited only when it ran first; otherwise it waits, and worker
    // t's exit wakes it (the other worker's exit, first, wakes nobody).
    let expected = vectors(&[
        &["exited"],
        &["wait", "wake {0}", "exited"],
        &["wait", "wake {}", "wake {0}", "exited"],
    ]);
    assert_eq!(labels(&out), expected, "{out:#?}");
    assert_eq!(out.paths, 29);
}

#[test]
fn naive_returns_from_a_join_on_a_running_worker() {
    let out = explore(ContextMode::Naive, join_an_unknown_worker);
    // `done[t]` is free: the join returns before worker t stored its result. One failing
    // path per causal past of the panic (the read of the results, which conflicts with both
    // workers' stores): for t = 1, the other worker had not stored, had stored, or had
    // stored and exited before the join; for t = 0, the other worker had stored, or stored
    // and exited. A search of every schedule (DFS) fails on 8 schedules with exactly these
    // 5 causal pasts. The panic ends the execution with the other worker's store still to
    // do: its race with the read is the one an execution's left-over operations show. 6
    // since session 20's DPOR rules (a moved operation whose result may differ carries
    // `Access::Touches`, a wakeup tree's leaf no longer covers a longer sequence): the DFS's
    // 8 failing schedules have 5 causal pasts, so one of them runs twice.
    assert_eq!(out.failures_of("panic"), 6, "{out:#?}");
    assert_eq!(out.failures.len(), 6, "{out:#?}");
    let facts = out.failures.iter().flat_map(|f| &f.facts).count();
    assert_eq!(facts, 0, "naive keeps no fact for a failure to depend on");
}

#[test]
fn no_si_has_the_false_panic_and_no_rd_has_none() {
    // The same 6 failing paths as naive's (see above: 5 causal pasts, one twice).
    assert_eq!(
        explore(ContextMode::NoSi, join_an_unknown_worker)
            .failures
            .len(),
        6
    );
    assert_eq!(
        explore(ContextMode::NoRd, join_an_unknown_worker)
            .failures
            .len(),
        0
    );
}

#[test]
fn an_exited_worker_is_joined_at_once_and_a_running_one_waited_for() {
    let full = explore(ContextMode::Full, join_with_one_worker_exited);
    assert_eq!(full.failures.len(), 0, "{full:#?}");
    let expected = vectors(&[&["exited"], &["wait", "wake {0}", "exited"]]);
    assert_eq!(labels(&full), expected, "{full:#?}");
    // Naive: worker 0 may look done while it runs (a false panic), and the exited worker 1
    // may look running, so joining it waits for an exit that never comes (false deadlocks).
    let naive = explore(ContextMode::Naive, join_with_one_worker_exited);
    assert_eq!(naive.failures_of("panic"), 1, "{naive:#?}");
    assert_eq!(naive.failures_of("deadlock"), 2, "{naive:#?}");
}
