//! Hand-written locks as real crates write them, annotated for symx: a guard-based spin
//! mutex (correct, or broken by a check-then-set `lock`) and a reader-writer spin lock whose
//! guards release in `Drop`, naming the lock they release (`#[symx::release(self.lock)]`).
//! The data lives in the lock's own `std::cell::UnsafeCell`, which symx does not see: the
//! annotations alone tell it who holds the lock.
//!
//! The programs below run the same tests on these locks and on `symx::sync::Mutex` /
//! `RwLock`, so that both give the same verdicts.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex, RwLock};
use symx::thread;

/// A spin mutex holding its data, released by its guard's `Drop`.
pub struct SpinMutex<T> {
    locked: AtomicBool,
    /// Takes the lock by a load and then a store: two threads can both see it free.
    check_then_set: bool,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's Mutex, access to `data` is serialised by the lock (when it works).
unsafe impl<T: Send> Sync for SpinMutex<T> {}

impl<T> SpinMutex<T> {
    /// A correct lock: a swap takes it.
    pub const fn new(t: T) -> Self {
        SpinMutex {
            locked: AtomicBool::new(false),
            check_then_set: false,
            data: UnsafeCell::new(t),
        }
    }

    /// A broken lock: `lock` checks the flag, then sets it, in two steps.
    pub const fn check_then_set(t: T) -> Self {
        SpinMutex {
            locked: AtomicBool::new(false),
            check_then_set: true,
            data: UnsafeCell::new(t),
        }
    }

    /// Spins until this thread took the lock.
    #[symx::acquire]
    pub fn lock(&self) -> SpinGuard<'_, T> {
        if self.check_then_set {
            while self.locked.load(Ordering::Acquire) {
                symx::hint::spin_loop();
            }
            // BUG: another thread may have passed the check too.
            self.locked.store(true, Ordering::Relaxed);
        } else {
            while self.locked.swap(true, Ordering::Acquire) {
                symx::hint::spin_loop();
            }
        }
        SpinGuard { lock: self }
    }
}

/// Holds a [`SpinMutex`]; releases it when dropped.
pub struct SpinGuard<'a, T> {
    lock: &'a SpinMutex<T>,
}

impl<T> Drop for SpinGuard<'_, T> {
    #[symx::release(self.lock)]
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}

impl<T> Deref for SpinGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for SpinGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock.
        unsafe { &mut *self.lock.data.get() }
    }
}

/// The state of a [`SpinRwLock`] while a writer holds it; any other value counts readers.
const WRITER: usize = usize::MAX;

/// A reader-writer spin lock holding its data: readers share it, a writer holds it alone.
pub struct SpinRwLock<T> {
    state: AtomicUsize,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's RwLock.
unsafe impl<T: Send + Sync> Sync for SpinRwLock<T> {}

impl<T> SpinRwLock<T> {
    /// An unlocked lock.
    pub const fn new(t: T) -> Self {
        SpinRwLock {
            state: AtomicUsize::new(0),
            data: UnsafeCell::new(t),
        }
    }

    /// Spins while a writer holds the lock, then shares it.
    #[symx::acquire_shared]
    pub fn read(&self) -> ReadGuard<'_, T> {
        loop {
            let s = self.state.load(Ordering::Relaxed);
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

/// A shared hold on a [`SpinRwLock`].
pub struct ReadGuard<'a, T> {
    lock: &'a SpinRwLock<T>,
}

impl<T> Drop for ReadGuard<'_, T> {
    #[symx::release_shared(self.lock)]
    fn drop(&mut self) {
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

/// The exclusive hold on a [`SpinRwLock`].
pub struct WriteGuard<'a, T> {
    lock: &'a SpinRwLock<T>,
}

impl<T> Drop for WriteGuard<'_, T> {
    #[symx::release(self.lock)]
    fn drop(&mut self) {
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

/// What the programs need of a mutex, so that each runs on the hand-written locks and on
/// `symx::sync::Mutex` alike.
pub trait Lock: Send + Sync + 'static {
    /// An unlocked lock holding `n`.
    fn make(n: u32) -> Self;
    /// Runs `f` on the value while holding the lock.
    fn with<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R;
}

impl Lock for SpinMutex<u32> {
    fn make(n: u32) -> Self {
        SpinMutex::new(n)
    }
    fn with<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R {
        f(&mut self.lock())
    }
}

/// The check-then-set [`SpinMutex`], as a type of its own for the programs.
pub struct CheckThenSet(pub SpinMutex<u32>);

impl Lock for CheckThenSet {
    fn make(n: u32) -> Self {
        CheckThenSet(SpinMutex::check_then_set(n))
    }
    fn with<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R {
        f(&mut self.0.lock())
    }
}

impl Lock for Mutex<u32> {
    fn make(n: u32) -> Self {
        Mutex::new(n)
    }
    fn with<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R {
        f(&mut self.lock().unwrap())
    }
}

/// What the programs need of a reader-writer lock.
pub trait ReadWrite: Send + Sync + 'static {
    /// An unlocked lock holding `n`.
    fn make(n: u32) -> Self;
    /// Runs `f` on the value while sharing the lock.
    fn reading<R>(&self, f: impl FnOnce(&u32) -> R) -> R;
    /// Runs `f` on the value while holding the lock alone.
    fn writing<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R;
}

impl ReadWrite for SpinRwLock<u32> {
    fn make(n: u32) -> Self {
        SpinRwLock::new(n)
    }
    fn reading<R>(&self, f: impl FnOnce(&u32) -> R) -> R {
        f(&self.read())
    }
    fn writing<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R {
        f(&mut self.write())
    }
}

impl ReadWrite for RwLock<u32> {
    fn make(n: u32) -> Self {
        RwLock::new(n)
    }
    fn reading<R>(&self, f: impl FnOnce(&u32) -> R) -> R {
        f(&self.read().unwrap())
    }
    fn writing<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R {
        f(&mut self.write().unwrap())
    }
}

/// Two threads each add one to the counter inside the lock (`*m.lock() += 1`); it must end
/// at two. Nothing symx sees happens inside the critical section.
pub fn counter<L: Lock>() {
    let m = Arc::new(L::make(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || m.with(|n| *n += 1))
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(m.with(|n| *n), 2);
}

/// Two locks taken in opposite orders by two threads: a deadlock in some interleavings,
/// none when the threads run one after the other (as a first execution runs them).
pub fn inversion<L: Lock>() {
    let (a, b) = (Arc::new(L::make(0)), Arc::new(L::make(0)));
    let t = {
        let (a, b) = (a.clone(), b.clone());
        thread::spawn(move || a.with(|_| b.with(|n| *n += 1)))
    };
    b.with(|_| a.with(|n| *n += 1));
    t.join().unwrap();
}

/// A reader and a writer: the writer excludes the reader, so the value read is the initial
/// one or the writer's, never in between. (One reader: every spinning thread multiplies the
/// interleavings of a spin lock.)
pub fn reader_and_writer<L: ReadWrite>() {
    let l = Arc::new(L::make(1));
    let reader = {
        let l = l.clone();
        thread::spawn(move || {
            let v = l.reading(|n| *n);
            assert!(v == 1 || v == 4, "read {v}");
        })
    };
    l.writing(|n| {
        *n += 1;
        *n *= 2;
    });
    reader.join().unwrap();
}

/// Readers share the lock: a thread reads while the main thread holds a read lock and waits
/// for it. A lock whose readers excluded each other would deadlock here.
pub fn readers_share<L: ReadWrite>() {
    let l = Arc::new(L::make(1));
    l.reading(|_| {
        let l = l.clone();
        thread::spawn(move || l.reading(|n| *n)).join().unwrap()
    });
}

/// A thread read-locks, then write-locks the same lock before releasing the read lock: it
/// waits for itself.
pub fn read_then_write<L: ReadWrite>() {
    let l = L::make(0);
    l.reading(|_| l.writing(|n| *n += 1));
}

/// A barrier whose `new` is a `const fn`, so that it cannot announce itself to symx.
pub struct ConstBarrier {
    left: AtomicUsize,
}

impl ConstBarrier {
    /// A barrier for `n` parties, not announced.
    pub const fn new(n: usize) -> Self {
        ConstBarrier {
            left: AtomicUsize::new(n),
        }
    }

    /// Arrives, and spins until every party has.
    #[symx::barrier_arrive]
    pub fn wait(&self) {
        self.left.fetch_sub(1, Ordering::AcqRel);
        while self.left.load(Ordering::Acquire) != 0 {
            symx::hint::spin_loop();
        }
    }
}

/// Two threads arrive at a [`ConstBarrier`] nobody announced with `barrier_init`.
pub fn two_arrive_at_an_unannounced_barrier() {
    let b = Arc::new(ConstBarrier::new(2));
    let t = {
        let b = b.clone();
        thread::spawn(move || b.wait())
    };
    b.wait();
    t.join().unwrap();
}
