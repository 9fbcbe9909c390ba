//! Synchronization state havocked at every epoch boundary (Bergan, dissertation §3.3.3 and
//! §3.8.1.3): a semaphore's count, a queue's length. The paper's `MakeStateForEpoch` starts
//! each epoch from an over-approximate state in which such state is unconstrained; radix's
//! semaphores and pfscan's queue are where that over-approximation shows, as schedules no
//! execution can follow (the *infeasible* column of its Table 3.1), which a rely-guarantee
//! argument over the schedules then proves infeasible.
//!
//! A loop's carried locals are havocked by the code `#[symx::instrument]` generates; state
//! shared between threads is not a local of any loop, so the program names it by keeping it
//! in a [`Havocked`] cell (inside the lock that protects it). The cell's value becomes a fresh
//! input `<name>@<k>.s` at its first access after the run's `k`-th boundary, which is the value
//! at the boundary (nobody touched it in between), and whose value is the one the run computed
//! unless the input assignment gives another. Outside runs cut into epochs it is a plain cell.

use std::panic::Location;

use crate::rt;
use crate::sym::{Sym, SymValue};

/// A piece of shared synchronization state that each epoch starts from unconstrained.
pub struct Havocked<T: SymValue> {
    name: String,
    value: Sym<T>,
    /// The boundary its value was last havocked at (0: never).
    seen: usize,
}

impl<T: SymValue> Havocked<T> {
    /// A cell called `name` (the inputs it becomes are `<name>@<k>.s`; one name per cell).
    pub fn new(name: &str, value: Sym<T>) -> Self {
        Havocked {
            name: name.to_string(),
            value,
            seen: 0,
        }
    }

    /// The value, havocked first when a boundary was passed since the last access.
    #[track_caller]
    pub fn get(&mut self) -> &mut Sym<T> {
        let location = Location::caller();
        let k = rt::with(|e| e.epochs.as_ref().map_or(0, |s| s.boundaries.len())).unwrap_or(0);
        if k > self.seen {
            self.seen = k;
            let input = format!("{}@{k}.s", self.name);
            let computed = crate::sym::record::with_sym(|st| st.operand(&self.value)).flatten();
            self.value =
                crate::sym::record::input_defaulting(&input, self.value.peek(), computed, location);
        }
        &mut self.value
    }
}
