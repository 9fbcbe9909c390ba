//! Blind accesses: atomic operations whose result the program drops. `#[symx::instrument]`
//! rewrites a statement `counter.fetch_add(1, SeqCst);` (its value discarded) and every
//! `store` so that, right before the operation, it tells the runtime the step it is about to
//! take is *blind*: nothing the program does afterwards depends on the value it read. The
//! receiver and the arguments are evaluated first, so the mark concerns this one operation;
//! autoref specialization makes it a no-op unless the receiver is one of this crate's integer
//! atomics (or a reference, `Arc` or `Box` of one), whose methods of those names are the
//! modelled ones.
//!
//! The mark is recorded on the step's trace event (`blind`). An engine may treat an object
//! every access of which is blind as one whose value no assertion, branch or later operation
//! ever sees (assertion-guided pruning's slice); that takes every execution, which only the
//! engine can check.

use crate::rt;

/// The receiver of an atomic operation whose result is dropped.
pub struct Blind<'a, T: ?Sized>(pub &'a T);

/// This crate's integer atomics (and `AtomicBool`, built on one), behind references and
/// owning pointers.
pub trait Atomic {}

macro_rules! atomic {
    ($($t:ident),*) => {$(impl Atomic for crate::sync::atomic::$t {})*};
}
atomic!(
    AtomicU8,
    AtomicU16,
    AtomicU32,
    AtomicU64,
    AtomicUsize,
    AtomicI8,
    AtomicI16,
    AtomicI32,
    AtomicI64,
    AtomicIsize,
    AtomicBool
);
impl<T: Atomic + ?Sized> Atomic for &T {}
impl<T: Atomic + ?Sized> Atomic for crate::sync::Arc<T> {}
impl<T: Atomic + ?Sized> Atomic for std::sync::Arc<T> {}
impl<T: Atomic + ?Sized> Atomic for Box<T> {}

/// Chosen for an atomic receiver: the running thread's next step is blind.
pub trait BlindAtomic {
    /// Marks the running thread's next step blind.
    fn __symx_blind(&self);
}

impl<T: Atomic + ?Sized> BlindAtomic for Blind<'_, T> {
    fn __symx_blind(&self) {
        rt::with(|e| e.me().blind_next = true);
    }
}

/// Chosen for any other receiver: nothing is marked.
pub trait BlindOther {
    /// Does nothing.
    fn __symx_blind(&self) {}
}

impl<T: ?Sized> BlindOther for &Blind<'_, T> {}
