//! The process budget: at most `--jobs` worker processes run at once, whoever starts them
//! (the pool, the shards of a test, crash re-runs). A slot is held only while a process runs,
//! and nobody waits for a slot while holding one, so waiting cannot deadlock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use super::cancel::INTERRUPTED;

/// Free slots; `None` until a budget is set (unlimited, as for `replay`).
static FREE: Mutex<Option<usize>> = Mutex::new(None);
static FREED: Condvar = Condvar::new();

/// At most `n` worker processes at once from now on.
pub fn set(n: usize) {
    *FREE.lock().expect("budget") = Some(n.max(1));
}

/// A running process's slot, given back when dropped.
pub struct Slot(bool);

impl Drop for Slot {
    fn drop(&mut self) {
        if self.0 {
            if let Some(free) = FREE.lock().expect("budget").as_mut() {
                *free += 1;
            }
            FREED.notify_one();
        }
    }
}

/// Why no slot was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Ctrl-C.
    Interrupted,
    /// The caller's `cancel` flag was set.
    Cancelled,
}

/// Waits for a slot; gives up (with the reason) on Ctrl-C or when `cancel` is set.
pub fn acquire(cancel: Option<&AtomicBool>) -> Result<Slot, Refused> {
    let mut free = FREE.lock().expect("budget");
    loop {
        match free.as_mut() {
            None => return Ok(Slot(false)),
            Some(n) if *n > 0 => {
                *n -= 1;
                return Ok(Slot(true));
            }
            Some(_) => {}
        }
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(Refused::Interrupted);
        }
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(Refused::Cancelled);
        }
        free = FREED
            .wait_timeout(free, Duration::from_millis(50))
            .expect("budget")
            .0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_bounded_and_given_back() {
        set(1);
        let first = acquire(None).expect("a free slot");
        let cancel = AtomicBool::new(true);
        assert!(matches!(acquire(Some(&cancel)), Err(Refused::Cancelled)));
        drop(first);
        let again = acquire(Some(&cancel)).expect("the slot came back");
        drop(again);
        *FREE.lock().unwrap() = None;
    }
}
