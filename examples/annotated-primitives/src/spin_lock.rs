//! [`SpinLock`]: the simplest lock, a test-and-set on one flag.

use symx::sync::atomic::{AtomicBool, Ordering};

/// A test-and-set spin lock. It protects no data itself; callers pair it with the data, as
/// with a raw lock.
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
        // `Acquire` on success: the critical section of the previous holder (published by
        // its `Release` store in `unlock`) happens before ours.
        while self.locked.swap(true, Ordering::Acquire) {
            // Give way, so that the holder can run and clear the flag.
            symx::hint::spin_loop();
        }
    }

    /// Takes the lock if it is free; `true` when this thread now holds it.
    #[symx::try_acquire]
    pub fn try_lock(&self) -> bool {
        // A compare-exchange rather than a swap: a failed attempt then does not write.
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Releases the lock, which the calling thread must hold.
    #[symx::release]
    pub fn unlock(&self) {
        // `Release`: publishes this critical section to the next `Acquire` in `lock`.
        self.locked.store(false, Ordering::Release);
    }
}
