//! Cancellation of the whole run: the Ctrl-C flag that every waiting and running worker
//! process checks.

use std::sync::atomic::AtomicBool;

/// Set by the Ctrl-C handler: running workers are killed, no new ones start.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);
