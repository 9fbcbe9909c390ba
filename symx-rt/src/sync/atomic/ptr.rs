//! `AtomicPtr<T>`: the pointer modelled as its address, one object per atomic.

use std::panic::Location;

use super::{access, read_order, unsync_read, AtomicOp, Ordering};
use crate::rt::{self, ObjRef, OpKind, Value};
use crate::sym::expr::Ty;

/// `AtomicPtr<T>`: the pointer is modelled as its address.
#[derive(Debug)]
pub struct AtomicPtr<T> {
    init: std::sync::atomic::AtomicPtr<T>,
    obj: ObjRef,
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    fn from(p: *mut T) -> Self {
        Self::new(p)
    }
}

impl<T> AtomicPtr<T> {
    /// A new atomic holding the value. `const`, as in `std`: usable in statics.
    #[track_caller]
    pub const fn new(p: *mut T) -> Self {
        AtomicPtr {
            init: std::sync::atomic::AtomicPtr::new(p),
            obj: ObjRef::new(),
        }
    }

    fn modelled(
        &self,
        kind: OpKind,
        order: Ordering,
        failure: Ordering,
        location: &'static Location<'static>,
        update: impl FnOnce(*mut T) -> Option<*mut T>,
    ) -> Option<(*mut T, Option<*mut T>)> {
        let initial = self.init.load(Ordering::Relaxed) as usize as u64;
        let op = AtomicOp {
            kind,
            order,
            failure_order: failure,
            location,
            ty: Ty::Usize,
        };
        let (old, new) = access(
            &self.obj,
            "AtomicPtr",
            initial,
            op,
            |v| update(v as usize as *mut T).map(|p| p as usize as u64),
            |old, new| Value::One(new.unwrap_or(old) as i128),
        )?;
        Some((old as usize as *mut T, new.map(|n| n as usize as *mut T)))
    }

    /// Reads the value: a scheduling point; `order` decides what it synchronises with.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> *mut T {
        match self.modelled(OpKind::Load, order, order, Location::caller(), |_| None) {
            Some((p, _)) => p,
            None => self.init.load(order),
        }
    }

    /// Writes the value: a scheduling point; `order` decides what it synchronises with.
    #[track_caller]
    pub fn store(&self, p: *mut T, order: Ordering) {
        if self
            .modelled(OpKind::Store, order, order, Location::caller(), |_| Some(p))
            .is_none()
        {
            self.init.store(p, order);
        }
    }

    /// Writes the value and returns the previous one, in one step.
    #[track_caller]
    pub fn swap(&self, p: *mut T, order: Ordering) -> *mut T {
        match self.modelled(OpKind::Rmw, order, order, Location::caller(), |_| Some(p)) {
            Some((old, _)) => old,
            None => self.init.swap(p, order),
        }
    }

    /// Writes `new` if the value is `current`, in one step; returns the previous value,
    /// `Ok` if it was written and `Err` otherwise.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        let update = |v: *mut T| (v == current).then_some(new);
        match self.modelled(
            OpKind::CompareExchange,
            success,
            failure,
            Location::caller(),
            update,
        ) {
            Some((old, Some(_))) => Ok(old),
            Some((old, None)) => Err(old),
            None => self.init.compare_exchange(current, new, success, failure),
        }
    }

    /// [`compare_exchange`](Self::compare_exchange): it never fails spuriously here.
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        success: Ordering,
        failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.compare_exchange(current, new, success, failure)
    }

    /// Applies `f` until a compare-exchange with its result succeeds, as `std` does; returns
    /// the value it was applied to last, `Err` when `f` returned `None`.
    #[track_caller]
    pub fn fetch_update<F: FnMut(*mut T) -> Option<*mut T>>(
        &self,
        set: Ordering,
        fetch: Ordering,
        mut f: F,
    ) -> Result<*mut T, *mut T> {
        let mut prev = self.load(fetch);
        while let Some(next) = f(prev) {
            match self.compare_exchange(prev, next, set, fetch) {
                Ok(x) => return Ok(x),
                Err(actual) => prev = actual,
            }
        }
        Err(prev)
    }

    /// Writes `new` if the value is `current`; returns the previous value (std's deprecated
    /// form of [`compare_exchange`](Self::compare_exchange)).
    #[track_caller]
    pub fn compare_and_swap(&self, current: *mut T, new: *mut T, order: Ordering) -> *mut T {
        match self.compare_exchange(current, new, order, read_order(order)) {
            Ok(v) | Err(v) => v,
        }
    }

    /// loom's unsynchronised load (see [`AtomicU8::unsync_load`](super::AtomicU8::unsync_load)).
    ///
    /// # Safety
    /// Every write to the atomic must happen before this read (as loom requires).
    #[track_caller]
    pub unsafe fn unsync_load(&self) -> *mut T {
        match unsync_read(&self.obj, "AtomicPtr", Location::caller()) {
            Some(v) => v as usize as *mut T,
            None => self.init.load(Ordering::Relaxed),
        }
    }

    /// Runs `f` with exclusive access to the value (loom's `with_mut`).
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut *mut T) -> R) -> R {
        f(self.get_mut())
    }

    /// Exclusive access to the value (no scheduling point: nothing else can see it).
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.settle();
        self.init.get_mut()
    }

    /// The value, consuming the atomic.
    pub fn into_inner(mut self) -> *mut T {
        self.settle();
        self.init.load(Ordering::Relaxed)
    }

    fn settle(&mut self) {
        let current = rt::with(|e| {
            let id = self.obj.get(e.objects.generation)?;
            Some(e.objects.get(id).value)
        })
        .flatten();
        if let Some(v) = current {
            self.init.store(v as usize as *mut T, Ordering::Relaxed);
            self.obj.forget();
        }
    }
}
