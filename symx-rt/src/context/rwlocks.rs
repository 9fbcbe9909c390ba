//! A pool of reader-writer locks of one class, addressed by symbolic identity: a `writer`
//! flag and a `readers` count per lock (one array each over the pool), and one queue per lock
//! that every blocked reader and writer waits in. Every release wakes the whole queue (one
//! outcome per subset of the waiters whose identity may match, as `notify_all`), and a woken
//! thread looks again: a release that frees nothing for a waiter only sends it back to wait.
//!
//! At the context both fields are inputs. The lockset invariant carries each held entry's
//! mode: a lock has a writer exactly when a lock declared write-held there is it, and its
//! readers are the read-held entries that are it ([`RwLocks::held_write`],
//! [`RwLocks::held_read`]). `no-si` and `naive` drop it: a reader may then enter beside a
//! writer that holds the lock, which no real run can do.

use std::panic::Location;
use std::sync::Arc;

use super::facts::{fact, Provenance};
use super::mode::FactFamily;
use super::pool::Pool;
use super::queue::{self, Name, Purpose};
use crate::rt::{self, OpKind};
use crate::sym::{any_named, Sym, SymVec};

/// `n` reader-writer locks of one class; each operation names its lock by a (symbolic)
/// index. Clones are the same pool.
#[derive(Clone)]
pub struct RwLocks(Arc<Pool<State>>);

#[derive(Default)]
struct State {
    /// `writer` and `readers` of every lock, made at the first operation of the execution.
    fields: Option<(SymVec<bool>, SymVec<u32>)>,
    /// The identities declared held at the context, each with its mode (`true`: write).
    held: Vec<(Sym<usize>, bool)>,
}

/// A held lock of an [`RwLocks`] pool, read or written: released when dropped.
pub struct RwGuard {
    locks: RwLocks,
    id: Sym<usize>,
    write: bool,
    location: &'static Location<'static>,
}

impl RwLocks {
    /// `n` locks; `name` names their inputs (`<name>.writer[k]`, `<name>.readers[k]`).
    pub fn new(name: &str, n: usize) -> Self {
        RwLocks(Arc::new(Pool::new("context::RwLocks", name, n)))
    }

    /// The number of locks.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Declares that lock `id` is read-held at the context by the thread that will own the
    /// returned guard. Call before any thread uses the pool.
    #[track_caller]
    pub fn held_read(&self, id: Sym<usize>) -> RwGuard {
        self.declare(id, false, Location::caller())
    }

    /// Declares that lock `id` is write-held at the context by the thread that will own the
    /// returned guard. Call before any thread uses the pool.
    #[track_caller]
    pub fn held_write(&self, id: Sym<usize>) -> RwGuard {
        self.declare(id, true, Location::caller())
    }

    /// Takes lock `id` for reading, blocking while it has a writer.
    #[track_caller]
    pub fn read(&self, id: Sym<usize>) -> RwGuard {
        self.acquire(id, false, Location::caller())
    }

    /// Takes lock `id` for writing, blocking while it has a writer or readers.
    #[track_caller]
    pub fn write(&self, id: Sym<usize>) -> RwGuard {
        self.acquire(id, true, Location::caller())
    }

    fn declare(
        &self,
        id: Sym<usize>,
        write: bool,
        location: &'static Location<'static>,
    ) -> RwGuard {
        self.0.with_state(|s| {
            assert!(
                s.fields.is_none(),
                "symx::context: a lock declared held after the locks were first used"
            );
            s.held.push((id, write));
        });
        RwGuard {
            locks: self.clone(),
            id,
            write,
            location,
        }
    }

    fn acquire(
        &self,
        id: Sym<usize>,
        write: bool,
        location: &'static Location<'static>,
    ) -> RwGuard {
        let class = self.0.class(location);
        loop {
            rt::visible(OpKind::QueueNotify, Some(class), location);
            let free = self.with_fields(|(writer, readers)| {
                let no_writer = !writer.get(id);
                if write {
                    no_writer & readers.get(id).sym_eq(0u32)
                } else {
                    no_writer
                }
            });
            let outcomes = vec![(free, true), (!free, false)];
            let acquire = queue::decide(
                outcomes,
                |a| if a { "acquire" } else { "block" }.to_string(),
                location,
            );
            if acquire {
                self.with_fields(|(writer, readers)| {
                    if write {
                        writer.set(id, true);
                    } else {
                        let r = readers.get(id);
                        readers.set(id, r.wrapping_add(1u32));
                    }
                });
                return RwGuard {
                    locks: self.clone(),
                    id,
                    write,
                    location,
                };
            }
            queue::wait(self.queue(class, id), "a context rwlock", location);
        }
    }

    /// Clears the writer or counts the reader out, and wakes every waiter of the lock. The
    /// count wraps, as the paper's C does: a naive context may start a held lock at no readers,
    /// and that is the context's infeasibility to show, not a panic inside symx.
    fn release(&self, id: Sym<usize>, write: bool, location: &'static Location<'static>) {
        if std::thread::panicking() || !rt::in_model() {
            return;
        }
        let class = self.0.class(location);
        rt::visible(OpKind::QueueNotifyAll, Some(class), location);
        self.with_fields(|(writer, readers)| {
            if write {
                writer.set(id, false);
            } else {
                let r = readers.get(id);
                readers.set(id, r.wrapping_sub(1u32));
            }
        });
        queue::notify_all(self.queue(class, id), location);
    }

    fn queue(&self, class: rt::ObjId, id: Sym<usize>) -> Name {
        Name {
            class,
            purpose: Purpose::RwLock,
            id,
        }
    }

    /// Runs `f` on the `writer` and `readers` arrays, making them first: inputs per lock,
    /// constrained by the lockset invariant with modes.
    #[track_caller]
    fn with_fields<R>(&self, f: impl FnOnce(&mut (SymVec<bool>, SymVec<u32>)) -> R) -> R {
        if self.0.with_state(|s| s.fields.is_none()) {
            let held = self.0.with_state(|s| s.held.clone());
            let (writer, readers): (Vec<_>, Vec<_>) =
                (0..self.0.n).map(|k| self.initial(k, &held)).unzip();
            let fields = (writer.into_iter().collect(), readers.into_iter().collect());
            self.0.with_state(|s| s.fields = Some(fields));
        }
        self.0
            .with_state(|s| f(s.fields.as_mut().expect("made above")))
    }

    /// Lock `k`'s `writer` and `readers` at the context, with the lockset invariant as facts.
    #[track_caller]
    fn initial(&self, k: usize, held: &[(Sym<usize>, bool)]) -> (Sym<bool>, Sym<u32>) {
        let name = &self.0.name;
        let writer: Sym<bool> = any_named(&format!("{name}.writer[{k}]"));
        let readers: Sym<u32> = any_named(&format!("{name}.readers[{k}]"));
        let is_k = |h: &Sym<usize>| h.sym_eq(k);
        let written = (held.iter().filter(|(_, w)| *w))
            .fold(Sym::constant(false), |acc, (h, _)| acc | is_k(h));
        let read = (held.iter().filter(|(_, w)| !*w)).fold(Sym::constant(0u32), |acc, (h, _)| {
            acc.wrapping_add(is_k(h).cast::<u32>())
        });
        let text = format!("{name}[{k}] has a writer exactly when a write-held lock is it");
        fact(
            FactFamily::Sync,
            Provenance::Declared,
            &text,
            writer.sym_eq(written),
        );
        let text = format!("{name}[{k}]'s readers are the read-held locks that are it");
        fact(
            FactFamily::Sync,
            Provenance::Declared,
            &text,
            readers.sym_eq(read),
        );
        (writer, readers)
    }
}

impl RwGuard {
    /// The identity of the lock held.
    pub fn id(&self) -> Sym<usize> {
        self.id
    }
}

impl Drop for RwGuard {
    fn drop(&mut self) {
        self.locks.release(self.id, self.write, self.location);
    }
}
