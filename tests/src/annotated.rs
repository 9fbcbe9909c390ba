//! Hand-written locks as real crates write them, annotated for symx, and programs that run
//! on them and on `symx::sync::Mutex` / `RwLock` alike, so that both give the same verdicts:
//! the guard-based [`SpinMutex`] and [`SpinRwLock`] of `examples/annotated-primitives`, and
//! [`CheckThenSet`], a spin mutex broken by a check-then-set `lock`. The data lives in the
//! locks' own `std::cell::UnsafeCell`, which symx does not see: the annotations alone tell
//! it who holds a lock.

use std::cell::UnsafeCell;

pub use annotated_primitives::{SpinMutex, SpinRwLock};
use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex, RwLock};
use symx::thread;

/// A spin mutex holding a counter, whose `lock` checks the flag and then sets it in two
/// steps: two threads can both see it free. Released by its guard's `Drop`.
pub struct CheckThenSet {
    locked: AtomicBool,
    data: UnsafeCell<u32>,
}

// SAFETY: meant to be serialised by the lock (which is broken: symx reports it).
unsafe impl Sync for CheckThenSet {}

impl CheckThenSet {
    /// Spins while the flag is set, then sets it.
    #[symx::acquire]
    pub fn lock(&self) -> CheckThenSetGuard<'_> {
        while self.locked.load(Ordering::Acquire) {
            symx::hint::spin_loop();
        }
        // BUG: another thread may have passed the check too.
        self.locked.store(true, Ordering::Relaxed);
        CheckThenSetGuard { lock: self }
    }
}

/// Holds a [`CheckThenSet`]; releases it when dropped.
pub struct CheckThenSetGuard<'a> {
    lock: &'a CheckThenSet,
}

impl Drop for CheckThenSetGuard<'_> {
    #[symx::release(self.lock)]
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
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

impl Lock for CheckThenSet {
    fn make(n: u32) -> Self {
        CheckThenSet {
            locked: AtomicBool::new(false),
            data: UnsafeCell::new(n),
        }
    }
    fn with<R>(&self, f: impl FnOnce(&mut u32) -> R) -> R {
        let _held = self.lock();
        // SAFETY: meant to be exclusive while `_held` lives.
        f(unsafe { &mut *self.data.get() })
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
