//! loom's `sync`: symx's modelled primitives, plus loom's [`Notify`].

pub use crate::sync::{
    Arc, Barrier, Condvar, LockResult, Mutex, MutexGuard, RwLock, RwLockReadGuard,
    RwLockWriteGuard, TryLockResult, WaitTimeoutResult,
};

pub use self::notify::Notify;

mod notify;

/// loom's `sync::atomic`: symx's atomics (all of std's types, taking std's `Ordering`, with
/// loom's `unsync_load`, `with_mut` and `compare_and_swap`).
pub mod atomic {
    pub use crate::sync::atomic::*;
}

/// loom's `sync::mpsc`: symx's channels.
pub mod mpsc {
    pub use crate::sync::mpsc::*;
}
