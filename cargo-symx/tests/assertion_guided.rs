//! The assertion-guided engine on the paper's programs (Guo et al., "Assertion Guided
//! Symbolic Execution of Multithreaded Programs", ESEC/FSE 2015) and on the programs that pin
//! the soundness pitfalls of its algorithm, in process, with exact counts.

use cargo_symx::engine::assertion_guided::{self, wp, Options, SearchResult};
use cargo_symx::engine::InProcess;
use cargo_symx::solver::path::input_var;
use symx::trace::format::{EventKind, Ty};
use symx::Builder;
use symx_test_programs::guided;
use z3::ast::{Bool, BV};

fn search(body: fn(), opts: Options) -> SearchResult {
    let mut exec = InProcess::new(Builder::new(), body);
    assertion_guided::explore(&mut exec, &opts)
}

fn pruned() -> Options {
    Options {
        keep_going: true,
        ..Options::default()
    }
}

fn baseline() -> Options {
    Options {
        prune: false,
        ..pruned()
    }
}

/// Every finding replays from its token to the same failure.
fn replays(out: &SearchResult, body: fn()) {
    for f in &out.findings {
        let schedule: symx::Schedule = f.failure.token.parse().expect("a valid token");
        let again = Builder::new().replay(&schedule, body);
        let failure = again.failure().expect("the token replays the failure");
        assert_eq!(failure.message(), f.failure.message);
    }
}

fn messages(out: &SearchResult) -> Vec<&str> {
    out.findings
        .iter()
        .map(|f| f.failure.message.as_str())
        .collect()
}

#[test]
fn fig2_the_baseline_runs_six_executions_and_pruning_one_full_and_four_cut() {
    let base = search(guided::fig2_a_le_b, baseline());
    assert_eq!(
        (base.executions, base.full, base.cut),
        (6, 6, 0),
        "{base:#?}"
    );
    assert!(base.complete && base.findings.is_empty(), "{base:#?}");
    let ag = search(guided::fig2_a_le_b, pruned());
    assert_eq!((ag.executions, ag.full, ag.cut), (5, 1, 4), "{ag:#?}");
    assert!(ag.complete && ag.findings.is_empty(), "{ag:#?}");
    assert!(ag.summaries > 0 && ag.checks >= 4, "{ag:#?}");
}

#[test]
fn fig2_with_x_up_to_11_fails_in_both_searches() {
    for opts in [baseline(), pruned()] {
        let out = search(guided::fig2_x_gt_11, opts);
        assert!(!out.findings.is_empty(), "{out:#?}");
        let f = &out.findings[0];
        assert!(f.failure.message.contains("a <= b"), "{f:#?}");
        assert_eq!(f.inputs["V"], 11, "{f:#?}");
        replays(&out, guided::fig2_x_gt_11);
    }
}

#[test]
fn fig3_k_blocks_take_2_to_the_k_executions_and_k_plus_1_pruned() {
    for k in 1..=6usize {
        let body: fn() = match k {
            1 => || guided::fig3(1),
            2 => || guided::fig3(2),
            3 => || guided::fig3(3),
            4 => || guided::fig3(4),
            5 => || guided::fig3(5),
            _ => || guided::fig3(6),
        };
        let base = search(body, baseline());
        assert_eq!(base.executions, 1 << k, "k = {k}: {base:#?}");
        let ag = search(body, pruned());
        assert_eq!(ag.executions, k as u64 + 1, "k = {k}: {ag:#?}");
        assert!(ag.complete && ag.findings.is_empty(), "k = {k}: {ag:#?}");
    }
}

#[test]
fn fig4_has_54_paths_without_reduction() {
    let every = Options {
        por: false,
        ..baseline()
    };
    let out = search(guided::fig4_gig, every);
    assert_eq!(out.executions, 54, "{out:#?}");
    assert!(out.complete, "{out:#?}");
    // With DPOR only the order of each counter's two increments matters: 4 × 3 × 3.
    let out = search(guided::fig4_gig, baseline());
    assert_eq!(out.executions, 36, "{out:#?}");
}

/// The paper's §4 table: the weakest precondition at each location of the path that takes
/// all three branches.
#[test]
fn the_wp_table() {
    let run = Builder::new().run_guided(&symx::Guide::default(), guided::wp_table);
    let trace = run.trace;
    let branches: Vec<usize> = (trace.events.iter().enumerate())
        .filter(|(_, e)| e.kind == EventKind::Branch)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(branches.len(), 3);
    let var = |n: &str| input_var(n, Ty::I32);
    let le0 = |n: &str| var(n).bvsle(BV::from_i64(0, 32));
    let (a, b, c) = (le0("a"), le0("b"), le0("c"));
    let rows: [(usize, Bool); 6] = [
        (branches[0], Bool::and(&[&a, &b, &c])),
        (branches[0] + 1, Bool::and(&[&b, &c])),
        (branches[1], Bool::and(&[&b, &c])),
        (branches[1] + 1, c.clone()),
        (branches[2], c.clone()),
        (branches[2] + 1, Bool::from_bool(true)),
    ];
    for (at, expected) in rows {
        let got = wp::path(&trace, at, true);
        let solver = z3::Solver::new();
        solver.assert(got.eq(&expected).not());
        assert_eq!(
            solver.check(),
            z3::SatResult::Unsat,
            "at event {at}: {got} is not {expected}"
        );
    }
}

#[test]
fn prune_infeasible_branch_finds_the_violation() {
    for opts in [baseline(), pruned()] {
        let out = search(guided::prune_infeasible_branch, opts);
        assert_eq!(messages(&out).len(), 1, "{out:#?}");
        assert!(messages(&out)[0].contains("r <= 0"), "{out:#?}");
        replays(&out, guided::prune_infeasible_branch);
    }
}

#[test]
fn prune_abort_leaf_reports_the_failure_in_both_orders() {
    let base = search(guided::prune_abort_leaf, baseline());
    let ag = search(guided::prune_abort_leaf, pruned());
    assert_eq!(base.findings.len(), 2, "{base:#?}");
    assert_eq!(ag.findings.len(), 2, "{ag:#?}");
    for f in &ag.findings {
        assert!(f.failure.message.contains("V == 1"), "{f:#?}");
    }
    replays(&ag, guided::prune_abort_leaf);
}

#[test]
fn dpor_backtrack_after_prune_finds_the_one_failing_schedule() {
    for opts in [baseline(), pruned()] {
        let out = search(guided::dpor_backtrack_after_prune, opts);
        assert_eq!(messages(&out).len(), 1, "{out:#?}");
        assert!(messages(&out)[0].contains("b >= 10"), "{out:#?}");
        assert!(out.findings[0].inputs["V"] < 10, "{out:#?}");
        replays(&out, guided::dpor_backtrack_after_prune);
    }
}

/// The pruned search finds the failure only with the replay of pruned accesses: without it
/// the one failing schedule is never planted (the differential test's witness).
#[test]
fn the_replay_of_pruned_accesses_is_needed_to_find_this_failure() {
    let without = search(
        guided::replay_needed,
        Options {
            replay: false,
            ..pruned()
        },
    );
    let counts = |o: &SearchResult| (o.executions, o.full, o.cut, o.findings.len());
    assert_eq!(counts(&without), (11, 8, 3, 0), "{without:#?}");
    let base = search(guided::replay_needed, baseline());
    let ag = search(guided::replay_needed, pruned());
    assert_eq!(counts(&base), (65, 65, 0, 1), "{base:#?}");
    assert_eq!(counts(&ag), (15, 9, 6, 1), "{ag:#?}");
    for out in [&base, &ag] {
        assert!(
            (messages(out).iter()).all(|m| m.contains("x * old fits a u8")),
            "{out:#?}"
        );
        assert!(
            out.findings.iter().all(|f| f.inputs["x"] & 15 >= 13),
            "{out:#?}"
        );
        replays(out, guided::replay_needed);
    }
}

/// The first execution breaks a symbolic assumption and is discarded; its other side (inputs
/// that keep it) is the next path, where `V = 7` fails.
#[test]
fn an_assumption_the_first_inputs_break_is_solved_for() {
    for opts in [baseline(), pruned()] {
        let out = search(guided::assumption_broken_first, opts);
        assert_eq!(
            messages(&out),
            ["thread 0 (main) panicked: V != 7"],
            "{out:#?}"
        );
        assert_eq!(out.findings[0].inputs["V"], 7, "{out:#?}");
        assert_eq!(out.executions, 3, "{out:#?}");
        replays(&out, guided::assumption_broken_first);
    }
}

/// States first summarised while `T` slept are reached again with `T` awake: the sleep-set
/// guard leaves those disjuncts out of the check there, and the pruned search finds the
/// violation in as many executions as the unpruned one (with every disjunct usable it found 8
/// of the 12, still the site).
#[test]
fn sleep_set_summary_finds_the_violation() {
    let base = search(guided::sleep_set_summary, baseline());
    let ag = search(guided::sleep_set_summary, pruned());
    for out in [&base, &ag] {
        assert!(
            (messages(out).iter()).all(|m| m.contains("not (w == 1 and c == 2)")),
            "{out:#?}"
        );
        replays(out, guided::sleep_set_summary);
    }
    assert_eq!(
        (base.executions, base.findings.len()),
        (166, 12),
        "{base:#?}"
    );
    assert_eq!((ag.executions, ag.findings.len()), (84, 12), "{ag:#?}");
    assert!(ag.sleep_guarded > 0, "{ag:#?}");
}

/// A replayed access plants one of its race's initials (source-DPOR's), not its own thread:
/// the pruned search runs fewer executions than DPOR alone here (it ran 109 to DPOR's 71 when
/// the replay planted the accessing thread), and both find the violation.
#[test]
fn a_replayed_access_plants_an_initial_of_its_race() {
    let base = search(guided::replay_initials, baseline());
    let ag = search(guided::replay_initials, pruned());
    for out in [&base, &ag] {
        assert!(!out.findings.is_empty(), "{out:#?}");
        replays(out, guided::replay_initials);
    }
    assert_eq!((base.executions, ag.executions), (71, 52));
}

/// Counts with and without the slice, on a program whose statistics counter races.
fn sliced_and_not(body: fn(), opts: Options) -> (SearchResult, SearchResult) {
    let unsliced = search(
        body,
        Options {
            slice: false,
            ..opts.clone()
        },
    );
    (search(body, opts), unsliced)
}

/// The counter's bumps are blind and race with each other: without the slice DPOR reverses
/// every such race (36 executions; 17 with pruning, whose pins of the bumps' values keep
/// states apart); with it the search is Fig. 2's again: 6 executions, and with pruning 2 in
/// full and 3 cut (the first execution's states are keyed before the slice is known).
#[test]
fn a_blind_counter_is_sliced_away() {
    let (base, base_all) = sliced_and_not(guided::counted, baseline());
    let (ag, ag_all) = sliced_and_not(guided::counted, pruned());
    for out in [&base, &base_all, &ag, &ag_all] {
        assert!(out.complete && out.findings.is_empty(), "{out:#?}");
        assert!(
            out.unsliced.is_empty() && out.restarted_executions == 0,
            "{out:#?}"
        );
    }
    for out in [&base, &ag] {
        assert_eq!(out.sliced.len(), 1, "{out:#?}");
        assert!(out.sliced[0].contains("guided.rs"), "{out:#?}");
    }
    assert!(base_all.sliced.is_empty() && ag_all.sliced.is_empty());
    let counts = |o: &SearchResult| (o.executions, o.full, o.cut);
    assert_eq!(counts(&base_all), (36, 36, 0), "{base_all:#?}");
    assert_eq!(counts(&base), (6, 6, 0), "{base:#?}");
    assert_eq!(counts(&ag_all), (17, 6, 11), "{ag_all:#?}");
    assert_eq!(counts(&ag), (5, 2, 3), "{ag:#?}");
}

/// An object the first execution used only blindly and a later one reads: that execution
/// breaks the slice, the search starts again without the object's site, and finds the
/// failure the slice would have hidden (the store order it depends on).
#[test]
fn a_slice_an_execution_breaks_is_dropped_and_the_search_restarted() {
    for opts in [baseline(), pruned()] {
        let (out, unsliced) = sliced_and_not(guided::counted_then_read, opts);
        for o in [&out, &unsliced] {
            assert_eq!(messages(o).len(), 1, "{o:#?}");
            assert!(messages(o)[0].contains("the last store was 2"), "{o:#?}");
            assert_eq!(o.findings[0].inputs["V"], 3, "{o:#?}");
            assert!(o.sliced.is_empty(), "{o:#?}");
            replays(o, guided::counted_then_read);
        }
        assert_eq!(out.unsliced.len(), 1, "{out:#?}");
        assert!(out.restarted_executions > 0, "{out:#?}");
        assert_eq!(out.executions, unsliced.executions, "{out:#?}");
    }
}

/// A failure that comes only before another thread's failed assumption ends the execution:
/// found in both searches (the search once ran the assuming thread first, saw no race, and
/// stopped after one discarded execution).
#[test]
fn a_failure_before_another_threads_failed_assumption_is_found() {
    for opts in [baseline(), pruned()] {
        let out = search(guided::discard_first, opts);
        assert_eq!(messages(&out), ["thread 2 panicked: x != 5"], "{out:#?}");
        assert_eq!(out.findings[0].inputs["x"] & 7, 5, "{out:#?}");
        assert_eq!((out.executions, out.full, out.cut), (3, 3, 0), "{out:#?}");
        replays(&out, guided::discard_first);
    }
}
