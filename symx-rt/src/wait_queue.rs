//! Wait queues named by address, the building block under every modelled primitive (as in the
//! arbitrary-context paper): a thread waits on an object's address until another thread
//! notifies that address. Public so user-built primitives can block instead of spinning.

use std::panic::Location;

use crate::private::user_object;
use crate::rt::{self, OpKind, Wait};

fn key<T: ?Sized>(obj: &T) -> usize {
    obj as *const T as *const () as usize
}

/// Blocks the calling thread until `notify_one`/`notify_all` on the same object wakes it.
/// As with any wait queue, a notify that comes before the wait is lost.
#[track_caller]
pub fn wait<T: ?Sized>(obj: &T) {
    let location = Location::caller();
    let id = user_object(obj);
    rt::visible(OpKind::QueueWait, id, location);
    rt::wait(Wait {
        key: key(obj),
        obj: id.unwrap_or(0),
        wake: None,
        spurious: false,
        timeout: false,
        location,
        what: "a wait_queue notify",
    });
}

/// Wakes one thread waiting on `obj` (every choice of which is explored); returns whether one was.
#[track_caller]
pub fn notify_one<T: ?Sized>(obj: &T) -> bool {
    rt::visible(OpKind::QueueNotify, user_object(obj), Location::caller());
    !rt::notify(key(obj), false).is_empty()
}

/// Wakes every thread waiting on `obj`; returns how many were.
#[track_caller]
pub fn notify_all<T: ?Sized>(obj: &T) -> usize {
    rt::visible(OpKind::QueueNotifyAll, user_object(obj), Location::caller());
    rt::notify(key(obj), true).len()
}
