//! The panic conditions of [`Sym`] operations as recorded checks, KLEE's checks for division
//! by zero, overflow and out-of-bounds accesses (Cadar et al., "KLEE: Unassisted and
//! Automatic Generation of High-Coverage Tests for Complex Systems Programs"): at an operation
//! that panics for some operand values, the trace records the condition under which it does
//! *not* panic, so that an engine can ask whether its negation is feasible on the path.
//!
//! Each condition is built with `Sym`'s own operators that never panic (wrapping arithmetic,
//! comparisons, casts), so its concrete value is this run's outcome for free and it folds to
//! a constant (and is not recorded) when no operand it depends on is symbolic. The operation
//! itself still runs on `T`'s operator afterwards, so a failing check is followed by exactly
//! the panic Rust would raise. Nothing is built unless the execution is recorded, and nothing
//! at all when no operand is symbolic.
//!
//! Overflow of `+ - * -x << >>` panics only when the build checks overflow; symx-rt probes
//! its own build once (the operators live in this crate, so its setting is what decides).

use std::panic::Location;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::expr::{BinOp, Expr};
use super::record;
use super::value::{Sym, SymInt, SymValue};

/// The operation whose panic a check guards against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckOp {
    /// `a + b`: overflow.
    Add,
    /// `a - b`: overflow.
    Sub,
    /// `a * b`: overflow.
    Mul,
    /// `-a`: overflow.
    Neg,
    /// `a / b`: a zero divisor, or overflow.
    Div,
    /// `a % b`: a zero divisor, or overflow.
    Rem,
    /// `a << b`: a shift by the width or more.
    Shl,
    /// `a >> b`: a shift by the width or more.
    Shr,
    /// Indexing a slice, `Vec` or [`SymVec`](crate::SymVec) with a `Sym<usize>`.
    Index,
}

impl CheckOp {
    /// The panic the check guards against, as Rust words it (without operand values).
    pub fn message(self) -> &'static str {
        match self {
            CheckOp::Add => "attempt to add with overflow",
            CheckOp::Sub => "attempt to subtract with overflow",
            CheckOp::Mul => "attempt to multiply with overflow",
            CheckOp::Neg => "attempt to negate with overflow",
            CheckOp::Div => "attempt to divide by zero or with overflow",
            CheckOp::Rem => {
                "attempt to calculate the remainder with a divisor of zero or with overflow"
            }
            CheckOp::Shl => "attempt to shift left with overflow",
            CheckOp::Shr => "attempt to shift right with overflow",
            CheckOp::Index => "index out of bounds",
        }
    }

    /// Whether the operation panics only in builds that check overflow.
    fn needs_overflow_checks(self) -> bool {
        !matches!(self, CheckOp::Div | CheckOp::Rem | CheckOp::Index)
    }
}

/// Whether integer overflow panics in this build of symx-rt (`overflow-checks`, on in debug
/// builds by default). Stable Rust has no `cfg` for it, so one deliberate overflow is
/// caught, quietly, the first time it is asked.
pub(crate) fn overflow_checks() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        crate::rt::panic_hook::quietly(|| {
            std::panic::catch_unwind(|| std::hint::black_box(u8::MAX) + std::hint::black_box(1))
                .is_err()
        })
    })
}

/// Records the check of `op` whose no-panic condition `ok` builds, when it can panic in this
/// build and the execution is recorded.
fn check(op: CheckOp, ok: impl FnOnce() -> Sym<bool>, location: &'static Location<'static>) {
    if op.needs_overflow_checks() && !overflow_checks() {
        return;
    }
    if record::recording() {
        record::check(ok(), op, location);
    }
}

/// `a op b` for the checked binary operators (`+ - * / %`).
#[inline]
pub(crate) fn binary<T: Checked>(
    op: CheckOp,
    a: Sym<T>,
    b: Sym<T>,
    location: &'static Location<'static>,
) {
    if a.expr.is_some() || b.expr.is_some() {
        check(op, || T::no_panic(op, a, b), location);
    }
}

/// `-a`.
#[inline]
pub(crate) fn neg<T: Checked>(a: Sym<T>, location: &'static Location<'static>) {
    if a.expr.is_some() {
        check(CheckOp::Neg, || T::no_panic(CheckOp::Neg, a, a), location);
    }
}

/// A shift of a `bits`-wide value by `amount`: the amount must be below the width.
#[inline]
pub(crate) fn shift(
    op: CheckOp,
    amount: Sym<u32>,
    bits: u32,
    location: &'static Location<'static>,
) {
    if amount.expr.is_some() {
        check(op, || amount.sym_lt(bits), location);
    }
}

/// Indexing a collection of `len` elements with `i`: the index must be below the length.
#[inline]
pub(crate) fn index(i: Sym<usize>, len: usize, location: &'static Location<'static>) {
    if i.expr.is_some() {
        check(CheckOp::Index, || i.sym_lt(len), location);
    }
}

/// The integer types' no-panic conditions.
pub(crate) trait Checked: SymInt {
    /// The condition under which `a op b` (for `Neg`: `-a`) does not panic.
    fn no_panic(op: CheckOp, a: Sym<Self>, b: Sym<Self>) -> Sym<bool>;
}

/// A signed `a ± b` did not overflow iff its result `r` moved from `a` in the direction
/// `b`'s sign says (`moved_up(r, a)` is that direction for a non-negative `b`); a known `b`
/// picks the direction at once.
fn signed_moved<T: SymValue>(
    a: Sym<T>,
    b: Sym<T>,
    r: Sym<T>,
    moved_up: impl Fn(Sym<T>, Sym<T>) -> Sym<bool>,
) -> Sym<bool> {
    let zero = T::from_bits(0);
    let up = moved_up(r, a);
    if b.is_symbolic() {
        up.sym_eq(b.sym_ge(zero))
    } else if b.peek() >= zero {
        up
    } else {
        !up
    }
}

/// `a / b` recorded without a check, for a `b` that is never zero in this run.
fn quotient<T: SymValue>(a: Sym<T>, b: Sym<T>, value: T) -> Sym<T> {
    record::binary(a, b, value, |a, b| Expr::Binary {
        ty: T::TY,
        bin: BinOp::Div,
        a,
        b,
    })
}

macro_rules! unsigned_checks {
    ($($t:ty => $mul_ok:expr),*) => {$(
        impl Checked for $t {
            fn no_panic(op: CheckOp, a: Sym<$t>, b: Sym<$t>) -> Sym<bool> {
                match op {
                    CheckOp::Add => a.wrapping_add(b).sym_ge(a),
                    CheckOp::Sub => a.sym_ge(b),
                    CheckOp::Mul => $mul_ok(a, b),
                    CheckOp::Div | CheckOp::Rem => b.sym_ne(0),
                    _ => Sym::constant(true),
                }
            }
        }
    )*};
}

macro_rules! signed_checks {
    ($($t:ty => $mul_ok:expr),*) => {$(
        impl Checked for $t {
            fn no_panic(op: CheckOp, a: Sym<$t>, b: Sym<$t>) -> Sym<bool> {
                match op {
                    // `a + b` went the way `b`'s sign says (`a` and `b` swapped where only
                    // `a` is known, so that the known one folds).
                    CheckOp::Add if !a.is_symbolic() => signed_moved(b, a, b.wrapping_add(a), |r, a| r.sym_ge(a)),
                    CheckOp::Add => signed_moved(a, b, a.wrapping_add(b), |r, a| r.sym_ge(a)),
                    // `a - b` went the other way.
                    CheckOp::Sub => signed_moved(a, b, a.wrapping_sub(b), |r, a| a.sym_ge(r)),
                    CheckOp::Mul => $mul_ok(a, b),
                    CheckOp::Neg => a.sym_ne(<$t>::MIN),
                    CheckOp::Div | CheckOp::Rem => b.sym_ne(0) & (a.sym_ne(<$t>::MIN) | b.sym_ne(-1)),
                    _ => Sym::constant(true),
                }
            }
        }
    )*};
}

/// The product fits: computed in a type twice as wide, it survives the round trip through `T`.
macro_rules! widened {
    ($t:ty, $w:ty) => {
        |a: Sym<$t>, b: Sym<$t>| {
            let wide = a.cast::<$w>().wrapping_mul(b.cast::<$w>());
            wide.cast::<$t>().cast::<$w>().sym_eq(wide)
        }
    };
}

/// No wider type for 128 bits: the product fits iff dividing it by `a` gives `b` back (with
/// the divisor made 1 where `a` is 0, so that the condition itself never divides by zero).
macro_rules! by_division {
    ($t:ty) => {
        |a: Sym<$t>, b: Sym<$t>| {
            let zero = a.sym_eq(0);
            let divisor = a | zero.cast::<$t>();
            let product = a.wrapping_mul(b);
            let back = quotient(
                product,
                divisor,
                product.peek().wrapping_div(divisor.peek()),
            );
            zero | back.sym_eq(b)
        }
    };
}

unsigned_checks!(
    u8 => widened!(u8, u16),
    u16 => widened!(u16, u32),
    u32 => widened!(u32, u64),
    u64 => widened!(u64, u128),
    usize => widened!(usize, u128),
    u128 => by_division!(u128)
);

signed_checks!(
    i8 => widened!(i8, i16),
    i16 => widened!(i16, i32),
    i32 => widened!(i32, i64),
    i64 => widened!(i64, i128),
    isize => widened!(isize, i128),
    // `MIN * -1` divides back exactly (wrapping), so it is excluded by name.
    i128 => |a: Sym<i128>, b: Sym<i128>| {
        let fits = by_division!(i128)(a, b);
        fits & !(a.sym_eq(-1) & b.sym_eq(i128::MIN))
    }
);
