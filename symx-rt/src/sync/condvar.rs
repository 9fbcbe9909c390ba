//! `symx::sync::Condvar`: waiters sit in the wait queue under the condvar's address; a notify
//! wakes one (every choice of which is explored) or all, and a woken waiter's next step is
//! re-locking the mutex. Spurious wake-ups happen only when the Builder enables them.

use std::panic::Location;
use std::sync::{LockResult, PoisonError};
use std::time::Duration;

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
        self.wait_inner(guard, false, Location::caller())
            .map(|(g, _)| g)
            .map_err(|e| PoisonError::new(e.into_inner().0))
    }

    /// As [`wait`](Self::wait), but the wait may also time out. Time does not pass in a model:
    /// timing out is a wake-up the explorer chooses, so both outcomes are explored (a waiter
    /// that times out releases the mutex and re-locks it, as one that waited would).
    #[track_caller]
    pub fn wait_timeout<'a, T: ?Sized>(
        &self,
        guard: MutexGuard<'a, T>,
        _dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        self.wait_inner(guard, true, Location::caller())
            .map(|(g, t)| (g, WaitTimeoutResult(t)))
            .map_err(|e| {
                let (g, t) = e.into_inner();
                PoisonError::new((g, WaitTimeoutResult(t)))
            })
    }

    /// Waits while `condition` holds or until a wait times out (see
    /// [`wait_timeout`](Self::wait_timeout)); the result says whether it timed out with the
    /// condition still holding.
    #[track_caller]
    pub fn wait_timeout_while<'a, T: ?Sized, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        while condition(&mut *guard) {
            let (g, timed_out) = self.wait_timeout(guard, dur)?;
            guard = g;
            if timed_out.timed_out() {
                let still = condition(&mut *guard);
                return Ok((guard, WaitTimeoutResult(still)));
            }
        }
        Ok((guard, WaitTimeoutResult(false)))
    }

    /// The wait itself; with `timeout`, the explorer chooses whether it times out at once
    /// (returning `true`) or waits for a notify.
    fn wait_inner<'a, T: ?Sized>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: bool,
        location: &'static Location<'static>,
    ) -> LockResult<(MutexGuard<'a, T>, bool)> {
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
        let mut timed_out = false;
        if let Some(m) = m {
            rt::with(|e| e.drop_lock(m, false));
            timed_out = timeout && rt::switch::choose(2) == 1;
        }
        if let (Some(m), true) = (m, timed_out) {
            rt::switch::visible_op(rt::op::Op {
                kind: OpKind::Lock,
                obj: Some(m),
                obj2: None,
                location,
            });
            rt::with(|e| e.take_lock(m, false, location));
        } else if let Some(m) = m {
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
                timeout,
                location,
                what: "a notify",
            });
            rt::with(|e| e.take_lock(m, false, location));
            // Woken because nothing else could run and time passed (see `Wait::timeout`).
            timed_out = rt::with(|e| std::mem::take(&mut e.me().timed_out)).unwrap_or(false);
        }
        let guard = MutexGuard {
            lock: mutex,
            location,
        };
        if mutex.is_poisoned() {
            Err(PoisonError::new((guard, timed_out)))
        } else {
            Ok((guard, timed_out))
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
        if rt::notify(self.key(), false).is_empty() {
            rt::switch::record_outcome(rt::op::Outcome::OnlyRead);
        }
    }

    /// Wakes every waiter (a scheduling point).
    #[track_caller]
    pub fn notify_all(&self) {
        rt::visible(OpKind::NotifyAll, self.id(), Location::caller());
        if rt::notify(self.key(), true).is_empty() {
            rt::switch::record_outcome(rt::op::Outcome::OnlyRead);
        }
    }
}

/// Whether a [`Condvar::wait_timeout`] returned because it timed out (std's type has no public
/// constructor, hence this one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait timed out.
    pub fn timed_out(&self) -> bool {
        self.0
    }
}
