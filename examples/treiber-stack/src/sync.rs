//! The swap: loom's types in model tests (`cfg(loom)`, or this crate's own unit tests), std's
//! otherwise. `Track` has no std counterpart, so outside a model it is a plain wrapper.

#[cfg(any(loom, test))]
pub(crate) use loom::alloc::Track;
#[cfg(any(loom, test))]
pub(crate) use loom::hint::spin_loop;
#[cfg(any(loom, test))]
pub(crate) use loom::sync::atomic::{AtomicPtr, AtomicUsize};
#[cfg(any(loom, test))]
pub(crate) use loom::sync::Arc;

#[cfg(not(any(loom, test)))]
pub(crate) use std::hint::spin_loop;
#[cfg(not(any(loom, test)))]
pub(crate) use std::sync::atomic::{AtomicPtr, AtomicUsize};
#[cfg(not(any(loom, test)))]
pub(crate) use std::sync::Arc;

/// Outside a model, a `Track` is the value itself.
#[cfg(not(any(loom, test)))]
#[derive(Debug)]
pub(crate) struct Track<T>(T);

#[cfg(not(any(loom, test)))]
impl<T> Track<T> {
    pub(crate) fn new(value: T) -> Self {
        Track(value)
    }

    pub(crate) fn get_ref(&self) -> &T {
        &self.0
    }
}
