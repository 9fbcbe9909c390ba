//! Annotations for synchronization the user builds from atomics, as functions keyed by the
//! object's address (the attribute forms `#[symx::acquire]` etc. call these or their
//! `__private` companions). They give every engine the primitive's meaning: who holds which
//! lock, which arrivals form a barrier generation. They do not create happens-before: that
//! comes from the atomics the primitive is made of, so a wrongly ordered primitive still races.

use std::panic::Location;

use crate::private::{user_object, AcquireCall, BarrierArrival};
use crate::rt;

/// After this call the calling thread holds `obj` (a lock).
#[track_caller]
pub fn acquire<T: ?Sized>(obj: &T) {
    AcquireCall::begin(obj).finish(true);
}

/// The calling thread releases `obj`, which it must hold. The release is a scheduling point:
/// other threads may run between the critical section and it.
#[track_caller]
pub fn release<T: ?Sized>(obj: &T) {
    let location = Location::caller();
    if let Some(id) = user_object(obj) {
        rt::visible(rt::OpKind::AnnotatedRelease, Some(id), location);
        if let Some(found) = rt::with(|e| e.annotated_release(id, location)).flatten() {
            rt::fail(found);
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
