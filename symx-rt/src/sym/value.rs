//! [`Sym<T>`]: a value of this execution that also knows the expression it was computed from.
//!
//! A `Sym` is `Copy` and two words wide: the concrete value and, only when it depends on a
//! symbolic input or a recorded read, a handle into the execution's expression arena (stamped
//! with the execution's generation, so a value kept across executions counts as a constant).
//! Operators compute the concrete value with `T`'s own operator, so overflow behaves exactly
//! as it would on `T` in the build profile, and add a node only when an operand is symbolic.

use super::expr::{CmpOp, Expr, ExprId, Ty};
use super::record;

mod sealed {
    pub trait Sealed {}
}

/// The types a [`Sym`] can hold: `bool` and the primitive integers.
pub trait SymValue:
    Copy + PartialEq + PartialOrd + std::fmt::Debug + sealed::Sealed + 'static
{
    /// The type as the trace records it.
    const TY: Ty;
    /// The value's canonical bit pattern.
    fn to_bits(self) -> u128;
    /// The value a canonical bit pattern stands for.
    fn from_bits(bits: u128) -> Self;
}

/// The integer types among [`SymValue`]s (targets of [`Sym::cast`]).
pub trait SymInt: SymValue {}

macro_rules! sym_ints {
    ($($t:ty => $ty:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl SymValue for $t {
            const TY: Ty = Ty::$ty;
            fn to_bits(self) -> u128 {
                Ty::$ty.truncate(self as u128)
            }
            fn from_bits(bits: u128) -> Self {
                bits as $t
            }
        }
        impl SymInt for $t {}
    )*};
}

sym_ints!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, i128 => I128, isize => Isize,
          u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128, usize => Usize);

impl sealed::Sealed for bool {}
impl SymValue for bool {
    const TY: Ty = Ty::Bool;
    fn to_bits(self) -> u128 {
        self as u128
    }
    fn from_bits(bits: u128) -> Self {
        bits & 1 == 1
    }
}

/// A handle to an expression of one execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Handle {
    pub generation: u32,
    pub id: ExprId,
}

/// A value that may be symbolic: its concrete value in this execution and, where it depends
/// on symbolic inputs or on values read from a [`Shared`](crate::Shared), its expression.
///
/// Arithmetic, bitwise, shift and comparison operators work on `Sym<T>` mixed with plain `T`
/// on either side. `==`/`<` through `PartialEq`/`PartialOrd` give a plain `bool` and record
/// the outcome as a guard; inside `#[symx::test]` and `#[symx::instrument]` bodies the same
/// operators give `Sym<bool>` (as do [`Sym::sym_eq`] and friends everywhere).
///
/// ```
/// use symx::{Builder, InputValues, Sym};
///
/// fn body() {
///     let x: Sym<u32> = symx::any_named("x");
///     let y = x * 2 + 1; // symbolic too: its expression over `x` is recorded
///     assert_eq!(y.concrete() % 2, 1);
///     symx::assert!(y != 41); // recorded as an assertion on `x`
/// }
///
/// // Inputs are 0 unless the builder gives them values, by name.
/// assert!(Builder::new().explore(body).failure().is_none());
/// let x_is_20: InputValues = [("x".to_string(), 20)].into_iter().collect();
/// let report = Builder::new().inputs(x_is_20).explore(body);
/// assert!(report.failure().is_some(), "2 * 20 + 1 is 41");
/// ```
#[derive(Clone, Copy)]
pub struct Sym<T: SymValue> {
    pub(crate) value: T,
    pub(crate) expr: Option<Handle>,
}

impl<T: SymValue> Sym<T> {
    /// A value that depends on nothing symbolic.
    pub const fn constant(value: T) -> Self {
        Sym { value, expr: None }
    }

    pub(crate) fn with_expr(value: T, expr: Option<Handle>) -> Self {
        Sym { value, expr }
    }

    /// Whether the value depends on a symbolic input or a recorded read.
    pub fn is_symbolic(&self) -> bool {
        self.expr.is_some()
    }

    /// Whether both are the same expression of one execution (so certainly equal).
    pub(crate) fn same_expr(&self, other: &Sym<T>) -> bool {
        self.expr.is_some() && self.expr == other.expr
    }

    /// The concrete value, leaving the symbolic world: the trace records the guard
    /// `expr == value`, so no engine predicts an execution in which this value differs.
    #[track_caller]
    pub fn concrete(self) -> T {
        record::pin(self, Some(std::panic::Location::caller()));
        self.value
    }

    /// The concrete value without recording a guard: for reports and debugging only, never
    /// for decisions of the program.
    pub fn peek(&self) -> T {
        self.value
    }

    /// `self as U`, following Rust's `as` between integers (`bool` converts to 0 or 1).
    pub fn cast<U: SymInt>(self) -> Sym<U> {
        let value = U::from_bits(U::TY.from_i128(T::TY.to_i128(self.value.to_bits())));
        record::unary(self, value, |a| Expr::Cast { ty: U::TY, a })
    }

    fn compare(self, other: Sym<T>, cmp: CmpOp, value: bool) -> Sym<bool> {
        record::binary(self, other, value, |a, b| Expr::Compare { cmp, a, b })
    }

    /// `self == other` as a symbolic condition.
    pub fn sym_eq(self, other: impl Into<Sym<T>>) -> Sym<bool> {
        let o = other.into();
        self.compare(o, CmpOp::Eq, self.value == o.value)
    }
    /// `self != other` as a symbolic condition.
    pub fn sym_ne(self, other: impl Into<Sym<T>>) -> Sym<bool> {
        let o = other.into();
        self.compare(o, CmpOp::Ne, self.value != o.value)
    }
    /// `self < other` as a symbolic condition.
    pub fn sym_lt(self, other: impl Into<Sym<T>>) -> Sym<bool> {
        let o = other.into();
        self.compare(o, CmpOp::Lt, self.value < o.value)
    }
    /// `self <= other` as a symbolic condition.
    pub fn sym_le(self, other: impl Into<Sym<T>>) -> Sym<bool> {
        let o = other.into();
        self.compare(o, CmpOp::Le, self.value <= o.value)
    }
    /// `self > other` as a symbolic condition.
    pub fn sym_gt(self, other: impl Into<Sym<T>>) -> Sym<bool> {
        let o = other.into();
        self.compare(o, CmpOp::Gt, self.value > o.value)
    }
    /// `self >= other` as a symbolic condition.
    pub fn sym_ge(self, other: impl Into<Sym<T>>) -> Sym<bool> {
        let o = other.into();
        self.compare(o, CmpOp::Ge, self.value >= o.value)
    }
}

impl<T: SymValue> From<T> for Sym<T> {
    fn from(value: T) -> Self {
        Sym::constant(value)
    }
}

impl<T: SymValue + Default> Default for Sym<T> {
    fn default() -> Self {
        Sym::constant(T::default())
    }
}

/// Formatting shows the concrete value; formatted text can steer a program, so it is an
/// escape like [`Sym::concrete`] and records its guard (formatting passes no caller
/// location: the trace gives the pin the thread's previous one).
impl<T: SymValue> std::fmt::Debug for Sym<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        record::pin(*self, None);
        std::fmt::Debug::fmt(&self.value, f)
    }
}

impl<T: SymValue + std::fmt::Display> std::fmt::Display for Sym<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        record::pin(*self, None);
        std::fmt::Display::fmt(&self.value, f)
    }
}

// `==` and `<` through the std traits must return `bool`: the outcome escapes, so it is
// recorded as the guard `(a op b) == outcome` at the comparison.

impl<T: SymValue> PartialEq for Sym<T> {
    #[track_caller]
    fn eq(&self, other: &Self) -> bool {
        self.sym_eq(*other).concrete()
    }
}

impl<T: SymValue> PartialEq<T> for Sym<T> {
    #[track_caller]
    fn eq(&self, other: &T) -> bool {
        self.sym_eq(*other).concrete()
    }
}

impl<T: SymValue> PartialOrd for Sym<T> {
    #[track_caller]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        let ord = self.value.partial_cmp(&other.value);
        // Record the outcome as the two comparisons that decide it.
        let _ = self.sym_lt(*other).concrete();
        let _ = self.sym_eq(*other).concrete();
        ord
    }
    #[track_caller]
    fn lt(&self, other: &Self) -> bool {
        self.sym_lt(*other).concrete()
    }
    #[track_caller]
    fn le(&self, other: &Self) -> bool {
        self.sym_le(*other).concrete()
    }
    #[track_caller]
    fn gt(&self, other: &Self) -> bool {
        self.sym_gt(*other).concrete()
    }
    #[track_caller]
    fn ge(&self, other: &Self) -> bool {
        self.sym_ge(*other).concrete()
    }
}

impl<T: SymValue> PartialOrd<T> for Sym<T> {
    #[track_caller]
    fn partial_cmp(&self, other: &T) -> Option<std::cmp::Ordering> {
        self.partial_cmp(&Sym::constant(*other))
    }
    #[track_caller]
    fn lt(&self, other: &T) -> bool {
        self.sym_lt(*other).concrete()
    }
    #[track_caller]
    fn le(&self, other: &T) -> bool {
        self.sym_le(*other).concrete()
    }
    #[track_caller]
    fn gt(&self, other: &T) -> bool {
        self.sym_gt(*other).concrete()
    }
    #[track_caller]
    fn ge(&self, other: &T) -> bool {
        self.sym_ge(*other).concrete()
    }
}
