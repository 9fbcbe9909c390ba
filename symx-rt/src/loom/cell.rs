//! loom's `cell`: `UnsafeCell` with loom's `get`/`get_mut`, which return guards ([`ConstPtr`],
//! [`MutPtr`]) whose access lasts until they are dropped, and a race-checked [`Cell`]. The
//! checks are symx's (`symx::cell::UnsafeCell`): a guard's access is checked when it begins and
//! again when it ends, so another thread's access while the guard lives is a race whichever
//! way happens-before orders it against the beginning.

use std::panic::Location;

/// loom's `UnsafeCell`: symx's, with `get`/`get_mut` returning access guards (std's `get_mut`
/// takes `&mut self`; loom's takes `&self`, hence a type of its own).
#[derive(Debug, Default)]
pub struct UnsafeCell<T: ?Sized>(crate::cell::UnsafeCell<T>);

/// A checked `*const T` into an [`UnsafeCell`]: the cell counts as read while it lives.
#[derive(Debug)]
pub struct ConstPtr<T: ?Sized> {
    ptr: *const T,
    obj: Option<crate::rt::ObjId>,
    location: &'static Location<'static>,
}

/// A checked `*mut T` into an [`UnsafeCell`]: the cell counts as written while it lives.
#[derive(Debug)]
pub struct MutPtr<T: ?Sized> {
    ptr: *mut T,
    obj: Option<crate::rt::ObjId>,
    location: &'static Location<'static>,
}

impl<T> UnsafeCell<T> {
    /// A new cell holding `data`.
    pub const fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell(crate::cell::UnsafeCell::new(data))
    }

    /// The value, consuming the cell.
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Reads through a `*const T`; a read racing with a write is reported.
    #[track_caller]
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        self.0.with(f)
    }

    /// Writes through a `*mut T`; a write racing with any other access is reported.
    #[track_caller]
    pub fn with_mut<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        self.0.with_mut(f)
    }

    /// A read access that lasts until the returned guard is dropped.
    #[track_caller]
    pub fn get(&self) -> ConstPtr<T> {
        let location = Location::caller();
        let (ptr, obj) = self.0.begin_access(false, location);
        ConstPtr { ptr, obj, location }
    }

    /// A write access that lasts until the returned guard is dropped.
    #[track_caller]
    pub fn get_mut(&self) -> MutPtr<T> {
        let location = Location::caller();
        let (ptr, obj) = self.0.begin_access(true, location);
        MutPtr { ptr, obj, location }
    }
}

impl<T> From<T> for UnsafeCell<T> {
    fn from(data: T) -> Self {
        UnsafeCell::new(data)
    }
}

impl<T: ?Sized> ConstPtr<T> {
    /// The value.
    ///
    /// # Safety
    /// As dereferencing a `*const T`: the cell must still be alive.
    pub unsafe fn deref(&self) -> &T {
        // SAFETY: forwarded from the caller.
        unsafe { &*self.ptr }
    }

    /// Runs `f` with the raw pointer.
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> Drop for ConstPtr<T> {
    fn drop(&mut self) {
        crate::cell::end_access(self.obj, false, self.location);
    }
}

impl<T: ?Sized> MutPtr<T> {
    /// The value, mutably.
    ///
    /// # Safety
    /// As dereferencing a `*mut T`: the cell must still be alive, and no other reference to
    /// the value may be in use.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn deref(&self) -> &mut T {
        // SAFETY: forwarded from the caller.
        unsafe { &mut *self.ptr }
    }

    /// Runs `f` with the raw pointer.
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> Drop for MutPtr<T> {
    fn drop(&mut self) {
        crate::cell::end_access(self.obj, true, self.location);
    }
}

/// loom's `Cell`: std's `Cell` API over a race-checked cell (reads and writes by threads that
/// happens-before does not order are reported, which std's `!Sync` would have prevented).
#[derive(Debug)]
pub struct Cell<T> {
    cell: UnsafeCell<T>,
}

impl<T> Cell<T> {
    /// A new cell holding `v`.
    pub const fn new(v: T) -> Self {
        Cell {
            cell: UnsafeCell::new(v),
        }
    }

    /// Sets the value.
    #[track_caller]
    pub fn set(&self, val: T) {
        drop(self.replace(val));
    }

    /// Swaps the values of two cells.
    #[track_caller]
    pub fn swap(&self, other: &Self) {
        if std::ptr::eq(self, other) {
            return;
        }
        self.cell.with_mut(|a| {
            other.cell.with_mut(|b| {
                // SAFETY: two distinct cells, each accessed exclusively (checked).
                unsafe { std::ptr::swap(a, b) }
            })
        })
    }

    /// Replaces the value, returning the old one.
    #[track_caller]
    pub fn replace(&self, val: T) -> T {
        // SAFETY: the write is checked for races; nothing else holds a reference into the cell.
        self.cell
            .with_mut(|p| unsafe { std::mem::replace(&mut *p, val) })
    }

    /// A copy of the value.
    #[track_caller]
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        // SAFETY: the read is checked for races.
        self.cell.with(|p| unsafe { *p })
    }

    /// Takes the value, leaving the default.
    #[track_caller]
    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }

    /// The value, consuming the cell.
    pub fn into_inner(self) -> T {
        self.cell.into_inner()
    }
}

impl<T: Default> Default for Cell<T> {
    fn default() -> Self {
        Cell::new(T::default())
    }
}

impl<T: Copy> Clone for Cell<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        Cell::new(self.get())
    }
}

impl<T> From<T> for Cell<T> {
    fn from(v: T) -> Self {
        Cell::new(v)
    }
}

impl<T: PartialEq + Copy> PartialEq for Cell<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq + Copy> Eq for Cell<T> {}

impl<T: PartialOrd + Copy> PartialOrd for Cell<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.get().partial_cmp(&other.get())
    }
}

impl<T: Ord + Copy> Ord for Cell<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.get().cmp(&other.get())
    }
}
