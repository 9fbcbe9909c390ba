//! A pool of condition variables of one class, addressed by symbolic identity: a wait is the
//! unlock sequence of its lock, a wait on the condvar's queue and the relock loop; a notify
//! is the queue's `notify_one` / `notify_all` with the paper's fork rules. Threads that are
//! inside a wait at the context are [`spawn_waiting`]: in the queue from the start, in an
//! order nobody knows (symbolic timestamps).

use std::panic::Location;
use std::sync::Arc;

use super::locks::{LockGuard, Locks};
use super::pool::Pool;
use super::queue::{self, Name, Purpose};
use crate::rt::{self, OpKind};
use crate::sym::{any_named, assume, Sym};
use crate::thread::JoinHandle;

/// `n` condition variables of one class. Clones are the same pool.
#[derive(Clone)]
pub struct Condvars(Arc<Pool<()>>);

impl Condvars {
    /// `n` condition variables; `name` names their inputs and reports.
    pub fn new(name: &str, n: usize) -> Self {
        Condvars(Arc::new(Pool::new("context::Condvars", name, n)))
    }

    /// The number of condition variables.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Releases `guard`'s lock, waits on condvar `cv` until notified, and takes the lock
    /// again. No spurious wake-ups.
    #[track_caller]
    pub fn wait(&self, cv: Sym<usize>, guard: LockGuard) -> LockGuard {
        let location = Location::caller();
        let class = self.class(location);
        let locks: Locks = guard.locks().clone();
        let lock_id = guard.id();
        std::mem::forget(guard);
        let lock_class = locks.class(location);
        rt::switch::visible_op(rt::op::Op {
            kind: OpKind::QueueNotify,
            obj: Some(class),
            obj2: Some(lock_class),
            location,
        });
        let me = rt::current_thread().expect("inside a model");
        queue::enqueue(me, self.queue(class, cv), None);
        locks.release(lock_id, location);
        rt::wait(queue::wait_entry(
            me,
            class,
            "a notify of a context condvar",
            location,
        ));
        locks.lock(lock_id)
    }

    /// Wakes one thread waiting on condvar `cv`; returns whether one was.
    #[track_caller]
    pub fn notify_one(&self, cv: Sym<usize>) -> bool {
        let location = Location::caller();
        let class = self.class(location);
        rt::visible(OpKind::QueueNotify, Some(class), location);
        queue::notify_one(self.queue(class, cv), location).is_some()
    }

    /// Wakes every thread waiting on condvar `cv`; returns how many were.
    #[track_caller]
    pub fn notify_all(&self, cv: Sym<usize>) -> usize {
        let location = Location::caller();
        let class = self.class(location);
        rt::visible(OpKind::QueueNotifyAll, Some(class), location);
        queue::notify_all(self.queue(class, cv), location).len()
    }

    fn queue(&self, class: rt::ObjId, id: Sym<usize>) -> Name {
        Name {
            class,
            purpose: Purpose::Condvar,
            id,
        }
    }

    fn class(&self, location: &'static Location<'static>) -> rt::ObjId {
        self.0.class(location)
    }
}

/// Spawns a thread that is, at the context, inside a wait on condvar `cv` of `condvars`
/// that released lock `lock` of `locks`: it starts in the wait queue, after the other
/// initial waiters in an order the solver chooses (a symbolic timestamp each, all distinct)
/// and before every later waiter. Once woken it takes the lock again and runs `f` with the
/// guard.
#[track_caller]
pub fn spawn_waiting<T, F>(
    condvars: &Condvars,
    cv: Sym<usize>,
    locks: &Locks,
    lock: Sym<usize>,
    f: F,
) -> JoinHandle<T>
where
    F: FnOnce(LockGuard) -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_initial_waiter(condvars, cv, locks, lock, None, f)
}

/// [`spawn_waiting`] for a waiter whose place among the initial waiters is known (a recorded
/// context knows the queue's order): `position` orders it, smaller first.
#[track_caller]
pub fn spawn_waiting_at<T, F>(
    position: i64,
    condvars: &Condvars,
    cv: Sym<usize>,
    locks: &Locks,
    lock: Sym<usize>,
    f: F,
) -> JoinHandle<T>
where
    F: FnOnce(LockGuard) -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_initial_waiter(condvars, cv, locks, lock, Some(position), f)
}

#[track_caller]
fn spawn_initial_waiter<T, F>(
    condvars: &Condvars,
    cv: Sym<usize>,
    locks: &Locks,
    lock: Sym<usize>,
    position: Option<i64>,
    f: F,
) -> JoinHandle<T>
where
    F: FnOnce(LockGuard) -> T + Send + 'static,
    T: Send + 'static,
{
    let location = Location::caller();
    let class = condvars.class(location);
    let relock = locks.clone();
    let handle = crate::thread::spawn(move || f(relock.lock(lock)));
    let thread = handle.thread().id().as_usize();
    let stamp = match position {
        Some(p) => Sym::constant(i64::MIN + p),
        None => {
            let stamp: Sym<i64> = any_named(&format!("{}.stamp[t{thread}]", condvars.0.name));
            for other in queue::initial_stamps() {
                assume(stamp.sym_ne(other));
            }
            stamp
        }
    };
    queue::enqueue(thread, condvars.queue(class, cv), Some(stamp));
    rt::with(|e| {
        let wait = queue::wait_entry(thread, class, "a notify of a context condvar", location);
        e.threads[thread].status = rt::threads::Status::Waiting(wait);
        e.queue.push(thread);
    });
    handle
}
