//! `symx::sync::Arc` and `Weak`: std's reference counting (a wrapper around std's), with the
//! happens-before std's implementation provides. Dropping a strong reference releases into
//! the allocation's clock (std's `fetch_sub(Release)`); the thread that drops the last one, or
//! otherwise finds itself the only owner (`try_unwrap`, `into_inner`, `get_mut`, `make_mut`),
//! acquires that clock before it touches the value (std's `Acquire` fence). So a destructor
//! that reads what other owners wrote is not reported as a race.
//!
//! Reference-count operations are not scheduling points: they are atomic within a thread's
//! step and keep the number of executions down. Cloning creates no happens-before, as in std.

use std::borrow::Borrow;
use std::cmp::Ordering as CmpOrdering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::atomic::Ordering;

use crate::rt::{self, ObjKind, ObjRef};

/// The shared allocation: the value and the identity that carries its clock.
struct Inner<T: ?Sized> {
    obj: ObjRef,
    value: T,
}

impl<T> Inner<T> {
    #[track_caller]
    fn new(value: T) -> Self {
        Inner {
            obj: ObjRef::new(),
            value,
        }
    }
}

/// Only for `std::sync::Arc::make_mut`'s bound: `Arc::make_mut` clones through `Arc::new`
/// before it could be called, so a clone never shares the original's identity.
impl<T: Clone> Clone for Inner<T> {
    fn clone(&self) -> Self {
        Inner::new(self.value.clone())
    }
}

/// A thread-safe reference-counted pointer.
pub struct Arc<T: ?Sized> {
    /// Dropped by hand, after the happens-before bookkeeping of `Drop`.
    inner: ManuallyDrop<std::sync::Arc<Inner<T>>>,
}

/// A non-owning reference to an [`Arc`]'s allocation.
pub struct Weak<T: ?Sized> {
    inner: std::sync::Weak<Inner<T>>,
}

impl<T> Arc<T> {
    /// A new `Arc` holding `value` (an object of the model: its count is shared state).
    #[track_caller]
    pub fn new(value: T) -> Arc<T> {
        Arc::from_std(std::sync::Arc::new(Inner::new(value)))
    }

    /// The value, if `this` is the only strong reference; otherwise `this` back.
    pub fn try_unwrap(this: Self) -> Result<T, Self> {
        if std::sync::Arc::strong_count(&this.inner) != 1 {
            return Err(this);
        }
        this.acquire_unique();
        match std::sync::Arc::try_unwrap(Arc::into_std(this)) {
            Ok(inner) => Ok(inner.value),
            Err(inner) => Err(Arc::from_std(inner)),
        }
    }

    /// Drops `this`; returns the value if it was the last strong reference.
    pub fn into_inner(this: Self) -> Option<T> {
        this.release();
        std::sync::Arc::into_inner(Arc::into_std(this)).map(|inner| inner.value)
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
    fn from_std(inner: std::sync::Arc<Inner<T>>) -> Self {
        Arc {
            inner: ManuallyDrop::new(inner),
        }
    }

    /// Takes std's pointer out of `this` without running `Drop` (the reference lives on).
    fn into_std(this: Self) -> std::sync::Arc<Inner<T>> {
        let mut this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again, so `inner` is taken exactly once.
        unsafe { ManuallyDrop::take(&mut this.inner) }
    }

    /// This strong reference goes away: std's `fetch_sub(Release)`, and for the last one the
    /// `Acquire` fence before the value is dropped or moved out. Returns whether it was last.
    fn release(&self) -> bool {
        let last = std::sync::Arc::strong_count(&self.inner) == 1;
        rt::with(|e| {
            let id = e.objects.of(&self.inner.obj, ObjKind::Arc, "Arc", 0);
            e.release_to(id, Ordering::Release, true);
            if last {
                e.acquire_from(id, Ordering::Acquire);
            }
        });
        last
    }

    /// `self` is the only strong reference: as std, take what every earlier owner released.
    fn acquire_unique(&self) {
        rt::with(|e| {
            let id = e.objects.of(&self.inner.obj, ObjKind::Arc, "Arc", 0);
            e.acquire_from(id, Ordering::Acquire);
        });
    }

    /// A weak pointer to the allocation.
    pub fn downgrade(this: &Self) -> Weak<T> {
        Weak {
            inner: std::sync::Arc::downgrade(&this.inner),
        }
    }

    /// Not a scheduling point and no synchronisation, as std's `Relaxed` load.
    pub fn strong_count(this: &Self) -> usize {
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
        &this.inner.value as *const T
    }

    /// Mutable access if no other `Arc` or `Weak` points to the value.
    pub fn get_mut(this: &mut Self) -> Option<&mut T> {
        std::sync::Arc::get_mut(&mut this.inner)?;
        this.acquire_unique();
        std::sync::Arc::get_mut(&mut this.inner).map(|inner| &mut inner.value)
    }
}

impl<T: Clone> Arc<T> {
    /// Mutable access, cloning the value into a new allocation if other `Arc`s share it (and
    /// moving it out, uncloned, if only `Weak`s do), as std's.
    pub fn make_mut(this: &mut Self) -> &mut T {
        if std::sync::Arc::strong_count(&this.inner) == 1 {
            this.acquire_unique();
        } else {
            // Assigning drops the old reference through `Drop`, which releases as std's does.
            *this = Arc::new((**this).clone());
        }
        &mut std::sync::Arc::make_mut(&mut this.inner).value
    }
}

impl<T: ?Sized> Drop for Arc<T> {
    fn drop(&mut self) {
        self.release();
        // SAFETY: `inner` is dropped exactly once, here, and not used afterwards.
        unsafe { ManuallyDrop::drop(&mut self.inner) }
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    fn clone(&self) -> Self {
        Arc::from_std(std::sync::Arc::clone(&self.inner))
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner.value
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
}

impl<T: ?Sized> Weak<T> {
    /// A strong reference, if the value is still alive (not a scheduling point).
    pub fn upgrade(&self) -> Option<Arc<T>> {
        self.inner.upgrade().map(Arc::from_std)
    }

    /// How many `Arc`s to the allocation exist (0 once the value is dropped).
    pub fn strong_count(&self) -> usize {
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
