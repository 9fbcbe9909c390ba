//! Annotations for synchronization the user builds from atomics, as functions keyed by the
//! object's address (the attribute forms `#[symx::acquire]` etc. call these or their
//! `__private` companions). They give every engine the primitive's meaning: who holds which
//! lock, which arrivals form a barrier generation. They do not create happens-before: that
//! comes from the atomics the primitive is made of, so a wrongly ordered primitive still races.

use std::panic::Location;

use crate::private::{user_object, AcquireCall, BarrierArrival};
use crate::rt::{self, site};

/// After this call the calling thread holds `obj` (a lock) exclusively. The acquisition is
/// a scheduling point.
#[track_caller]
pub fn acquire<T: ?Sized>(obj: &T) {
    AcquireCall::begin(obj, false).finish(true);
}

/// After this call the calling thread holds `obj` (a reader-writer lock) shared: other
/// threads may share it too, none may hold it exclusively. A scheduling point.
#[track_caller]
pub fn acquire_shared<T: ?Sized>(obj: &T) {
    AcquireCall::begin(obj, true).finish(true);
}

/// The calling thread releases `obj`, which it must hold exclusively. The release is a
/// scheduling point: other threads may run between the critical section and it.
#[track_caller]
pub fn release<T: ?Sized>(obj: &T) {
    release_in(obj, false, Location::caller());
}

/// The calling thread releases its shared hold on `obj`. A scheduling point.
#[track_caller]
pub fn release_shared<T: ?Sized>(obj: &T) {
    release_in(obj, true, Location::caller());
}

fn release_in<T: ?Sized>(obj: &T, shared: bool, location: &'static Location<'static>) {
    if let Some(id) = user_object(obj) {
        let op = if shared {
            rt::OpKind::AnnotatedReleaseShared
        } else {
            rt::OpKind::AnnotatedRelease
        };
        rt::visible(op, Some(id), location);
        if let Some(found) = rt::with(|e| e.annotated_release(id, shared, location)).flatten() {
            rt::fail(site::relocate_release(found, location, id));
        }
    }
}

/// `obj` is a barrier that releases its waiters after `n` arrivals.
#[track_caller]
pub fn barrier_init<T: ?Sized>(obj: &T, n: usize) {
    if let Some(id) = user_object(obj) {
        rt::with(|e| e.barrier_init(id, n));
    }
}

/// The calling thread arrives at barrier `obj`.
#[track_caller]
pub fn barrier_arrive<T: ?Sized>(obj: &T) {
    BarrierArrival::begin(obj);
}
