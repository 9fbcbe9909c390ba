//! The one place the library names its synchronization: std's in a plain build, symx's
//! models under `cfg(symx)` (what `cargo symx test` builds with). The rest of the crate says
//! `crate::sync::Mutex` and never `std::sync` or `symx::sync`.

#[cfg(not(symx))]
pub(crate) use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Condvar, Mutex, MutexGuard,
};

#[cfg(symx)]
pub(crate) use symx::sync::{
    atomic::{AtomicUsize, Ordering},
    Condvar, Mutex, MutexGuard,
};
