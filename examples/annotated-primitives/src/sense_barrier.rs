//! [`SenseBarrier`]: a reusable barrier that tells its phases apart with a sense flag.

use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::Arc;

/// A sense-reversing barrier for a fixed number of threads, reusable for any number of
/// phases.
///
/// Each phase has a sense (a boolean). Every thread but the last to arrive spins until the
/// sense differs from the one it saw on arrival; the last re-arms the counter for the next
/// phase and then reverses the sense, which releases the others. Since the next phase waits
/// for the opposite sense, a fast thread that already arrived in the next phase cannot be let
/// through by the flip that ended the previous one.
#[derive(Debug)]
pub struct SenseBarrier {
    parties: usize,
    remaining: AtomicUsize,
    sense: AtomicBool,
}

impl SenseBarrier {
    /// A barrier for `n` threads, already announced to symx.
    ///
    /// It is returned in an `Arc` because symx knows annotated objects by address: the
    /// barrier is announced only once it sits at the place where the threads will use it.
    /// (For a barrier that lives elsewhere, call `symx::annotate::barrier_init(&barrier, n)`
    /// once it is in place, or put `#[symx::barrier_init(n)]` on an initialising method.)
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

    /// Arrives at the barrier and returns once all `n` threads of this phase have arrived.
    #[symx::barrier_arrive]
    pub fn wait(&self) {
        // This phase's sense. It cannot change before this thread arrives (the last arrival
        // reverses it), so reading it first is safe; it replaces the thread-local sense of
        // the textbook version.
        let phase_sense = self.sense.load(Ordering::Relaxed);
        // `AcqRel`: the decrements form one release sequence, so the last arrival acquires
        // the work every thread did before arriving.
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Re-arm before opening: the released threads may arrive in the next phase at
            // once. `Relaxed` suffices because the `Release` store below publishes it.
            self.remaining.store(self.parties, Ordering::Relaxed);
            // `Release`: hands everything the last arrival acquired to the waiters.
            self.sense.store(!phase_sense, Ordering::Release);
        } else {
            while self.sense.load(Ordering::Acquire) == phase_sense {
                symx::hint::spin_loop();
            }
        }
    }
}
