//! One wrong variant of each primitive, each differing from the correct one in a single
//! mistake that is easy to make and hard to see in a code review. They carry the same
//! annotations as the correct primitives, which is what lets symx name the broken contract.
//!
//! The tests in `tests/primitives.rs` show what symx reports for each.

use symx::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use symx::sync::Arc;

/// A spin lock whose `unlock` forgets to clear the flag.
///
/// **Bug:** `unlock` issues a release fence, as if publishing the critical section were all
/// there is to unlocking, but leaves `locked` set. The first holder's critical section runs
/// fine; every later `lock` spins forever on a flag nobody will clear.
///
/// **Found as:** [`symx::FailureKind::StepLimit`]. The spinner is not stuck behind a blocked
/// holder (the annotations say nobody holds the lock), so this is no deadlock: it is a thread
/// that runs forever without progress, which symx reports once an execution exceeds its step
/// bound, naming the lock the thread spins on.
#[derive(Debug, Default)]
pub struct SpinLock {
    locked: AtomicBool,
}

impl SpinLock {
    /// An unlocked lock.
    pub const fn new() -> Self {
        SpinLock {
            locked: AtomicBool::new(false),
        }
    }

    /// Spins until the flag was clear and this thread set it.
    #[symx::acquire]
    pub fn lock(&self) {
        while self.locked.swap(true, Ordering::Acquire) {
            symx::hint::spin_loop();
        }
    }

    /// Takes the lock if it is free, without waiting.
    #[symx::try_acquire]
    pub fn try_lock(&self) -> bool {
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Meant to release the lock; see the bug above.
    #[symx::release]
    pub fn unlock(&self) {
        // BUG: should be `self.locked.store(false, Ordering::Release)`.
        fence(Ordering::Release);
    }
}

/// A ticket lock that draws tickets with a separate load and store.
///
/// **Bug:** `lock` reads `next_ticket` and writes it back incremented in two steps instead
/// of one `fetch_add`. Two threads that both load before either stores draw the same ticket,
/// and when it is served both return from `lock`: both hold the lock at once.
///
/// **Found as:** [`symx::FailureKind::Misuse`], "mutual exclusion is broken": the second
/// thread's `#[symx::acquire]` returns while the first still holds the lock. (With a wait
/// for `now_serving == ticket` instead of the correct lock's "while my ticket is ahead", the
/// same bug can also leave the second thread spinning forever for a ticket that was already
/// served, a [`symx::FailureKind::StepLimit`]; which of the two an exploration meets first
/// depends on its order.)
#[derive(Debug, Default)]
pub struct TicketLock {
    next_ticket: AtomicUsize,
    now_serving: AtomicUsize,
}

impl TicketLock {
    /// An unlocked lock, serving ticket 0.
    pub const fn new() -> Self {
        TicketLock {
            next_ticket: AtomicUsize::new(0),
            now_serving: AtomicUsize::new(0),
        }
    }

    /// Draws a ticket (racily, see the bug above) and waits until it is served.
    #[symx::acquire]
    pub fn lock(&self) {
        // BUG: another thread can load the same value between these two lines; should be
        // `self.next_ticket.fetch_add(1, Ordering::Relaxed)`.
        let ticket = self.next_ticket.load(Ordering::Relaxed);
        self.next_ticket.store(ticket + 1, Ordering::Relaxed);
        while crate::ticket_lock::is_ahead(ticket, self.now_serving.load(Ordering::Acquire)) {
            symx::hint::spin_loop();
        }
    }

    /// Serves the next ticket.
    #[symx::release]
    pub fn unlock(&self) {
        self.now_serving.fetch_add(1, Ordering::Release);
    }
}

/// A counting barrier whose release flag is set rather than reversed.
///
/// **Bug:** the last arrival opens the barrier with `sense = true` instead of `sense =
/// !phase_sense`, and the waiters wait for `true` rather than for a change. That is a correct
/// one-shot barrier, but the flag is never reset: in the second phase it is already `true`, so
/// every thread walks straight through without waiting for the others.
///
/// **Found as:** [`symx::FailureKind::Misuse`]: the annotations count arrivals per phase, and
/// the first thread to leave the second phase does so before all parties arrived. In a test
/// that also hands data from phase to phase, it may show up first as a
/// [`symx::FailureKind::DataRace`] instead: a thread let through just after the other one
/// called `wait` (which counts as arriving) reads data whose writer has not synchronised
/// with it yet.
#[derive(Debug)]
pub struct SenseBarrier {
    parties: usize,
    remaining: AtomicUsize,
    sense: AtomicBool,
}

impl SenseBarrier {
    /// A barrier for `n` parties, registered with symx as such.
    pub fn new(n: usize) -> Arc<SenseBarrier> {
        assert!(n > 0, "a barrier needs at least one party");
        let barrier = Arc::new(SenseBarrier {
            parties: n,
            remaining: AtomicUsize::new(n),
            sense: AtomicBool::new(false),
        });
        symx::annotate::barrier_init(&*barrier, n);
        barrier
    }

    /// Waits until all parties of this phase arrived (not in the second phase: the bug).
    #[symx::barrier_arrive]
    pub fn wait(&self) {
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.remaining.store(self.parties, Ordering::Relaxed);
            // BUG: should reverse the sense seen on arrival, so that each phase waits for a
            // value the previous phase did not leave behind.
            self.sense.store(true, Ordering::Release);
        } else {
            while !self.sense.load(Ordering::Acquire) {
                symx::hint::spin_loop();
            }
        }
    }
}
