//! Input-covering schedules on the acceptance programs of Bergan's dissertation (ch. 3), in
//! process: the exact numbers of schedules, their constraints, the prefix pruning, the
//! deadlock check, and that every (constraint, schedule) pair runs constrained without
//! divergence for a model of its constraint.
//!
//! This file holds the shared helpers and the acceptance programs' counts; `follow.rs` the
//! acceptance check over every bundled program, `discharge.rs` the infeasible schedules the
//! discharge proves, `figures.rs` the tables (BENCHMARKS.md's and the dissertation's).

mod discharge;
mod figures;
mod follow;

use std::collections::BTreeMap;

use cargo_symx::engine::covering::{self, DeadlockVerdict, Enumeration, Options, Stop, Verdicts};
use cargo_symx::engine::symbolic;
use cargo_symx::engine::{Executor, InProcess};
use symx::covering::{End, HbSchedule};
use symx::{Builder, InputValues};
use symx_test_programs::covering as programs;

/// The enumeration's settings for its constrained runs, as `cargo symx` gives its workers.
fn builder(opts: &Options) -> Builder {
    let epochs = symx::covering::Epochs {
        stop_at: None,
        no_lockstep: !opts.lockstep,
    };
    Builder::new().epochs(opts.epochs.then_some(epochs))
}

fn enumerate_with(body: fn(), opts: Options) -> Enumeration {
    let mut exec = InProcess::new(builder(&opts), body);
    let e = covering::enumerate(&mut exec, &opts);
    assert!(e.complete, "{:?}", e.incomplete);
    every_pair_runs_constrained(&mut exec, &e);
    e
}

fn enumerate(body: fn()) -> Enumeration {
    enumerate_with(body, Options::default())
}

/// Each pair's schedule, run constrained with its model input (after the schedules of the
/// epochs before it, on the way its epoch was first reached), is followed to its end (or to
/// a failure on a prefix of it).
fn every_pair_runs_constrained(exec: &mut dyn Executor, e: &Enumeration) {
    for p in &e.pairs {
        let ran = exec.run_constrained_epochs(&p.chain(), &p.model).unwrap();
        let epoch = &e.epochs[p.epoch].id;
        assert_eq!(ran.divergence, None, "{epoch}: I = {}", p.constraint_text);
    }
}

fn constraints(e: &Enumeration) -> Vec<&str> {
    e.pairs.iter().map(|p| p.constraint_text.as_str()).collect()
}

/// Executions DPOR runs over every input class (the symbolic engine): the interleavings
/// input-covering schedules stand for.
fn interleavings(body: fn()) -> u64 {
    let mut exec = InProcess::new(Builder::new(), body);
    let opts = symbolic::Options {
        keep_going: true,
        ..symbolic::Options::default()
    };
    symbolic::explore(&mut exec, &opts).executions
}

#[test]
fn fork_join_is_one_schedule_for_every_input_and_worker_count() {
    for body in [
        programs::fork_join::<2> as fn(),
        programs::fork_join::<4>,
        programs::fork_join::<8>,
    ] {
        let e = enumerate(body);
        assert_eq!(constraints(&e), ["true"]);
        assert!(!e.pairs[0].deadlocks());
        // The branch on the data was explored (two paths) but is not a schedule of its own.
        assert_eq!(e.paths, 2);
    }
}

#[test]
fn a_lock_chosen_by_the_input_is_two_schedules_against_240_interleavings() {
    let e = enumerate(programs::lock_chosen_by_input);
    assert_eq!(
        constraints(&e),
        ["(= x #x00000000)", "(not (= x #x00000000))"]
    );
    assert_eq!(interleavings(programs::lock_chosen_by_input), 240);
    // Work inside the critical sections that never writes `x` changes nothing.
    let e = enumerate(programs::lock_chosen_by_input_with_work);
    assert_eq!(e.pairs.len(), 2);
    assert!(
        e.paths > 2,
        "the work's own branch was explored: {}",
        e.paths
    );
    // Branches on `x` around one fixed lock choose no lock: one schedule.
    let e = enumerate(programs::branches_around_one_lock);
    assert_eq!(constraints(&e), ["true"]);
}

#[test]
fn another_input_satisfying_a_constraint_follows_its_schedule() {
    let mut exec = InProcess::new(Builder::new(), programs::lock_chosen_by_input as fn());
    let e = covering::enumerate(&mut exec, &Options::default());
    let not_zero = &e.pairs[1];
    let five: InputValues = [("x".to_string(), 5)].into();
    let ran = exec.run_constrained(&not_zero.schedule, &five).unwrap();
    assert_eq!(ran.divergence, None);
    // An input outside the constraint takes the other lock: the run diverges, and says where.
    let zero: InputValues = [("x".to_string(), 0)].into();
    let ran = exec.run_constrained(&not_zero.schedule, &zero).unwrap();
    let divergence = ran.divergence.expect("x = 0 takes the other lock");
    assert!(divergence.contains("covering.rs"), "{divergence}");
}

#[test]
fn schedule_specialization_is_one_schedule_under_which_the_panic_cannot_happen() {
    let e = enumerate(programs::specialization);
    assert_eq!(constraints(&e), ["true"]);
    // One run per pair (the testing argument): no failure under constrained execution ...
    let mut exec = InProcess::new(Builder::new(), programs::specialization as fn());
    let ran = exec
        .run_constrained(&e.pairs[0].schedule, &e.pairs[0].model)
        .unwrap();
    assert_eq!(ran.failure.map(|f| f.kind), None);
    // ... while free exploration finds it (T2 first, x odd).
    let opts = symbolic::Options::default();
    let out = symbolic::explore(&mut exec, &opts);
    assert_eq!(out.findings.len(), 1);
    assert_eq!(out.findings[0].inputs["x"] % 2, 1);
}

#[test]
fn an_fft_like_skeleton_is_two_schedules_whose_barriers_run_constrained() {
    let e = enumerate(programs::fft_like::<2>);
    assert_eq!(
        constraints(&e),
        [
            "(not (= ((_ extract 0 0) log_n) #b1))",
            "(= ((_ extract 0 0) log_n) #b1)"
        ]
    );
}

#[test]
fn a_failure_before_any_synchronization_is_a_prefix_schedule() {
    let e = enumerate(programs::prefix_abort);
    assert_eq!(constraints(&e), ["true"]);
    assert_eq!(e.pairs[0].prefixes, 1);
    // A lock before the abort makes it a schedule of its own.
    let e = enumerate(programs::prefix_abort_after_lock);
    assert_eq!(e.pairs.len(), 2);
    // Without the pruning the abort is a schedule too.
    let no_prefix = Options {
        prefix: false,
        ..Options::default()
    };
    let e = enumerate_with(programs::prefix_abort, no_prefix);
    assert_eq!(e.pairs.len(), 2);
    let ends: Vec<&End> = e.pairs.iter().map(|p| &p.schedule.end).collect();
    assert!(ends.contains(&&End::Exit) && ends.len() == 2, "{ends:?}");
}

#[test]
fn a_lock_order_inversion_is_deadlock_free_under_constrained_execution_only() {
    let e = enumerate(programs::lock_order_inversion);
    assert_eq!(e.pairs.len(), 1);
    let mut exec = InProcess::new(Builder::new(), programs::lock_order_inversion as fn());
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert!(verdicts.deadlocks.is_empty());
    // Free exploration deadlocks.
    let report = Builder::new().explore(programs::lock_order_inversion);
    assert_eq!(report.failure().map(|f| f.kind().name()), Some("deadlock"));
}

#[test]
fn an_input_triggered_self_deadlock_is_confirmed_with_its_witness() {
    let e = enumerate(programs::self_deadlock_on_seven);
    assert_eq!(e.pairs.len(), 2);
    let deadlocking: Vec<_> = e.pairs.iter().filter(|p| p.deadlocks()).collect();
    assert_eq!(deadlocking.len(), 1);
    assert_eq!(deadlocking[0].constraint_text, "(= x #x00000007)");
    let mut exec = InProcess::new(Builder::new(), programs::self_deadlock_on_seven as fn());
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!((verdicts.confirmed(), verdicts.unconfirmed()), (1, 0));
    let (_, inputs, verdict) = &verdicts.deadlocks[0];
    assert_eq!(inputs["x"], 7);
    let DeadlockVerdict::Confirmed { token, .. } = verdict else {
        panic!("{verdict:?}")
    };
    let schedule: symx::Schedule = token.parse().unwrap();
    let again = Builder::new().replay(&schedule, programs::self_deadlock_on_seven);
    assert_eq!(again.failure().map(|f| f.kind().name()), Some("deadlock"));
}

#[test]
fn a_loop_on_an_input_halts_at_the_budget_and_names_the_loop_without_epochs() {
    let opts = Options {
        max_paths: 30,
        epochs: false,
        ..Options::default()
    };
    let mut exec = InProcess::new(Builder::new(), programs::lock_loops as fn());
    let e = covering::enumerate(&mut exec, &opts);
    assert!(!e.complete);
    assert_eq!(e.paths, 30);
    let why = e.incomplete.join("; ");
    assert!(why.contains("path budget (30)"), "{why}");
    assert!(
        why.contains("tests/src/covering.rs:"),
        "the loop's file:line: {why}"
    );
    assert!(
        why.contains("a loop whose trip count an input decides"),
        "{why}"
    );
    // Every trip-count pair found so far is a schedule of its own (the runs the assumption
    // discards, after its `&&` was flipped, have none).
    assert_eq!(e.pairs.len() as u64 + e.discarded, e.paths);
}

/// |𝓔|, and |Σ_E| of E0 then of the others in increasing order (the order epochs are found
/// in is the enumeration's business).
fn epoch_counts(e: &Enumeration) -> (usize, Vec<usize>) {
    let mut later: Vec<usize> = e.epochs[1..].iter().map(|x| x.schedules).collect();
    later.sort_unstable();
    later.insert(0, e.epochs[0].schedules);
    (e.epochs.len(), later)
}

#[test]
fn bounded_epochs_end_the_enumeration_of_loops_on_inputs_whatever_the_trip_counts() {
    let concrete = Options {
        symbolic_tids: false,
        ..Options::default()
    };
    let e = enumerate_with(programs::lock_loops_any_count, concrete);
    // E0; both at their markers; T1 at its marker and T2 finished; the other way round.
    assert_eq!(epoch_counts(&e), (4, vec![4, 2, 2, 4]));
    assert_eq!(e.pairs.len(), 12);
    // Both loop heads are markers, placed because the loops synchronize.
    let markers: Vec<_> = e.loops.values().filter(|l| l.marker).collect();
    assert_eq!(markers.len(), 2, "{:?}", e.loops);
    assert!(markers.iter().all(|l| l.reason == "synchronizes"));
    // The same loops in one function: with symbolic thread ids the two one-thread epochs
    // are one.
    let e = enumerate(programs::lock_loops_one_function);
    assert_eq!(epoch_counts(&e), (3, vec![4, 2, 4]));
    assert_eq!(e.pairs.len(), 10);
}

#[test]
fn symbolic_thread_ids_make_the_epochs_polynomial_in_the_threads() {
    let concrete = Options {
        symbolic_tids: false,
        ..Options::default()
    };
    // Each thread at the loop's marker, after it or finished, not all finished: 3^N - 1
    // epochs by thread, N(N+3)/2 as multisets; E0 besides.
    for (body, n) in [
        (programs::count_downs::<2> as fn(), 2u32),
        (programs::count_downs::<3>, 3),
    ] {
        let e = enumerate_with(body, concrete.clone());
        assert_eq!(e.epochs.len() as u32, 3u32.pow(n) - 1 + 1, "N = {n}");
        let e = enumerate(body);
        assert_eq!(e.epochs.len() as u32, n * (n + 3) / 2 + 1, "N = {n}");
        // The loop is covered by its explicit marker: no marker of its own.
        let reasons: Vec<&str> = e.loops.values().map(|l| l.reason.as_str()).collect();
        assert!(e.loops.values().all(|l| !l.marker), "{reasons:?}");
        assert!(reasons.contains(&"covered by a marker"), "{reasons:?}");
    }
}

#[test]
fn a_barrier_lockstep_loop_is_two_epochs_and_three_schedules() {
    for body in [
        programs::barrier_lockstep::<2> as fn(),
        programs::barrier_lockstep::<4>,
        programs::barrier_lockstep::<8>,
    ] {
        let e = enumerate(body);
        // E0 to the barrier; at the barrier, every thread iterates or every thread leaves.
        assert_eq!(epoch_counts(&e), (2, vec![1, 2]));
        assert!(e.pairs.iter().all(|p| !p.deadlocks()));
        // No marker of its own: the barrier is the loop's marker.
        let reasons: Vec<&str> = e.loops.values().map(|l| l.reason.as_str()).collect();
        assert!(reasons.contains(&"covered by a barrier"), "{reasons:?}");
        assert!(e.loops.values().all(|l| !l.marker));
    }
}

#[test]
fn without_the_lockstep_invariant_a_barrier_loop_has_deadlocks_flagged_possibly_infeasible() {
    let opts = Options {
        lockstep: false,
        ..Options::default()
    };
    for (body, w) in [
        (programs::barrier_lockstep::<2> as fn(), 2),
        (programs::barrier_lockstep::<4>, 4),
    ] {
        // Each thread's counter is havocked on its own: in the barrier's epoch any subset of
        // the threads leaves the loop, and the rest then wait at the barrier for good.
        let mut exec = InProcess::new(builder(&opts), body);
        let e = covering::enumerate(&mut exec, &opts);
        assert!(e.complete, "{:?}", e.incomplete);
        every_pair_runs_constrained(&mut exec, &e);
        // E0, all at the barrier (2^W ways on), and one epoch per number of threads left
        // at it (1 to W - 1), each of which deadlocks.
        assert_eq!(e.epochs.len(), 2 + (w - 1), "W = {w}");
        assert_eq!(e.epochs[1].schedules, 1 << w, "W = {w}");
        let verdicts = covering::check_deadlocks(&mut exec, &e);
        assert_eq!(verdicts.deadlocks.len(), w - 1, "W = {w}");
        assert_eq!(verdicts.confirmed(), 0);
        assert_eq!(verdicts.possibly_infeasible(), w - 1);
        for (_, inputs, v) in &verdicts.deadlocks {
            let DeadlockVerdict::PossiblyInfeasible { havocked, .. } = v else {
                panic!("{v:?}")
            };
            assert!(havocked.iter().all(|h| h.starts_with("i@")), "{havocked:?}");
            assert!(inputs.keys().all(|k| k == "n"), "{inputs:?}");
        }
    }
}

#[test]
fn a_synchronization_free_search_halts_naming_it_until_it_is_abstracted() {
    let opts = Options {
        max_paths: 20,
        ..Options::default()
    };
    let mut exec = InProcess::new(Builder::new(), programs::search_then_lock as fn());
    let e = covering::enumerate(&mut exec, &opts);
    assert!(!e.complete);
    let why = e.incomplete.join("; ");
    assert!(why.contains("in `search`"), "{why}");
    assert!(why.contains("tests/src/covering.rs:"), "{why}");
    assert!(why.contains("needs `#[symx::r#abstract]`"), "{why}");
    // Abstracted, the search is one branch on its result: found (lock) or not.
    let e = enumerate(programs::abstracted_search_then_lock);
    assert_eq!(e.pairs.len(), 2);
    assert_eq!(e.paths, 2);
}
