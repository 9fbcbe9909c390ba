//! `symx::sync::Arc` and `Weak`: std's reference counting (a wrapper around std's, so unsized
//! values, `into_raw`/`from_raw` and `from_std` work as std's do), with its strong count also
//! kept by the model (`rt::heap`). The model's count is what makes a `from_raw` or an
//! `increment_strong_count` after the last reference went away a reported use-after-free rather
//! than undefined behaviour in the checker, and an `Arc` still alive at the end of an execution
//! a reported leak (with the location of its `Arc::new`).
//!
//! Happens-before as std's implementation provides it: dropping a strong reference releases
//! into the allocation's clock (std's `fetch_sub(Release)`); the thread that drops the last one,
//! or otherwise finds itself the only owner (`try_unwrap`, `into_inner`, `get_mut`,
//! `make_mut`), acquires that clock before it touches the value (std's `Acquire` fence). So a
//! destructor that reads what other owners wrote is not reported as a race. Cloning and
//! dropping are not scheduling points (they keep the number of executions down); the one count
//! operation on a raw pointer, `increment_strong_count`, is. Cloning creates no
//! happens-before, as in std.
//!
//! What a step does to the count is recorded on it for the partial-order reduction
//! (`rt::op::Touch`): a drop releases a reference (two drops commute), unless it frees a value
//! whose destructor did something the model sees (a visible operation, a change to a modelled
//! object, a cell access): which thread frees such a value, and so runs its destructor, is
//! explored. A drop by an `Arc<T>` whose `T` has no drop glue says so
//! (`Touch::ReleasedNoGlue`: in any order of the drops none runs code), which the reductions
//! treat as `Released` for now (see `events::count_sensitive`). `into_inner`,
//! `try_unwrap`, `get_mut`, `make_mut`, `strong_count` and a `Weak`'s `upgrade` and
//! `strong_count` read the count (their result depends on the drops before them), and
//! `increment_strong_count` raises it: each is explored against the drops. Only the `Acquire`
//! of a drop that frees a value whose destructor the model does not see is left unexplored:
//! code after such a drop that relies on it to order an unsynchronised access is checked in
//! the order the exploration happens to run.
//!
//! An `Arc` created outside any execution is not tracked and behaves exactly as std's.

use std::borrow::Borrow;
use std::cmp::Ordering as CmpOrdering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::panic::Location;
use std::pin::Pin;

use crate::rt::heap::AllocKind;
use crate::rt::op::Touch;
use crate::rt::{self, short_type_name};

/// A thread-safe reference-counted pointer.
pub struct Arc<T: ?Sized> {
    /// Dropped by hand, after the model's count is updated.
    inner: ManuallyDrop<std::sync::Arc<T>>,
}

/// A non-owning reference to an [`Arc`]'s allocation.
pub struct Weak<T: ?Sized> {
    inner: std::sync::Weak<T>,
}

/// The address the model knows an allocation by: that of its value.
fn address<T: ?Sized>(ptr: *const T) -> usize {
    ptr as *const () as usize
}

/// Fails the execution if the tracked `Arc` whose value is at `ptr` has no strong reference
/// left; `what` names the operation for the report.
fn check_alive<T: ?Sized>(ptr: *const T, what: &str, location: &'static Location<'static>) {
    let at = address(ptr);
    let found = rt::with(|e| {
        let dead = e.heap.get_mut(AllocKind::Arc, at)?.strong == 0;
        dead.then(|| e.use_after_free(AllocKind::Arc, at, what, location))
    });
    if let Some(found) = found.flatten() {
        rt::fail(found);
    }
}

/// Records on the running step that it did `how` to the count of the tracked `Arc` at `at`:
/// what a partial-order reduction orders it by (see [`Touch`]). A step that reads the count
/// (its result depends on which references went away before it) is taken to change it.
fn touch_count(at: usize, how: Touch) {
    rt::with(|e| {
        if let Some(obj) = e.arc_obj(at) {
            e.touch(obj, how);
        }
    });
}

/// What a drop of an `Arc<T>` that leaves a reference, or frees a value whose destructor did
/// nothing the model sees, did to the count: a reference went away unseen, and where `T` has
/// no drop glue, it goes away unseen in every order of the drops (see `Touch::ReleasedNoGlue`).
/// Decided by the dropping handle's `T`, whose destructor std's drop runs when it frees.
fn released<T: ?Sized>() -> Touch {
    if std::mem::needs_drop::<T>() {
        Touch::Released
    } else {
        Touch::ReleasedNoGlue
    }
}

/// Adds one to the model's count of the tracked `Arc` at `at`.
fn count_up(at: usize) {
    rt::with(|e| {
        if let Some(a) = e.heap.get_mut(AllocKind::Arc, at) {
            a.strong += 1;
        }
    });
}

impl<T> Arc<T> {
    /// A new `Arc` holding `value`; inside an execution, its count is tracked from here.
    #[track_caller]
    pub fn new(value: T) -> Arc<T> {
        Arc::track(std::sync::Arc::new(value), Location::caller())
    }

    /// A new `Arc` whose value is built with a `Weak` to itself (which cannot upgrade yet).
    #[track_caller]
    pub fn new_cyclic<F: FnOnce(&Weak<T>) -> T>(data_fn: F) -> Arc<T> {
        let inner = std::sync::Arc::new_cyclic(|weak| {
            data_fn(&Weak {
                inner: weak.clone(),
            })
        });
        Arc::track(inner, Location::caller())
    }

    /// A new pinned `Arc`.
    #[track_caller]
    pub fn pin(data: T) -> Pin<Arc<T>> {
        // SAFETY: the value lives in the allocation and never moves while any `Arc` exists.
        unsafe { Pin::new_unchecked(Arc::new(data)) }
    }

    /// The value, if `this` is the only strong reference; otherwise `this` back.
    pub fn try_unwrap(this: Self) -> Result<T, Self> {
        let at = address(Arc::as_ptr(&this));
        // Whether it succeeds depends on the references gone before it.
        touch_count(at, Touch::Changed);
        match std::sync::Arc::try_unwrap(Arc::into_std(this)) {
            Ok(value) => {
                rt::with(|e| e.arc_release(at));
                Ok(value)
            }
            Err(inner) => Err(Arc::wrap(inner)),
        }
    }

    /// Drops `this`; returns the value if it was the last strong reference.
    pub fn into_inner(this: Self) -> Option<T> {
        let at = address(Arc::as_ptr(&this));
        rt::with(|e| e.arc_release(at));
        // Unlike a drop's, its result shows whether it was the last reference.
        touch_count(at, Touch::Changed);
        std::sync::Arc::into_inner(Arc::into_std(this))
    }

    /// The value if `this` is the only strong reference, else a clone of it.
    pub fn unwrap_or_clone(this: Self) -> T
    where
        T: Clone,
    {
        Arc::try_unwrap(this).unwrap_or_else(|arc| (*arc).clone())
    }
}

impl<T: ?Sized> Arc<T> {
    /// Wraps std's pointer without tracking (a reference whose count the model already has).
    fn wrap(inner: std::sync::Arc<T>) -> Self {
        Arc {
            inner: ManuallyDrop::new(inner),
        }
    }

    /// Wraps a new allocation and, inside an execution, starts tracking it.
    fn track(inner: std::sync::Arc<T>, location: &'static Location<'static>) -> Self {
        let at = address(std::sync::Arc::as_ptr(&inner));
        rt::with(|e| e.track(AllocKind::Arc, at, short_type_name::<T>(), location));
        Arc::wrap(inner)
    }

    /// Takes std's pointer out of `this` without running `Drop` (the reference lives on).
    fn into_std(this: Self) -> std::sync::Arc<T> {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again, so `inner` is taken exactly once.
        unsafe { ManuallyDrop::take(&mut this.inner) }
    }

    /// loom's `Arc::from_std`: a symx `Arc` from a std one, which must be the only reference
    /// to its value (tracked from here, like a new one).
    #[track_caller]
    pub fn from_std(mut std: std::sync::Arc<T>) -> Self {
        assert!(
            std::sync::Arc::get_mut(&mut std).is_some(),
            "the std::sync::Arc given to Arc::from_std is not the only reference to its value"
        );
        Arc::track(std, Location::caller())
    }

    /// Consumes the `Arc`, returning the pointer to its value; the reference lives on until
    /// [`Arc::from_raw`] or [`Arc::decrement_strong_count`] gives it back.
    pub fn into_raw(this: Self) -> *const T {
        std::sync::Arc::into_raw(Arc::into_std(this))
    }

    /// Takes back a reference [`Arc::into_raw`] gave out. A pointer whose allocation's last
    /// reference is already gone is reported as a use-after-free.
    ///
    /// # Safety
    /// As std's: `ptr` must come from `Arc::into_raw` of an `Arc<U>` with `U`'s size and
    /// alignment, and each `into_raw` may be given back once.
    #[track_caller]
    pub unsafe fn from_raw(ptr: *const T) -> Self {
        check_alive(ptr, "Arc::from_raw", Location::caller());
        // SAFETY: forwarded from the caller; the model has checked the allocation is alive.
        Arc::wrap(unsafe { std::sync::Arc::from_raw(ptr) })
    }

    /// Adds a strong reference to the allocation `ptr` points into (reported as a
    /// use-after-free when it has none left).
    ///
    /// # Safety
    /// As std's: `ptr` must come from `Arc::into_raw`, and its allocation must be alive.
    #[track_caller]
    pub unsafe fn increment_strong_count(ptr: *const T) {
        let location = Location::caller();
        // std's `fetch_add` on the count: a scheduling point, so another thread may drop the
        // last reference just before it (the use-after-free lock-free code must rule out).
        if let Some(obj) = rt::with(|e| e.arc_obj(address(ptr))).flatten() {
            rt::visible(rt::OpKind::Rmw, Some(obj), location);
        }
        check_alive(ptr, "Arc::increment_strong_count", location);
        count_up(address(ptr));
        // SAFETY: forwarded from the caller.
        unsafe { std::sync::Arc::increment_strong_count(ptr) }
    }

    /// Drops a strong reference to the allocation `ptr` points into (reported as a
    /// use-after-free when it has none left).
    ///
    /// # Safety
    /// As std's: `ptr` must come from `Arc::into_raw`, and its allocation must be alive.
    #[track_caller]
    pub unsafe fn decrement_strong_count(ptr: *const T) {
        // SAFETY: forwarded from the caller (`from_raw` checks the allocation).
        drop(unsafe { Arc::from_raw(ptr) })
    }

    /// A weak pointer to the allocation.
    pub fn downgrade(this: &Self) -> Weak<T> {
        Weak {
            inner: std::sync::Arc::downgrade(&this.inner),
        }
    }

    /// Not a scheduling point and no synchronisation, as std's `Relaxed` load.
    pub fn strong_count(this: &Self) -> usize {
        touch_count(address(Arc::as_ptr(this)), Touch::Changed);
        std::sync::Arc::strong_count(&this.inner)
    }

    /// How many `Weak` pointers to the allocation exist.
    pub fn weak_count(this: &Self) -> usize {
        std::sync::Arc::weak_count(&this.inner)
    }

    /// Whether both point to the same allocation.
    pub fn ptr_eq(this: &Self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&this.inner, &other.inner)
    }

    /// The pointer to the value.
    pub fn as_ptr(this: &Self) -> *const T {
        std::sync::Arc::as_ptr(&this.inner)
    }

    /// `this` is the only strong reference: as std, take what every earlier owner released.
    fn acquire_unique(this: &Self) {
        let at = address(Arc::as_ptr(this));
        rt::with(|e| {
            if let Some(obj) = e.heap.get_mut(AllocKind::Arc, at).and_then(|a| a.obj) {
                e.acquire_from(obj, std::sync::atomic::Ordering::Acquire);
            }
        });
    }

    /// Mutable access if no other `Arc` or `Weak` points to the value.
    pub fn get_mut(this: &mut Self) -> Option<&mut T> {
        touch_count(address(Arc::as_ptr(this)), Touch::Changed);
        std::sync::Arc::get_mut(&mut this.inner)?;
        Arc::acquire_unique(this);
        std::sync::Arc::get_mut(&mut this.inner)
    }
}

impl<T: Clone> Arc<T> {
    /// Mutable access, cloning the value into a new allocation if other `Arc`s share it (and
    /// moving it out, uncloned, if only `Weak`s do), as std's.
    #[track_caller]
    pub fn make_mut(this: &mut Self) -> &mut T {
        let before = address(Arc::as_ptr(this));
        touch_count(before, Touch::Changed);
        Arc::acquire_unique(this);
        std::sync::Arc::make_mut(&mut this.inner);
        let after = address(Arc::as_ptr(this));
        if after != before {
            // std moved or cloned the value into a new allocation: `this` no longer holds
            // the old one, and the new one is tracked from here.
            rt::with(|e| {
                e.arc_release(before);
                e.track(
                    AllocKind::Arc,
                    after,
                    short_type_name::<T>(),
                    Location::caller(),
                );
            });
        }
        std::sync::Arc::get_mut(&mut this.inner).expect("make_mut leaves `this` unique")
    }
}

impl<T: ?Sized> Drop for Arc<T> {
    #[track_caller]
    fn drop(&mut self) {
        let at = address(Arc::as_ptr(self));
        let step = rt::with(|e| e.step_now()).flatten();
        match rt::with(|e| e.arc_release(at)).flatten() {
            Some(Err(())) => {
                let at_loc = Location::caller();
                let found = rt::with(|e| e.use_after_free(AllocKind::Arc, at, "drop", at_loc));
                if let Some(found) = found {
                    rt::fail(found);
                }
                return;
            }
            Some(Ok(true)) => {
                // The value goes now; its memory stays until the execution ends, so that a
                // stale pointer still finds the allocation it came from.
                let keep = Box::new(std::sync::Arc::downgrade(&self.inner));
                // SAFETY: a `Weak` only releases memory when dropped.
                rt::with(|e| unsafe { e.heap.keep(at, keep) });
                let before = rt::with(|e| e.seen());
                // SAFETY: `inner` is dropped exactly once, here, and not used afterwards.
                unsafe { ManuallyDrop::drop(&mut self.inner) }
                // Which thread frees the value matters only if its destructor did something
                // the model sees: then the drop conflicts with the others (see `Touch`).
                let quiet = !std::mem::needs_drop::<T>() || rt::with(|e| e.seen()) == before;
                let how = if quiet {
                    released::<T>()
                } else {
                    Touch::Changed
                };
                rt::with(|e| {
                    if let Some(obj) = e.arc_obj(at) {
                        e.touch_at(step, obj, how);
                    }
                });
                return;
            }
            Some(Ok(false)) => touch_count(at, released::<T>()),
            None => {}
        }
        // SAFETY: `inner` is dropped exactly once, here, and not used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.inner) }
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    fn clone(&self) -> Self {
        count_up(address(Arc::as_ptr(self)));
        Arc::wrap(std::sync::Arc::clone(&self.inner))
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> AsRef<T> for Arc<T> {
    fn as_ref(&self) -> &T {
        self
    }
}

impl<T: ?Sized> Borrow<T> for Arc<T> {
    fn borrow(&self) -> &T {
        self
    }
}

impl<T: ?Sized> Unpin for Arc<T> {}

impl<T: Default> Default for Arc<T> {
    #[track_caller]
    fn default() -> Self {
        Arc::new(T::default())
    }
}

impl<T> From<T> for Arc<T> {
    #[track_caller]
    fn from(value: T) -> Self {
        Arc::new(value)
    }
}

impl<T: ?Sized> From<Box<T>> for Arc<T> {
    #[track_caller]
    fn from(value: Box<T>) -> Self {
        Arc::track(std::sync::Arc::from(value), Location::caller())
    }
}

impl<T> From<Vec<T>> for Arc<[T]> {
    #[track_caller]
    fn from(value: Vec<T>) -> Self {
        Arc::track(std::sync::Arc::from(value), Location::caller())
    }
}

impl<T: Clone> From<&[T]> for Arc<[T]> {
    #[track_caller]
    fn from(value: &[T]) -> Self {
        Arc::track(std::sync::Arc::from(value), Location::caller())
    }
}

impl From<&str> for Arc<str> {
    #[track_caller]
    fn from(value: &str) -> Self {
        Arc::track(std::sync::Arc::from(value), Location::caller())
    }
}

impl From<String> for Arc<str> {
    #[track_caller]
    fn from(value: String) -> Self {
        Arc::track(std::sync::Arc::from(value), Location::caller())
    }
}

impl<T> FromIterator<T> for Arc<[T]> {
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Arc::track(iter.into_iter().collect(), Location::caller())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized> fmt::Pointer for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&Arc::as_ptr(self), f)
    }
}

impl<T: ?Sized + std::error::Error> std::error::Error for Arc<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        (**self).source()
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Arc<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: ?Sized + Eq> Eq for Arc<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Arc<T> {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        (**self).partial_cmp(&**other)
    }
}

impl<T: ?Sized + Ord> Ord for Arc<T> {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (**self).cmp(&**other)
    }
}

impl<T: ?Sized + Hash> Hash for Arc<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T> Weak<T> {
    /// A `Weak` that never upgrades.
    pub const fn new() -> Weak<T> {
        Weak {
            inner: std::sync::Weak::new(),
        }
    }

    /// Takes back a `Weak` that [`Weak::into_raw`] gave out.
    ///
    /// # Safety
    /// As std's: `ptr` must come from `Weak::into_raw`, and be given back once.
    pub unsafe fn from_raw(ptr: *const T) -> Weak<T> {
        Weak {
            // SAFETY: forwarded from the caller.
            inner: unsafe { std::sync::Weak::from_raw(ptr) },
        }
    }
}

impl<T: ?Sized> Weak<T> {
    /// A strong reference, if the value is still alive (not a scheduling point).
    pub fn upgrade(&self) -> Option<Arc<T>> {
        // Whether it succeeds depends on whether the last reference went before it.
        touch_count(address(self.inner.as_ptr()), Touch::Changed);
        let inner = self.inner.upgrade()?;
        count_up(address(std::sync::Arc::as_ptr(&inner)));
        Some(Arc::wrap(inner))
    }

    /// How many `Arc`s to the allocation exist (0 once the value is dropped).
    pub fn strong_count(&self) -> usize {
        touch_count(address(self.inner.as_ptr()), Touch::Changed);
        self.inner.strong_count()
    }

    /// How many `Weak` pointers to the allocation exist.
    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
    }

    /// Whether both point to the same allocation.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        self.inner.ptr_eq(&other.inner)
    }

    /// The pointer to the value (dangling once the value is dropped).
    pub fn as_ptr(&self) -> *const T {
        self.inner.as_ptr()
    }

    /// Consumes the `Weak`, returning the pointer [`Weak::from_raw`] takes back.
    pub fn into_raw(self) -> *const T {
        self.inner.into_raw()
    }
}

impl<T: ?Sized> Clone for Weak<T> {
    fn clone(&self) -> Self {
        Weak {
            inner: self.inner.clone(),
        }
    }
}

impl<T> Default for Weak<T> {
    fn default() -> Self {
        Weak::new()
    }
}

impl<T: ?Sized> fmt::Debug for Weak<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(Weak)")
    }
}
