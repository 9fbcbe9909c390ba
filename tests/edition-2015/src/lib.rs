//! An edition 2015 crate that uses every kind of code symx's macros generate: annotated lock
//! and barrier methods here, a `#[symx::test]`, symx's assertions and an instrumented
//! function in `tests/`. In edition 2015 a path that starts with `::` names an item of the
//! crate's root, so generated code can reach only what the root declares (here `symx`, by
//! `extern crate`); it compiles when the expansions go through `::symx` alone.

extern crate symx;

use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::Arc;

/// A test-and-set lock, annotated.
#[derive(Debug, Default)]
pub struct SpinLock {
    locked: AtomicBool,
}

impl SpinLock {
    /// Spins until this thread set the flag.
    #[symx::acquire]
    pub fn lock(&self) {
        while self.locked.swap(true, Ordering::Acquire) {
            symx::hint::spin_loop();
        }
    }

    /// Takes the lock if it is free.
    #[symx::try_acquire]
    pub fn try_lock(&self) -> bool {
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Releases the lock.
    #[symx::release]
    pub fn unlock(&self) {
        self.locked.store(false, Ordering::Release);
    }
}

/// A one-shot barrier: parties count down and spin until the count is zero.
#[derive(Debug)]
pub struct CountdownBarrier {
    left: AtomicUsize,
}

impl CountdownBarrier {
    /// A barrier for `n` parties.
    pub fn new(n: usize) -> Arc<Self> {
        let barrier = Arc::new(CountdownBarrier {
            left: AtomicUsize::new(0),
        });
        barrier.init(n);
        barrier
    }

    #[symx::barrier_init(n)]
    fn init(&self, n: usize) {
        self.left.store(n, Ordering::Release);
    }

    /// Arrives and waits for the others.
    #[symx::barrier_arrive]
    pub fn wait(&self) {
        self.left.fetch_sub(1, Ordering::AcqRel);
        while self.left.load(Ordering::Acquire) != 0 {
            symx::hint::spin_loop();
        }
    }
}
