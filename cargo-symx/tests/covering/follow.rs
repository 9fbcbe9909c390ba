//! The acceptance check over every bundled program: every pair of its schedule file runs
//! constrained without divergence, and a run with a model's inputs follows its schedules
//! through every epoch (`covering::follow`, `cargo symx test-schedules`).

use super::*;

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
