//! The annotated primitives under symx: the correct ones are proven free of bugs for small
//! thread counts (every interleaving explored), and each broken one is caught with the kind
//! of failure its bug causes, by a schedule that replays to the same failure.
//!
//! Thread and iteration counts are small on purpose: exploration is exhaustive, so its cost
//! grows with the number of interleavings. Two threads, not three: with two threads spinning
//! at the same time, exploration currently does not finish, because a spinner's
//! `spin_loop()` gives way only until the next operation of another thread, and the other
//! spinner's loads are such operations, so the two can keep re-enabling each other.

use annotated_primitives::{broken, SenseBarrier, SpinLock, TicketLock};
use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::Arc;
use symx::thread;
use symx::{Builder, Failure, FailureKind};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// The locks behind one interface, so that one test body serves them all, correct and
/// broken alike.
trait RawLock: Default + Send + Sync + 'static {
    fn lock(&self);
    fn unlock(&self);
}

trait RawTryLock: RawLock {
    fn try_lock(&self) -> bool;
}

/// Forwards the trait methods to the inherent (annotated) ones.
macro_rules! raw_lock {
    ($($lock:ty),*) => {$(
        impl RawLock for $lock {
            fn lock(&self) {
                <$lock>::lock(self)
            }
            fn unlock(&self) {
                <$lock>::unlock(self)
            }
        }
    )*};
}

raw_lock!(SpinLock, TicketLock, broken::SpinLock, broken::TicketLock);

impl RawTryLock for SpinLock {
    fn try_lock(&self) -> bool {
        SpinLock::try_lock(self)
    }
}

impl RawTryLock for TicketLock {
    fn try_lock(&self) -> bool {
        TicketLock::try_lock(self)
    }
}

/// A counter that only its lock protects: symx reports any two unordered accesses to the
/// `UnsafeCell` as a data race, so the lock's orderings are checked, not only its exclusion.
struct Guarded<L> {
    lock: L,
    count: UnsafeCell<usize>,
}

// SAFETY: `count` is only accessed while `lock` is held; whether that is true is exactly
// what the tests ask symx to check.
unsafe impl<L: Sync> Sync for Guarded<L> {}

impl<L: RawLock> Guarded<L> {
    fn new() -> Arc<Self> {
        Arc::new(Guarded {
            lock: L::default(),
            count: UnsafeCell::new(0),
        })
    }

    /// Increments under the lock, as a read and a separate write: without mutual exclusion an
    /// increment would be lost.
    fn increment_locked(&self) {
        let value = self.count.with(|p| unsafe { *p });
        self.count.with_mut(|p| unsafe { *p = value + 1 });
    }

    fn get(&self) -> usize {
        self.count.with(|p| unsafe { *p })
    }
}

const THREADS: usize = 2;
const ITERATIONS: usize = 2;

/// `THREADS` threads each increment the guarded counter `ITERATIONS` times under `lock`.
fn counter_under<L: RawLock>() {
    let shared = Guarded::<L>::new();
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let shared = shared.clone();
            thread::spawn(move || {
                for _ in 0..ITERATIONS {
                    shared.lock.lock();
                    shared.increment_locked();
                    shared.lock.unlock();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    // Joining orders every worker's accesses before this read.
    assert_eq!(shared.get(), THREADS * ITERATIONS, "an increment was lost");
}

/// Every thread tries the lock once and increments only if it got it. A try can fail only
/// while another thread holds the lock, so at least one succeeds.
fn try_lock_under<L: RawTryLock>() {
    let shared = Guarded::<L>::new();
    let successes = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let (shared, successes) = (shared.clone(), successes.clone());
            thread::spawn(move || {
                if shared.lock.try_lock() {
                    shared.increment_locked();
                    shared.lock.unlock();
                    successes.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let successes = successes.load(Ordering::Relaxed);
    assert!(successes >= 1, "every try_lock failed");
    assert_eq!(shared.get(), successes);
}

/// Per-phase slots: in phase `p`, thread `i` writes `slots[p][i]` before the barrier and
/// every thread reads all of `slots[p]` after it. The reads are ordered after the writes only
/// if the barrier makes every thread wait for all the others; a thread let through early
/// reads an unwritten slot (a panic) or races with its write (a data race).
struct Phases {
    slots: Vec<Vec<UnsafeCell<usize>>>,
}

// SAFETY: the barrier is supposed to order every access; symx checks that it does.
unsafe impl Sync for Phases {}

const PARTIES: usize = 2;
const PHASES: usize = 2;

fn value_of(phase: usize, thread: usize) -> usize {
    // Never 0, the initial value: an unwritten slot cannot pass for a written one.
    1 + phase * PARTIES + thread
}

/// `PARTIES` threads run `PHASES` phases separated by `wait` (either barrier type).
fn phases_with<B: Send + Sync + 'static>(barrier: Arc<B>, wait: fn(&B)) {
    let phases = Arc::new(Phases {
        slots: (0..PHASES)
            .map(|_| (0..PARTIES).map(|_| UnsafeCell::new(0)).collect())
            .collect(),
    });
    let workers: Vec<_> = (0..PARTIES)
        .map(|me| {
            let (barrier, phases) = (barrier.clone(), phases.clone());
            thread::spawn(move || {
                for phase in 0..PHASES {
                    let slots = &phases.slots[phase];
                    slots[me].with_mut(|p| unsafe { *p = value_of(phase, me) });
                    wait(&barrier);
                    for (other, slot) in slots.iter().enumerate() {
                        let seen = slot.with(|p| unsafe { *p });
                        assert_eq!(seen, value_of(phase, other), "phase {phase} not complete");
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

fn sense_barrier_phases() {
    phases_with(SenseBarrier::new(PARTIES), SenseBarrier::wait);
}

/// Explores `body` with `builder`, asserts the first failure is of `kind`, and replays its
/// schedule (through the printed token, as a user would) to the same failure.
fn assert_fails(builder: Builder, kind: FailureKind, body: fn()) -> Failure {
    let report = builder.explore(body);
    let failure = report
        .failure()
        .unwrap_or_else(|| panic!("no failure in {} executions", report.executions()))
        .clone();
    assert_eq!(failure.kind(), kind, "{failure}");

    let token = failure.schedule().to_string();
    let schedule: symx::Schedule = token.parse().expect("the printed token parses");
    let again = builder
        .try_replay(&schedule, body)
        .expect("the schedule replays");
    let replayed = again.failure().expect("the replay fails again");
    assert_eq!(replayed.kind(), kind, "{replayed}");
    assert_eq!(replayed.message(), failure.message());
    failure
}

/// Explores `body` with the default settings and asserts that no interleaving fails and
/// that every one was explored: a proof for this body, not a sample.
fn assert_proven(body: fn()) {
    let report = Builder::new().explore(body);
    if let Some(failure) = report.failure() {
        panic!("unexpected failure:\n{failure}");
    }
    assert!(report.complete(), "not exhausted: {report}");
}

// ---------------------------------------------------------------------------------------
// The correct primitives, as a user would test them: `#[symx::test]` fails on any bug.
// ---------------------------------------------------------------------------------------

#[symx::test]
fn spin_lock_keeps_a_counter_exact() {
    counter_under::<SpinLock>();
}

#[symx::test]
fn spin_lock_try_lock_excludes_and_succeeds_when_free() {
    try_lock_under::<SpinLock>();
}

#[symx::test]
fn ticket_lock_keeps_a_counter_exact() {
    counter_under::<TicketLock>();
}

#[symx::test]
fn ticket_lock_try_lock_excludes_and_succeeds_when_free() {
    try_lock_under::<TicketLock>();
}

#[symx::test]
fn sense_barrier_separates_two_phases() {
    sense_barrier_phases();
}

// The same bodies through the `Builder`, which also says whether the exploration was
// exhaustive: `complete()` is what turns "no bug found" into "no bug exists" (for these
// thread counts).

#[test]
fn spin_lock_is_proven() {
    assert_proven(counter_under::<SpinLock>);
    assert_proven(try_lock_under::<SpinLock>);
}

#[test]
fn ticket_lock_is_proven() {
    assert_proven(counter_under::<TicketLock>);
    assert_proven(try_lock_under::<TicketLock>);
}

#[test]
fn sense_barrier_is_proven() {
    assert_proven(sense_barrier_phases);
}

// ---------------------------------------------------------------------------------------
// The broken primitives: each bug is found, with the kind it causes, and replays.
// ---------------------------------------------------------------------------------------

fn two_threads_take_the_broken_spin_lock() {
    let lock = Arc::new(broken::SpinLock::new());
    let other = {
        let lock = lock.clone();
        thread::spawn(move || {
            lock.lock();
            lock.unlock();
        })
    };
    lock.lock();
    lock.unlock();
    other.join().unwrap();
}

#[test]
fn spin_lock_that_never_clears_its_flag_spins_forever() {
    // Whoever locks second spins forever. Any bound finds that; a small one finds it fast,
    // since the failing execution has to run up to the bound.
    let builder = Builder::new().max_steps(1_000);
    let failure = assert_fails(
        builder,
        FailureKind::StepLimit,
        two_threads_take_the_broken_spin_lock,
    );
    // A livelock has no single place, so the primitive is named in the per-thread details:
    // a thread spins in `lock` on a lock that, by the annotations, nobody holds.
    assert!(
        failure
            .details()
            .iter()
            .any(|d| d.contains("spins acquiring SpinLock") && d.contains("no thread holds")),
        "{failure}"
    );
}

fn two_threads_count_under_the_broken_ticket_lock() {
    // The counter's increment is a separate load and store, so only the lock keeps it exact.
    // Being atomic, it cannot race: mutual exclusion is the one thing checked here, and the
    // accesses inside the critical section are the scheduling points at which a second
    // thread can get in while the first holds the lock.
    let lock = Arc::new(broken::TicketLock::new());
    let count = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (lock, count) = (lock.clone(), count.clone());
            thread::spawn(move || {
                lock.lock();
                let value = count.load(Ordering::Relaxed);
                count.store(value + 1, Ordering::Relaxed);
                lock.unlock();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(count.load(Ordering::Relaxed), 2, "an increment was lost");
}

#[test]
fn ticket_lock_with_a_split_ticket_increment_has_two_holders() {
    let failure = assert_fails(
        Builder::new(),
        FailureKind::Misuse,
        two_threads_count_under_the_broken_ticket_lock,
    );
    assert!(failure.message().contains("TicketLock"), "{failure}");
    assert!(
        failure.message().contains("mutual exclusion is broken"),
        "{failure}"
    );
    // Both threads drew ticket 0: each wrote `next_ticket = 1` back (the only plain store in
    // the broken lock).
    let draws = failure
        .steps()
        .iter()
        .filter(|s| s.location.file.ends_with("broken.rs") && s.operation == "store")
        .filter(|s| s.value == "1")
        .count();
    assert_eq!(draws, 2, "{failure}");
}

#[test]
fn the_counter_test_of_the_correct_ticket_lock_fails_with_the_broken_one() {
    // The body that proves `TicketLock` correct, unchanged. Here the bug can surface in two
    // ways, and which one the exploration meets first depends on its order: two holders at
    // once (a misuse), or the second thread entering once the first has announced its
    // release but before its releasing `fetch_add`, so that nothing orders the two critical
    // sections (a data race on the counter).
    let report = Builder::new().explore(counter_under::<broken::TicketLock>);
    let failure = report.failure().expect("the broken lock is caught");
    assert!(
        matches!(failure.kind(), FailureKind::Misuse | FailureKind::DataRace),
        "{failure}"
    );
    assert_fails(
        Builder::new(),
        failure.kind(),
        counter_under::<broken::TicketLock>,
    );
}

#[test]
fn the_counter_test_of_the_correct_spin_lock_fails_with_the_broken_one() {
    // With the flag never cleared, a second `lock` can only spin, whatever the order.
    let failure = assert_fails(
        Builder::new().max_steps(1_000),
        FailureKind::StepLimit,
        counter_under::<broken::SpinLock>,
    );
    assert!(
        failure
            .details()
            .iter()
            .any(|d| d.contains("spins acquiring SpinLock")),
        "{failure}"
    );
}

fn two_phases_at_the_broken_barrier() {
    // The barrier alone, without data: leaving early is then the only thing that can go
    // wrong, so the bug shows up as exactly that whatever the exploration order.
    let barrier = broken::SenseBarrier::new(PARTIES);
    let workers: Vec<_> = (0..PARTIES)
        .map(|_| {
            let barrier = barrier.clone();
            thread::spawn(move || {
                for _ in 0..PHASES {
                    barrier.wait();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

#[test]
fn barrier_that_does_not_reverse_its_sense_lets_a_thread_leave_early() {
    let failure = assert_fails(
        Builder::new(),
        FailureKind::Misuse,
        two_phases_at_the_broken_barrier,
    );
    // The first phase works; it is the second (generation 1) that a thread leaves alone.
    assert!(
        failure.message().contains("left barrier SenseBarrier"),
        "{failure}"
    );
    assert!(failure.message().contains("generation 1"), "{failure}");
}

fn broken_barrier_phases() {
    phases_with(
        broken::SenseBarrier::new(PARTIES),
        broken::SenseBarrier::wait,
    );
}

#[test]
fn the_phase_test_of_the_correct_barrier_fails_with_the_broken_one() {
    // The body that proves `SenseBarrier` correct, unchanged. A thread let through the second
    // phase early is a misuse if it leaves before the other thread calls `wait`; if it leaves
    // just after (the annotation counts the arrival when the call begins), it reads a slot
    // whose writer has not yet synchronised with it: a data race between the phases.
    let report = Builder::new().explore(broken_barrier_phases);
    let failure = report.failure().expect("the broken barrier is caught");
    assert!(
        matches!(failure.kind(), FailureKind::Misuse | FailureKind::DataRace),
        "{failure}"
    );
    assert_fails(Builder::new(), failure.kind(), broken_barrier_phases);
}

// ---------------------------------------------------------------------------------------
// Outside an exploration the primitives are ordinary ones.
// ---------------------------------------------------------------------------------------

#[test]
fn the_primitives_also_work_outside_symx() {
    // Plain OS threads, no exploration: the atomics act like std's and the annotations do
    // nothing, so the same code can ship. A smoke test, not a proof.
    const OS_THREADS: usize = 4;
    const ROUNDS: usize = 200;
    let ticket = TicketLock::new();
    let spin = SpinLock::new();
    let barrier = SenseBarrier::new(OS_THREADS);
    let count = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..OS_THREADS {
            s.spawn(|| {
                for _ in 0..ROUNDS {
                    ticket.lock();
                    count.fetch_add(1, Ordering::Relaxed);
                    ticket.unlock();
                    spin.lock();
                    spin.unlock();
                    if spin.try_lock() {
                        spin.unlock();
                    }
                }
                for _ in 0..3 {
                    barrier.wait();
                }
            });
        }
    });
    assert_eq!(count.into_inner(), OS_THREADS * ROUNDS);
}

// ---------------------------------------------------------------------------------------
// The guard-based locks: the data inside, released by the guards' `Drop`
// ---------------------------------------------------------------------------------------

#[symx::test]
fn spin_mutex_keeps_its_counter_exact() {
    let m = Arc::new(annotated_primitives::SpinMutex::new(0u32));
    let t = {
        let m = m.clone();
        thread::spawn(move || *m.lock() += 1)
    };
    *m.lock() += 1;
    t.join().unwrap();
    assert_eq!(*m.lock(), 2);
}

#[symx::test]
fn spin_rwlock_readers_see_the_value_before_or_after_the_write() {
    let l = Arc::new(annotated_primitives::SpinRwLock::new(1u32));
    let reader = {
        let l = l.clone();
        thread::spawn(move || {
            let v = *l.read();
            assert!(v == 1 || v == 4, "read {v}");
        })
    };
    {
        let mut w = l.write();
        *w += 1;
        *w *= 2;
    }
    reader.join().unwrap();
}
