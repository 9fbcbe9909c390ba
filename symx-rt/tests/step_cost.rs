//! The cost of the optimal DPOR per execution and per step: executions per second on the
//! counters (every step conflicts, so the reduction prunes nothing and only its bookkeeping
//! shows), and time per step of long executions with 2 to 50 threads.
//!
//! `cargo test --release -p symx-rt --test step_cost -- --ignored --nocapture measure`
//! (numbers in BENCHMARKS.md, "Cost per execution and per step").

use std::time::Instant;

use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use symx::sync::Arc;
use symx::{thread, Builder, Strategy};

/// `threads` threads each adding `adds` times to one counter.
fn counters(threads: usize, adds: usize) -> impl Fn() + Sync {
    move || {
        let n = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let n = n.clone();
                thread::spawn(move || {
                    for _ in 0..adds {
                        n.fetch_add(1, SeqCst);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

/// `threads` threads taking `steps` steps in all: each adds to its own counter, and every
/// tenth step reads a shared one (so that some steps race and the reduction has work).
fn long_execution(threads: usize, steps: usize) -> impl Fn() + Sync {
    move || {
        let shared = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let shared = shared.clone();
                thread::spawn(move || {
                    let own = AtomicUsize::new(0);
                    for i in 0..steps / threads {
                        match i % 10 {
                            0 if t % 2 == 0 => drop(shared.fetch_add(1, SeqCst)),
                            0 => drop(shared.load(SeqCst)),
                            _ => drop(own.fetch_add(1, SeqCst)),
                        }
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

fn run(b: &Builder, body: &(dyn Fn() + Sync)) -> (u64, f64) {
    let start = Instant::now();
    let report = b.explore(body);
    (report.executions(), start.elapsed().as_secs_f64())
}

/// Whether to measure `part` (`SYMX_MEASURE` names one part: `counters` or `steps`).
fn wanted(part: &str) -> bool {
    std::env::var("SYMX_MEASURE").map_or(true, |only| only == part)
}

#[test]
#[ignore = "a measurement (release build): prints executions per second and time per step"]
fn measure() {
    let dpor = Builder::new().shallow_first(false);
    let dfs = Builder::new().strategy(Strategy::Dfs);
    let sizes: &[(usize, usize)] = if wanted("counters") {
        &[(3, 3), (4, 2), (5, 2)]
    } else {
        &[]
    };
    for &(n, k) in sizes {
        let (e, s) = run(&dpor, &counters(n, k));
        let (de, ds) = run(&dfs, &counters(n, k));
        println!(
            "counters {n}x{k}: DPOR {e} executions {s:.3} s ({:.0} k/s); DFS {de} {ds:.3} s ({:.0} k/s)",
            e as f64 / s / 1e3,
            de as f64 / ds / 1e3
        );
    }
    let steps = 100_000;
    let mut base = None;
    let threads: &[usize] = if wanted("steps") {
        &[2, 8, 25, 50]
    } else {
        &[]
    };
    for &threads in threads {
        let b = Builder::new()
            .shallow_first(false)
            .max_executions(Some(3))
            .max_steps(steps as u64 * 2);
        let (e, s) = run(&b, &long_execution(threads, steps));
        let per_step = s / (e as f64 * steps as f64) * 1e9;
        let ratio = per_step / *base.get_or_insert(per_step);
        println!(
            "{threads} threads, {steps} steps: {e} executions {s:.3} s, {per_step:.0} ns/step ({ratio:.2}x 2 threads)"
        );
    }
}

/// One exploration of the counters 3×3 by the default (optimal DPOR), alone, for an
/// instruction count: `valgrind --tool=callgrind <release step_cost binary> --ignored
/// --exact counters_3x3_once` (BENCHMARKS.md, "The fairness object's cost").
#[test]
#[ignore = "a measurement (release build, under callgrind)"]
fn counters_3x3_once() {
    let report = Builder::new().shallow_first(false).explore(counters(3, 3));
    assert_eq!(report.executions(), 1_680);
}
