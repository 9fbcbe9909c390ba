//! The figures of BENCHMARKS.md and the dissertation's tables: |Σ|, the enumeration's runs
//! against DPOR's executions and the times of each (Table 3.2's kind, ignored: minutes), and
//! the epoch markers with and without the placement's optimizations (Table 3.3).

use super::*;

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
