//! `symx::sync::RwLock`: readers share the lock-table entry (`shared`), a writer holds it
//! alone. `read` is enabled while no writer holds the lock and `write` while nobody does, so
//! neither spins and a deadlock is seen as "nobody enabled".
//!
//! There is no writer preference: a reader gets in whenever no writer *holds* the lock, even
//! while a writer waits. So a thread that read-locks twice never deadlocks here, although std
//! leaves that unspecified and some platforms would deadlock. Re-locking in a conflicting mode
//! (write while holding a read or write lock, read while holding the write lock) is reported
//! as a self-deadlock at once.

use std::cell::UnsafeCell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::panic::{Location, RefUnwindSafe, UnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LockResult, TryLockError, TryLockResult};

use super::mutex::{lock_obj, try_lock_obj, unlock_obj};
use super::poison::Poison;
use crate::report::kind::FailureKind;
use crate::rt::execution::{Execution, Found};
use crate::rt::{self, ObjId, ObjKind, ObjRef};

/// The outside-a-model state while a writer holds the lock; any other value counts readers.
const WRITER: usize = usize::MAX;

/// `std::sync::RwLock`, modelled: readers share it, a writer holds it alone, and whoever
/// cannot take it blocks; poisoning follows `std`.
pub struct RwLock<T: ?Sized> {
    obj: ObjRef,
    /// Used only outside a model, where there is nobody to wait for: readers, or `WRITER`.
    outside: AtomicUsize,
    poisoned: Poison,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's RwLock: readers share `&T` (so T: Sync), a writer gets `&mut T`.
unsafe impl<T: ?Sized + Send> Send for RwLock<T> {}
unsafe impl<T: ?Sized + Send + Sync> Sync for RwLock<T> {}

// As std's: a panic while the lock is held poisons it, so it is safe to share across one.
impl<T: ?Sized> UnwindSafe for RwLock<T> {}
impl<T: ?Sized> RefUnwindSafe for RwLock<T> {}

impl<T> RwLock<T> {
    /// A new unlocked lock holding `t`.
    #[track_caller]
    pub const fn new(t: T) -> Self {
        RwLock {
            obj: ObjRef::holding::<T>(),
            outside: AtomicUsize::new(0),
            poisoned: Poison::new(),
            data: UnsafeCell::new(t),
        }
    }

    /// The value, consuming the lock; `Err` if it is poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        let poisoned = self.poisoned;
        poisoned.wrap(self.data.into_inner())
    }
}

impl<T: Default> Default for RwLock<T> {
    #[track_caller]
    fn default() -> Self {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    #[track_caller]
    fn from(t: T) -> Self {
        RwLock::new(t)
    }
}

/// A lock request that can never be granted because the requester holds the lock in a
/// conflicting mode. Write-after-write is left to `lock_obj`, which checks it for every lock.
fn conflicting_self_lock(
    e: &Execution,
    id: ObjId,
    shared: bool,
    location: &'static Location<'static>,
) -> Option<Found> {
    if shared {
        return e.self_deadlock(id, location);
    }
    let me = e.current;
    let reading = e
        .objects
        .get(id)
        .lock
        .as_ref()
        .is_some_and(|l| l.readers.contains(&me));
    reading.then(|| Found {
        kind: FailureKind::Deadlock,
        message: format!(
            "{} tries to write-lock {} while it holds a read lock on it: a self-deadlock",
            e.threads[me].label(me),
            e.objects.label(id)
        ),
        details: vec![format!("write-lock at: {location}")],
        location: Some(location.into()),
        thread: Some(me),
    })
}

impl<T: ?Sized> RwLock<T> {
    /// Takes the lock inside a model (a scheduling point enabled only when the mode is
    /// available); `false` outside one.
    fn lock_modelled(&self, shared: bool, location: &'static Location<'static>) -> bool {
        let Some(id) = rt::with(|e| e.objects.of(&self.obj, ObjKind::RwLock, "RwLock", 0)) else {
            rt::foreign::check(&self.obj, "RwLock", location);
            return false;
        };
        if let Some(found) = rt::with(|e| conflicting_self_lock(e, id, shared, location)).flatten()
        {
            rt::fail(found);
        }
        lock_obj(&self.obj, ObjKind::RwLock, shared, location);
        true
    }

    /// Outside a model: takes the lock if it is available right now.
    fn try_outside(&self, shared: bool) -> bool {
        if shared {
            self.outside
                .fetch_update(Ordering::Acquire, Ordering::Relaxed, |n| {
                    (n < WRITER - 1).then_some(n + 1)
                })
                .is_ok()
        } else {
            self.outside
                .compare_exchange(0, WRITER, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        }
    }

    /// Read-locks, waiting while a writer holds the lock.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        let location = Location::caller();
        if !self.lock_modelled(true, location) {
            assert!(
                self.try_outside(true),
                "symx::sync::RwLock::read would block forever outside a symx model"
            );
        }
        self.poisoned.wrap(RwLockReadGuard {
            lock: self,
            location,
            _not_send: PhantomData,
        })
    }

    /// Write-locks, waiting while anybody holds the lock.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        let location = Location::caller();
        if !self.lock_modelled(false, location) {
            assert!(
                self.try_outside(false),
                "symx::sync::RwLock::write would block forever outside a symx model"
            );
        }
        self.poisoned.wrap(RwLockWriteGuard {
            lock: self,
            location,
            _not_send: PhantomData,
        })
    }

    /// A scheduling point that read-locks if no writer holds the lock, and never blocks.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let location = Location::caller();
        if !self.try_lock(true, location) {
            return Err(TryLockError::WouldBlock);
        }
        let guard = RwLockReadGuard {
            lock: self,
            location,
            _not_send: PhantomData,
        };
        self.poisoned.wrap(guard).map_err(TryLockError::Poisoned)
    }

    /// A scheduling point that write-locks if nobody holds the lock, and never blocks.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let location = Location::caller();
        if !self.try_lock(false, location) {
            return Err(TryLockError::WouldBlock);
        }
        let guard = RwLockWriteGuard {
            lock: self,
            location,
            _not_send: PhantomData,
        };
        self.poisoned.wrap(guard).map_err(TryLockError::Poisoned)
    }

    fn try_lock(&self, shared: bool, location: &'static Location<'static>) -> bool {
        try_lock_obj(&self.obj, ObjKind::RwLock, shared, location)
            .unwrap_or_else(|| self.try_outside(shared))
    }

    /// As std: only a writer that panics poisons the lock; a panicking reader cannot have
    /// left the data half-changed.
    fn unlock(&self, shared: bool, location: &'static Location<'static>) {
        if !shared {
            self.poisoned.mark_if_panicking();
        }
        if rt::in_model() {
            unlock_obj(&self.obj, shared, location);
        } else if shared {
            self.outside.fetch_sub(1, Ordering::Release);
        } else {
            self.outside.store(0, Ordering::Release);
        }
    }

    /// Whether a thread panicked while holding the lock for writing.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.get()
    }

    /// Clears the poison flag.
    pub fn clear_poison(&self) {
        self.poisoned.clear();
    }

    /// Exclusive access needs no lock: `&mut self` proves nobody else holds one.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.poisoned.wrap(self.data.get_mut())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RwLock").finish_non_exhaustive()
    }
}

/// Shared access to an [`RwLock`]'s data; dropping it unlocks (a scheduling point).
pub struct RwLockReadGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    location: &'static Location<'static>,
    /// As std's guards: unlocking must happen on the thread that locked.
    _not_send: PhantomData<*const ()>,
}

/// Exclusive access to an [`RwLock`]'s data; dropping it unlocks (a scheduling point).
pub struct RwLockWriteGuard<'a, T: ?Sized + 'a> {
    lock: &'a RwLock<T>,
    location: &'static Location<'static>,
    _not_send: PhantomData<*const ()>,
}

// SAFETY: as std's guards: sharing a guard shares `&T`.
unsafe impl<T: ?Sized + Sync> Sync for RwLockReadGuard<'_, T> {}
unsafe impl<T: ?Sized + Sync> Sync for RwLockWriteGuard<'_, T> {}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves a read lock is held, so no writer exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves the write lock is held.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard proves the write lock is held, exclusively.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.unlock(true, self.location);
        crate::rt::site::note_drop();
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.unlock(false, self.location);
        crate::rt::site::note_drop();
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
