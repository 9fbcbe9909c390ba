//! A pool of locks of one class, addressed by symbolic identity: the paper's mutex
//! (Figure 2.12: `while (taken) wait(&taken); taken = 1`, and on unlock `taken = 0;
//! notifyOne(&taken)`), with `taken` one array over the pool.
//!
//! The initial `taken` of every lock is an input of the context. The lockset invariant
//! (the paper's §4.3, "which thread holds lock A?") is a synchronization fact: a lock is
//! taken at the context exactly when one of the locks held there is the same lock. Locks
//! declared held ([`Locks::held`]) are definitely held (the must-set); a lock declared
//! *maybe* held ([`Locks::may_hold`]: acquired on some paths to the context only) is held
//! when its unknown `holds` is true, so the may-set enters the invariant as `holds ∧ m == k`.
//! This is the split form the paper's printed biconditional needs to stay sound with a
//! may-held set: `taken ⇒` some may-held entry is the lock, and a must-held entry that is
//! the lock `⇒ taken`. `no-si` and `naive` drop it and `taken` is free.

use std::panic::Location;
use std::sync::Arc;

use super::facts::{fact, Provenance};
use super::mode::FactFamily;
use super::pool::Pool;
use super::queue::{self, Name, Purpose};
use crate::rt::{self, OpKind};
use crate::sym::{any_named, Sym, SymVec};

/// `n` locks of one class; each operation names its lock by a (symbolic) index. Clones are
/// the same pool.
#[derive(Clone)]
pub struct Locks(Arc<Pool<State>>);

#[derive(Default)]
struct State {
    /// `taken` of every lock, made at the first operation of the execution.
    taken: Option<SymVec<bool>>,
    /// The identities declared held at the context, each with whether it is held (true for
    /// a must-held lock, unknown for a may-held one).
    held: Vec<(Sym<usize>, Sym<bool>)>,
}

/// A held lock of a [`Locks`] pool: released when dropped.
pub struct LockGuard {
    locks: Locks,
    id: Sym<usize>,
    location: &'static Location<'static>,
}

/// A lock of a [`Locks`] pool that may be held at the context ([`Locks::may_hold`]): when
/// dropped it is released if it is held.
pub struct MaybeHeld {
    guard: Option<LockGuard>,
    holds: Sym<bool>,
}

impl Locks {
    /// `n` locks; `name` names their inputs (`<name>.taken[k]`) and reports.
    pub fn new(name: &str, n: usize) -> Self {
        Locks(Arc::new(Pool::new("context::Locks", name, n)))
    }

    /// The number of locks.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Declares that lock `id` is held at the context, by the thread that will own the
    /// returned guard (move it into that thread's closure). Call before any thread uses
    /// the pool.
    #[track_caller]
    pub fn held(&self, id: Sym<usize>) -> LockGuard {
        self.declare(id, Sym::constant(true));
        LockGuard {
            locks: self.clone(),
            id,
            location: Location::caller(),
        }
    }

    /// Declares that lock `id` may be held at the context by the thread that will own the
    /// returned value (it was acquired on some paths to the context only): whether it is, is
    /// the unknown `<name>.may_hold[j]` (`j` counts this pool's may-held declarations).
    #[track_caller]
    pub fn may_hold(&self, id: Sym<usize>) -> MaybeHeld {
        let j = self.with_state(|s| s.held.len());
        let holds: Sym<bool> = any_named(&format!("{}.may_hold[{j}]", self.0.name));
        self.declare(id, holds);
        MaybeHeld {
            guard: Some(LockGuard {
                locks: self.clone(),
                id,
                location: Location::caller(),
            }),
            holds,
        }
    }

    fn declare(&self, id: Sym<usize>, holds: Sym<bool>) {
        self.with_state(|s| {
            assert!(
                s.taken.is_none(),
                "symx::context: a lock declared held after the locks were first used"
            );
            s.held.push((id, holds));
        });
    }

    /// Acquires lock `id`, blocking while it is taken.
    #[track_caller]
    pub fn lock(&self, id: Sym<usize>) -> LockGuard {
        let location = Location::caller();
        let class = self.class(location);
        loop {
            rt::visible(OpKind::QueueNotify, Some(class), location);
            let taken = self.with_taken(|t| t.get(id));
            let outcomes = vec![(!taken, true), (taken, false)];
            let acquire = queue::decide(
                outcomes,
                |a| if a { "acquire" } else { "block" }.to_string(),
                location,
            );
            if acquire {
                self.with_taken(|t| t.set(id, true));
                return LockGuard {
                    locks: self.clone(),
                    id,
                    location,
                };
            }
            queue::wait(self.queue(class, id), "a context lock", location);
        }
    }

    fn unlock(&self, id: Sym<usize>, location: &'static Location<'static>) {
        if std::thread::panicking() || !rt::in_model() {
            return;
        }
        let class = self.class(location);
        rt::visible(OpKind::QueueNotify, Some(class), location);
        self.release(id, location);
    }

    /// `taken[id] = 0` and wake one thread blocked on it: the unlock sequence, inside a step
    /// that already is a scheduling point on the pool.
    pub(crate) fn release(&self, id: Sym<usize>, location: &'static Location<'static>) {
        let class = self.class(location);
        self.with_taken(|t| t.set(id, false));
        queue::notify_one(self.queue(class, id), location);
    }

    pub(crate) fn queue(&self, class: rt::ObjId, id: Sym<usize>) -> Name {
        Name {
            class,
            purpose: Purpose::Lock,
            id,
        }
    }

    /// The pool's object in this execution: the class every operation on it conflicts in.
    pub(crate) fn class(&self, location: &'static Location<'static>) -> rt::ObjId {
        self.0.class(location)
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        self.0.with_state(f)
    }

    /// Runs `f` on the `taken` array, making it first: an input per lock, constrained by
    /// the lockset invariant.
    #[track_caller]
    fn with_taken<R>(&self, f: impl FnOnce(&mut SymVec<bool>) -> R) -> R {
        let fresh = self.with_state(|s| s.taken.is_none());
        if fresh {
            let held = self.with_state(|s| s.held.clone());
            let taken: SymVec<bool> = (0..self.0.n)
                .map(|k| self.initial_taken(k, &held))
                .collect();
            self.with_state(|s| s.taken = Some(taken));
        }
        self.with_state(|s| f(s.taken.as_mut().expect("made above")))
    }

    /// Lock `k`'s `taken` at the context, with the lockset invariant as a fact.
    #[track_caller]
    fn initial_taken(&self, k: usize, held: &[(Sym<usize>, Sym<bool>)]) -> Sym<bool> {
        let taken: Sym<bool> = any_named(&format!("{}.taken[{k}]", self.0.name));
        let some_holder = (held.iter()).fold(Sym::constant(false), |acc, (h, holds)| {
            acc | (*holds & h.sym_eq(k))
        });
        let text = format!(
            "{}[{k}] is taken exactly when a lock held at the context is it",
            self.0.name
        );
        fact(
            FactFamily::Sync,
            Provenance::Declared,
            &text,
            taken.sym_eq(some_holder),
        );
        taken
    }
}

impl LockGuard {
    /// The identity of the lock held.
    pub fn id(&self) -> Sym<usize> {
        self.id
    }

    /// The pool the lock belongs to.
    pub(crate) fn locks(&self) -> &Locks {
        &self.locks
    }
}

impl MaybeHeld {
    /// Whether the lock is held (unknown at the context).
    pub fn holds(&self) -> Sym<bool> {
        self.holds
    }

    /// The identity of the lock.
    pub fn id(&self) -> Sym<usize> {
        self.guard.as_ref().map_or(Sym::constant(0), LockGuard::id)
    }
}

impl Drop for MaybeHeld {
    #[track_caller]
    fn drop(&mut self) {
        let guard = self.guard.take();
        if std::thread::panicking() || !rt::in_model() {
            std::mem::forget(guard);
            return;
        }
        if !crate::sym::branch(self.holds) {
            std::mem::forget(guard);
        }
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        self.locks.unlock(self.id, self.location);
    }
}
