//! A pool of threads of one class, joined by symbolic identity: the paper's `threadCreate` /
//! `join` (a `done` flag per thread and a queue; thread exit sets the flag and wakes every
//! joiner of that thread), with `done` one array over the pool's slots.
//!
//! The join of `pthread_join(t[i])` with an unknown `i`: at the context `done` of every slot
//! is an input, and the synchronization facts say which slots hold a thread that is still
//! running ([`Threads::spawn`]: `done == false`) and which exited before the context
//! ([`Threads::exited`]: `done == true`). `no-si` and `naive` drop them, so a join may find a
//! running thread already done. A slot is an index below the pool's size, so the paper's
//! "`t[i]` may not be a valid thread" forks do not exist: a Rust handle is always valid.

use std::panic::Location;
use std::sync::Arc;

use super::facts::{fact, Provenance};
use super::mode::FactFamily;
use super::pool::Pool;
use super::queue::{self, Name, Purpose};
use crate::rt::{self, OpKind};
use crate::sym::{any_named, Sym, SymVec};
use crate::thread::JoinHandle;

/// `n` thread slots of one class; joins name a slot by a (symbolic) index. Clones are the
/// same pool.
#[derive(Clone)]
pub struct Threads(Arc<Pool<State>>);

#[derive(Default)]
struct State {
    /// `done` of every slot: its initial value (the input the facts constrain) and its
    /// current one, made at the first declaration or operation of the execution.
    done: Option<(Vec<Sym<bool>>, SymVec<bool>)>,
}

impl Threads {
    /// `n` thread slots; `name` names their inputs (`<name>.done[k]`) and reports.
    pub fn new(name: &str, n: usize) -> Self {
        Threads(Arc::new(Pool::new("context::Threads", name, n)))
    }

    /// The number of slots.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Spawns the thread of slot `k`, running at the context (the synchronization fact
    /// `done[k] == false`). When `f` returns the thread sets `done[k]` and wakes every
    /// thread joining slot `k`. The handle joins it as any symx thread.
    #[track_caller]
    pub fn spawn<F>(&self, k: usize, f: F) -> JoinHandle<()>
    where
        F: FnOnce() + Send + 'static,
    {
        let location = Location::caller();
        self.declare(k, false, location);
        let pool = self.clone();
        crate::thread::spawn(move || {
            f();
            pool.exit(k, location);
        })
    }

    /// Declares that the thread of slot `k` exited before the context (the synchronization
    /// fact `done[k] == true`).
    #[track_caller]
    pub fn exited(&self, k: usize) {
        self.declare(k, true, Location::caller());
    }

    /// Waits until the thread of slot `id` has exited.
    #[track_caller]
    pub fn join(&self, id: Sym<usize>) {
        let location = Location::caller();
        let class = self.class(location);
        loop {
            rt::visible(OpKind::QueueNotify, Some(class), location);
            let done = self.with_done(|d| d.get(id));
            let outcomes = vec![(done, true), (!done, false)];
            let exited = queue::decide(
                outcomes,
                |e| if e { "exited" } else { "wait" }.to_string(),
                location,
            );
            if exited {
                return;
            }
            queue::wait(self.queue(class, id), "a context thread's exit", location);
        }
    }

    /// Thread exit: `done[k] = 1` and wake every joiner of slot `k`.
    fn exit(&self, k: usize, location: &'static Location<'static>) {
        let class = self.class(location);
        rt::visible(OpKind::QueueNotifyAll, Some(class), location);
        self.with_done(|d| d.set(Sym::constant(k), true));
        queue::notify_all(self.queue(class, Sym::constant(k)), location);
    }

    /// States slot `k`'s `done` at the context as a synchronization fact.
    fn declare(&self, k: usize, done: bool, location: &'static Location<'static>) {
        assert!(
            k < self.0.n,
            "symx::context: slot {k} of a pool of {} threads",
            self.0.n
        );
        self.class(location);
        self.with_done(|_| ());
        let input = self.with_state(|s| s.done.as_ref().map(|(initial, _)| initial[k]));
        let input = input.expect("made above");
        let state = if done { "exited" } else { "running" };
        let text = format!("{}[{k}] is {state} at the context", self.0.name);
        fact(
            FactFamily::Sync,
            Provenance::Declared,
            &text,
            input.sym_eq(done),
        );
    }

    fn queue(&self, class: rt::ObjId, id: Sym<usize>) -> Name {
        Name {
            class,
            purpose: Purpose::Join,
            id,
        }
    }

    fn class(&self, location: &'static Location<'static>) -> rt::ObjId {
        self.0.class(location)
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        self.0.with_state(f)
    }

    /// Runs `f` on the `done` array, making it first: an input per slot.
    fn with_done<R>(&self, f: impl FnOnce(&mut SymVec<bool>) -> R) -> R {
        if self.with_state(|s| s.done.is_none()) {
            let inputs: Vec<Sym<bool>> = (0..self.0.n)
                .map(|k| any_named(&format!("{}.done[{k}]", self.0.name)))
                .collect();
            let done: SymVec<bool> = inputs.iter().copied().collect();
            self.with_state(|s| s.done = Some((inputs, done)));
        }
        self.with_state(|s| f(&mut s.done.as_mut().expect("made above").1))
    }
}
