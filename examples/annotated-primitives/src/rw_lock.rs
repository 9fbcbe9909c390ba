//! [`SpinRwLock`]: a reader-writer spin lock holding its data, released by its guards.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

use symx::sync::atomic::{AtomicUsize, Ordering};

/// The state while a writer holds the lock; any other value counts readers.
const WRITER: usize = usize::MAX;

/// A reader-writer spin lock holding a `T`: readers share it, a writer holds it alone.
#[derive(Debug, Default)]
pub struct SpinRwLock<T> {
    state: AtomicUsize,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's RwLock: readers share `&T` (so T: Sync), a writer gets `&mut T`.
unsafe impl<T: Send + Sync> Sync for SpinRwLock<T> {}

impl<T> SpinRwLock<T> {
    /// An unlocked lock holding `t`.
    pub const fn new(t: T) -> Self {
        SpinRwLock {
            state: AtomicUsize::new(0),
            data: UnsafeCell::new(t),
        }
    }

    /// Spins while a writer holds the lock, then shares it with the other readers.
    #[symx::acquire_shared]
    pub fn read(&self) -> ReadGuard<'_, T> {
        loop {
            let s = self.state.load(Ordering::Relaxed);
            // `Acquire`: the last writer's critical section happens before this reader's.
            if s != WRITER
                && self
                    .state
                    .compare_exchange(s, s + 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return ReadGuard { lock: self };
            }
            symx::hint::spin_loop();
        }
    }

    /// Spins while anybody holds the lock, then holds it alone.
    #[symx::acquire]
    pub fn write(&self) -> WriteGuard<'_, T> {
        while self
            .state
            .compare_exchange(0, WRITER, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            symx::hint::spin_loop();
        }
        WriteGuard { lock: self }
    }
}

/// A shared hold on a [`SpinRwLock`]; ends when dropped.
#[derive(Debug)]
pub struct ReadGuard<'a, T> {
    lock: &'a SpinRwLock<T>,
}

impl<T> Drop for ReadGuard<'_, T> {
    #[symx::release_shared(self.lock)]
    fn drop(&mut self) {
        // `Release`: a writer that takes the lock next sees what this reader read before.
        self.lock.state.fetch_sub(1, Ordering::Release);
    }
}

impl<T> Deref for ReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard shares the lock; no writer holds it.
        unsafe { &*self.lock.data.get() }
    }
}

/// The exclusive hold on a [`SpinRwLock`]; ends when dropped.
#[derive(Debug)]
pub struct WriteGuard<'a, T> {
    lock: &'a SpinRwLock<T>,
}

impl<T> Drop for WriteGuard<'_, T> {
    #[symx::release(self.lock)]
    fn drop(&mut self) {
        // `Release`: publishes the write to the next reader's or writer's `Acquire`.
        self.lock.state.store(0, Ordering::Release);
    }
}

impl<T> Deref for WriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock alone.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for WriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock alone.
        unsafe { &mut *self.lock.data.get() }
    }
}
