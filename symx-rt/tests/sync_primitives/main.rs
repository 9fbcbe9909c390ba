//! The modelled `RwLock`, `Barrier`, `Once`, `OnceLock`, `mpsc` channels and `Arc`: correct
//! programs are explored exhaustively without a report (with hand-derived execution counts for
//! the tiny ones), buggy ones fail with the right kind, and every failure's token replays.
//!
//! Counting conventions of the unreduced DFS the tests use: spawning, joining, `Arc` operations
//! and `UnsafeCell` accesses are not scheduling points; a thread that is spawned or woken with
//! nothing to retry runs on to its next visible operation before the next decision; a
//! blocking operation that must wait costs a second step when it retries.
//!
//! This file holds the checks every test shares (`passes`, `fails`, `Racy`) and the auto
//! traits; the tests, one module per primitive: `rwlock`, `barrier`, `once` (`Once` and
//! `OnceLock`), `channels` and `arc`.

mod arc;
mod barrier;
mod channels;
mod once;
mod rwlock;

use std::sync::atomic::{AtomicBool as StdAtomicBool, AtomicUsize as StdAtomicUsize};

use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use symx::sync::mpsc::{
    channel, sync_channel, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError,
};
use symx::sync::{Arc, Barrier, Once, OnceLock, RwLock, Weak};
use symx::{thread, Builder, Failure, FailureKind, Report};

/// Explores `body` exhaustively with the unreduced DFS (the counts the tests assert are derived
/// for it) and asserts no bug exists; the default DPOR must agree, with no more executions.
fn passes(body: fn()) -> Report {
    let report = Builder::new().strategy(symx::Strategy::Dfs).explore(body);
    if let Some(f) = report.failure() {
        panic!("unexpected failure:\n{f}");
    }
    assert!(report.complete(), "not exhausted: {report}");
    let reduced = Builder::new().explore(body);
    if let Some(f) = reduced.failure() {
        panic!("DPOR reports a failure DFS does not:\n{f}");
    }
    assert!(reduced.complete() && reduced.executions() <= report.executions());
    report
}

/// Explores `body`, asserts it fails with `kind`, and that the token replays to the same
/// failure (so the primitive behaves deterministically under a schedule).
fn fails(kind: FailureKind, body: fn()) -> Failure {
    let builder = Builder::new();
    let report = builder.explore(body);
    let failure = report
        .failure()
        .unwrap_or_else(|| {
            panic!(
                "expected a {kind}, none in {} executions",
                report.executions()
            )
        })
        .clone();
    assert_eq!(failure.kind(), kind, "wrong kind:\n{failure}");
    let again = builder.replay(failure.schedule(), body);
    let replayed = again.failure().expect("the replay fails again");
    assert_eq!(replayed.kind(), kind);
    assert_eq!(replayed.message(), failure.message());
    failure
}

/// Data the test shares without synchronisation of its own; symx checks every access.
struct Racy<T>(UnsafeCell<T>);

// SAFETY: accesses go through `UnsafeCell::with`/`with_mut`, which symx checks for races.
unsafe impl<T: Send> Sync for Racy<T> {}

impl<T: Copy> Racy<T> {
    fn new(v: T) -> Self {
        Racy(UnsafeCell::new(v))
    }

    #[track_caller]
    fn get(&self) -> T {
        self.0.with(|p| unsafe { *p })
    }

    #[track_caller]
    fn set(&self, v: T) {
        self.0.with_mut(|p| unsafe { *p = v })
    }
}

/// The auto traits are std's: everything here is `Send + Sync` except the `Receiver` (`Send`).
#[test]
fn auto_traits_match_std() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    send_sync::<Arc<u8>>();
    send_sync::<Weak<u8>>();
    send_sync::<RwLock<u8>>();
    send_sync::<Barrier>();
    send_sync::<Once>();
    send_sync::<OnceLock<u8>>();
    send_sync::<symx::sync::mpsc::Sender<u8>>();
    send_sync::<symx::sync::mpsc::SyncSender<u8>>();
    send::<symx::sync::mpsc::Receiver<u8>>();
    unwind_safe::<RwLock<std::cell::Cell<u8>>>();
}
