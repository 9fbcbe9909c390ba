//! N threads × K `fetch_add` on one counter: (N·K)!/(K!)^N traces, so every strategy's work
//! is known in advance. See BENCHMARKS.md, "The cargo symx driver".

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
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

/// N threads × K increments of one counter under a mutex: the orders of the critical
/// sections, (N·K)!/(K!)^N traces under optimal DPOR.
fn mutex_counter(threads: usize, ops: usize) {
    let m = Arc::new(Mutex::new(0usize));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || {
                for _ in 0..ops {
                    *m.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*m.lock().unwrap(), threads * ops);
}

/// N philosophers eating `meals` times each, every one taking the lower-numbered fork first
/// (the correct version: no deadlock).
fn philosophers(n: usize, meals: usize) {
    let forks: Arc<Vec<Mutex<usize>>> = Arc::new((0..n).map(|_| Mutex::new(0)).collect());
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let forks = forks.clone();
            thread::spawn(move || {
                let (a, b) = (i.min((i + 1) % n), i.max((i + 1) % n));
                for _ in 0..meals {
                    let mut first = forks[a].lock().unwrap();
                    let mut second = forks[b].lock().unwrap();
                    *first += 1;
                    *second += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// `--shards 2` against one process on optimal DPOR (BENCHMARKS.md, "Optimal DPOR split
/// among shards"): 369,600 traces.
#[symx::test]
fn dpor_counters_4x3() {
    counter(4, 3);
}

/// The same orders of critical sections under a mutex: 369,600 traces.
#[symx::test]
fn dpor_mutex_4x3() {
    mutex_counter(4, 3);
}

/// A larger split: 3 threads × 5 `fetch_add`, 15!/(5!)^3 = 756,756 traces.
#[symx::test]
fn dpor_counters_3x5() {
    counter(3, 5);
}

/// 3 × 5 critical sections under a mutex: 756,756 traces.
#[symx::test]
fn dpor_mutex_3x5() {
    mutex_counter(3, 5);
}

/// A small split to profile (callgrind, `strace -c`): 3 × 4 `fetch_add`, 34,650 traces.
#[symx::test]
fn dpor_counters_3x4() {
    counter(3, 4);
}

/// Five philosophers, three meals each, the correct version.
#[symx::test]
fn dpor_philosophers_5() {
    philosophers(5, 3);
}
