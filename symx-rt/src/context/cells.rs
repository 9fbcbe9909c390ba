//! A pool of shared cells of one class addressed by symbolic identity: the paper's heap
//! objects behind symbolic pointers. The pool's contents are one array (Equation 2.1's
//! conditional aliasing comes for free: a read at `y` after a write at `x` is
//! `ite(x == y, written, old)` in the solver), every `get` and `set` is a scheduling point
//! on the pool, and the contents at the context are inputs (`<name>[k]`) unless given.

use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex};

use crate::rt::{self, ObjRef, OpKind};
use crate::sym::{any_named, Sym, SymValue, SymVec};

/// `n` shared cells of one class. Clones are the same pool.
pub struct Cells<T: SymValue>(Arc<Inner<T>>);

impl<T: SymValue> Clone for Cells<T> {
    fn clone(&self) -> Self {
        Cells(self.0.clone())
    }
}

struct Inner<T: SymValue> {
    name: String,
    /// The contents at the context; `None`: unknown (an input each).
    initial: Option<Vec<T>>,
    n: usize,
    obj: ObjRef,
    state: StdMutex<(u32, Option<SymVec<T>>)>,
}

impl<T: SymValue> Cells<T> {
    /// `n` cells whose contents at the context are unknown: inputs `<name>[k]`.
    pub fn unknown(name: &str, n: usize) -> Self {
        Cells::make(name, n, None)
    }

    /// Cells whose contents at the context are `values`.
    pub fn known(name: &str, values: Vec<T>) -> Self {
        Cells::make(name, values.len(), Some(values))
    }

    fn make(name: &str, n: usize, initial: Option<Vec<T>>) -> Self {
        Cells(Arc::new(Inner {
            name: name.to_string(),
            initial,
            n,
            obj: ObjRef::new(),
            state: StdMutex::new((0, None)),
        }))
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.0.n
    }

    /// Whether the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.0.n == 0
    }

    /// Cell `id`'s value: a scheduling point.
    #[track_caller]
    pub fn get(&self, id: impl Into<Sym<usize>>) -> Sym<T> {
        let location = Location::caller();
        let id = id.into();
        self.access(OpKind::Load, location);
        self.with_values(|v| v.get(id))
    }

    /// Sets cell `id`: a scheduling point.
    #[track_caller]
    pub fn set(&self, id: impl Into<Sym<usize>>, value: impl Into<Sym<T>>) {
        let location = Location::caller();
        let (id, value) = (id.into(), value.into());
        self.access(OpKind::Store, location);
        self.with_values(|v| v.set(id, value));
    }

    fn access(&self, kind: OpKind, location: &'static Location<'static>) {
        let class = super::class_of(&self.0.obj, "context::Cells", location);
        rt::visible(kind, Some(class), location);
    }

    #[track_caller]
    fn with_values<R>(&self, f: impl FnOnce(&mut SymVec<T>) -> R) -> R {
        let generation = rt::with(|e| e.objects.generation).unwrap_or(0);
        let fresh = {
            let s = self.0.state.lock().unwrap_or_else(|p| p.into_inner());
            s.0 != generation || s.1.is_none()
        };
        if fresh {
            let values: SymVec<T> = match &self.0.initial {
                Some(v) => v.iter().map(|&x| Sym::constant(x)).collect(),
                None => (0..self.0.n)
                    .map(|k| any_named(&format!("{}[{k}]", self.0.name)))
                    .collect(),
            };
            *self.0.state.lock().unwrap_or_else(|p| p.into_inner()) = (generation, Some(values));
        }
        let mut s = self.0.state.lock().unwrap_or_else(|p| p.into_inner());
        f(s.1.as_mut().expect("made above"))
    }
}
