//! The programs of the input-covering-schedules acceptance tests (Bergan's dissertation,
//! ch. 3, and the checks derived from its algorithm): each draws its inputs by name and is
//! instrumented so its branches are recorded. The expected counts are in the tests that run
//! them (`cargo-symx/tests/covering.rs`).

use std::sync::Arc;

use symx::covering::Havocked;
use symx::sync::Mutex;
use symx::Sym;

/// Fork-join (blackscholes, swaptions): `W` workers in a scope each sum their own inputs
/// with a synchronization-free loop; main branches on the total. One schedule covers all.
#[symx::instrument]
pub fn fork_join<const W: usize>() {
    let data: Vec<Sym<u32>> = (0..2 * W).map(|i| small(&format!("n{i}"))).collect();
    let total = symx::thread::scope(|s| {
        let handles: Vec<_> = data
            .chunks(2)
            .map(|chunk| {
                s.spawn(move || {
                    let mut sum = Sym::from(0u32);
                    for v in chunk {
                        sum += *v;
                    }
                    sum
                })
            })
            .collect();
        let mut total = Sym::from(0u32);
        for h in handles {
            total += h.join().unwrap();
        }
        total
    });
    if total > 10u32 {
        symx::assume(true);
    }
}

/// Bergan's Fig. 3.1: five workers each take the lock the input chooses (`x == 0`: `a`,
/// otherwise `b`). Two schedules against 5! + 5! interleavings.
#[symx::instrument]
pub fn lock_chosen_by_input() {
    let x: Sym<u32> = symx::any_named("x");
    let locks = (Mutex::new(0u32), Mutex::new(0u32));
    symx::thread::scope(|s| {
        for _ in 0..5 {
            s.spawn(|| {
                let m = if x == 0u32 { &locks.0 } else { &locks.1 };
                let _g = m.lock().unwrap();
            });
        }
    });
}

/// Fig. 3.1 with a synchronization-free computation inside each critical section that
/// branches on another input and writes the protected data, never `x`: still two schedules.
#[symx::instrument]
pub fn lock_chosen_by_input_with_work() {
    let x: Sym<u32> = symx::any_named("x");
    let y = small("y");
    let locks = (Mutex::new(Sym::from(0u32)), Mutex::new(Sym::from(0u32)));
    symx::thread::scope(|s| {
        for _ in 0..5 {
            s.spawn(|| {
                let m = if x == 0u32 { &locks.0 } else { &locks.1 };
                let mut g = m.lock().unwrap();
                if y > 3u32 {
                    *g += y;
                } else {
                    *g += 1u32;
                }
            });
        }
    });
}

/// An input below 1000, so that sums of a few of them cannot overflow.
#[symx::instrument]
fn small(name: &str) -> Sym<u32> {
    let v = symx::any_named::<u32>(name);
    symx::assume(v < 1000u32);
    v
}

#[symx::instrument]
fn no_sync(v: Sym<u32>) -> Sym<u32> {
    v * 3u32
}

/// The jump-threading shape (§3.4.1.4): `if x == 0 { f() }; m.lock(); if x == 0 { g() }`
/// with synchronization-free `f` and `g`: one schedule.
#[symx::instrument]
pub fn branches_around_one_lock() {
    let x: Sym<u32> = symx::any_named("x");
    let m = Mutex::new(Sym::from(0u32));
    symx::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut v = Sym::from(1u32);
                if x == 0u32 {
                    v = no_sync(v);
                }
                let mut g = m.lock().unwrap();
                if x == 0u32 {
                    *g = no_sync(v);
                }
            });
        }
    });
}

/// Schedule specialization (§3.1): T1 makes an odd value even under the lock, T2 panics on
/// an odd value under it. One schedule (T1 first), under which T2 never panics.
#[symx::instrument]
pub fn specialization() {
    let l = Mutex::new(small("x"));
    symx::thread::scope(|s| {
        s.spawn(|| {
            let mut g = l.lock().unwrap();
            if *g % 2u32 != 0u32 {
                *g += 1u32;
            }
        });
        s.spawn(|| {
            let g = l.lock().unwrap();
            if *g % 2u32 != 0u32 {
                panic!("odd under the lock");
            }
        });
    });
}

/// Prefix schedules (§3.4.1.1): `a.lock(); if x == 0 { panic!() } b.lock();` is one schedule
/// (A then B); the failing path is its prefix.
#[symx::instrument]
pub fn prefix_abort() {
    let x: Sym<u32> = symx::any_named("x");
    let (a, b) = (Mutex::new(()), Mutex::new(()));
    let _ga = a.lock().unwrap();
    if x == 0u32 {
        panic!("x is zero");
    }
    let _gb = b.lock().unwrap();
}

/// `prefix_abort` with a lock taken before the abort: two schedules.
#[symx::instrument]
pub fn prefix_abort_after_lock() {
    let x: Sym<u32> = symx::any_named("x");
    let (a, b, c) = (Mutex::new(()), Mutex::new(()), Mutex::new(()));
    let _ga = a.lock().unwrap();
    if x == 0u32 {
        let _gc = c.lock().unwrap();
        panic!("x is zero");
    }
    let _gb = b.lock().unwrap();
}

/// A lock-order inversion without inputs: T1 takes `a` then `b`, T2 `b` then `a`.
#[symx::instrument]
pub fn lock_order_inversion() {
    let (a, b) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
    let (a1, b1) = (a.clone(), b.clone());
    let t1 = symx::thread::spawn(move || {
        let _ga = a1.lock().unwrap();
        let _gb = b1.lock().unwrap();
    });
    let t2 = symx::thread::spawn(move || {
        let _gb = b.lock().unwrap();
        let _ga = a.lock().unwrap();
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// An input-triggered self-deadlock: `x == 7` locks a non-reentrant mutex twice.
#[symx::instrument]
pub fn self_deadlock_on_seven() {
    let x: Sym<u32> = symx::any_named("x");
    let m = Mutex::new(());
    if x == 7u32 {
        let _g = m.lock().unwrap();
        let _h = m.lock().unwrap();
    }
}

/// Bounded epochs' motivating loop (§3.2.2): T1 locks `x` times, T2 `y` times. Without epochs
/// every pair of trip counts is its own schedule (256 here, 2^64 for all of `u32`): the
/// enumeration outruns any budget.
#[symx::instrument]
pub fn lock_loops() {
    let (x, y) = (symx::any_named::<u32>("x"), symx::any_named::<u32>("y"));
    symx::assume(x < 16u32 && y < 16u32);
    let m = Mutex::new(());
    symx::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0u32;
            while x > i {
                drop(m.lock().unwrap());
                i += 1;
            }
        });
        s.spawn(|| {
            let mut i = 0u32;
            while y > i {
                drop(m.lock().unwrap());
                i += 1;
            }
        });
    });
}

/// An fft-like skeleton (SPLASH-2 fft's shape: fork-join and a static number of barriers):
/// `W` workers compute, meet at a barrier, and do a transpose phase with one more barrier
/// only when the input size is odd: two schedules, as the dissertation's fft has.
#[symx::instrument]
pub fn fft_like<const W: usize>() {
    let log_n = symx::any_named::<u32>("log_n");
    let barrier = symx::sync::Barrier::new(W);
    let data: Vec<Mutex<u32>> = (0..W).map(|_| Mutex::new(0)).collect();
    symx::thread::scope(|s| {
        for me in 0..W {
            let (barrier, data) = (&barrier, &data);
            s.spawn(move || {
                *data[me].lock().unwrap() += 1;
                barrier.wait();
                if log_n % 2u32 == 1u32 {
                    *data[(me + 1) % W].lock().unwrap() += 1;
                    barrier.wait();
                }
            });
        }
    });
}

/// Bounded epochs (§3.2.2) on the loops of `lock_loops` for every `u32` trip count: T1 locks
/// `x` times, T2 `y` times. The loop heads synchronize, so each is an epoch marker, and the
/// enumeration ends whatever the trip counts: E0, both at their markers, one at its marker
/// and the other finished (either way round). The loop counters are `Sym` so that the
/// boundary havocs them.
#[symx::instrument]
pub fn lock_loops_any_count() {
    let (x, y) = (symx::any_named::<u32>("x"), symx::any_named::<u32>("y"));
    let m = Mutex::new(());
    symx::thread::scope(|s| {
        s.spawn(|| {
            let mut i = Sym::from(0u32);
            while x > i {
                drop(m.lock().unwrap());
                i += 1u32;
            }
        });
        s.spawn(|| {
            let mut i = Sym::from(0u32);
            while y > i {
                drop(m.lock().unwrap());
                i += 1u32;
            }
        });
    });
}

/// Locks `m` `n` times: one loop, one marker, whoever runs it.
#[symx::instrument]
fn lock_n_times(m: &Mutex<()>, n: Sym<u32>) {
    let mut i = Sym::from(0u32);
    while n > i {
        drop(m.lock().unwrap());
        i += 1u32;
    }
}

/// `lock_loops_any_count` with both threads running the same function: with symbolic thread
/// ids "T1 at the marker, T2 finished" and the other way round are one epoch.
#[symx::instrument]
pub fn lock_loops_one_function() {
    let (x, y) = (symx::any_named::<u32>("x"), symx::any_named::<u32>("y"));
    let m = Mutex::new(());
    symx::thread::scope(|s| {
        s.spawn(|| lock_n_times(&m, x));
        s.spawn(|| lock_n_times(&m, y));
    });
}

/// Locks `m` once: the loop below synchronizes only through this call, which the marker
/// placement (one function's text at a time) does not look into.
#[symx::instrument]
fn lock_once(m: &Mutex<()>) {
    drop(m.lock().unwrap());
}

/// [`lock_n_times`] with its lock inside a function it calls: placed synchronization-free,
/// and made a marker by the run once an iteration has synchronized (Fig. 3.2 reaches the
/// same loop through the call graph).
#[symx::instrument]
fn lock_n_times_through_a_call(m: &Mutex<()>, n: Sym<u32>) {
    let mut i = Sym::from(0u32);
    while n > i {
        lock_once(m);
        i += 1u32;
    }
}

/// [`lock_loops_one_function`] with the loops locking through a call.
#[symx::instrument]
pub fn lock_loops_through_a_call() {
    let (x, y) = (symx::any_named::<u32>("x"), symx::any_named::<u32>("y"));
    let m = Mutex::new(());
    symx::thread::scope(|s| {
        s.spawn(|| lock_n_times_through_a_call(&m, x));
        s.spawn(|| lock_n_times_through_a_call(&m, y));
    });
}

/// Counts `k` down with an explicit marker in the loop (which covers it) and one after it.
#[symx::instrument]
fn count_down(k: Sym<u32>) {
    let mut k = k;
    while k > 0u32 {
        symx::epoch_marker();
        k -= 1u32;
    }
    symx::epoch_marker();
}

/// Symbolic thread ids (§3.4.1.3): `N` threads each count their own input down, so each is
/// at the loop's marker, at the marker after it, or finished at every boundary.
#[symx::instrument]
pub fn count_downs<const N: usize>() {
    let ks: Vec<Sym<u32>> = (0..N).map(|i| symx::any_named(&format!("k{i}"))).collect();
    symx::thread::scope(|s| {
        for k in ks {
            s.spawn(move || count_down(k));
        }
    });
}

/// The barrier lockstep loop (SPLASH-2 lu's shape): `W` workers run `n >= 1` iterations of
/// work and a barrier; the barrier covers the loop and is its marker.
#[symx::instrument]
pub fn barrier_lockstep<const W: usize>() {
    let n = symx::any_named::<u32>("n");
    symx::assume(n >= 1u32);
    let barrier = symx::sync::Barrier::new(W);
    let data: Vec<Mutex<u32>> = (0..W).map(|_| Mutex::new(0)).collect();
    symx::thread::scope(|s| {
        for me in 0..W {
            let (barrier, data) = (&barrier, &data);
            s.spawn(move || {
                let mut i = Sym::from(0u32);
                while n > i {
                    *data[me].lock().unwrap() += 1;
                    barrier.wait();
                    i += 1u32;
                }
            });
        }
    });
}

/// The queue of `pfscan_like`: files waiting to be scanned, and whether the producer is done,
/// each havocked at every epoch boundary (the over-approximate start of the dissertation's
/// pfscan, which cannot relate the queue's count and its `done` flag).
struct Queue {
    items: Havocked<u32>,
    done: Havocked<bool>,
}

/// A pfscan-like skeleton (parallel grep: one producer, `W` consumers, a lock- and
/// condvar-based queue): the main thread enqueues `files` items, each consumer dequeues until
/// the queue is empty and closed. The producer's loop and the consumers' are markers (they
/// lock); the wait loop inside is trivial (a condition-variable wait).
#[symx::instrument]
pub fn pfscan_like<const W: usize>() {
    let files = symx::any_named::<u32>("files");
    let q = Mutex::new(Queue {
        items: Havocked::new("items", Sym::from(0u32)),
        done: Havocked::new("done", Sym::from(false)),
    });
    let cv = symx::sync::Condvar::new();
    symx::thread::scope(|s| {
        for _ in 0..W {
            s.spawn(|| loop {
                let mut g = q.lock().unwrap();
                while *g.items.get() == 0u32 && *g.done.get() == false {
                    g = cv.wait(g).unwrap();
                }
                if *g.items.get() == 0u32 {
                    break;
                }
                *g.items.get() -= 1u32;
            });
        }
        let mut i = Sym::from(0u32);
        while files > i {
            *q.lock().unwrap().items.get() += 1u32;
            cv.notify_one();
            i += 1u32;
        }
        *q.lock().unwrap().done.get() = Sym::from(true);
        cv.notify_all();
    });
}

/// A semaphore's count: havocked at every epoch boundary, or kept exactly.
enum Count {
    Exact(Sym<u32>),
    Havocked(Havocked<u32>),
}

impl Count {
    fn get(&mut self) -> &mut Sym<u32> {
        match self {
            Count::Exact(v) => v,
            Count::Havocked(h) => h.get(),
        }
    }
}

/// A counting semaphore from a lock and a condition variable (radix's phases synchronize
/// through such semaphores).
struct Semaphore {
    count: Mutex<Count>,
    cv: symx::sync::Condvar,
}

impl Semaphore {
    fn new(havoc: bool) -> Self {
        let zero = Sym::from(0u32);
        let count = match havoc {
            true => Count::Havocked(Havocked::new("count", zero)),
            false => Count::Exact(zero),
        };
        Semaphore {
            count: Mutex::new(count),
            cv: symx::sync::Condvar::new(),
        }
    }

    #[symx::instrument]
    fn wait(&self) {
        let mut g = self.count.lock().unwrap();
        while *g.get() == 0u32 {
            g = self.cv.wait(g).unwrap();
        }
        *g.get() -= 1u32;
    }

    #[symx::instrument]
    fn post(&self) {
        *self.count.lock().unwrap().get() += 1u32;
        self.cv.notify_one();
    }
}

/// The semaphore epoch (radix's shape): T1 waits `n` times, T2 posts `n` times, an epoch
/// marker at the top of each iteration. With the count havocked at each boundary
/// (`HAVOC`), the loop's epoch has schedules in which T1's wait does not block (`count > 0`),
/// which no execution follows: every way into that epoch leaves the count at 0.
#[symx::instrument]
pub fn semaphore_loops<const HAVOC: bool>() {
    let n = symx::any_named::<u32>("n");
    let s = Semaphore::new(HAVOC);
    symx::thread::scope(|sc| {
        sc.spawn(|| {
            let mut i = Sym::from(0u32);
            while n > i {
                symx::epoch_marker();
                s.wait();
                i += 1u32;
            }
        });
        sc.spawn(|| {
            let mut i = Sym::from(0u32);
            while n > i {
                symx::epoch_marker();
                s.post();
                i += 1u32;
            }
        });
    });
}

/// Whether one of the keys `1, 2, .., n` is `x`: a synchronization-free search whose trip
/// count an input decides, so its paths never run out.
#[symx::instrument]
fn search(n: Sym<u32>, x: Sym<u32>) -> Sym<bool> {
    let mut k = Sym::from(0u32);
    while k < n {
        k += 1u32;
        if k == x {
            return Sym::from(true);
        }
    }
    Sym::from(false)
}

/// `search`, abstracted (§3.4.2): during enumeration its result is a fresh input.
#[symx::r#abstract]
fn search_abstracted(n: Sym<u32>, x: Sym<u32>) -> Sym<bool> {
    search(n, x)
}

/// Input abstraction's example: a lock taken when a search finds the input.
#[symx::instrument]
pub fn search_then_lock() {
    let (n, x) = (symx::any_named::<u32>("n"), symx::any_named::<u32>("x"));
    let m = Mutex::new(());
    if search(n, x) {
        drop(m.lock().unwrap());
    }
}

/// `search_then_lock` with the search abstracted: two schedules, found and not found.
#[symx::instrument]
pub fn abstracted_search_then_lock() {
    let (n, x) = (symx::any_named::<u32>("n"), symx::any_named::<u32>("x"));
    let m = Mutex::new(());
    if search_abstracted(n, x) {
        drop(m.lock().unwrap());
    }
}
