//! `symx::sync`: the modelled synchronization primitives, with std's names and signatures.
//! Every blocking primitive is built on the runtime's wait queues and lock table, so deadlocks,
//! lost wake-ups and races on the data they protect are seen by the explorer.

pub mod atomic;
mod condvar;
mod mutex;

pub use condvar::Condvar;
pub use mutex::{Mutex, MutexGuard};
pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};
pub use std::sync::{Arc, Weak};
