//! loom's `hint`.

pub use crate::hint::spin_loop;

/// Reaching this is reported as a panic (a failure of the execution), not undefined behaviour.
///
/// # Safety
/// None needed here; kept `unsafe` for the signature of `std::hint::unreachable_unchecked`.
#[track_caller]
pub unsafe fn unreachable_unchecked() -> ! {
    unreachable!("unreachable_unchecked was reached")
}
