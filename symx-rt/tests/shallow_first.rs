//! The default exploration finds bugs that need one preemption early in a long execution
//! quickly (its preemption-bounded passes), and still proves correct programs with exact
//! counts (the optimal DPOR, counted apart from the passes).

mod common;

use common::counters;

use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use symx::sync::{Arc, Mutex};
use symx::{thread, Builder, FailureKind};

#[test]
fn a_lost_update_before_a_long_dependent_tail_is_found_by_the_passes() {
    // Without the passes the DPOR runs the tail's orders first: no bug in 500 executions.
    let dpor = Builder::new()
        .shallow_first(false)
        .max_executions(Some(500))
        .explore(|| lost_update_at(2, 0, 20));
    assert!(dpor.failure().is_none());
    let report = Builder::new().explore(|| lost_update_at(2, 0, 20));
    let failure = report.failure().expect("the lost update");
    assert_eq!(failure.kind(), FailureKind::Panic);
    assert_eq!(failure.preemptions(), 1);
    assert!(report.shallow_executions() > 0);
    // The DPOR's first 256 executions run alone (small explorations stay the DPOR's own);
    // then the one-preemption pass reaches the lost update within a few dozen.
    assert!(
        report.executions() < 256 + 64,
        "{} executions",
        report.executions()
    );
}

#[test]
fn counts_of_a_correct_program_are_the_dpor_s_alone() {
    // 2,520 orders of the eight increments: long enough for the passes to start.
    let with = Builder::new().explore(|| counters(4, 2));
    let without = Builder::new()
        .shallow_first(false)
        .explore(|| counters(4, 2));
    assert!(with.complete() && without.complete());
    assert_eq!(with.executions(), 2_520);
    assert_eq!(without.executions(), 2_520);
    assert_eq!(without.shallow_executions(), 0);
    assert!(with.shallow_executions() > 0);
    assert!(with.shallow_executions() <= 2_520 / 2);
    // A small exploration ends before the passes start.
    let small = Builder::new().explore(|| counters(3, 2));
    assert_eq!((small.executions(), small.shallow_executions()), (90, 0));
}

#[test]
fn recorded_traces_are_the_dpor_s_alone() {
    // The passes' executions repeat traces the DPOR runs too: the exploration's traces are
    // one per DPOR execution.
    let mut traces = 0u64;
    let report = Builder::new().explore_traces(|| counters(4, 2), |_| traces += 1);
    assert!(report.complete() && report.shallow_executions() > 0);
    assert_eq!((report.executions(), traces), (2_520, 2_520));
}

/// `threads` threads; each does `before` critical sections on one shared mutex, a lost update
/// (load, then store) on a shared atomic, then `after` critical sections. The bug needs one
/// preemption between a load and its store.
fn lost_update_at(threads: usize, before: usize, after: usize) {
    let x = Arc::new(AtomicUsize::new(0));
    let m = Arc::new(Mutex::new(0));
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let (x, m) = (x.clone(), m.clone());
            thread::spawn(move || {
                for _ in 0..before {
                    *m.lock().unwrap() += 1;
                }
                let v = x.load(SeqCst);
                x.store(v + 1, SeqCst);
                for _ in 0..after {
                    *m.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(x.load(SeqCst), threads, "lost update");
}

fn show(r: &symx::Report) -> String {
    let what = match r.failure() {
        Some(f) => format!("bug ({} preemptions)", f.preemptions()),
        None if r.complete() => "proof".to_string(),
        None => "not in budget".to_string(),
    };
    format!(
        "{what}: {} executions (+{} shallow), {:.3} s",
        r.executions(),
        r.shallow_executions(),
        r.elapsed().as_secs_f64()
    )
}

/// Time to the bug and to the proof, default (shallow passes on) against the optimal DPOR
/// alone, in one run. `SYMX_SHALLOW_BUDGET` (seconds, default 10) caps each exploration.
/// `cargo test --release -p symx-rt --test shallow_first -- --ignored --nocapture`
#[test]
#[ignore = "a measurement for BENCHMARKS.md; run by hand in release"]
fn measure_time_to_bug_and_proof() {
    let budget: u64 = std::env::var("SYMX_SHALLOW_BUDGET").map_or(10, |s| s.parse().expect("secs"));
    let budget = std::time::Duration::from_secs(budget);
    let mut rows: Vec<(String, Box<dyn Fn()>)> = Vec::new();
    for (threads, tail) in [(2, 10), (2, 20), (2, 40), (3, 10), (3, 20), (4, 10)] {
        rows.push((
            format!("{threads} threads, bug at the start, tail {tail}"),
            Box::new(move || lost_update_at(threads, 0, tail)),
        ));
        rows.push((
            format!(
                "{threads} threads, bug in the middle, {} + {}",
                tail / 2,
                tail / 2
            ),
            Box::new(move || lost_update_at(threads, tail / 2, tail / 2)),
        ));
        rows.push((
            format!("{threads} threads, bug at the end, head {tail}"),
            Box::new(move || lost_update_at(threads, tail, 0)),
        ));
    }
    rows.push(("counters 3x3 (correct)".into(), Box::new(|| counters(3, 3))));
    rows.push(("counters 4x2 (correct)".into(), Box::new(|| counters(4, 2))));
    rows.push(("counters 2x8 (correct)".into(), Box::new(|| counters(2, 8))));
    println!("| program | default (shallow passes) | optimal DPOR alone (before) | time ratio |");
    println!("|---|---|---|---:|");
    for (name, body) in &rows {
        let new = Builder::new().time_budget(Some(budget)).explore(body);
        let old = Builder::new()
            .shallow_first(false)
            .time_budget(Some(budget))
            .explore(body);
        let ratio = new.elapsed().as_secs_f64() / old.elapsed().as_secs_f64();
        println!("| {name} | {} | {} | {ratio:.3} |", show(&new), show(&old));
    }
}
