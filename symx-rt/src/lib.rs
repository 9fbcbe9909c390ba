//! # symx: find concurrency bugs in Rust tests, and prove their absence within bounds
//!
//! Write a test against `symx::thread` and `symx::sync` (the same API as `std`), mark it
//! `#[symx::test]`, and every interleaving of its threads is explored under a controlled
//! scheduler. A bug (panic, deadlock, data race, livelock, misuse of an annotated primitive)
//! fails the test with the interleaving that shows it and a replay token that reproduces it.
//!
//! Exploration is optimal DPOR by default (one execution per Mazurkiewicz trace), with plain
//! DFS, random and PCT as alternatives ([`Strategy`]); a reported failure is one with the
//! fewest preemptions that fails the same way. Interleavings are sequentially consistent;
//! happens-before for race detection honours the memory orderings used. Weak-memory behaviours
//! are not explored.
//!
//! ```
//! use symx::sync::atomic::{AtomicUsize, Ordering};
//! use symx::sync::Arc;
//!
//! // Under `cargo test` (or `cargo symx test`) this is a test that explores every
//! // interleaving of its threads.
//! #[symx::test]
//! fn two_increments() {
//!     increments()
//! }
//!
//! fn increments() {
//!     let n = Arc::new(AtomicUsize::new(0));
//!     let m = n.clone();
//!     let t = symx::thread::spawn(move || m.fetch_add(1, Ordering::SeqCst));
//!     n.fetch_add(1, Ordering::SeqCst);
//!     t.join().unwrap();
//!     assert_eq!(n.load(Ordering::SeqCst), 2);
//! }
//!
//! // The same exploration by hand: `#[symx::test]` runs the body with a `Builder` whose
//! // options are the attribute's arguments (`#[symx::test(preemption_bound = 2)]`, ...).
//! let report = symx::Builder::new().check(increments);
//! assert!(report.complete());
//! ```
//!
//! Layout, from the bottom: `rt` runs one execution and asks a `Chooser` at each scheduling point;
//! `builder` holds the settings and `strategy` the strategies' names; `explore` holds the
//! strategies (the choosers) and the loop over executions; `entry` holds the verbs that run one
//! (`Builder::explore`, `model`); `worker` serves `cargo symx`. The std-mirroring facade is `sync`,
//! `thread`, `cell`, `hint`; `annotate` and `wait_queue` serve user-built primitives; `sym` and
//! `trace` are the symbolic values and the trace format.

mod builder;
pub mod covering;
mod entry;
mod explore;
mod json;
mod names;
mod private;
mod replay_command;
mod report;
mod rng;
mod rt;
mod schedule;
mod strategy;
mod sym;
mod thread_local;
pub mod trace;
// cargo symx: the worker side of the driver protocol. Reached only through the hidden
// `__worker` below (not part of the API), so the API's `missing_docs` does not hold it.
#[allow(missing_docs)]
mod worker;

pub mod annotate;
pub mod cell;
pub mod context;
pub mod hint;
pub mod loom;
pub mod sync;
pub mod thread;
pub mod wait_queue;

pub use builder::{Builder, Drive, DrivenPoint, Guide, GuidedRun, DEFAULT_ITERATIONS};
pub use covering::epoch_marker;
pub use entry::model;
pub use names::UnknownName;
pub use report::{Failure, FailureKind, Report, SourceLocation, Step, StopReason};
pub use schedule::{ReplayError, Schedule};
pub use strategy::{Strategy, StrategyKind};
pub use sym::{
    any, any_named, assume, atomic_region, branch, Condition, InputValues, Shared, Sym, SymInt,
    SymValue, SymVec,
};
pub use symx_macros::{
    acquire, acquire_shared, assert, assert_eq, assert_ne, barrier_arrive, barrier_init,
    checkpoint, fragment, instrument, r#abstract, reaching_definitions, release, release_shared,
    start_here, test, try_acquire, try_acquire_shared,
};

#[doc(hidden)]
pub mod __private {
    pub use crate::private::*;
    pub use crate::replay_command::{built_with, Feature};
}

/// What `cargo symx` shares with the test binaries it drives. Not part of the API.
#[doc(hidden)]
pub mod __worker {
    pub use crate::worker::protocol;
    pub use crate::worker::report::failure as failure_report;
    pub use crate::worker::tokens;
}
