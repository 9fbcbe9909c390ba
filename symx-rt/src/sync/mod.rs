//! `symx::sync`: the modelled synchronization primitives, with std's names and signatures.
//! Every blocking primitive is built on the runtime's wait queues and lock table, so deadlocks,
//! lost wake-ups and races on the data they protect are seen by the explorer.

mod arc;
pub mod atomic;
mod atomic_sym;
mod barrier;
pub(crate) mod blind;
mod condvar;
pub mod mpsc;
mod mutex;
mod once;
mod poison;
mod rwlock;

pub use arc::{Arc, Weak};
pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};
pub use mutex::{Mutex, MutexGuard};
pub use once::{LazyLock, Once, OnceLock, OnceState};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};
