//! The modelled `RwLock`, `Barrier`, `Once`, `OnceLock`, `mpsc` channels and `Arc`: correct
//! programs are explored exhaustively without a report (with hand-derived execution counts for
//! the tiny ones), buggy ones fail with the right kind, and every failure's token replays.
//!
//! Counting conventions of the unreduced DFS used below: spawning, joining, `Arc` operations
//! and `UnsafeCell` accesses are not scheduling points; a thread that is spawned or woken with
//! nothing to retry runs on to its next visible operation before the next decision; a
//! blocking operation that must wait costs a second step when it retries.

use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize};

use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::mpsc::{
    channel, sync_channel, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError,
};
use symx::sync::{Arc, Barrier, Once, OnceLock, RwLock, Weak};
use symx::{thread, Builder, Failure, FailureKind, Report};

/// Explores `body` exhaustively with the unreduced DFS (the counts asserted below are derived
/// for it) and asserts no bug exists; the default DPOR must agree, with no more executions.
fn passes(body: fn()) -> Report {
    let report = Builder::new().strategy(symx::Strategy::Dfs).explore(body);
    if let Some(f) = report.failure() {
        panic!("unexpected failure:\n{f}");
    }
    assert!(report.complete(), "not exhausted: {report}");
    let reduced = Builder::new().explore(body);
    if let Some(f) = reduced.failure() {
        panic!("DPOR reports a failure DFS does not:\n{f}");
    }
    assert!(reduced.complete() && reduced.executions() <= report.executions());
    report
}

/// Explores `body`, asserts it fails with `kind`, and that the token replays to the same
/// failure (so the primitive behaves deterministically under a schedule).
fn fails(kind: FailureKind, body: fn()) -> Failure {
    let builder = Builder::new();
    let report = builder.explore(body);
    let failure = report
        .failure()
        .unwrap_or_else(|| {
            panic!(
                "expected a {kind}, none in {} executions",
                report.executions()
            )
        })
        .clone();
    assert_eq!(failure.kind(), kind, "wrong kind:\n{failure}");
    let again = builder.replay(failure.schedule(), body);
    let replayed = again.failure().expect("the replay fails again");
    assert_eq!(replayed.kind(), kind);
    assert_eq!(replayed.message(), failure.message());
    failure
}

/// Data the test shares without synchronisation of its own; symx checks every access.
struct Racy<T>(UnsafeCell<T>);

// SAFETY: accesses go through `UnsafeCell::with`/`with_mut`, which symx checks for races.
unsafe impl<T: Send> Sync for Racy<T> {}

impl<T: Copy> Racy<T> {
    fn new(v: T) -> Self {
        Racy(UnsafeCell::new(v))
    }

    #[track_caller]
    fn get(&self) -> T {
        self.0.with(|p| unsafe { *p })
    }

    #[track_caller]
    fn set(&self, v: T) {
        self.0.with_mut(|p| unsafe { *p = v })
    }
}

/// The auto traits are std's: everything here is `Send + Sync` except the `Receiver` (`Send`).
#[test]
fn auto_traits_match_std() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    send_sync::<Arc<u8>>();
    send_sync::<Weak<u8>>();
    send_sync::<RwLock<u8>>();
    send_sync::<Barrier>();
    send_sync::<Once>();
    send_sync::<OnceLock<u8>>();
    send_sync::<symx::sync::mpsc::Sender<u8>>();
    send_sync::<symx::sync::mpsc::SyncSender<u8>>();
    send::<symx::sync::mpsc::Receiver<u8>>();
    unwind_safe::<RwLock<std::cell::Cell<u8>>>();
}

// ---------------------------------------------------------------------------------------------
// RwLock

fn two_readers() {
    let lock = Arc::new(RwLock::new(5));
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let lock = lock.clone();
            thread::spawn(move || assert_eq!(*lock.read().unwrap(), 5))
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}

#[test]
fn rwlock_readers_hold_the_lock_together() {
    // Each reader: read-lock, unlock. A read-lock is enabled while another reader holds the
    // lock, so all 4!/(2!·2!) = 6 interleavings of the two pairs run (a Mutex gives 2).
    assert_eq!(passes(two_readers).executions(), 6);
}

/// A writer and a reader share a counter in an `UnsafeCell`; the lock orders the accesses.
struct Guarded {
    lock: RwLock<()>,
    value: Racy<u32>,
}

fn reader_and_writer(reader_locks: bool, writer_locks_exclusively: bool) {
    let g = Arc::new(Guarded {
        lock: RwLock::new(()),
        value: Racy::new(0),
    });
    let w = g.clone();
    let writer = thread::spawn(move || {
        if writer_locks_exclusively {
            let _guard = w.lock.write().unwrap();
            w.value.set(w.value.get() + 1);
        } else {
            let _guard = w.lock.read().unwrap();
            w.value.set(w.value.get() + 1);
        }
    });
    let r = g.clone();
    let reader = thread::spawn(move || {
        let _guard = reader_locks.then(|| r.lock.read().unwrap());
        let v = r.value.get();
        assert!(v <= 1);
    });
    writer.join().unwrap();
    reader.join().unwrap();
    assert_eq!(g.value.get(), 1);
}

#[test]
fn rwlock_excludes_the_writer_and_orders_its_write() {
    // Writer: lock, unlock; reader: read-lock, unlock. Whoever locks first excludes the other
    // until it unlocks, so only the order of the two critical sections is a choice: 2.
    let report = passes(|| reader_and_writer(true, true));
    assert_eq!(report.executions(), 2);
}

#[test]
fn rwlock_reader_without_the_lock_races_with_the_writer() {
    let f = fails(FailureKind::DataRace, || reader_and_writer(false, true));
    assert!(f.message().contains("data race"), "{f}");
}

#[test]
fn rwlock_writing_under_a_read_lock_races() {
    // Two "writers" that only read-lock are not excluded from each other.
    fails(FailureKind::DataRace, || {
        let g = Arc::new(Guarded {
            lock: RwLock::new(()),
            value: Racy::new(0),
        });
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let g = g.clone();
                thread::spawn(move || {
                    let _guard = g.lock.read().unwrap();
                    g.value.set(g.value.get() + 1);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
fn rwlock_write_while_holding_a_read_lock_is_a_self_deadlock() {
    let f = fails(FailureKind::Deadlock, || {
        let lock = RwLock::new(0);
        let _r = lock.read().unwrap();
        let _w = lock.write().unwrap();
    });
    assert!(f.message().contains("self-deadlock"), "{f}");
}

#[test]
fn rwlock_reading_twice_while_a_writer_waits_is_fine() {
    // No writer preference: the second read-lock is enabled while the writer waits.
    passes(|| {
        let lock = Arc::new(RwLock::new(0));
        let l = lock.clone();
        let writer = thread::spawn(move || *l.write().unwrap() += 1);
        let first = lock.read().unwrap();
        let second = lock.read().unwrap();
        assert_eq!(*first, *second);
        drop((first, second));
        writer.join().unwrap();
        assert_eq!(*lock.read().unwrap(), 1);
    });
}

#[test]
fn rwlock_try_write_fails_while_read_locked_and_try_read_succeeds() {
    passes(|| {
        let lock = Arc::new(RwLock::new(0));
        let l = lock.clone();
        let _held = lock.read().unwrap();
        thread::spawn(move || {
            assert!(l.try_write().is_err());
            assert_eq!(*l.try_read().unwrap(), 0);
        })
        .join()
        .unwrap();
    });
}

#[test]
fn rwlock_outside_a_model_works_sequentially_and_poisons() {
    let lock = RwLock::new(1);
    {
        let a = lock.read().unwrap();
        let b = lock.read().unwrap();
        assert_eq!(*a + *b, 2);
        assert!(lock.try_write().is_err());
    }
    *lock.write().unwrap() = 2;
    assert!(lock.try_read().is_ok());
    let lock = std::sync::Arc::new(lock);
    let l = lock.clone();
    let _ = std::panic::catch_unwind(move || {
        let _w = l.write().unwrap();
        panic!("poison it");
    });
    assert!(lock.is_poisoned());
    assert_eq!(*lock.read().unwrap_err().into_inner(), 2);
    let lock = std::sync::Arc::into_inner(lock).unwrap();
    assert_eq!(lock.into_inner().unwrap_err().into_inner(), 2);
}

// ---------------------------------------------------------------------------------------------
// Barrier

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

// ---------------------------------------------------------------------------------------------
// Once and OnceLock

struct Init {
    once: Once,
    runs: AtomicUsize,
    value: Racy<u32>,
}

#[test]
fn once_runs_its_initialiser_once_and_publishes_it() {
    // Each thread: call_once (1 step), the initialiser's fetch_add (1 step, winner only), then
    // a load (1 step). Say A's call_once is first and A runs the initialiser:
    //  - A's fetch_add next: B's call_once then comes before A's load (2 orders of the two
    //    loads) or after it (1): 3;
    //  - B's call_once next: B waits (no step) until A's fetch_add completes the Once, then
    //    both loads remain in 2 orders: 2.
    // 5 with A first, 5 with B first: 10.
    let report = passes(|| {
        let init = Arc::new(Init {
            once: Once::new(),
            runs: AtomicUsize::new(0),
            value: Racy::new(0),
        });
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let init = init.clone();
                thread::spawn(move || {
                    init.once.call_once(|| {
                        init.value.set(42);
                        init.runs.fetch_add(1, Ordering::SeqCst);
                    });
                    // The initialiser's write happens before every return of call_once.
                    assert_eq!(init.value.get(), 42);
                    assert_eq!(init.runs.load(Ordering::SeqCst), 1);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
    assert_eq!(report.executions(), 10);
}

#[test]
fn once_state_read_without_call_once_races() {
    fails(FailureKind::DataRace, || {
        let init = Arc::new(Init {
            once: Once::new(),
            runs: AtomicUsize::new(0),
            value: Racy::new(0),
        });
        let i = init.clone();
        let t = thread::spawn(move || i.once.call_once(|| i.value.set(1)));
        if !init.once.is_completed() {
            // Not complete: reading now is unsynchronised with the initialiser.
            init.value.get();
        }
        t.join().unwrap();
    });
}

static ONCE: Once = Once::new();
static ONCE_RUNS: StdAtomicUsize = StdAtomicUsize::new(0);

#[test]
fn a_static_once_starts_every_execution_afresh() {
    fn count_run() {
        ONCE_RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    let report = passes(|| {
        let t = thread::spawn(|| ONCE.call_once(count_run));
        ONCE.call_once(count_run);
        t.join().unwrap();
        assert!(ONCE.is_completed());
    });
    // Two calls, one step each: 2 orders. An initialiser runs in each execution, which it
    // would not if the static stayed complete after the first.
    assert_eq!(report.executions(), 2);
    // `passes` explores with DFS and then with DPOR (also 2: the calls conflict): 4 runs.
    assert_eq!(ONCE_RUNS.load(std::sync::atomic::Ordering::SeqCst), 4);
}

static CELL: OnceLock<u32> = OnceLock::new();

#[test]
fn oncelock_get_or_init_initialises_once_per_execution() {
    // Each thread: get_or_init (1 step) and, for the winner, its initialiser's fetch_add
    // (1 step). A first: A's fetch_add before or after B's call (B waits if after): 2; B first:
    // 2. Total 4. `CELL` is a static: it must be empty again in every execution.
    let report = passes(|| {
        let inits = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let inits = inits.clone();
                thread::spawn(move || {
                    let v = CELL.get_or_init(|| {
                        inits.fetch_add(1, Ordering::SeqCst);
                        7
                    });
                    assert_eq!(*v, 7);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(inits.load(Ordering::SeqCst), 1);
        assert_eq!(CELL.get(), Some(&7));
    });
    assert_eq!(report.executions(), 4);
}

#[test]
fn oncelock_set_lets_exactly_one_value_in() {
    // Two `set`s, one step each: 2 executions, each won by a different thread.
    let report = passes(|| {
        let cell = Arc::new(OnceLock::new());
        let c = cell.clone();
        let t = thread::spawn(move || c.set(1).is_ok());
        let mine = cell.set(2).is_ok();
        let theirs = t.join().unwrap();
        assert!(mine != theirs);
        assert_eq!(*cell.get().unwrap(), if mine { 2 } else { 1 });
    });
    assert_eq!(report.executions(), 2);
}

#[test]
fn oncelock_get_synchronises_with_the_initialiser() {
    passes(|| {
        let shared = Arc::new((OnceLock::new(), Racy::new(0u32)));
        let s = shared.clone();
        let t = thread::spawn(move || {
            s.1.set(9);
            s.0.set(()).unwrap();
        });
        if shared.0.get().is_some() {
            assert_eq!(shared.1.get(), 9);
        }
        t.join().unwrap();
    });
}

#[test]
fn once_and_oncelock_outside_a_model() {
    let once = Once::new();
    let mut runs = 0;
    once.call_once(|| runs += 1);
    once.call_once(|| runs += 1);
    assert_eq!(runs, 1);
    assert!(once.is_completed());

    let mut cell = OnceLock::new();
    assert_eq!(cell.get(), None);
    assert_eq!(*cell.get_or_init(|| 3), 3);
    assert_eq!(cell.set(4), Err(4));
    *cell.get_mut().unwrap() += 1;
    assert_eq!(format!("{cell:?}"), "OnceLock(4)");
    assert_eq!(cell.take(), Some(4));
    assert_eq!(format!("{cell:?}"), "OnceLock(<uninit>)");
    assert_eq!(OnceLock::from(5).into_inner(), Some(5));
}

// ---------------------------------------------------------------------------------------------
// Channels

fn pipeline() {
    let written = Arc::new(Racy::new(0u32));
    let (tx1, rx1) = channel::<u32>();
    let (tx2, rx2) = channel::<u32>();
    let w = written.clone();
    let producer = thread::spawn(move || {
        w.set(7);
        for i in 1..=2 {
            tx1.send(i).unwrap();
        }
    });
    let doubler = thread::spawn(move || {
        for v in rx1 {
            tx2.send(v * 2).unwrap();
        }
    });
    assert_eq!(rx2.recv(), Ok(2));
    // producer's write → its first send → the doubler's receive and send → our receive.
    assert_eq!(written.get(), 7);
    let rest: Vec<u32> = rx2.iter().collect();
    assert_eq!(rest, [4]);
    producer.join().unwrap();
    doubler.join().unwrap();
}

#[test]
fn channel_pipeline_of_three_stages_delivers_in_order() {
    let report = passes(pipeline);
    assert!(report.executions() > 1);
}

/// The receiver writes, then receives; the sender writes after its send returns.
fn handoff(bound: usize) {
    let cell = Arc::new(Racy::new(0));
    let (tx, rx) = sync_channel::<()>(bound);
    let c = cell.clone();
    let receiver = thread::spawn(move || {
        c.set(1);
        rx.recv().unwrap();
    });
    tx.send(()).unwrap();
    // In a rendezvous the receiver has taken the value, so its write happened before.
    cell.set(2);
    receiver.join().unwrap();
}

#[test]
fn rendezvous_send_returns_only_after_the_receiver_took_the_value() {
    // Sender: send; receiver: recv, then dropping its receiver while the sender lives (a
    // scheduling point). Send first: the sender waits, recv takes; or recv first: it waits,
    // send wakes it and waits in turn, recv's retry takes. Either way the receiver's drop is
    // the last step: 2 executions.
    assert_eq!(passes(|| handoff(0)).executions(), 2);
}

#[test]
fn buffered_send_does_not_wait_for_the_receiver_so_it_races() {
    fails(FailureKind::DataRace, || handoff(1));
}

fn arrived_before_send_returns(bound: usize) {
    let arrived = Arc::new(AtomicBool::new(false));
    let (tx, rx) = sync_channel::<u8>(bound);
    let a = arrived.clone();
    let receiver = thread::spawn(move || {
        a.store(true, Ordering::SeqCst);
        assert_eq!(rx.recv(), Ok(1));
    });
    tx.send(1).unwrap();
    assert!(
        arrived.load(Ordering::SeqCst),
        "send returned before the receiver came"
    );
    receiver.join().unwrap();
}

#[test]
fn rendezvous_orders_the_receivers_past_before_the_senders_future() {
    passes(|| arrived_before_send_returns(0));
    let f = fails(FailureKind::Panic, || arrived_before_send_returns(1));
    assert!(
        f.message()
            .contains("send returned before the receiver came"),
        "{f}"
    );
}

#[test]
fn bounded_channel_nobody_reads_deadlocks_the_sender() {
    let f = fails(FailureKind::Deadlock, || {
        let (tx, rx) = sync_channel::<u32>(1);
        let t = thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        t.join().unwrap();
        drop(rx);
    });
    assert!(f.to_string().contains("space in the channel"), "{f}");
}

#[test]
fn bounded_channel_blocks_senders_and_keeps_order() {
    passes(|| {
        let (tx, rx) = sync_channel::<u32>(1);
        let tx2 = tx.clone();
        let a = thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        let b = thread::spawn(move || tx2.send(10).unwrap());
        let got: Vec<u32> = rx.iter().collect();
        assert_eq!(got.len(), 3);
        let ones: Vec<u32> = got.iter().copied().filter(|&v| v < 10).collect();
        assert_eq!(ones, [1, 2]);
        a.join().unwrap();
        b.join().unwrap();
    });
}

#[test]
fn recv_after_every_sender_is_gone_is_an_error() {
    passes(|| {
        let (tx, rx) = channel();
        let tx2 = tx.clone();
        let t = thread::spawn(move || {
            tx.send(1).unwrap();
            drop(tx);
            tx2.send(2).unwrap();
        });
        assert_eq!(rx.recv(), Ok(1));
        assert_eq!(rx.recv(), Ok(2));
        assert_eq!(rx.recv(), Err(RecvError));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
        t.join().unwrap();
    });
}

#[test]
fn seeing_the_senders_gone_synchronises_with_their_drops() {
    passes(|| {
        let cell = Arc::new(Racy::new(0));
        let (tx, rx) = channel::<()>();
        let c = cell.clone();
        let t = thread::spawn(move || {
            c.set(1);
            drop(tx);
        });
        assert_eq!(rx.recv(), Err(RecvError));
        assert_eq!(cell.get(), 1);
        t.join().unwrap();
    });
}

#[test]
fn seeing_the_receiver_gone_synchronises_with_its_drop() {
    passes(|| {
        let cell = Arc::new(Racy::new(0));
        let (tx, rx) = channel::<()>();
        let c = cell.clone();
        let t = thread::spawn(move || {
            c.set(1);
            drop(rx);
        });
        while tx.send(()).is_ok() {
            thread::yield_now();
        }
        assert_eq!(cell.get(), 1);
        t.join().unwrap();
    });
}

static SAW_EMPTY: StdAtomicBool = StdAtomicBool::new(false);
static SAW_DISCONNECTED: StdAtomicBool = StdAtomicBool::new(false);

#[test]
fn dropping_the_last_sender_is_a_scheduling_point() {
    // Thread: drop its sender (a step: the receiver lives); main: try_recv (a step). 2
    // executions, and try_recv sees both Empty and Disconnected.
    let report = passes(|| {
        let (tx, rx) = channel::<u8>();
        let t = thread::spawn(move || drop(tx));
        match rx.try_recv() {
            Err(TryRecvError::Empty) => SAW_EMPTY.store(true, std::sync::atomic::Ordering::SeqCst),
            Err(TryRecvError::Disconnected) => {
                SAW_DISCONNECTED.store(true, std::sync::atomic::Ordering::SeqCst)
            }
            Ok(_) => unreachable!(),
        }
        t.join().unwrap();
    });
    assert_eq!(report.executions(), 2);
    assert!(SAW_EMPTY.load(std::sync::atomic::Ordering::SeqCst));
    assert!(SAW_DISCONNECTED.load(std::sync::atomic::Ordering::SeqCst));
}

static LATE_SEND_OK: StdAtomicBool = StdAtomicBool::new(false);
static LATE_SEND_ERR: StdAtomicBool = StdAtomicBool::new(false);

#[test]
fn dropping_the_receiver_is_a_scheduling_point() {
    // After the receiver's last step (the store) a send may still come before its drop, and
    // succeed, or after it, and fail: both are explored.
    passes(|| {
        let done = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel::<u8>();
        let d = done.clone();
        let t = thread::spawn(move || {
            let _ = rx.try_recv();
            d.store(true, Ordering::SeqCst);
            drop(rx);
        });
        if done.load(Ordering::SeqCst) {
            let seen = if tx.send(1).is_ok() {
                &LATE_SEND_OK
            } else {
                &LATE_SEND_ERR
            };
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        t.join().unwrap();
    });
    assert!(LATE_SEND_OK.load(std::sync::atomic::Ordering::SeqCst));
    assert!(LATE_SEND_ERR.load(std::sync::atomic::Ordering::SeqCst));
}

#[test]
fn send_after_the_receiver_is_gone_gives_the_value_back() {
    passes(|| {
        let (tx, rx) = channel();
        thread::spawn(move || drop(rx)).join().unwrap();
        assert_eq!(tx.send(5), Err(SendError(5)));
    });
    // A sender blocked on a full channel, or in a rendezvous, gets its value back too.
    for bound in [0, 1] {
        let report = Builder::new().explore(move || {
            let (tx, rx) = sync_channel(bound);
            let t = thread::spawn(move || drop(rx));
            let first = tx.send(1);
            if bound == 0 {
                assert_eq!(first, Err(SendError(1)));
            } else if first.is_ok() {
                assert_eq!(tx.send(2), Err(SendError(2)));
            }
            assert_eq!(tx.try_send(3), Err(TrySendError::Disconnected(3)));
            t.join().unwrap();
        });
        assert!(report.failure().is_none(), "{report}");
        assert!(report.complete());
    }
}

#[test]
fn rendezvous_try_send_needs_a_waiting_receiver() {
    passes(|| {
        let (tx, rx) = sync_channel::<u8>(0);
        assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
        let t = thread::spawn(move || rx.recv());
        // Succeeds only while the receiver waits in recv; then it gets exactly this value.
        loop {
            match tx.try_send(2) {
                Ok(()) => break,
                Err(TrySendError::Full(_)) => thread::yield_now(),
                Err(e) => panic!("{e:?}"),
            }
        }
        assert_eq!(t.join().unwrap(), Ok(2));
    });
}

#[test]
fn recv_timeout_gives_way_and_then_times_out() {
    passes(|| {
        let (tx, rx) = channel::<u8>();
        let t = thread::spawn(move || tx.send(1).unwrap());
        let got = loop {
            match rx.recv_timeout(std::time::Duration::from_millis(10)) {
                Ok(v) => break v,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => panic!("the value comes first"),
            }
        };
        assert_eq!(got, 1);
        t.join().unwrap();
    });
}

#[test]
fn channels_outside_a_model_work_sequentially() {
    let (tx, rx) = channel();
    tx.send(1).unwrap();
    tx.clone().send(2).unwrap();
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    let blocked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rx.recv()));
    let message = *blocked.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("would block forever outside a symx model"),
        "{message}"
    );
    drop(tx);
    assert_eq!(rx.recv(), Err(RecvError));

    let (tx, rx) = sync_channel(1);
    tx.send(1).unwrap();
    assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
    assert_eq!(rx.recv(), Ok(1));
    drop(rx);
    assert_eq!(tx.send(3), Err(SendError(3)));
}

// ---------------------------------------------------------------------------------------------
// Arc

/// A value whose destructor reads what another thread wrote.
struct ReadsOnDrop(Racy<u32>);

impl Drop for ReadsOnDrop {
    fn drop(&mut self) {
        assert_eq!(self.0.get(), 1);
    }
}

/// The thread writes, drops its clone; main drops the other. `Relaxed` flag traffic gives
/// the interleavings without any happens-before of its own.
macro_rules! drop_after_write {
    ($arc:ident) => {{
        let a = $arc::new(ReadsOnDrop(Racy::new(0)));
        let flag = $arc::new(AtomicBool::new(false));
        let (b, f) = (a.clone(), flag.clone());
        let t = thread::spawn(move || {
            b.0.set(1);
            f.store(true, Ordering::Relaxed);
            drop(b);
        });
        // If the load sees the store, the thread's clone is gone and this drop is the last:
        // the destructor reads here. Otherwise it runs in the thread, after its own write.
        let _ = flag.load(Ordering::Relaxed);
        drop(a);
        t.join().unwrap();
    }};
}

#[test]
fn last_arc_drop_acquires_every_earlier_drop() {
    // Thread: store; main: load. 2 orders; when the load sees the store, main drops the last
    // reference and the destructor's read is ordered after the thread's write by the Arc.
    let report = passes(|| drop_after_write!(Arc));
    assert_eq!(report.executions(), 2);
}

#[test]
fn without_the_modelled_arc_the_destructor_read_would_race() {
    // The same program with std's Arc (not modelled): nothing orders the write before the
    // destructor, which is what the modelled Arc's release/acquire pair fixes.
    use std::sync::Arc as StdArc;
    fails(FailureKind::DataRace, || drop_after_write!(StdArc));
}

#[test]
fn try_unwrap_synchronises_with_the_dropped_clones() {
    passes(|| {
        let a = Arc::new(Racy::new(0));
        let b = a.clone();
        let t = thread::spawn(move || {
            b.set(1);
            drop(b);
        });
        let mut a = a;
        // strong_count is no synchronisation; the successful try_unwrap is.
        while Arc::strong_count(&a) > 1 {
            thread::yield_now();
        }
        a = match Arc::try_unwrap(a) {
            Ok(v) => {
                assert_eq!(v.get(), 1);
                Arc::new(v)
            }
            Err(_) => unreachable!("the only strong reference"),
        };
        assert_eq!(Arc::strong_count(&a), 1);
        t.join().unwrap();
    });
}

#[test]
fn arc_api_outside_a_model() {
    let a = Arc::new(5);
    let b = Arc::clone(&a);
    assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a)), (2, 0));
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(Arc::as_ptr(&a), &*b as *const i32);
    let w: Weak<i32> = Arc::downgrade(&a);
    assert_eq!(Arc::weak_count(&a), 1);
    assert_eq!(w.upgrade().as_deref(), Some(&5));
    let b = Arc::try_unwrap(b).unwrap_err();
    assert_eq!(Arc::into_inner(b), None);
    let mut a = a;
    // Only a Weak shares it: make_mut moves the value out and the Weak dangles.
    *Arc::make_mut(&mut a) += 1;
    assert!(w.upgrade().is_none());
    assert_eq!(*a, 6);
    let c = a.clone();
    *Arc::make_mut(&mut a) += 1; // shared: cloned
    assert_eq!((*a, *c), (7, 6));
    assert!(Arc::get_mut(&mut a).is_some());
    assert_eq!(Arc::into_inner(a), Some(7));
    assert_eq!(Arc::try_unwrap(c), Ok(6));
    assert_eq!(format!("{} {:?}", Arc::new(1), Arc::<u8>::default()), "1 0");
    assert_eq!(Arc::from(3), Arc::new(3));
    assert!(Weak::<u8>::new().upgrade().is_none());
}
