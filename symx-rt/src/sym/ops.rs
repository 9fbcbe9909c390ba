//! The operators of [`Sym<T>`]: arithmetic, bitwise and shifts, mixed with plain values on
//! either side, and their assigning forms, and indexing with a `Sym<usize>`. Each computes
//! the concrete result with `T`'s own operator (so a debug build panics on overflow exactly
//! where `T` would) and records a node only when an operand is symbolic; an operator that can
//! panic first records its check (`checks`).

use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, ShlAssign, Shr, ShrAssign, Sub, SubAssign,
};

use std::panic::Location;

use super::checks::{self, CheckOp};
use super::expr::{BinOp, Expr, UnOp};
use super::record;
use super::value::{Sym, SymValue};

/// `Sym<T> op Sym<T>`, `Sym<T> op T`, `T op Sym<T>` and `Sym<T> op= ..` for one operator;
/// `check Op` for the operators that can panic.
macro_rules! binary_op {
    ($t:ty, $Tr:ident, $m:ident, $TrA:ident, $ma:ident, $bin:ident $(, check $op:ident)?) => {
        impl $Tr for Sym<$t> {
            type Output = Sym<$t>;
            #[track_caller]
            fn $m(self, rhs: Sym<$t>) -> Sym<$t> {
                $( checks::binary(CheckOp::$op, self, rhs, Location::caller()); )?
                let value = $Tr::$m(self.value, rhs.value);
                record::binary(self, rhs, value, |a, b| Expr::Binary {
                    ty: <$t as SymValue>::TY,
                    bin: BinOp::$bin,
                    a,
                    b,
                })
            }
        }
        impl $Tr<$t> for Sym<$t> {
            type Output = Sym<$t>;
            #[track_caller]
            fn $m(self, rhs: $t) -> Sym<$t> {
                $Tr::$m(self, Sym::constant(rhs))
            }
        }
        impl $Tr<Sym<$t>> for $t {
            type Output = Sym<$t>;
            #[track_caller]
            fn $m(self, rhs: Sym<$t>) -> Sym<$t> {
                $Tr::$m(Sym::constant(self), rhs)
            }
        }
        impl $TrA for Sym<$t> {
            #[track_caller]
            fn $ma(&mut self, rhs: Sym<$t>) {
                *self = $Tr::$m(*self, rhs);
            }
        }
        impl $TrA<$t> for Sym<$t> {
            #[track_caller]
            fn $ma(&mut self, rhs: $t) {
                *self = $Tr::$m(*self, rhs);
            }
        }
    };
}

/// Shifts take a `u32` amount (plain or symbolic), like the primitive types' wrapping shifts
/// take it; the primitive operator decides overflow.
macro_rules! shift_op {
    ($t:ty, $Tr:ident, $m:ident, $TrA:ident, $ma:ident, $bin:ident) => {
        impl $Tr<Sym<u32>> for Sym<$t> {
            type Output = Sym<$t>;
            #[track_caller]
            fn $m(self, rhs: Sym<u32>) -> Sym<$t> {
                checks::shift(CheckOp::$bin, rhs, <$t>::BITS, Location::caller());
                let value = $Tr::$m(self.value, rhs.value);
                // The expression language shifts by an operand of the shifted type.
                let amount = rhs.cast::<$t>();
                record::binary(self, amount, value, |a, b| Expr::Binary {
                    ty: <$t as SymValue>::TY,
                    bin: BinOp::$bin,
                    a,
                    b,
                })
            }
        }
        impl $Tr<u32> for Sym<$t> {
            type Output = Sym<$t>;
            #[track_caller]
            fn $m(self, rhs: u32) -> Sym<$t> {
                $Tr::$m(self, Sym::constant(rhs))
            }
        }
        impl $TrA<u32> for Sym<$t> {
            #[track_caller]
            fn $ma(&mut self, rhs: u32) {
                *self = $Tr::$m(*self, rhs);
            }
        }
        impl $TrA<Sym<u32>> for Sym<$t> {
            #[track_caller]
            fn $ma(&mut self, rhs: Sym<u32>) {
                *self = $Tr::$m(*self, rhs);
            }
        }
    };
}

macro_rules! unary_op {
    ($t:ty, $Tr:ident, $m:ident, $un:ident $(, $check:ident)?) => {
        impl $Tr for Sym<$t> {
            type Output = Sym<$t>;
            #[track_caller]
            fn $m(self) -> Sym<$t> {
                $( checks::$check(self, Location::caller()); )?
                let value = $Tr::$m(self.value);
                record::unary(self, value, |a| Expr::Unary {
                    ty: <$t as SymValue>::TY,
                    un: UnOp::$un,
                    a,
                })
            }
        }
    };
}

/// `wrapping_add` and friends: the same wrapping the expression language has, without the
/// debug-build overflow panic of the operators.
macro_rules! wrapping_ops {
    ($t:ty: $($m:ident => $bin:ident),*) => {
        impl Sym<$t> {
            $(
                #[doc = concat!("`", stringify!($m), "` of the primitive type, recorded as `", stringify!($bin), "`.")]
                pub fn $m(self, rhs: impl Into<Sym<$t>>) -> Sym<$t> {
                    let rhs = rhs.into();
                    let value = self.value.$m(rhs.value);
                    record::binary(self, rhs, value, |a, b| Expr::Binary {
                        ty: <$t as SymValue>::TY,
                        bin: BinOp::$bin,
                        a,
                        b,
                    })
                }
            )*
        }
    };
}

macro_rules! int_ops {
    ($($t:ty),*) => {$(
        wrapping_ops!($t: wrapping_add => Add, wrapping_sub => Sub, wrapping_mul => Mul);
        binary_op!($t, Add, add, AddAssign, add_assign, Add, check Add);
        binary_op!($t, Sub, sub, SubAssign, sub_assign, Sub, check Sub);
        binary_op!($t, Mul, mul, MulAssign, mul_assign, Mul, check Mul);
        binary_op!($t, Div, div, DivAssign, div_assign, Div, check Div);
        binary_op!($t, Rem, rem, RemAssign, rem_assign, Rem, check Rem);
        binary_op!($t, BitAnd, bitand, BitAndAssign, bitand_assign, And);
        binary_op!($t, BitOr, bitor, BitOrAssign, bitor_assign, Or);
        binary_op!($t, BitXor, bitxor, BitXorAssign, bitxor_assign, Xor);
        shift_op!($t, Shl, shl, ShlAssign, shl_assign, Shl);
        shift_op!($t, Shr, shr, ShrAssign, shr_assign, Shr);
        unary_op!($t, Not, not, Not);
    )*};
}

macro_rules! neg_ops {
    ($($t:ty),*) => {$( unary_op!($t, Neg, neg, Neg, neg); )*};
}

int_ops!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
neg_ops!(i8, i16, i32, i64, i128, isize);

binary_op!(bool, BitAnd, bitand, BitAndAssign, bitand_assign, And);
binary_op!(bool, BitOr, bitor, BitOrAssign, bitor_assign, Or);
binary_op!(bool, BitXor, bitxor, BitXorAssign, bitxor_assign, Xor);
unary_op!(bool, Not, not, Not);

macro_rules! into_plain {
    ($($t:ty),*) => {$(
        /// Converting to the plain type is an escape: the guard `expr == value` is recorded.
        impl From<Sym<$t>> for $t {
            #[track_caller]
            fn from(s: Sym<$t>) -> $t {
                s.concrete()
            }
        }
    )*};
}

into_plain!(bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// The concrete position a symbolic index selects in a collection of `len`: the bounds check
/// and the choice of element (a guard an engine may flip to any other index below `len`,
/// not a pin), then the plain index, which panics as `usize` indexing does.
#[track_caller]
pub(crate) fn select(i: Sym<usize>, len: usize) -> usize {
    let location = Location::caller();
    checks::index(i, len, location);
    if i.value < len {
        record::element(i, len, location);
    }
    i.value
}

/// Indexing with a symbolic index selects an element: the trace records the bounds check and
/// the choice, which an engine may make differently (another element, or out of bounds).
/// Arrays index through their slice.
impl<T> std::ops::Index<Sym<usize>> for [T] {
    type Output = T;
    #[track_caller]
    fn index(&self, i: Sym<usize>) -> &T {
        &self[select(i, self.len())]
    }
}

impl<T> std::ops::IndexMut<Sym<usize>> for [T] {
    #[track_caller]
    fn index_mut(&mut self, i: Sym<usize>) -> &mut T {
        let at = select(i, self.len());
        &mut self[at]
    }
}

impl<T> std::ops::Index<Sym<usize>> for Vec<T> {
    type Output = T;
    #[track_caller]
    fn index(&self, i: Sym<usize>) -> &T {
        &self[select(i, self.len())]
    }
}

impl<T> std::ops::IndexMut<Sym<usize>> for Vec<T> {
    #[track_caller]
    fn index_mut(&mut self, i: Sym<usize>) -> &mut T {
        let at = select(i, self.len());
        &mut self[at]
    }
}
