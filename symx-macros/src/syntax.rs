//! Questions about Rust syntax that more than one of the macros' analyses asks (the
//! reaching definitions, the epoch-marker placement).

use syn::BinOp;

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
