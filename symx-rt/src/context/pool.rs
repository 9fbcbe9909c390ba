//! What every context pool has: a name for its inputs and reports, a size, the runtime object
//! each of its operations is a scheduling point on (one alias class), and state that starts
//! afresh in every execution (the pool outlives executions; its symbolic state must not).

use std::panic::Location;
use std::sync::Mutex as StdMutex;

use crate::rt::{self, ObjRef};

/// A pool of `n` objects of one class with per-execution state `S`.
pub(crate) struct Pool<S> {
    /// Names the pool's inputs (`<name>.taken[k]`, ...) and facts.
    pub name: String,
    pub n: usize,
    type_name: &'static str,
    obj: ObjRef,
    /// The state and the execution (the object table's generation) it belongs to.
    state: StdMutex<(u32, S)>,
}

impl<S: Default> Pool<S> {
    pub fn new(type_name: &'static str, name: &str, n: usize) -> Self {
        Pool {
            name: name.to_string(),
            n,
            type_name,
            obj: ObjRef::new(),
            state: StdMutex::new((0, S::default())),
        }
    }

    /// Runs `f` on this execution's state (the default one at its first use).
    pub fn with_state<R>(&self, f: impl FnOnce(&mut S) -> R) -> R {
        let generation = rt::with(|e| e.objects.generation).unwrap_or(0);
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.0 != generation {
            *s = (generation, S::default());
        }
        f(&mut s.1)
    }

    /// The pool's object in this execution: the class every operation on it conflicts in.
    pub fn class(&self, location: &'static Location<'static>) -> rt::ObjId {
        super::class_of(&self.obj, self.type_name, location)
    }
}
