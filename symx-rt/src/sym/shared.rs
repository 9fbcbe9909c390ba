//! [`Shared<T>`]: a shared variable whose every `get` and `set` is a visible operation.
//!
//! A `get` returns a fresh read variable of the trace (its concrete value is what this
//! interleaving read), so engines can ask what happens if it reads another write; a `set`
//! records the expression written. Accesses do not synchronise: two conflicting accesses not
//! ordered by happens-before are a data race, as for `symx::cell::UnsafeCell`.

use std::panic::Location;
use std::sync::Mutex as StdMutex;

use super::record;
use super::value::{Sym, SymValue};
use crate::rt::{self, ObjKind, ObjRef, OpKind};

/// A shared variable of a symbolic-capable type (`bool` or a primitive integer).
#[derive(Debug)]
pub struct Shared<T: SymValue> {
    obj: ObjRef,
    initial: T,
    /// The current value and the execution (generation) it belongs to; a value left by an
    /// earlier execution reads as `initial`, so a `static Shared` starts every execution anew.
    current: StdMutex<(u32, T)>,
}

impl<T: SymValue> Shared<T> {
    /// A new shared value, `initial` at the start of every execution.
    #[track_caller]
    pub const fn new(initial: T) -> Self {
        Shared {
            obj: ObjRef::new(),
            initial,
            current: StdMutex::new((0, initial)),
        }
    }

    fn load(&self, generation: u32) -> T {
        let cur = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if cur.0 == generation {
            cur.1
        } else {
            self.initial
        }
    }

    fn store(&self, generation: u32, value: T) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = (generation, value);
    }

    /// A visible operation on this variable: scheduling point, then the race check.
    fn access(&self, kind: OpKind, location: &'static Location<'static>) -> Option<u32> {
        let Some((id, generation)) = rt::with(|e| {
            let id = e
                .objects
                .of(&self.obj, ObjKind::Shared, rt::short_type_name::<Self>(), 0);
            e.objects.note_initial(id, T::TY, self.initial.to_bits());
            (id, e.objects.generation)
        }) else {
            rt::foreign::check(&self.obj, "Shared", location);
            return None;
        };
        rt::visible(kind, Some(id), location);
        let race = rt::with(|e| e.cell_access(id, kind == OpKind::Store, location)).flatten();
        if let Some(found) = race {
            rt::fail(found);
        }
        Some(generation)
    }

    /// Reads the variable: a scheduling point, and a fresh read variable in the trace.
    #[track_caller]
    pub fn get(&self) -> Sym<T> {
        let Some(generation) = self.access(OpKind::Load, Location::caller()) else {
            return Sym::constant(self.load(0));
        };
        let value = self.load(generation);
        let handle = rt::with(|e| record::read_var(e, value)).flatten();
        rt::record_value(rt::Value::One(T::TY.to_i128(value.to_bits())));
        Sym::with_expr(value, handle)
    }

    /// Writes the variable: a scheduling point; the trace records the value's expression.
    #[track_caller]
    pub fn set(&self, value: impl Into<Sym<T>>) {
        let value = value.into();
        let Some(generation) = self.access(OpKind::Store, Location::caller()) else {
            self.store(0, value.value);
            return;
        };
        self.store(generation, value.value);
        rt::with(|e| {
            let expr = record::written(e, &value);
            e.note_write(expr, T::TY, value.value.to_bits());
        });
        rt::record_value(rt::Value::One(T::TY.to_i128(value.value.to_bits())));
    }

    /// The value without an access (exclusive ownership proves nobody else can touch it).
    pub fn into_inner(self) -> T {
        let generation = rt::with(|e| e.objects.generation).unwrap_or(0);
        self.load(generation)
    }
}

impl<T: SymValue + Default> Default for Shared<T> {
    #[track_caller]
    fn default() -> Self {
        Shared::new(T::default())
    }
}
