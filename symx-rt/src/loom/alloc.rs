//! loom's `alloc`: raw allocation and [`Track`]ed values, both watched by the leak check (a
//! block not deallocated or a `Track` not dropped by the end of an execution is failure kind
//! `leak`, with where it was allocated; `symx::Builder::leak_check` switches it off).

use std::fmt;
use std::mem::ManuallyDrop;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use std::alloc::Layout;

use crate::rt::heap::AllocKind;
use crate::rt::{self, short_type_name};

/// Allocates memory as `std::alloc::alloc`, tracked until [`dealloc`].
///
/// # Safety
/// As `std::alloc::alloc`.
#[track_caller]
pub unsafe fn alloc(layout: Layout) -> *mut u8 {
    // SAFETY: forwarded from the caller.
    let ptr = unsafe { std::alloc::alloc(layout) };
    track_block(ptr, Location::caller());
    ptr
}

/// Allocates zeroed memory as `std::alloc::alloc_zeroed`, tracked until [`dealloc`].
///
/// # Safety
/// As `std::alloc::alloc_zeroed`.
#[track_caller]
pub unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
    // SAFETY: forwarded from the caller.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    track_block(ptr, Location::caller());
    ptr
}

/// Frees memory as `std::alloc::dealloc`, and stops tracking it.
///
/// # Safety
/// As `std::alloc::dealloc`.
#[track_caller]
pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    rt::with(|e| e.heap.remove(AllocKind::Alloc, ptr as usize));
    // SAFETY: forwarded from the caller.
    unsafe { std::alloc::dealloc(ptr, layout) }
}

fn track_block(ptr: *mut u8, location: &'static Location<'static>) {
    if !ptr.is_null() {
        rt::with(|e| e.track(AllocKind::Alloc, ptr as usize, "u8", location));
    }
}

/// Keys of `Track`s: unique in the process, so a `Track` that outlives its execution never
/// names another's entry.
static NEXT_TRACK: AtomicUsize = AtomicUsize::new(1);

/// A value whose drop the leak check watches: a `Track` still alive when every thread of the
/// execution has finished is a leak, reported with where it was created.
pub struct Track<T> {
    value: ManuallyDrop<T>,
    key: usize,
}

impl<T> Track<T> {
    /// Starts tracking `value`.
    #[track_caller]
    pub fn new(value: T) -> Track<T> {
        let key = NEXT_TRACK.fetch_add(1, Ordering::Relaxed);
        let location = Location::caller();
        rt::with(|e| e.track(AllocKind::Track, key, short_type_name::<T>(), location));
        Track {
            value: ManuallyDrop::new(value),
            key,
        }
    }

    /// The value.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Stops tracking and returns the value.
    pub fn into_inner(self) -> T {
        let mut this = ManuallyDrop::new(self);
        this.untrack();
        // SAFETY: `this` is never dropped, so the value is taken exactly once.
        unsafe { ManuallyDrop::take(&mut this.value) }
    }

    fn untrack(&self) {
        rt::with(|e| e.heap.remove(AllocKind::Track, self.key));
    }
}

impl<T> Drop for Track<T> {
    fn drop(&mut self) {
        self.untrack();
        // SAFETY: dropped exactly once, here.
        unsafe { ManuallyDrop::drop(&mut self.value) }
    }
}

impl<T: fmt::Debug> fmt::Debug for Track<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Track").field(&*self.value).finish()
    }
}
