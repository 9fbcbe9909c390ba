//! [`SpinMutex`]: a spin lock that holds its data and releases in its guard's `Drop`, the
//! shape of real mutexes (`spin::Mutex`, `lock_api::Mutex`).

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

use symx::sync::atomic::{AtomicBool, Ordering};

/// A test-and-set spin mutex holding a `T`. `lock` returns a guard that gives access to the
/// data and releases the lock when dropped.
#[derive(Debug, Default)]
pub struct SpinMutex<T> {
    locked: AtomicBool,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's Mutex, access to `data` is serialised by the lock.
unsafe impl<T: Send> Sync for SpinMutex<T> {}

impl<T> SpinMutex<T> {
    /// An unlocked mutex holding `t`.
    pub const fn new(t: T) -> Self {
        SpinMutex {
            locked: AtomicBool::new(false),
            data: UnsafeCell::new(t),
        }
    }

    /// Spins until this thread took the lock; the guard releases it.
    ///
    /// The annotation is on `lock`, whose `self` is the lock; the release is on the guard's
    /// `drop`, which names the lock it releases (`self.lock`), not the guard.
    #[symx::acquire]
    pub fn lock(&self) -> SpinMutexGuard<'_, T> {
        // `Acquire` on success: the previous holder's critical section happens before ours.
        while self.locked.swap(true, Ordering::Acquire) {
            symx::hint::spin_loop();
        }
        SpinMutexGuard { lock: self }
    }
}

/// Access to a [`SpinMutex`]'s data; releases the lock when dropped.
#[derive(Debug)]
pub struct SpinMutexGuard<'a, T> {
    lock: &'a SpinMutex<T>,
}

impl<T> Drop for SpinMutexGuard<'_, T> {
    #[symx::release(self.lock)]
    fn drop(&mut self) {
        // `Release`: publishes this critical section to the next `Acquire` in `lock`.
        self.lock.locked.store(false, Ordering::Release);
    }
}

impl<T> Deref for SpinMutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for SpinMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data.get() }
    }
}
