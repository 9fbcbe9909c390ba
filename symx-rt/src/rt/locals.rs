//! Values std keeps once per OS thread or once per process, kept here once per model thread
//! (`symx::thread_local!`) and once per execution (`symx::sync::LazyLock`): each execution
//! starts without them, as a fresh process would.
//!
//! A thread's locals are dropped when the thread ends (std runs TLS destructors at thread
//! exit); the statics when the execution's last thread ends, so that what they own is gone
//! before the leak check looks. Both drops run on the model thread, outside any borrow of the
//! execution, so a destructor may use symx objects.

use std::collections::HashMap;

use super::execution::{with, Execution};
use super::op::ThreadId;

/// A value of any type, owned through a raw pointer with its destructor.
pub(crate) struct Erased {
    ptr: *mut u8,
    drop: unsafe fn(*mut u8),
}

impl Erased {
    pub fn new<T>(value: T) -> Erased {
        unsafe fn drop_box<T>(p: *mut u8) {
            // SAFETY: `p` came from `Box::<T>::into_raw` in `Erased::new` and is dropped once.
            drop(unsafe { Box::from_raw(p as *mut T) });
        }
        Erased {
            ptr: Box::into_raw(Box::new(value)) as *mut u8,
            drop: drop_box::<T>,
        }
    }

    /// The value's address; it does not move while the `Erased` lives.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for Erased {
    fn drop(&mut self) {
        // SAFETY: `drop` is the destructor for the type `ptr` was created with.
        unsafe { (self.drop)(self.ptr) }
    }
}

/// The locals and statics of one execution.
#[derive(Default)]
pub(crate) struct Locals {
    /// Per thread: the values of the `thread_local!` keys it used, by the key's address.
    threads: HashMap<ThreadId, HashMap<usize, Erased>>,
    /// Threads whose locals are being destroyed: a key used then is an `AccessError`. Inline:
    /// every thread of every execution comes here as it ends.
    destroying: smallvec::SmallVec<[ThreadId; 8]>,
    /// Per-execution statics, by object id.
    statics: HashMap<u32, Erased>,
}

impl std::fmt::Debug for Locals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Locals")
    }
}

/// What looking up a thread's local found.
pub(crate) enum Local {
    Value(*mut u8),
    Missing,
    Destroyed,
}

impl Execution {
    /// Thread `t`'s value for the key at `key`.
    pub fn local(&self, t: ThreadId, key: usize) -> Local {
        if self.locals.destroying.contains(&t) {
            return Local::Destroyed;
        }
        match self.locals.threads.get(&t).and_then(|m| m.get(&key)) {
            Some(v) => Local::Value(v.ptr()),
            None => Local::Missing,
        }
    }

    /// Stores thread `t`'s value for the key at `key`; returns its address.
    pub fn set_local(&mut self, t: ThreadId, key: usize, value: Erased) -> *mut u8 {
        let map = self.locals.threads.entry(t).or_default();
        map.entry(key).or_insert(value).ptr()
    }

    /// The execution's value of static object `id`, if set.
    pub fn static_value(&self, id: u32) -> Option<*mut u8> {
        self.locals.statics.get(&id).map(Erased::ptr)
    }

    /// Stores the execution's value of static object `id`; returns its address.
    pub fn set_static(&mut self, id: u32, value: Erased) -> *mut u8 {
        self.locals.statics.entry(id).or_insert(value).ptr()
    }

    /// Takes the value of static object `id` out (its owner is dropped or emptied).
    pub fn take_static(&mut self, id: u32) -> Option<Erased> {
        self.locals.statics.remove(&id)
    }
}

/// Drops thread `t`'s locals, then, if every other thread has finished, the statics: called
/// by the thread as it ends. Destructors may create new locals; those are dropped too.
pub(crate) fn thread_exit(t: ThreadId) {
    with(|e| e.locals.destroying.push(t));
    // Most threads have no locals: no need to hash their id to find none.
    let take = |e: &mut Execution| match e.locals.threads.is_empty() {
        true => None,
        false => e.locals.threads.remove(&t),
    };
    while let Some(values) = with(take).flatten() {
        drop(values);
    }
    let last = with(|e| {
        e.threads
            .iter()
            .enumerate()
            .all(|(id, th)| id == t || th.is_finished())
    })
    .unwrap_or(false);
    if last {
        loop {
            let statics = with(|e| std::mem::take(&mut e.locals.statics)).unwrap_or_default();
            if statics.is_empty() {
                break;
            }
            drop(statics);
        }
    }
}
