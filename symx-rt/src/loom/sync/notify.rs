//! loom's `Notify`: a one-permit signal. `notify` leaves a permit (waking the waiter, if any);
//! `wait` consumes one, waiting for it if there is none. As loom's, a `wait` may also return
//! once without a permit (a spurious wake-up, a choice the explorer covers), so code that
//! re-checks its condition after `wait` is exercised the way real wake-ups would exercise it.

use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::rt::{self, ObjId, ObjKind, ObjRef, OpKind, Wait};

/// The per-execution state, in the object's value slot.
const NOTIFIED: u64 = 1;
const SPURRED: u64 = 2;

/// loom's `Notify` (see the module doc).
#[derive(Debug, Default)]
pub struct Notify {
    obj: ObjRef,
}

impl Notify {
    /// A new `Notify` without a permit.
    #[track_caller]
    pub fn new() -> Notify {
        Notify { obj: ObjRef::new() }
    }

    fn key(&self) -> usize {
        self as *const Notify as usize
    }

    fn id(&self, location: &'static Location<'static>) -> Option<ObjId> {
        let id = rt::with(|e| e.objects.of(&self.obj, ObjKind::User, "Notify", 0));
        if id.is_none() {
            rt::foreign::check(&self.obj, "Notify", location);
        }
        id
    }

    fn state(&self, id: ObjId) -> u64 {
        rt::with(|e| e.objects.get(id).value).unwrap_or(NOTIFIED)
    }

    fn set_state(&self, id: ObjId, state: u64) {
        rt::with(|e| e.objects.get_mut(id).value = state);
    }

    /// Leaves a permit and wakes the waiter (a scheduling point; it releases).
    #[track_caller]
    pub fn notify(&self) {
        let location = Location::caller();
        let Some(id) = self.id(location) else { return };
        rt::visible(OpKind::QueueNotify, Some(id), location);
        self.set_state(id, self.state(id) | NOTIFIED);
        rt::with(|e| e.release_to(id, Ordering::SeqCst, true));
        rt::notify(self.key(), true);
    }

    /// Consumes a permit, waiting for one if there is none; may return once without one.
    #[track_caller]
    pub fn wait(&self) {
        let location = Location::caller();
        let Some(id) = self.id(location) else {
            panic!("loom::sync::Notify::wait would block forever outside a symx model");
        };
        rt::visible(OpKind::QueueWait, Some(id), location);
        loop {
            let state = self.state(id);
            if state & NOTIFIED != 0 {
                self.set_state(id, state & !NOTIFIED);
                rt::with(|e| e.acquire_from(id, Ordering::SeqCst));
                return;
            }
            if state & SPURRED == 0 && rt::switch::choose(2) == 1 {
                self.set_state(id, state | SPURRED);
                return;
            }
            rt::wait(Wait {
                key: self.key(),
                obj: id,
                wake: None,
                spurious: false,
                timeout: false,
                location,
                what: "a notify",
            });
        }
    }
}
