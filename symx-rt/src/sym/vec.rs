//! [`SymVec<T>`]: a vector of symbolic values that symbolic indices read and write without
//! forking, recorded as one array term (KLEE's per-object arrays, Cadar et al., "KLEE:
//! Unassisted and Automatic Generation of High-Coverage Tests for Complex Systems Programs").
//!
//! The concrete elements follow the execution as a plain `Vec<T>` would. The term is made
//! only once something symbolic goes in or a symbolic index reads: a `const_array` of zeros
//! with a `store` per nonzero element, then a `store` per write and a `select` per read. A
//! vector kept across executions (a `static`) starts its term afresh in each, like every
//! expression of an earlier execution.

use std::cell::Cell;
use std::panic::Location;

use super::checks;
use super::expr::{Expr, ExprId, Ty};
use super::record::with_sym;
use super::value::{Handle, Sym, SymValue};

/// A vector of symbolic values (`bool` or primitive integers) whose reads and writes may use a
/// symbolic index: `v.get(i)` is "element `i`, whichever it is", one expression over `i`,
/// not a choice of element (compare indexing a slice with a `Sym<usize>`, which records the
/// element chosen). An index out of bounds panics as `Vec` indexing does, after recording the
/// bounds check.
///
/// ```
/// # symx::model(|| {
/// let i: symx::Sym<usize> = symx::any_named("i");
/// let mut slots = symx::SymVec::from(vec![0u32; 4]);
/// slots.set(1usize, 7u32);
/// slots.set(i, 9u32); // index 0: `i` is 0 in this execution
/// let v = slots.get(1usize); // 7, or 9 where `i == 1`: the trace says so
/// assert_eq!(v.peek(), 7);
/// # });
/// ```
#[derive(Clone, Default)]
pub struct SymVec<T: SymValue> {
    values: Vec<T>,
    /// The array term, once one was needed in the execution its handle names.
    term: Cell<Option<Handle>>,
}

impl<T: SymValue> SymVec<T> {
    /// An empty vector.
    pub const fn new() -> Self {
        SymVec {
            values: Vec::new(),
            term: Cell::new(None),
        }
    }

    /// `len` copies of `value`.
    pub fn from_elem(value: impl Into<Sym<T>>, len: usize) -> Self {
        let value = value.into();
        let mut v = SymVec::new();
        for _ in 0..len {
            v.push(value);
        }
        v
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends an element.
    pub fn push(&mut self, value: impl Into<Sym<T>>) {
        let value = value.into();
        self.store(Sym::constant(self.values.len()), value);
        self.values.push(value.value);
    }

    /// Removes the last element and returns it.
    pub fn pop(&mut self) -> Option<Sym<T>> {
        let last = self.values.len().checked_sub(1)?;
        let value = self.read(Sym::constant(last));
        self.values.pop();
        Some(value)
    }

    /// Element `i`; panics when `i` is out of bounds (the trace records the bounds check).
    #[track_caller]
    pub fn get(&self, i: impl Into<Sym<usize>>) -> Sym<T> {
        let i = i.into();
        checks::index(i, self.values.len(), Location::caller());
        let _ = self.values[i.value];
        self.read(i)
    }

    /// Sets element `i`; panics when `i` is out of bounds (the trace records the bounds check).
    #[track_caller]
    pub fn set(&mut self, i: impl Into<Sym<usize>>, value: impl Into<Sym<T>>) {
        let (i, value) = (i.into(), value.into());
        checks::index(i, self.values.len(), Location::caller());
        let _ = self.values[i.value];
        self.store(i, value);
        self.values[i.value] = value.value;
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl Iterator<Item = Sym<T>> + '_ {
        (0..self.values.len()).map(|k| self.read(Sym::constant(k)))
    }

    /// The concrete elements without recording anything: for reports and debugging only.
    pub fn peek(&self) -> &[T] {
        &self.values
    }

    /// `values[i]` with its expression: a `select` when the vector has a term or `i` is
    /// symbolic, the plain value otherwise.
    fn read(&self, i: Sym<usize>) -> Sym<T> {
        let value = self.values[i.value];
        let handle = with_sym(|st| {
            let term = self.current_term(st);
            if term.is_none() && st.operand(&i).is_none() {
                return None;
            }
            let array = term.unwrap_or_else(|| self.make_term(st));
            let index = st.node(&i);
            let id = st.arena.push(Expr::Select {
                ty: T::TY,
                array,
                index,
            });
            Some(st.handle(id))
        })
        .flatten();
        Sym::with_expr(value, handle)
    }

    /// Records `values[i] = value` on the term (before the concrete write: a term made here
    /// starts from the elements as they were), making the term first if this is the first
    /// symbolic thing about the vector.
    fn store(&self, i: Sym<usize>, value: Sym<T>) {
        with_sym(|st| {
            let term = self.current_term(st);
            if term.is_none() && st.operand(&i).is_none() && st.operand(&value).is_none() {
                return;
            }
            let array = term.unwrap_or_else(|| self.make_term(st));
            let (index, value) = (st.node(&i), st.node(&value));
            let id = st.arena.push(Expr::Store {
                ty: T::TY,
                array,
                index,
                value,
            });
            self.term.set(Some(st.handle(id)));
        });
    }

    /// The term, if it was made in this execution.
    fn current_term(&self, st: &super::record::SymState) -> Option<ExprId> {
        self.term
            .get()
            .filter(|h| h.generation == st.generation)
            .map(|h| h.id)
    }

    /// The term of the concrete elements: zeros, with a store per nonzero element.
    fn make_term(&self, st: &mut super::record::SymState) -> ExprId {
        let mut array = st.arena.push(Expr::ConstArray {
            ty: T::TY,
            value: 0,
        });
        for (k, v) in self.values.iter().enumerate() {
            if v.to_bits() == 0 {
                continue;
            }
            let index = st.arena.push(Expr::Const {
                ty: Ty::Usize,
                value: k as i128,
            });
            let value = st.node(&Sym::constant(*v));
            array = st.arena.push(Expr::Store {
                ty: T::TY,
                array,
                index,
                value,
            });
        }
        self.term.set(Some(st.handle(array)));
        array
    }
}

impl<T: SymValue> From<Vec<T>> for SymVec<T> {
    fn from(values: Vec<T>) -> Self {
        SymVec {
            values,
            term: Cell::new(None),
        }
    }
}

impl<T: SymValue> FromIterator<Sym<T>> for SymVec<T> {
    fn from_iter<I: IntoIterator<Item = Sym<T>>>(iter: I) -> Self {
        let mut v = SymVec::new();
        for x in iter {
            v.push(x);
        }
        v
    }
}
