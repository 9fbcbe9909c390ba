//! `symx::sync::Condvar`: waiters sit in the wait queue under the condvar's address; a notify
//! wakes one (every choice of which is explored) or all, and a woken waiter's next step is
//! re-locking the mutex. Spurious wake-ups happen only when the Builder enables them.

use std::panic::Location;
use std::sync::LockResult;

use super::mutex::MutexGuard;
use crate::rt::{self, ObjKind, ObjRef, OpKind, Wait};

/// `std::sync::Condvar`, modelled: waiters queue in FIFO order, `notify_one` wakes one of them
/// (which one is a choice the exploration covers), and spurious wake-ups happen only when the
/// builder asks for them.
#[derive(Debug, Default)]
pub struct Condvar {
    obj: ObjRef,
}

impl Condvar {
    /// A new condition variable.
    #[track_caller]
    pub const fn new() -> Self {
        Condvar { obj: ObjRef::new() }
    }

    fn key(&self) -> usize {
        self as *const Condvar as usize
    }

    #[track_caller]
    fn id(&self) -> Option<rt::ObjId> {
        let id = rt::with(|e| e.objects.of(&self.obj, ObjKind::Condvar, "Condvar", 0));
        if id.is_none() {
            rt::foreign::check(&self.obj, "Condvar", std::panic::Location::caller());
        }
        id
    }

    /// Releases the guard's mutex and waits for a notify, atomically; re-locks before returning.
    #[track_caller]
    pub fn wait<'a, T: ?Sized>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        let location = Location::caller();
        let Some(cv) = self.id() else {
            panic!("symx::sync::Condvar::wait would block forever outside a symx model");
        };
        let mutex = guard.lock;
        let m = rt::with(|e| mutex.obj().get(e.objects.generation)).flatten();
        std::mem::forget(guard);
        rt::switch::visible_op(rt::op::Op {
            kind: OpKind::CondvarWait,
            obj: Some(cv),
            obj2: m,
            location,
        });
        if let Some(m) = m {
            rt::with(|e| e.drop_lock(m, false));
            rt::wait(Wait {
                key: self.key(),
                obj: cv,
                wake: Some(rt::op::Op {
                    kind: OpKind::Lock,
                    obj: Some(m),
                    obj2: None,
                    location,
                }),
                spurious: true,
                location,
                what: "a notify",
            });
            rt::with(|e| e.take_lock(m, false, location));
        }
        let guard = MutexGuard {
            lock: mutex,
            location,
        };
        if mutex.is_poisoned() {
            Err(std::sync::PoisonError::new(guard))
        } else {
            Ok(guard)
        }
    }

    /// Waits while `condition` holds (re-checked after every wake-up).
    #[track_caller]
    pub fn wait_while<'a, T: ?Sized, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        mut condition: F,
    ) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        while condition(&mut *guard) {
            guard = self.wait(guard)?;
        }
        Ok(guard)
    }

    /// Wakes one waiter, if any (a scheduling point).
    #[track_caller]
    pub fn notify_one(&self) {
        rt::visible(OpKind::NotifyOne, self.id(), Location::caller());
        rt::notify(self.key(), false);
    }

    /// Wakes every waiter (a scheduling point).
    #[track_caller]
    pub fn notify_all(&self) {
        rt::visible(OpKind::NotifyAll, self.id(), Location::caller());
        rt::notify(self.key(), true);
    }
}
