//! The estimate of an exhaustive exploration's size (`Report::estimated_executions`): given
//! when an exploration stops before its end, exact for a tree whose siblings are alike, and
//! measured against the true totals of the bench's counters and philosophers.

mod common;

use common::{counters, mutex_counter};

use symx::sync::{Arc, Mutex};
use symx::{thread, Builder, Strategy};

/// `n` philosophers eating `meals` times each, each taking the lower-numbered fork first: no
/// deadlock.
fn philosophers(n: usize, meals: usize) {
    let forks: Arc<Vec<Mutex<()>>> = Arc::new((0..n).map(|_| Mutex::new(())).collect());
    let hs: Vec<_> = (0..n)
        .map(|i| {
            let forks = forks.clone();
            thread::spawn(move || {
                let (a, b) = (i.min((i + 1) % n), i.max((i + 1) % n));
                for _ in 0..meals {
                    let _first = forks[a].lock().unwrap();
                    let _second = forks[b].lock().unwrap();
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}

/// The estimate after `done` executions of the exploration `b` makes of `body`.
fn estimate_after(b: &Builder, done: u64, body: &dyn Fn()) -> u64 {
    let r = b.clone().max_executions(Some(done)).explore(body);
    assert!(!r.complete());
    r.estimated_executions()
        .expect("an exhaustive exploration estimates")
}

#[test]
fn a_stopped_exhaustive_exploration_estimates_and_a_finished_one_does_not() {
    let dpor = Builder::new()
        .max_executions(Some(10))
        .explore(|| counters(3, 2));
    assert_eq!(dpor.executions(), 10);
    assert!(dpor.estimated_executions().is_some());
    let whole = Builder::new().explore(|| counters(3, 2));
    assert!(whole.complete() && whole.estimated_executions().is_none());
    let random = Builder::new()
        .strategy(Strategy::Random { seed: 1 })
        .max_executions(Some(10))
        .explore(|| counters(3, 2));
    assert_eq!(random.estimated_executions(), None, "sampling has no tree");
}

#[test]
fn the_dfs_estimate_of_symmetric_counters_is_exact_after_its_first_execution() {
    // Two threads of one step each under the DFS: the tree's siblings are alike.
    let dfs = Builder::new().strategy(Strategy::Dfs);
    let total = dfs.explore(|| counters(2, 1)).executions();
    assert_eq!(estimate_after(&dfs, 1, &|| counters(2, 1)), total);
}

#[test]
fn after_a_tenth_of_the_exploration_the_counters_are_estimated_within_twice_their_size() {
    // The wakeup trees near the root grow as races below them are found: read from the current
    // path alone, the estimate here was 0.45 of the true total. The nodes finished so far say
    // how far the ones on the path will still branch.
    let dpor = Builder::new().shallow_first(false);
    let total = dpor.explore(|| counters(3, 3)).executions();
    assert_eq!(total, 1_680);
    let estimate = estimate_after(&dpor, total / 10, &|| counters(3, 3));
    assert!(
        (total / 2..=total * 2).contains(&estimate),
        "estimated {estimate} of {total} after a tenth"
    );
}

/// The estimate's ratio to the true total after 1 %, 5 %, 10 %, 25 % and 50 % of the optimal
/// DPOR's exploration, on the bench's correct programs.
/// `cargo test --release -p symx-rt --test estimate -- --ignored --nocapture`
#[test]
#[ignore = "a measurement for BENCHMARKS.md; run by hand in release"]
fn measure_the_estimate_against_the_true_totals() {
    type Program = (&'static str, Box<dyn Fn()>);
    let programs: Vec<Program> = vec![
        ("counters 3x3", Box::new(|| counters(3, 3))),
        ("counters 4x2", Box::new(|| counters(4, 2))),
        ("counters 4x3", Box::new(|| counters(4, 3))),
        ("mutex counter 3x2", Box::new(|| mutex_counter(3, 2))),
        ("mutex counter 4x3", Box::new(|| mutex_counter(4, 3))),
        ("counters 5x2", Box::new(|| counters(5, 2))),
        (
            "philosophers 3 (ordered forks)",
            Box::new(|| philosophers(3, 1)),
        ),
        (
            "philosophers 5 (ordered forks)",
            Box::new(|| philosophers(5, 1)),
        ),
        ("philosophers 5, two meals", Box::new(|| philosophers(5, 2))),
        (
            "philosophers 4, three meals",
            Box::new(|| philosophers(4, 3)),
        ),
    ];
    let fractions = [0.01, 0.05, 0.10, 0.25, 0.50, 0.90];
    print!("| program (optimal DPOR) | executions |");
    for f in fractions {
        print!(" after {:.0} % |", f * 100.0);
    }
    println!();
    println!("|---|---:|{}", "---:|".repeat(fractions.len()));
    for (name, body) in &programs {
        let b = Builder::new().shallow_first(false);
        let total = b.explore(body).executions();
        print!("| {name} | {total} |");
        for f in fractions {
            let done = ((total as f64 * f).round() as u64).max(1);
            let est = estimate_after(&b, done, body);
            print!(" {:.2} |", est as f64 / total as f64);
        }
        println!();
    }
}
