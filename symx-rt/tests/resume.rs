//! Checkpoint and resume: an exploration interrupted at any point and resumed (as often as it
//! is interrupted) runs exactly the executions of the uninterrupted exploration, in the same
//! order, and the resumed report's counts are the whole exploration's; a checkpoint of another
//! program, test or settings is refused with an error saying so.

mod common;

use common::counters;

// The differential test's programs; only their generator and interpreter are used here.
#[allow(dead_code)]
mod random_programs;

use std::cell::Cell;
use std::path::Path;
use std::sync::Mutex as StdMutex;

use random_programs::{generate, run, Family};
use symx::__private::{explore_observed, interrupt, ObservedStep};
use symx::{Builder, Report, StopReason, Strategy};
use symx_test_programs::rng::SplitMix64;

/// An interruption stops every exploration that checkpoints in the process: one test at a
/// time.
static ONE_AT_A_TIME: StdMutex<()> = StdMutex::new(());

type Executions = Vec<Vec<ObservedStep>>;

/// Explores `body` to the end in one go.
fn uninterrupted(b: &Builder, body: &dyn Fn()) -> (Report, Executions) {
    let mut seen = Vec::new();
    let report = explore_observed(b, body, |steps| seen.push(steps.to_vec()));
    (report, seen)
}

/// Explores `body` with a checkpoint in `file`, interrupting each run after the number of
/// executions `stops` draws (0: not at all), then resuming until the exploration ends.
fn interrupted(
    b: &Builder,
    body: &dyn Fn(),
    file: &Path,
    mut stops: impl FnMut() -> u64,
) -> (Report, Executions, u32) {
    let b = b.clone().checkpoint(Some(file.to_path_buf()));
    let mut seen = Vec::new();
    let mut runs = 0;
    loop {
        let stop_after = stops();
        let ran = Cell::new(0u64);
        let report = explore_observed(&b.clone().resume(runs > 0), body, |steps| {
            seen.push(steps.to_vec());
            ran.set(ran.get() + 1);
            if ran.get() == stop_after {
                interrupt();
            }
        });
        runs += 1;
        if report.stop_reason() != StopReason::Interrupted {
            // An exploration that ended leaves none; one stopped by its bound can go on.
            let can_go_on = report.stop_reason() == StopReason::MaxExecutions;
            assert_eq!(file.exists(), can_go_on, "{:?}", report.stop_reason());
            return (report, seen, runs);
        }
        assert!(
            file.exists(),
            "an interrupted exploration leaves a checkpoint"
        );
        assert!(runs < 10_000, "resuming makes no progress");
    }
}

#[test]
fn random_programs_interrupted_at_random_points_run_the_uninterrupted_executions() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(14);
    let (mut programs, mut interruptions) = (0, 0);
    for family in Family::ALL {
        for seed in 0..25 {
            let p = generate(seed, family, 2_000.0);
            let body = || run(&p);
            let b = Builder::new();
            let (whole, expected) = uninterrupted(&b, &body);
            let n = expected.len() as u64;
            let file = dir.path().join(format!("{family:?}-{seed}.json"));
            // Stop once or twice per run, somewhere within the exploration.
            let (resumed, got, runs) =
                interrupted(&b, &body, &file, || 1 + rng.next_u64() % n.max(1));
            interruptions += runs - 1;
            programs += 1;
            assert_eq!(
                got,
                expected,
                "seed {seed}, {family:?}: interrupted {} times, the executions differ",
                runs - 1
            );
            assert_eq!(resumed.executions(), whole.executions(), "seed {seed}");
            assert_eq!(resumed.complete(), whole.complete(), "seed {seed}");
            assert_eq!(
                resumed.failure().map(|f| f.kind()),
                whole.failure().map(|f| f.kind()),
                "seed {seed}"
            );
        }
    }
    assert_eq!(programs, 25 * Family::ALL.len());
    assert!(interruptions >= 100, "{interruptions} interruptions");
}

#[test]
fn every_strategy_resumes_where_it_stopped() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let body = || counters(3, 2);
    for (name, b) in [
        ("dpor", Builder::new()),
        ("dfs", Builder::new().strategy(Strategy::Dfs)),
        (
            "bounded dfs",
            Builder::new()
                .strategy(Strategy::Dfs)
                .preemption_bound(Some(1)),
        ),
        (
            "random",
            Builder::new()
                .strategy(Strategy::Random { seed: 7 })
                .max_executions(Some(300)),
        ),
        (
            "pct",
            Builder::new()
                .strategy(Strategy::Pct { seed: 7, depth: 2 })
                .max_executions(Some(300)),
        ),
    ] {
        let (whole, expected) = uninterrupted(&b, &body);
        let file = dir.path().join(name);
        let (resumed, got, runs) = interrupted(&b, &body, &file, || 5);
        assert!(runs > 3, "{name}: {runs} runs");
        assert_eq!(got, expected, "{name}");
        assert_eq!(resumed.executions(), whole.executions(), "{name}");
        assert_eq!(resumed.stop_reason(), whole.stop_reason(), "{name}");
        assert!(resumed.resumed() > 0, "{name}");
    }
}

#[test]
fn the_default_s_shallow_passes_resume_too() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // 2,520 executions: the passes start after the DPOR's first few hundred.
    let body = || counters(4, 2);
    let b = Builder::new();
    let (whole, expected) = uninterrupted(&b, &body);
    assert!(whole.shallow_executions() > 0);
    let file = dir.path().join("shallow");
    let (resumed, got, _) = interrupted(&b, &body, &file, || 400);
    assert_eq!(got, expected);
    assert_eq!(
        (resumed.executions(), resumed.shallow_executions()),
        (whole.executions(), whole.shallow_executions())
    );
}

#[test]
fn a_time_budget_leaves_a_checkpoint_and_the_rest_runs_on_resume() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("budget");
    let b = Builder::new().checkpoint(Some(file.clone()));
    let first = b
        .clone()
        .time_budget(Some(std::time::Duration::ZERO))
        .explore(|| counters(3, 2));
    assert_eq!(first.stop_reason(), StopReason::TimeBudget);
    // No execution ran, so there is nothing to resume: no file.
    assert!(!file.exists());
    let bounded = b
        .clone()
        .max_executions(Some(40))
        .explore(|| counters(3, 2));
    assert_eq!(bounded.stop_reason(), StopReason::MaxExecutions);
    assert!(file.exists());
    // Resumed without the bound: the rest runs (with the default's shallow passes, which the
    // bound had turned off; they start afresh).
    let rest = b.clone().resume(true).explore(|| counters(3, 2));
    assert!(rest.complete());
    assert_eq!((rest.executions(), rest.resumed()), (90, 40));
    assert!(!file.exists());
}

/// The panic message of `f`.
fn refusal(f: impl FnOnce() -> Report) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .expect_err("resuming must be refused");
    err.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn a_checkpoint_of_another_program_test_or_settings_is_refused() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("refused");
    let b = Builder::new()
        .name("resume::refused")
        .checkpoint(Some(file.clone()))
        .max_executions(Some(10));
    let write = || {
        b.explore(|| counters(3, 2));
        assert!(file.exists());
    };
    write();
    // The program changed: its last execution no longer runs alike.
    let changed = refusal(|| b.clone().resume(true).explore(|| counters(3, 3)));
    assert!(changed.contains("the program changed"), "{changed}");
    assert!(
        changed.contains("cannot resume from the checkpoint"),
        "{changed}"
    );
    // Other settings.
    write();
    let bound = refusal(|| {
        b.clone()
            .preemption_bound(Some(2))
            .resume(true)
            .explore(|| counters(3, 2))
    });
    assert!(bound.contains("other settings"), "{bound}");
    // Another test.
    let other = refusal(|| {
        b.clone()
            .name("resume::other")
            .resume(true)
            .explore(|| counters(3, 2))
    });
    assert!(other.contains("belongs to test"), "{other}");
    // An older format (7: object names keyed by an event's index and location, without its
    // count of events there), or not a checkpoint at all.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"format\":8"), "the current format is 8");
    std::fs::write(&file, text.replacen("\"format\":8", "\"format\":7", 1)).unwrap();
    let format = refusal(|| b.clone().resume(true).explore(|| counters(3, 2)));
    assert!(
        format.contains("format 7, this symx reads format 8"),
        "{format}"
    );
    std::fs::write(&file, "{").unwrap();
    let garbage = refusal(|| b.clone().resume(true).explore(|| counters(3, 2)));
    assert!(garbage.contains("not a symx checkpoint"), "{garbage}");
    // A checkpoint of the default (with its shallow passes) cannot become an exploration
    // under an execution bound (which runs none).
    let mut ran = 0;
    explore_observed(
        &b.clone().max_executions(None),
        || counters(3, 2),
        |_| {
            ran += 1;
            if ran == 5 {
                interrupt();
            }
        },
    );
    assert!(file.exists());
    let bounded = refusal(|| {
        b.clone()
            .max_executions(Some(1_000))
            .resume(true)
            .explore(|| counters(3, 2))
    });
    assert!(bounded.contains("shallow passes"), "{bounded}");
    // Without `resume` the file is ignored and overwritten.
    let fresh = b.explore(|| counters(3, 2));
    assert_eq!((fresh.executions(), fresh.resumed()), (10, 0));
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_after_the_current_execution_and_leaves_a_checkpoint() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ctrl-c");
    let b = Builder::new().checkpoint(Some(file.clone()));
    let mut ran = 0;
    let first = explore_observed(
        &b,
        || counters(3, 2),
        |_| {
            ran += 1;
            if ran == 10 {
                // SAFETY: raising a signal; the exploration's handler only sets a flag.
                unsafe { libc::raise(libc::SIGINT) };
            }
        },
    );
    assert_eq!(first.stop_reason(), StopReason::Interrupted);
    assert_eq!(first.executions(), 10);
    assert!(file.exists());
    let rest = b.resume(true).explore(|| counters(3, 2));
    assert!(rest.complete());
    assert_eq!((rest.executions(), rest.resumed()), (90, 10));
}
