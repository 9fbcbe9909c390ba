//! `AtomicBool`: an `AtomicU8` holding 0 or 1, so that it shares the integers' model.

use super::{AtomicU8, Ordering};

/// `AtomicBool`, stored as a `u8` (0 or 1).
#[derive(Debug, Default)]
pub struct AtomicBool(AtomicU8);

impl AtomicBool {
    /// A new atomic holding the value. `const`, as in `std`: usable in statics.
    #[track_caller]
    pub const fn new(v: bool) -> Self {
        AtomicBool(AtomicU8::implementing(v as u8, "AtomicBool"))
    }
    /// Reads the value: a scheduling point; `order` decides what it synchronises with.
    #[track_caller]
    pub fn load(&self, order: Ordering) -> bool {
        self.0.load(order) != 0
    }
    /// Writes the value: a scheduling point; `order` decides what it synchronises with.
    #[track_caller]
    pub fn store(&self, val: bool, order: Ordering) {
        self.0.store(val as u8, order)
    }
    /// Writes the value and returns the previous one, in one step.
    #[track_caller]
    pub fn swap(&self, val: bool, order: Ordering) -> bool {
        self.0.swap(val as u8, order) != 0
    }
    /// Writes `new` if the value is `current`, in one step; returns the previous value,
    /// `Ok` if it was written and `Err` otherwise.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        self.0
            .compare_exchange(current as u8, new as u8, success, failure)
            .map(|v| v != 0)
            .map_err(|v| v != 0)
    }
    /// [`compare_exchange`](Self::compare_exchange): it never fails spuriously here.
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: bool,
        new: bool,
        success: Ordering,
        failure: Ordering,
    ) -> Result<bool, bool> {
        self.compare_exchange(current, new, success, failure)
    }
    /// Bitwise and, returning the previous value.
    #[track_caller]
    pub fn fetch_and(&self, val: bool, order: Ordering) -> bool {
        self.0.fetch_and(val as u8, order) != 0
    }
    /// Bitwise nand, returning the previous value.
    #[track_caller]
    pub fn fetch_nand(&self, val: bool, order: Ordering) -> bool {
        self.0.rmw(order, |v| (v & val as u8 == 0) as u8) != 0
    }
    /// Bitwise or, returning the previous value.
    #[track_caller]
    pub fn fetch_or(&self, val: bool, order: Ordering) -> bool {
        self.0.fetch_or(val as u8, order) != 0
    }
    /// Logical not, returning the previous value.
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.0.fetch_xor(1, order) != 0
    }
    /// Writes `new` if the value is `current`; returns the previous value (std's deprecated
    /// form of [`compare_exchange`](Self::compare_exchange)).
    #[track_caller]
    pub fn compare_and_swap(&self, current: bool, new: bool, order: Ordering) -> bool {
        self.0.compare_and_swap(current as u8, new as u8, order) != 0
    }
    /// loom's unsynchronised load (see [`AtomicU8::unsync_load`]).
    ///
    /// # Safety
    /// Every write to the atomic must happen before this read (as loom requires).
    #[track_caller]
    pub unsafe fn unsync_load(&self) -> bool {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.unsync_load() != 0 }
    }
    /// Runs `f` with exclusive access to the value (loom's `with_mut`).
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut bool) -> R) -> R {
        f(self.get_mut())
    }
    /// Bitwise xor, returning the previous value.
    #[track_caller]
    pub fn fetch_xor(&self, val: bool, order: Ordering) -> bool {
        self.0.fetch_xor(val as u8, order) != 0
    }
    /// Applies `f` until a compare-exchange with its result succeeds, as `std` does; returns
    /// the value it was applied to last, `Err` when `f` returned `None`.
    #[track_caller]
    pub fn fetch_update<F: FnMut(bool) -> Option<bool>>(
        &self,
        set: Ordering,
        fetch: Ordering,
        mut f: F,
    ) -> Result<bool, bool> {
        self.0
            .fetch_update(set, fetch, |v| f(v != 0).map(|b| b as u8))
            .map(|v| v != 0)
            .map_err(|v| v != 0)
    }
    /// Exclusive access to the value (no scheduling point: nothing else can see it).
    pub fn get_mut(&mut self) -> &mut bool {
        let v = self.0.get_mut();
        // SAFETY: the byte only ever holds 0 or 1 (every write goes through a `bool`).
        unsafe { &mut *(v as *mut u8 as *mut bool) }
    }
    /// The value, consuming the atomic.
    pub fn into_inner(self) -> bool {
        self.0.into_inner() != 0
    }
}

impl From<bool> for AtomicBool {
    #[track_caller]
    fn from(v: bool) -> Self {
        Self::new(v)
    }
}
