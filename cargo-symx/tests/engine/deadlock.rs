//! Deadlocks predicted from a serial run: two locks taken in opposite orders, and the
//! dining philosophers, whose cycle runs through every thread and no two of them alone.

use std::sync::Arc;

use symx::sync::Mutex;
use symx::Builder;

use super::{claims_only, no_unconfirmed, observe, predict, predictions, Options};

fn deadlocks_only() -> Options {
    Options {
        deadlocks: true,
        ..claims_only()
    }
}

fn abba(ordered: bool) {
    let locks = Arc::new((Mutex::new(()), Mutex::new(())));
    let l1 = locks.clone();
    let t1 = symx::thread::spawn(move || {
        let _a = l1.0.lock().unwrap();
        let _b = l1.1.lock().unwrap();
    });
    let t2 = symx::thread::spawn(move || {
        if ordered {
            let _a = locks.0.lock().unwrap();
            let _b = locks.1.lock().unwrap();
        } else {
            let _b = locks.1.lock().unwrap();
            let _a = locks.0.lock().unwrap();
        }
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

#[test]
fn deadlock_of_opposite_lock_orders_is_predicted_from_a_serial_run() {
    let body = || abba(false);
    let trace = observe(&[1, 1, 1, 1, 2, 2, 2, 2], body);
    let out = predict(&trace, &deadlocks_only(), |g| {
        Builder::new().run_guided(g, body)
    });
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 1);
    assert_eq!(out.confirmed.len(), 1, "{out:#?}");
    assert!(out.confirmed[0].description.starts_with("deadlock"));
    // Each thread takes its first lock, then both wait.
    assert_eq!(out.confirmed[0].witness.guide.steps, vec![1, 2]);
}

#[test]
fn consistent_lock_order_has_no_deadlock() {
    let body = || abba(true);
    let trace = observe(&[1, 1, 1, 1, 2, 2, 2, 2], body);
    assert!(predictions(&trace, &deadlocks_only()).is_empty());
}

/// `n` philosophers; philosopher `i` takes fork `i`, then fork `i + 1` (the last one the
/// other way round when `ordered`: the classic fix).
fn philosophers(n: usize, ordered: bool) -> impl Fn() {
    move || {
        let forks: Arc<Vec<Mutex<()>>> = Arc::new((0..n).map(|_| Mutex::new(())).collect());
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let forks = forks.clone();
                symx::thread::spawn(move || {
                    let (a, b) = (i, (i + 1) % n);
                    let (first, second) = if ordered && b < a { (b, a) } else { (a, b) };
                    let _f = forks[first].lock().unwrap();
                    let _s = forks[second].lock().unwrap();
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

/// One philosopher after another eats: no two of them wait for each other, all `n` do.
#[test]
fn dining_philosophers_cycle_through_every_thread_is_predicted() {
    for n in [3, 4] {
        let body = philosophers(n, false);
        let serial: Vec<usize> = (1..=n).flat_map(|t| [t; 4]).collect();
        let trace = observe(&serial, &body);
        let out = predict(&trace, &deadlocks_only(), |g| {
            Builder::new().run_guided(g, &body)
        });
        no_unconfirmed(&out);
        assert_eq!(out.candidates, 1, "n = {n}");
        assert_eq!(out.confirmed.len(), 1, "n = {n}: {out:#?}");
        // Every philosopher takes its left fork, then all wait.
        let mut steps = out.confirmed[0].witness.guide.steps.clone();
        steps.sort();
        assert_eq!(steps, (1..=n).collect::<Vec<_>>(), "n = {n}");
    }
}

#[test]
fn ordered_philosophers_have_no_cycle() {
    let body = philosophers(3, true);
    let serial: Vec<usize> = (1..=3).flat_map(|t| [t; 4]).collect();
    let trace = observe(&serial, &body);
    assert!(predictions(&trace, &deadlocks_only()).is_empty());
}
