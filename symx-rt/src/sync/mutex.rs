//! `symx::sync::Mutex`: a lock whose `lock` is a scheduling point enabled only while the lock
//! is free, so a thread never spins on it and a deadlock is seen as "nobody enabled".

use std::cell::UnsafeCell;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LockResult, TryLockError, TryLockResult};

use super::poison::Poison;
use crate::rt::{self, ObjId, ObjKind, ObjRef, OpKind};

/// `std::sync::Mutex`, modelled: `lock` blocks while another thread holds it (a scheduling
/// point), and poisoning follows `std`.
pub struct Mutex<T: ?Sized> {
    obj: ObjRef,
    /// Used only outside a model, where there is nobody to wait for.
    held_outside: AtomicBool,
    poisoned: Poison,
    data: UnsafeCell<T>,
}

// SAFETY: as for std's Mutex: access to `data` is serialised by the lock.
unsafe impl<T: ?Sized + Send> Send for Mutex<T> {}
unsafe impl<T: ?Sized + Send> Sync for Mutex<T> {}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `t`.
    #[track_caller]
    pub const fn new(t: T) -> Self {
        Mutex {
            obj: ObjRef::holding::<T>(),
            held_outside: AtomicBool::new(false),
            poisoned: Poison::new(),
            data: UnsafeCell::new(t),
        }
    }

    /// The value, consuming the mutex; `Err` if it is poisoned.
    pub fn into_inner(self) -> LockResult<T> {
        let poisoned = self.poisoned;
        poisoned.wrap(self.data.into_inner())
    }
}

impl<T: Default> Default for Mutex<T> {
    #[track_caller]
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    #[track_caller]
    fn from(t: T) -> Self {
        Mutex::new(t)
    }
}

/// Locks a built-in lock inside an execution: self-deadlock check, then the scheduling point
/// (enabled only when the lock is free), then the acquisition. `None` outside a model.
pub(crate) fn lock_obj(
    obj: &ObjRef,
    kind: ObjKind,
    shared: bool,
    location: &'static Location<'static>,
) -> Option<ObjId> {
    let Some(id) = rt::with(|e| e.objects.of(obj, kind, kind.name(), 0)) else {
        rt::foreign::check(obj, kind.name(), location);
        return None;
    };
    if !shared {
        if let Some(found) = rt::with(|e| e.self_deadlock(id, location)).flatten() {
            rt::fail(found);
        }
    }
    let op = if shared {
        OpKind::ReadLock
    } else {
        OpKind::Lock
    };
    rt::visible(op, Some(id), location);
    rt::with(|e| e.take_lock(id, shared, location));
    Some(id)
}

/// Tries a built-in lock: a scheduling point that never blocks. `None` outside a model.
pub(crate) fn try_lock_obj(
    obj: &ObjRef,
    kind: ObjKind,
    shared: bool,
    location: &'static Location<'static>,
) -> Option<bool> {
    let Some(id) = rt::with(|e| e.objects.of(obj, kind, kind.name(), 0)) else {
        rt::foreign::check(obj, kind.name(), location);
        return None;
    };
    rt::visible(OpKind::TryLock, Some(id), location);
    let free = rt::with(|e| {
        let free = e.lock_is_free(id, shared);
        // A failed attempt changes nothing: it must not wake threads that gave way.
        e.quiet_step = !free;
        if free {
            e.take_lock(id, shared, location);
        } else {
            e.note_sync(crate::sym::notes::SyncOp::TryAcquireFailed, id);
        }
        free
    })?;
    // Outside `with`: recording borrows the execution too.
    rt::record_value(rt::Value::Flag(free));
    Some(free)
}

/// Releases a built-in lock: a scheduling point, then the release.
pub(crate) fn unlock_obj(obj: &ObjRef, shared: bool, location: &'static Location<'static>) {
    let id = rt::with(|e| obj.get(e.objects.generation)).flatten();
    if let Some(id) = id {
        let kind = if shared {
            OpKind::ReadUnlock
        } else {
            OpKind::Unlock
        };
        rt::visible(kind, Some(id), location);
        rt::with(|e| e.drop_lock(id, shared));
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Acquires the lock, blocking while another thread holds it (a scheduling point); `Err` if
    /// a thread panicked while holding it.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        let location = Location::caller();
        if lock_obj(&self.obj, ObjKind::Mutex, false, location).is_none() {
            assert!(
                !self.held_outside.swap(true, Ordering::Acquire),
                "symx::sync::Mutex::lock would block forever outside a symx model"
            );
        }
        self.guard(location)
    }

    /// Acquires the lock if it is free (a scheduling point); `WouldBlock` otherwise.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        let location = Location::caller();
        let got = try_lock_obj(&self.obj, ObjKind::Mutex, false, location)
            .unwrap_or_else(|| !self.held_outside.swap(true, Ordering::Acquire));
        if !got {
            return Err(TryLockError::WouldBlock);
        }
        self.guard(location).map_err(TryLockError::Poisoned)
    }

    fn guard(&self, location: &'static Location<'static>) -> LockResult<MutexGuard<'_, T>> {
        self.poisoned.wrap(MutexGuard {
            lock: self,
            location,
        })
    }

    pub(crate) fn unlock(&self, location: &'static Location<'static>) {
        self.poisoned.mark_if_panicking();
        if rt::in_model() {
            unlock_obj(&self.obj, false, location);
        } else {
            self.held_outside.store(false, Ordering::Release);
        }
    }

    pub(crate) fn obj(&self) -> &ObjRef {
        &self.obj
    }

    /// Whether a thread panicked while holding the lock.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.get()
    }

    /// Clears the poison flag.
    pub fn clear_poison(&self) {
        self.poisoned.clear();
    }

    /// Exclusive access to the value (no scheduling point: nothing else can see it).
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.poisoned.wrap(self.data.get_mut())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mutex").finish_non_exhaustive()
    }
}

/// Holds a [`Mutex`]; dropping it unlocks (a scheduling point).
pub struct MutexGuard<'a, T: ?Sized + 'a> {
    pub(crate) lock: &'a Mutex<T>,
    pub(crate) location: &'static Location<'static>,
}

// SAFETY: as std's guard: shared access to the data is fine when T is Sync.
unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves the lock is held.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard proves the lock is held, exclusively.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.unlock(self.location);
        crate::rt::site::note_drop();
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}
