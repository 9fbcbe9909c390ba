//! [`RawSpin`]: a test-and-set raw lock for `lock_api`, the layer real mutexes are built on
//! (`spin`, `parking_lot`). Annotating the raw lock checks every `lock_api` type made from it;
//! [`LockApiMutex`] is one.
//!
//! `lock_api::Mutex::lock` calls `RawSpin::lock` and is not `#[track_caller]`, so the annotated
//! method's caller is a line of `lock_api`'s source. symx reports the first line outside the
//! dependency's source instead: the user's call of `lock()`.

use symx::sync::atomic::{AtomicBool, Ordering};

/// A raw test-and-set lock implementing `lock_api::RawMutex`.
#[derive(Debug)]
pub struct RawSpin {
    locked: AtomicBool,
}

/// A mutex holding a `T`, guarded by [`RawSpin`], with `lock_api`'s guards.
pub type LockApiMutex<T> = lock_api::Mutex<RawSpin, T>;

// SAFETY: `lock` and `try_lock` succeed only for the thread that turned the flag from false to
// true, so one thread at a time holds the lock.
unsafe impl lock_api::RawMutex for RawSpin {
    #[allow(clippy::declare_interior_mutable_const)] // lock_api's own pattern: a fresh lock per use
    const INIT: RawSpin = RawSpin {
        locked: AtomicBool::new(false),
    };
    type GuardMarker = lock_api::GuardSend;

    #[symx::acquire]
    fn lock(&self) {
        while !self.try_lock() {
            symx::hint::spin_loop();
        }
    }

    #[symx::try_acquire]
    fn try_lock(&self) -> bool {
        // `Acquire` on success: the previous holder's critical section happens before ours.
        self.locked
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    #[symx::release]
    unsafe fn unlock(&self) {
        // `Release`: publishes this critical section to the next `Acquire`.
        self.locked.store(false, Ordering::Release);
    }
}
