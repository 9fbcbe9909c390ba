//! `Report::yields_hidden`: the optimal DPOR can miss outcomes of programs whose threads yield
//! (`docs/troubleshooting.md`), so its report says when a yielded thread was held back, and the
//! driver warns `yield-under-dpor`. Explorations that cover such programs (DFS, the bounded
//! reduction) and programs that never yield do not say it.

use symx::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use symx::sync::Arc;
use symx::{thread, Builder, Strategy};

/// A spinner that yields until another thread sets a flag.
fn spin_until_set() {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let setter = thread::spawn(move || f.store(true, Ordering::SeqCst));
    while !flag.load(Ordering::SeqCst) {
        thread::yield_now();
    }
    setter.join().unwrap();
}

fn counters() {
    let n = Arc::new(AtomicU32::new(0));
    let t: Vec<_> = (0..2)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || n.fetch_add(1, Ordering::SeqCst))
        })
        .collect();
    t.into_iter().for_each(|t| drop(t.join()));
}

#[test]
fn the_optimal_dpor_says_when_a_yielded_thread_was_held_back() {
    let report = Builder::new().explore(spin_until_set);
    assert!(report.complete());
    assert!(report.yields_hidden());
}

#[test]
fn explorations_that_cover_yields_do_not_say_it() {
    let dfs = Builder::new()
        .strategy(Strategy::Dfs)
        .explore(spin_until_set);
    assert!(dfs.complete() && !dfs.yields_hidden());
    let bounded = Builder::new()
        .preemption_bound(Some(2))
        .explore(spin_until_set);
    assert!(bounded.complete() && !bounded.yields_hidden());
}

#[test]
fn programs_that_never_yield_do_not_say_it() {
    let report = Builder::new().explore(counters);
    assert!(report.complete());
    assert!(!report.yields_hidden());
}
