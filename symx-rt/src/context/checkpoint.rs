//! Support for `symx::checkpoint!`: each capture goes through [`Wrap`], and method
//! resolution picks [`ViaSym`] for a `Sym<T>` capture (generalised when the test explores
//! from the checkpoint's label) and [`ViaAny`] for everything else (passed through).
//!
//! [`reach`] comes first: at the label the test explores from, a thread's first pass during
//! the prefix stops it there until the context is entered (`rt::prefix`), and that pass is the
//! one whose captures are generalised.
//!
//! Generalising a capture replaces it by a symbolic input named `<label>.t<thread>.<name>`
//! whose value, unless the input assignment gives another, is the value the run computed:
//! the first input class is the recorded run. The input remembers that value and the term the
//! run computed it by, over the prefix's inputs (a failure that needs another value is
//! confirmed by solving that term for it). An analysed must-reach definition of the capture
//! (`#[symx::reaching_definitions]`) is a value fact on the input.

use std::cell::Cell;
use std::panic::Location;

use crate::context::{fact, FactFamily, Provenance};
use crate::sym::record::{self, with_sym};
use crate::sym::{Sym, SymValue};

/// A capture on its way through the checkpoint.
pub struct Wrap<T>(Cell<Option<T>>);

impl<T> Wrap<T> {
    /// Wraps one capture.
    pub fn new(value: T) -> Self {
        Wrap(Cell::new(Some(value)))
    }

    fn take(&self) -> T {
        self.0.take().expect("a capture is taken once")
    }
}

/// A symbolic capture: generalised at the explored context.
pub trait ViaSym {
    /// The capture's type.
    type Out;
    /// The capture, generalised at the explored context.
    fn capture(&self, at: bool, label: &str, name: &str, analysed: Option<i128>) -> Self::Out;
}

impl<T: SymValue> ViaSym for &Wrap<Sym<T>> {
    type Out = Sym<T>;
    #[track_caller]
    fn capture(&self, at: bool, label: &str, name: &str, analysed: Option<i128>) -> Sym<T> {
        let value = self.take();
        if !at {
            return value;
        }
        generalise(label, name, value, analysed, Location::caller())
    }
}

/// Any other capture: passed through.
pub trait ViaAny {
    /// The capture's type.
    type Out;
    /// The capture, unchanged.
    fn capture(&self, at: bool, label: &str, name: &str, analysed: Option<i128>) -> Self::Out;
}

impl<T> ViaAny for Wrap<T> {
    type Out = T;
    fn capture(&self, _at: bool, _label: &str, _name: &str, _analysed: Option<i128>) -> T {
        self.take()
    }
}

/// The checkpoint `label` is passed: whether this pass is the context the test explores from
/// (the running thread's first pass during the prefix, after which it was stopped until the
/// context was entered). Its captures are generalised then, and only then.
#[track_caller]
pub fn reach(label: &str) -> bool {
    let here = with_sym(|st| st.config.context_label.as_deref() == Some(label));
    if here != Some(true) {
        return false;
    }
    crate::context::note_used();
    crate::rt::prefix::reach(Location::caller())
}

fn generalise<T: SymValue>(
    label: &str,
    name: &str,
    value: Sym<T>,
    analysed: Option<i128>,
    location: &'static Location<'static>,
) -> Sym<T> {
    let thread = crate::rt::current_thread().unwrap_or(0);
    let input = format!("{label}.t{thread}.{name}");
    let computed = with_sym(|st| st.operand(&value)).flatten();
    let g: Sym<T> = record::input_defaulting(&input, value.peek(), computed, location);
    if let Some(c) = analysed {
        let text = format!("{name} == {c} (reaching definitions at `{label}`)");
        let constant = Sym::constant(T::from_bits(T::TY.from_i128(c)));
        fact(
            FactFamily::Value,
            Provenance::Analysed,
            &text,
            g.sym_eq(constant),
        );
    }
    g
}

/// An integer constant of the same type as a capture (`like(&x, 5)` is `5` as `x`'s type):
/// how a relational fact's literals get the type of the captures they combine with.
pub trait Like: Sized {
    /// `value` in `Self`'s type, wrapping as `as` does.
    fn like(value: i128) -> Self;
}

/// `value` in the type of `_of`.
pub fn like<T: Like>(_of: &T, value: i128) -> T {
    T::like(value)
}

impl<T: SymValue> Like for Sym<T> {
    fn like(value: i128) -> Self {
        Sym::constant(T::from_bits(T::TY.from_i128(value)))
    }
}

macro_rules! like_primitive {
    ($($t:ty),*) => {$(
        impl Like for $t {
            fn like(value: i128) -> Self {
                value as $t
            }
        }
    )*};
}

like_primitive!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// A relational reaching definition at a checkpoint: a capture and the value the analysis
/// says it has, computed from the other (generalised) captures. Method resolution picks
/// [`RelSym`] when the capture is a `Sym` (a value fact on its input) and [`RelAny`]
/// otherwise (a concrete capture is not generalised: nothing to state).
pub struct Rel<'a, L, R>(pub &'a L, pub R);

/// A relational fact on a generalised capture.
pub trait RelSym {
    /// States the fact `text` at checkpoint `label`.
    fn relate(&self, label: &str, text: &str);
}

impl<T: SymValue, R: Into<Sym<T>> + Copy> RelSym for &Rel<'_, Sym<T>, R> {
    #[track_caller]
    fn relate(&self, label: &str, text: &str) {
        let text = format!("{text} (reaching definitions at `{label}`)");
        let cond = self.0.sym_eq(self.1.into());
        fact(FactFamily::Value, Provenance::Analysed, &text, cond);
    }
}

/// A relational fact on a capture that is not generalised: nothing to state.
pub trait RelAny {
    /// Does nothing.
    fn relate(&self, label: &str, text: &str);
}

impl<L, R> RelAny for Rel<'_, L, R> {
    fn relate(&self, _label: &str, _text: &str) {}
}
