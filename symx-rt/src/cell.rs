//! `symx::cell::UnsafeCell`: interior mutability whose accesses are checked for data races.
//! Accesses are not scheduling points; two conflicting accesses unordered by happens-before
//! are a race in whatever interleaving they occur.

use std::panic::Location;

use crate::rt::{self, ObjKind, ObjRef};

/// `std::cell::UnsafeCell` in loom's shape: access goes through [`with`](Self::with) and
/// [`with_mut`](Self::with_mut), and two conflicting accesses that happens-before does not
/// order are reported as a data race.
#[derive(Debug, Default)]
pub struct UnsafeCell<T: ?Sized> {
    obj: ObjRef,
    data: std::cell::UnsafeCell<T>,
}

impl<T> UnsafeCell<T> {
    /// A new cell holding `data`.
    #[track_caller]
    pub const fn new(data: T) -> Self {
        UnsafeCell {
            obj: ObjRef::holding::<T>(),
            data: std::cell::UnsafeCell::new(data),
        }
    }

    /// The value, consuming the cell.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// An access that lasts until [`end_access`] (loom's `ConstPtr`/`MutPtr`): checked now, and
    /// again when it ends. Returns the pointer and the object it was checked against.
    pub(crate) fn begin_access(
        &self,
        write: bool,
        location: &'static Location<'static>,
    ) -> (*mut T, Option<rt::ObjId>) {
        self.check(write, location);
        let id = rt::with(|e| self.obj.get(e.objects.generation)).flatten();
        (self.data.get(), id)
    }

    fn check(&self, write: bool, location: &'static Location<'static>) {
        let Some(found) = rt::with(|e| {
            let id = e.objects.of(&self.obj, ObjKind::Cell, "UnsafeCell", 0);
            e.me().accessed = true;
            let access = crate::sym::notes::Local::CellAccess { obj: id, write };
            e.note_local(access, Some(location));
            e.cell_access(id, write, location)
        }) else {
            rt::foreign::check(&self.obj, "UnsafeCell", location);
            return;
        };
        if let Some(found) = found {
            rt::fail(found);
        }
    }

    /// Reads through a `*const T`; a read racing with a write is reported.
    #[track_caller]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        self.check(false, Location::caller());
        f(self.data.get())
    }

    /// Writes through a `*mut T`; a write racing with any other access is reported.
    #[track_caller]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        self.check(true, Location::caller());
        f(self.data.get())
    }

    /// Exclusive access needs no check: `&mut self` proves nobody else can access it.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

/// Ends an access [`UnsafeCell::begin_access`] began: checks it once more, so that an access by
/// another thread while it lasted is a race even if it came after the beginning in
/// happens-before.
pub(crate) fn end_access(id: Option<rt::ObjId>, write: bool, location: &'static Location<'static>) {
    let Some(id) = id else { return };
    if let Some(found) = rt::with(|e| e.cell_access(id, write, location)).flatten() {
        rt::fail(found);
    }
}
