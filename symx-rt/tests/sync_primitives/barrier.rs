//! `Barrier`: one leader per generation, each phase ordered after every arrival; the race of
//! reused slots, the deadlock of a thread that never comes; the barrier outside a model.

use super::*;

#[test]
fn barrier_of_two_has_one_leader_per_execution() {
    // Each thread: one barrier wait. The first arrival waits, the second releases it: the only
    // choice is which arrives first, so 2 executions.
    let report = passes(|| {
        let barrier = Arc::new(Barrier::new(2));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let b = barrier.clone();
                thread::spawn(move || b.wait().is_leader())
            })
            .collect();
        let leaders = hs
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|&l| l)
            .count();
        assert_eq!(leaders, 1);
    });
    assert_eq!(report.executions(), 2);
}

const THREADS: usize = 3;
const PHASES: usize = 2;

/// Per-phase slots, one per thread: each thread writes its own slot, waits, then reads its
/// neighbour's. With `reuse` every phase writes the same slots, so a fast thread's next write
/// races with a slow neighbour's read of the previous phase (a second barrier is missing).
struct Phases {
    barrier: Barrier,
    slots: Vec<Vec<Racy<usize>>>,
    leaders: StdAtomicUsize,
}

fn barrier_phases(reuse: bool) {
    let p = Arc::new(Phases {
        barrier: Barrier::new(THREADS),
        slots: (0..PHASES)
            .map(|_| (0..THREADS).map(|_| Racy::new(0)).collect())
            .collect(),
        leaders: StdAtomicUsize::new(0),
    });
    let hs: Vec<_> = (0..THREADS)
        .map(|i| {
            let p = p.clone();
            thread::spawn(move || {
                for phase in 0..PHASES {
                    let slots = &p.slots[if reuse { 0 } else { phase }];
                    slots[i].set(phase * 10 + i);
                    if p.barrier.wait().is_leader() {
                        p.leaders.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    let next = (i + 1) % THREADS;
                    assert_eq!(slots[next].get(), phase * 10 + next);
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(p.leaders.load(std::sync::atomic::Ordering::Relaxed), PHASES);
}

#[test]
fn barrier_orders_each_phase_after_every_arrival() {
    // Each thread: one wait per phase, nothing else visible. In each generation the arrival
    // order is the only choice (3 for the first, 2 for the second, the third is forced) and
    // the leader's wake-up releases all three to the next generation: (3·2)^2 = 36.
    assert_eq!(passes(|| barrier_phases(false)).executions(), 36);
}

#[test]
fn barrier_reusing_slots_without_a_second_barrier_races() {
    let f = fails(FailureKind::DataRace, || barrier_phases(true));
    assert!(f.message().contains("UnsafeCell"), "{f}");
}

#[test]
fn barrier_waiting_for_a_thread_that_never_comes_deadlocks() {
    let f = fails(FailureKind::Deadlock, || {
        let barrier = Arc::new(Barrier::new(3));
        let b = barrier.clone();
        let t = thread::spawn(move || {
            b.wait();
        });
        barrier.wait();
        t.join().unwrap();
    });
    assert!(f.to_string().contains("the other threads to arrive"), "{f}");
}

#[test]
fn barrier_outside_a_model() {
    assert!(Barrier::new(1).wait().is_leader());
    assert!(Barrier::new(0).wait().is_leader());
    let blocked = std::panic::catch_unwind(|| Barrier::new(2).wait());
    assert!(blocked.is_err());
}
