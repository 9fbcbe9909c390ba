//! N threads × K `fetch_add` on one counter: (N·K)!/(K!)^N traces, so every strategy's work
//! is known in advance. See BENCHMARKS.md, "The cargo symx driver".

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::Arc;
use symx::thread;

fn counter(threads: usize, ops: usize) {
    let n = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || {
                for _ in 0..ops {
                    n.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(n.load(Ordering::SeqCst), threads * ops);
}

/// 369,600 executions, explored depth-first: the case `--shards` splits by prefix.
#[symx::test(strategy = "dfs")]
fn dfs_4x3() {
    counter(4, 3);
}

/// The same space under optimal DPOR (every pair of steps conflicts, so no reduction).
#[symx::test]
fn dpor_5x2() {
    counter(5, 2);
}

/// 300,000 random executions: `--shards` splits them by seed.
#[symx::test(strategy = "random", iterations = 300_000, seed = 1)]
fn random_4x2() {
    counter(4, 2);
}
