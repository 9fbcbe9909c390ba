//! Questions about Rust syntax that more than one of the macros' analyses asks (the
//! reaching definitions, the epoch-marker placement, the fragments' captures and guards).

use proc_macro2::TokenTree;
use syn::{BinOp, Expr};

/// Whether `op` assigns its left operand (`+=`, `<<=`, ...).
pub(crate) fn is_compound_assignment(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// Whether `func`, the function of a call, is a path whose last segment is `name` (`drop`,
/// `std::mem::drop`, `symx::epoch_marker`, ...).
pub(crate) fn names_function(func: &Expr, name: &str) -> bool {
    matches!(func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name))
}

/// Whether `t` is one of the punctuation characters `chars`.
pub(crate) fn is_punct(t: Option<&TokenTree>, chars: &[char]) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if chars.contains(&p.as_char()))
}
