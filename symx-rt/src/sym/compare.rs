//! Conditions and comparisons as instrumented code sees them.
//!
//! `#[symx::test]` and `#[symx::instrument]` rewrite `a < b` into
//! `(&&Cmp(&a, &b)).__symx_lt()`. Method lookup tries the receiver `&&Cmp` first, where
//! [`SymCompare`] is implemented when the left operand is a [`Sym`] (giving `Sym<bool>`); then
//! `&Cmp`, where [`PlainCompare`] is the ordinary comparison (giving `bool`, at no cost); then
//! `Cmp`, where [`SymCompare`] is implemented for a plain left operand and a `Sym` right one.
//!
//! The order keeps the user's type inference: in `total == (0..40).sum()` the sum's type is
//! not known yet, so a `Cmp<u32, Sym<u32>>` impl tried before the ordinary comparison would
//! decide it is `Sym<u32>` (and fail: a `Sym` is not a sum). Tried after, the ordinary
//! comparison's `u32: PartialEq<_>` infers `u32`, as the operator would; a right operand known
//! to be a `Sym` fails that bound and reaches the symbolic impl.
//! Conditions of `if`/`while`/guards go through [`Condition`], the identity on `bool`.

use std::panic::Location;

use super::notes::Local;
use super::record;
use super::value::{Sym, SymValue};

/// Something a branch can be taken on: `bool` or `Sym<bool>`.
pub trait Condition: Sized {
    /// The condition as a (possibly constant) symbolic value.
    fn into_sym(self) -> Sym<bool>;
    /// Records the branch (for a symbolic condition) and returns the direction taken.
    fn branch_at(self, location: &'static Location<'static>) -> bool;
}

impl Condition for bool {
    #[inline(always)]
    fn into_sym(self) -> Sym<bool> {
        Sym::constant(self)
    }
    #[inline(always)]
    fn branch_at(self, _location: &'static Location<'static>) -> bool {
        self
    }
}

impl Condition for Sym<bool> {
    fn into_sym(self) -> Sym<bool> {
        self
    }
    fn branch_at(self, location: &'static Location<'static>) -> bool {
        record::condition(self, location, |guard, _| Local::Branch { guard })
    }
}

/// The two operands of a rewritten comparison.
pub struct Cmp<'a, A: ?Sized, B: ?Sized>(pub &'a A, pub &'a B);

// Copy, so that method lookup can take the `Cmp` itself out of `&&Cmp` (the last step).
impl<A: ?Sized, B: ?Sized> Clone for Cmp<'_, A, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A: ?Sized, B: ?Sized> Copy for Cmp<'_, A, B> {}

/// Comparisons with a symbolic operand: the result is a symbolic condition.
pub trait SymCompare {
    /// `==`.
    fn __symx_eq(self) -> Sym<bool>;
    /// `!=`.
    fn __symx_ne(self) -> Sym<bool>;
    /// `<`.
    fn __symx_lt(self) -> Sym<bool>;
    /// `<=`.
    fn __symx_le(self) -> Sym<bool>;
    /// `>`.
    fn __symx_gt(self) -> Sym<bool>;
    /// `>=`.
    fn __symx_ge(self) -> Sym<bool>;
}

macro_rules! sym_compare {
    ($receiver:ty, $lhs:expr, $rhs:expr) => {
        impl<T: SymValue> SymCompare for $receiver {
            fn __symx_eq(self) -> Sym<bool> {
                $lhs(*self.0).sym_eq($rhs(*self.1))
            }
            fn __symx_ne(self) -> Sym<bool> {
                $lhs(*self.0).sym_ne($rhs(*self.1))
            }
            fn __symx_lt(self) -> Sym<bool> {
                $lhs(*self.0).sym_lt($rhs(*self.1))
            }
            fn __symx_le(self) -> Sym<bool> {
                $lhs(*self.0).sym_le($rhs(*self.1))
            }
            fn __symx_gt(self) -> Sym<bool> {
                $lhs(*self.0).sym_gt($rhs(*self.1))
            }
            fn __symx_ge(self) -> Sym<bool> {
                $lhs(*self.0).sym_ge($rhs(*self.1))
            }
        }
    };
}

sym_compare!(
    &&Cmp<'_, Sym<T>, Sym<T>>,
    std::convert::identity,
    Sym::<T>::from
);
sym_compare!(&&Cmp<'_, Sym<T>, T>, std::convert::identity, Sym::<T>::from);
// After the plain comparison (see the module's documentation).
sym_compare!(
    Cmp<'_, T, Sym<T>>,
    Sym::<T>::constant,
    std::convert::identity
);

/// `==` and `!=` without symbolic operands: exactly the operator.
pub trait PlainEq {
    /// `==`.
    fn __symx_eq(self) -> bool;
    /// `!=`.
    fn __symx_ne(self) -> bool;
}

impl<A: ?Sized + PartialEq<B>, B: ?Sized> PlainEq for &Cmp<'_, A, B> {
    #[inline(always)]
    #[track_caller]
    fn __symx_eq(self) -> bool {
        *self.0 == *self.1
    }
    #[inline(always)]
    #[track_caller]
    fn __symx_ne(self) -> bool {
        *self.0 != *self.1
    }
}

/// `<`, `<=`, `>`, `>=` without symbolic operands: exactly the operator.
pub trait PlainCompare {
    /// `<`.
    fn __symx_lt(self) -> bool;
    /// `<=`.
    fn __symx_le(self) -> bool;
    /// `>`.
    fn __symx_gt(self) -> bool;
    /// `>=`.
    fn __symx_ge(self) -> bool;
}

impl<A: ?Sized + PartialOrd<B>, B: ?Sized> PlainCompare for &Cmp<'_, A, B> {
    #[inline(always)]
    #[track_caller]
    fn __symx_lt(self) -> bool {
        *self.0 < *self.1
    }
    #[inline(always)]
    #[track_caller]
    fn __symx_le(self) -> bool {
        *self.0 <= *self.1
    }
    #[inline(always)]
    #[track_caller]
    fn __symx_gt(self) -> bool {
        *self.0 > *self.1
    }
    #[inline(always)]
    #[track_caller]
    fn __symx_ge(self) -> bool {
        *self.0 >= *self.1
    }
}
