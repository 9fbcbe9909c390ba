//! Lock poisoning as std does it: a lock released while its holder panics is marked, and every
//! later acquisition (and `into_inner`/`get_mut`) reports it through `PoisonError`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LockResult, PoisonError};

#[derive(Debug, Default)]
pub(crate) struct Poison(AtomicBool);

impl Poison {
    pub const fn new() -> Self {
        Poison(AtomicBool::new(false))
    }

    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub fn clear(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Called when a holder releases the lock: poisons it if the holder is unwinding.
    pub fn mark_if_panicking(&self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }

    /// `value` as std's lock APIs hand it out: in `Err` when the lock is poisoned.
    pub fn wrap<G>(&self, value: G) -> LockResult<G> {
        if self.get() {
            Err(PoisonError::new(value))
        } else {
            Ok(value)
        }
    }
}
