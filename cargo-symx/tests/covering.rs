//! Input-covering schedules on the acceptance programs of Bergan's dissertation (ch. 3), in
//! process: the exact numbers of schedules, their constraints, the prefix pruning, the
//! deadlock check, and that every (constraint, schedule) pair runs constrained without
//! divergence for a model of its constraint.

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

/// One program's times (Bergan's Table 3.2 gives the enumeration's; here also the testing
/// it buys and DPOR's for comparison), in seconds, measured in one run.
struct Times {
    name: &'static str,
    threads: usize,
    /// `covering::enumerate`.
    enumeration: f64,
    /// Every pair run constrained once with its model (`cargo symx test-schedules`).
    testing: f64,
    sigma: usize,
    /// DPOR's exploration (`None`: not run) and its executions.
    dpor: Option<(f64, u64)>,
}

/// Enumerates `body` and runs every pair constrained, timing both.
fn timed(name: &'static str, body: fn()) -> (Enumeration, Times) {
    let opts = Options::default();
    let mut exec = InProcess::new(builder(&opts), body);
    let started = std::time::Instant::now();
    let e = covering::enumerate(&mut exec, &opts);
    let enumeration = started.elapsed().as_secs_f64();
    assert!(e.complete, "{name}: {:?}", e.incomplete);
    let started = std::time::Instant::now();
    every_pair_runs_constrained(&mut exec, &e);
    let testing = started.elapsed().as_secs_f64();
    let threads = (e.pairs.iter()).map(|p| p.schedule.threads.len());
    let times = Times {
        name,
        threads: threads.max().unwrap_or(1),
        enumeration,
        testing,
        sigma: e.pairs.len(),
        dpor: None,
    };
    (e, times)
}

/// The figures of BENCHMARKS.md: |Σ| and the runs of the enumeration against the executions
/// DPOR explores over every input class, for each acceptance program (exact counts, so a
/// change shows here first), and the times of all three in one run (Table 3.2's kind).
/// Minutes, so not in CI: `cargo test -p cargo-symx --test covering figures -- --ignored
/// --nocapture` prints the tables.
#[test]
#[ignore]
fn figures() {
    // Name, program, |Σ|, DPOR executions where pinned (0: printed only).
    type Row = (&'static str, fn(), usize, u64);
    let programs: [Row; 10] = [
        ("fork_join W=2", programs::fork_join::<2>, 1, 0),
        ("fork_join W=4", programs::fork_join::<4>, 1, 0),
        ("fork_join W=8", programs::fork_join::<8>, 1, 0),
        (
            "lock_chosen_by_input",
            programs::lock_chosen_by_input,
            2,
            240,
        ),
        (
            "  with work in the sections",
            programs::lock_chosen_by_input_with_work,
            2,
            0,
        ),
        (
            "  branches around one lock",
            programs::branches_around_one_lock,
            1,
            0,
        ),
        ("specialization", programs::specialization, 1, 0),
        (
            "prefix_abort_after_lock",
            programs::prefix_abort_after_lock,
            2,
            0,
        ),
        ("fft_like W=2", programs::fft_like::<2>, 2, 0),
        ("fft_like W=4", programs::fft_like::<4>, 2, 0),
    ];
    println!("| program | |Σ| | enumeration runs | DPOR executions, all input classes |");
    println!("|---|---|---|---|");
    let mut times = Vec::new();
    for (name, body, sigma, dpor) in programs {
        let (e, mut t) = timed(name, body);
        let started = std::time::Instant::now();
        let n = interleavings(body);
        t.dpor = Some((started.elapsed().as_secs_f64(), n));
        println!("| {name} | {} | {} | {n} |", e.pairs.len(), e.paths);
        assert_eq!(e.pairs.len(), sigma, "{name}");
        if dpor > 0 {
            assert_eq!(n, dpor, "{name}");
        }
        times.push(t);
    }
    times.extend(epoch_figures());
    println!();
    println!(
        "| program | threads | enumeration (s) | test-schedules: \\|Σ\\| constrained runs (s) \
         | DPOR (s, executions) | enumeration / DPOR |"
    );
    println!("|---|---|---|---|---|---|");
    for t in times {
        let (dpor, ratio) = match t.dpor {
            Some((secs, n)) => (
                format!("{secs:.3} ({n})"),
                format!("{:.3}", t.enumeration / secs),
            ),
            None => ("not run".into(), "—".into()),
        };
        println!(
            "| {} | {} | {:.3} | {:.3} ({}) | {dpor} | {ratio} |",
            t.name, t.threads, t.enumeration, t.testing, t.sigma
        );
    }
}

/// The programs with loops on inputs: |𝓔| and |Σ| over every input, against DPOR's
/// executions for one input assignment (over every input class DPOR would not end: each trip
/// count is a class of its own). The times of each, as [`figures`] prints them.
fn epoch_figures() -> Vec<Times> {
    // Name, program, the inputs DPOR runs with (none: DPOR not run), |𝓔|, |Σ| (0: printed
    // only).
    type Row = (
        &'static str,
        fn(),
        &'static [(&'static str, i128)],
        usize,
        usize,
    );
    let rows: [Row; 12] = [
        (
            "lock_loops_any_count (x, y locks)",
            programs::lock_loops_any_count,
            &[("x", 2), ("y", 2)],
            4,
            12,
        ),
        (
            "lock_loops_one_function",
            programs::lock_loops_one_function,
            &[("x", 2), ("y", 2)],
            3,
            10,
        ),
        (
            "count_downs N=2",
            programs::count_downs::<2>,
            &[("k0", 2), ("k1", 2)],
            6,
            0,
        ),
        (
            "count_downs N=3",
            programs::count_downs::<3>,
            &[("k0", 2), ("k1", 2), ("k2", 2)],
            10,
            0,
        ),
        (
            "barrier_lockstep W=2 (lu-like)",
            programs::barrier_lockstep::<2>,
            &[("n", 3)],
            2,
            3,
        ),
        (
            "barrier_lockstep W=4",
            programs::barrier_lockstep::<4>,
            &[("n", 3)],
            2,
            3,
        ),
        // DPOR at W = 8 does not end in minutes: not run.
        (
            "barrier_lockstep W=8",
            programs::barrier_lockstep::<8>,
            &[],
            2,
            3,
        ),
        (
            "semaphore_loops, count havocked (radix-like)",
            programs::semaphore_loops::<true>,
            &[("n", 2)],
            4,
            15,
        ),
        (
            "semaphore_loops, count exact",
            programs::semaphore_loops::<false>,
            &[("n", 2)],
            4,
            9,
        ),
        (
            "pfscan_like W=1 (pfscan-like: producer, W consumers)",
            programs::pfscan_like::<1>,
            &[("files", 2)],
            3,
            7,
        ),
        (
            "pfscan_like W=2",
            programs::pfscan_like::<2>,
            &[("files", 2)],
            7,
            25,
        ),
        // DPOR at W = 3 with two files does not end in minutes: one file.
        (
            "pfscan_like W=3",
            programs::pfscan_like::<3>,
            &[("files", 1)],
            13,
            62,
        ),
    ];
    println!();
    println!(
        "| program | \\|𝓔\\| | \\|Σ\\| | enumeration runs | deadlocking (possibly infeasible) \
         | proved infeasible | DPOR executions at the inputs |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut times = Vec::new();
    for (name, body, inputs, epochs, sigma) in rows {
        let (e, mut t) = timed(name, body);
        let mut exec = InProcess::new(builder(&Options::default()), body);
        let v = covering::check_deadlocks(&mut exec, &e);
        let values: InputValues = inputs.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let at: Vec<String> = inputs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let dpor = match inputs.is_empty() {
            true => "not run".to_string(),
            false => {
                let started = std::time::Instant::now();
                let n = Builder::new().inputs(values).explore(body).executions();
                t.dpor = Some((started.elapsed().as_secs_f64(), n));
                format!("{n} ({})", at.join(", "))
            }
        };
        times.push(t);
        println!(
            "| {name} | {} | {} | {} | {} ({}) | {} | {dpor} |",
            e.epochs.len(),
            e.pairs.len(),
            e.paths,
            v.deadlocks.len(),
            v.possibly_infeasible(),
            v.proved_infeasible.len(),
        );
        if epochs > 0 {
            assert_eq!(e.epochs.len(), epochs, "{name}");
        }
        if sigma > 0 {
            assert_eq!(e.pairs.len(), sigma, "{name}");
        }
    }
    times
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

/// Every bundled program whose enumeration is complete (the loop without epochs and the
/// unabstracted search are the halting ones), by name.
fn bundled() -> Vec<(&'static str, fn())> {
    vec![
        ("fork_join W=2", programs::fork_join::<2>),
        ("fork_join W=4", programs::fork_join::<4>),
        ("fork_join W=8", programs::fork_join::<8>),
        ("lock_chosen_by_input", programs::lock_chosen_by_input),
        ("with work", programs::lock_chosen_by_input_with_work),
        (
            "branches around one lock",
            programs::branches_around_one_lock,
        ),
        ("specialization", programs::specialization),
        ("prefix_abort", programs::prefix_abort),
        ("prefix_abort_after_lock", programs::prefix_abort_after_lock),
        ("lock_order_inversion", programs::lock_order_inversion),
        ("self_deadlock_on_seven", programs::self_deadlock_on_seven),
        ("fft_like W=2", programs::fft_like::<2>),
        ("lock_loops_any_count", programs::lock_loops_any_count),
        ("lock_loops_one_function", programs::lock_loops_one_function),
        (
            "lock_loops_through_a_call",
            programs::lock_loops_through_a_call,
        ),
        ("count_downs N=2", programs::count_downs::<2>),
        ("count_downs N=3", programs::count_downs::<3>),
        ("barrier_lockstep W=2", programs::barrier_lockstep::<2>),
        ("barrier_lockstep W=4", programs::barrier_lockstep::<4>),
        (
            "abstracted_search_then_lock",
            programs::abstracted_search_then_lock,
        ),
        (
            "semaphore_loops havocked",
            programs::semaphore_loops::<true>,
        ),
        ("semaphore_loops exact", programs::semaphore_loops::<false>),
        ("pfscan_like W=1", programs::pfscan_like::<1>),
        ("pfscan_like W=2", programs::pfscan_like::<2>),
    ]
}

/// Follows a run with `inputs` through its epochs (the selector choosing at each boundary):
/// the pairs chosen, and the constrained run's divergence and failure kind.
fn follow(
    exec: &mut dyn Executor,
    e: &Enumeration,
    opts: &Options,
    inputs: &InputValues,
) -> (Vec<String>, Option<String>, Option<String>) {
    let f = covering::follow(exec, e, opts, inputs, 200);
    let ids = f.pairs.iter().map(|&i| e.pair_id(i)).collect();
    match f.end {
        Stop::Ran(ran) => (ids, ran.divergence, ran.failure.map(|f| f.kind)),
        other => panic!("{ids:?}: {other:?}"),
    }
}

/// The acceptance check over every bundled program, with symbolic thread ids (the default:
/// an epoch reached with its threads the other way round is the same epoch, whose
/// schedules the selector renumbers) and with concrete ones (each epoch's threads fixed by
/// its name). Every pair of the program's schedule file, read back from its JSON, runs
/// constrained with its model (after the schedules of the way its epoch was first reached,
/// which the file's `next_epoch`s give) without divergence; and a run with the program
/// inputs of that model alone (each at most 8, so that trip counts stay short), the
/// selector choosing the schedule of every epoch from the state at its start, follows its
/// schedules to its end.
#[test]
fn every_pair_of_every_bundled_program_runs_constrained_and_its_inputs_follow_every_epoch() {
    let concrete = Options {
        symbolic_tids: false,
        ..Options::default()
    };
    let mut later_epochs = Vec::new();
    for opts in [Options::default(), concrete] {
        let tids = match opts.symbolic_tids {
            true => "symbolic",
            false => "concrete",
        };
        let mut selections = 0;
        for (name, body) in bundled() {
            let mut exec = InProcess::new(builder(&opts), body);
            let e = covering::enumerate(&mut exec, &opts);
            assert!(e.complete, "{name}: {:?}", e.incomplete);
            let file = covering::schedule_file(name, &e, &Verdicts::default());
            let pairs = pairs_of_file(&serde_json::to_string(&file).unwrap());
            assert_eq!(pairs.len(), e.pairs.len());
            for (id, chain, model) in pairs {
                let ran = exec.run_constrained_epochs(&chain, &model).unwrap();
                assert_eq!(
                    ran.divergence, None,
                    "{name} {id} ({tids} tids), from the file"
                );
                let own: InputValues = (model.iter())
                    .filter(|(n, _)| !n.contains('@'))
                    .map(|(n, v)| (n.clone(), (*v).min(8)))
                    .collect();
                let (ids, divergence, _) = follow(&mut exec, &e, &opts, &own);
                assert_eq!(divergence, None, "{name} {id} ({tids} tids): {ids:?}");
                selections += ids.len() - 1;
            }
        }
        later_epochs.push(selections);
    }
    // The selections made at boundaries, over all those runs (symbolic, concrete tids). A
    // release build wraps on overflow, which reaches other epochs (pfscan_like's queue count
    // wraps at u32::MAX: see the pfscan test above), so it makes other selections.
    let expected = match cfg!(debug_assertions) {
        true => [433, 514],
        false => [402, 543],
    };
    assert_eq!(later_epochs, expected);
}

/// The marker placement reads one function's text; a loop whose synchronization is in a
/// function it calls is placed synchronization-free, and the run makes its head a marker
/// once an iteration has synchronized without passing one (Fig. 3.2 reaches it through the
/// call graph): the enumeration ends, and the report says why the loop is a marker.
#[test]
fn a_loop_that_synchronizes_through_a_call_is_made_a_marker_by_the_run() {
    let e = enumerate(programs::lock_loops_through_a_call);
    let heads: Vec<(&str, bool, &str)> = (e.loops.values())
        .map(|l| (l.function.as_str(), l.marker, l.reason.as_str()))
        .collect();
    assert_eq!(
        heads,
        [(
            "lock_n_times_through_a_call",
            true,
            "synchronizes in a function it calls"
        )]
    );
    assert_eq!(e.marker_counts(), (1, 1));
    // Each thread's first iteration runs unmarked: E0 has each thread lock 0 times, once,
    // or once and stop at the marker (3 × 3 schedules); the later epochs are those of
    // `lock_loops_one_function` (one thread at the marker, or both: 2 and 4 schedules).
    assert_eq!(epoch_counts(&e), (3, vec![9, 2, 4]));
}

/// Input names of a program.
type Inputs = &'static [&'static str];

/// The pairs of a schedule file (its JSON text): each one's id, the schedules a
/// constrained run of it follows (those of the way its epoch was first reached: the first
/// schedule, in file order, whose `next_epoch` is that epoch, and that one's way), and its
/// model.
fn pairs_of_file(text: &str) -> Vec<(String, Vec<HbSchedule>, InputValues)> {
    let file: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        (file["format"].as_str(), file["version"].as_u64()),
        (Some("symx-schedules"), Some(1))
    );
    let mut way: BTreeMap<String, Vec<HbSchedule>> = BTreeMap::new();
    way.insert("E0".into(), Vec::new());
    let mut out = Vec::new();
    for epoch in file["epochs"].as_array().unwrap() {
        let before = way[epoch["id"].as_str().unwrap()].clone();
        for s in epoch["schedules"].as_array().unwrap() {
            let schedule: HbSchedule = serde_json::from_value(serde_json::json!({
                "threads": s["threads"],
                "end": s["end"],
            }))
            .unwrap();
            let mut chain = before.clone();
            chain.push(schedule);
            if let Some(next) = s["next_epoch"].as_str() {
                way.entry(next.into()).or_insert_with(|| chain.clone());
            }
            let model: InputValues = serde_json::from_value(s["model"].clone()).unwrap();
            out.push((s["id"].as_str().unwrap().to_string(), chain, model));
        }
    }
    out
}

/// Symbolic thread ids on the programs whose threads run the same code (the epochs of both
/// ways round are one): every input of a grid, not only the models, is followed through
/// all its epochs. What tells such threads apart, their parameters (`n` of `lock_n_times`)
/// and which of them the scope has joined, is havocked or left unordered at the boundary.
#[test]
fn under_symbolic_thread_ids_every_input_of_a_grid_follows_its_schedules() {
    let opts = Options::default();
    let programs: [(fn(), Inputs); 4] = [
        (programs::lock_loops_one_function, &["x", "y"]),
        (programs::lock_loops_through_a_call, &["x", "y"]),
        (programs::count_downs::<2>, &["k0", "k1"]),
        (programs::count_downs::<3>, &["k0", "k1", "k2"]),
    ];
    let mut selections = Vec::new();
    for (body, names) in programs {
        let mut exec = InProcess::new(builder(&opts), body);
        let e = enumerate_with(body, opts.clone());
        let mut n = 0;
        for code in 0..4i128.pow(names.len() as u32) {
            let inputs: InputValues = (names.iter().enumerate())
                .map(|(j, k)| (k.to_string(), code / 4i128.pow(j as u32) % 4))
                .collect();
            let (ids, divergence, _) = follow(&mut exec, &e, &opts, &inputs);
            assert_eq!(divergence, None, "{inputs:?}: {ids:?}");
            n += ids.len();
        }
        selections.push(n);
    }
    assert_eq!(selections, [50, 35, 66, 284]);
}

#[test]
fn test_schedules_follows_a_run_through_all_its_epochs() {
    let opts = Options::default();
    let inputs = |xs: &[(&str, i128)]| -> InputValues {
        xs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    // T1 locks 3 times, T2 once: E0, both at their markers, T1 alone twice more.
    let mut exec = InProcess::new(builder(&opts), programs::lock_loops_any_count as fn());
    let e = enumerate(programs::lock_loops_any_count);
    let (ids, divergence, failure) = follow(&mut exec, &e, &opts, &inputs(&[("x", 3), ("y", 1)]));
    assert_eq!((divergence, failure), (None, None));
    assert_eq!(ids.len(), 4, "{ids:?}");
    // Eleven iterations of the lockstep loop: the barrier's epoch chosen eleven times, the
    // last time to leave it.
    let mut exec = InProcess::new(builder(&opts), programs::barrier_lockstep::<4> as fn());
    let e = enumerate(programs::barrier_lockstep::<4>);
    let (ids, divergence, _) = follow(&mut exec, &e, &opts, &inputs(&[("n", 11)]));
    assert_eq!(divergence, None);
    assert_eq!(ids.len(), 12, "{ids:?}");
    assert!(
        ids[1..11].iter().all(|id| *id == ids[1]) && ids[11] != ids[1],
        "{ids:?}"
    );
    // An input the test's assumption excludes has no schedule.
    let f = covering::follow(&mut exec, &e, &opts, &inputs(&[("n", 0)]), 200);
    assert!(
        matches!(f.end, Stop::Uncovered { epoch: 0, .. }),
        "{:?}",
        f.end
    );
    // With symbolic thread ids an epoch's schedules are those of its first way there: T1 at
    // the marker with `n` = `x`, T2 finished. Reached the other way round (T1 finished, T2
    // at the marker with `n` = `y`), T2 is renumbered T1, its `n` was havocked as T1's was,
    // and the scope joins no thread before both have finished: it follows, through the
    // epoch where one thread is left (E1), as it does with concrete thread ids.
    let mut exec = InProcess::new(builder(&opts), programs::lock_loops_one_function as fn());
    let e = enumerate(programs::lock_loops_one_function);
    let xy = inputs(&[("x", 0), ("y", 3)]);
    let (ids, divergence, _) = follow(&mut exec, &e, &opts, &xy);
    assert_eq!(divergence, None);
    assert_eq!(ids, ["E0#S2", "E1#S1", "E1#S1", "E1#S0"]);
    let concrete = Options {
        symbolic_tids: false,
        ..opts
    };
    let e = enumerate_with(programs::lock_loops_one_function, concrete.clone());
    assert_eq!(follow(&mut exec, &e, &concrete, &xy).1, None);
}

/// The pairs `covering::discharge` proves infeasible, with the part of their constraint it
/// proved unreachable at their epoch's start.
fn discharged(exec: &mut dyn Executor, e: &Enumeration) -> Vec<(String, String)> {
    (covering::discharge(exec, e).into_iter())
        .filter_map(|d| Some((e.pair_id(d.pair), d.unreachable?)))
        .collect()
}

#[test]
fn a_havocked_semaphore_count_gives_infeasible_schedules_that_the_discharge_proves() {
    // The count havocked at each boundary: in the loop's epoch E1 half the schedules let
    // T1's wait pass at once (count != 0), which no execution does.
    let opts = Options::default();
    let mut exec = InProcess::new(builder(&opts), programs::semaphore_loops::<true> as fn());
    let e = enumerate(programs::semaphore_loops::<true>);
    assert_eq!(epoch_counts(&e), (4, vec![2, 2, 3, 8]));
    let count_not_zero = "(not (= count@1.s #x00000000))";
    let suspicious: Vec<String> = (0..e.pairs.len())
        .filter(|&i| e.pairs[i].constraint_text.contains(count_not_zero))
        .map(|i| e.pair_id(i))
        .collect();
    assert_eq!(suspicious.len(), 4, "{suspicious:?}");
    // Every schedule into E1 leaves the count at 0 (from E0; and from E1 itself, assuming
    // it was 0 at its start): all four are infeasible, and nothing else is proved so.
    let proved = discharged(&mut exec, &e);
    let ids: Vec<String> = proved.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(ids, suspicious);
    assert!(
        proved.iter().all(|(_, part)| part == count_not_zero),
        "{proved:?}"
    );
    // The deadlock of T1 waiting after T2 has left (E2, count == 0) stays possibly
    // infeasible: the two loop counters are havocked independently, so the model lets T2
    // leave first with the count at 0.
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!(
        (verdicts.deadlocks.len(), verdicts.possibly_infeasible()),
        (1, 1)
    );
    // The count kept exactly (the runtime's own state, not havocked): no such schedules.
    let e = enumerate(programs::semaphore_loops::<false>);
    assert_eq!(epoch_counts(&e), (4, vec![2, 1, 2, 4]));
    assert!(e.pairs.iter().all(|p| !p.constraint_text.contains("count")));
    let mut exec = InProcess::new(builder(&opts), programs::semaphore_loops::<false> as fn());
    assert!(covering::discharge(&mut exec, &e).is_empty());
}

/// Its counts are those of checked arithmetic. A release build wraps: the havocked queue count
/// at `u32::MAX` plus the producer's push is an empty queue, so from E2 the consumer can also
/// wait, or leave if `done` was havocked true, with the producer still in its loop (two more
/// epochs, 5 against 3 for one consumer).
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "pins the epochs of checked arithmetic; a release build wraps and has more"
)]
fn a_pfscan_like_queue_has_possibly_infeasible_deadlocks_some_discharged() {
    let opts = Options::default();
    // One consumer: E0, the consumer at its loop with the producer done (main at the
    // scope's join), and with the producer at its loop. The havocked queue lets the
    // consumer wait for good with `done` false after the producer left: flagged, and proved
    // infeasible (every way into that epoch sets `done`).
    let mut exec = InProcess::new(builder(&opts), programs::pfscan_like::<1> as fn());
    let e = enumerate(programs::pfscan_like::<1>);
    assert_eq!(epoch_counts(&e), (3, vec![2, 2, 3]));
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!(
        (verdicts.deadlocks.len(), verdicts.possibly_infeasible()),
        (1, 1)
    );
    let deadlock = e.pair_id(verdicts.deadlocks[0].0);
    assert_eq!(
        discharged(&mut exec, &e),
        [(deadlock, "(= done@1.s #b0)".to_string())]
    );
    // DPOR for two files alone: 58 executions.
    let two = [("files".to_string(), 2)].into();
    let dpor = Builder::new()
        .inputs(two)
        .explore(programs::pfscan_like::<1>);
    assert_eq!(dpor.executions(), 58);
    // Two consumers: seven epochs, 25 schedules, four deadlocks flagged possibly
    // infeasible, none of which the discharge proves (the state it needs is not read after
    // every boundary); four other schedules it proves infeasible.
    let mut exec = InProcess::new(builder(&opts), programs::pfscan_like::<2> as fn());
    let e = enumerate(programs::pfscan_like::<2>);
    assert_eq!(epoch_counts(&e), (7, vec![2, 2, 3, 3, 5, 5, 5]));
    assert_eq!(e.pairs.len(), 25);
    let verdicts = covering::check_deadlocks(&mut exec, &e);
    assert_eq!(
        (verdicts.deadlocks.len(), verdicts.possibly_infeasible()),
        (4, 4)
    );
    let proved = discharged(&mut exec, &e);
    assert_eq!(proved.len(), 4, "{proved:?}");
    assert!(proved.iter().all(|(id, _)| !verdicts
        .deadlocks
        .iter()
        .any(|(i, _, _)| e.pair_id(*i) == *id)));
}

/// Table 3.3 of the dissertation: epoch markers with and without the placement's
/// optimizations (trivial loops, loops a barrier or an explicit marker covers, get none).
#[test]
fn the_marker_placement_halves_the_markers_as_table_3_3_reports() {
    // Name, program, markers with the optimizations, without.
    type Row = (&'static str, fn(), usize, usize);
    let rows: [Row; 4] = [
        // blackscholes: the join loop is trivial (paper: 0 / 2, with its spawn loop).
        ("fork_join W=2", programs::fork_join::<2>, 0, 1),
        // lu: the spawn loop is trivial, the barrier is the loop's marker (paper: 0 / 2).
        (
            "barrier_lockstep W=2",
            programs::barrier_lockstep::<2>,
            0,
            2,
        ),
        // radix-like: each loop covered by its explicit marker, the semaphore's wait loop
        // trivial (a condition-variable wait).
        ("semaphore_loops", programs::semaphore_loops::<true>, 0, 3),
        // pfscan: the spawn loop and the condvar wait loop are trivial (paper: 3 / 7).
        ("pfscan_like W=2", programs::pfscan_like::<2>, 2, 4),
    ];
    for (name, body, with, without) in rows {
        let e = enumerate(body);
        println!(
            "{name}: {:?} {:?}",
            e.marker_counts(),
            e.loops
                .values()
                .map(|l| l.reason.as_str())
                .collect::<Vec<_>>()
        );
        assert_eq!(e.marker_counts(), (with, without), "{name}: {:?}", e.loops);
    }
}
