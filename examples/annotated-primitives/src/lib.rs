//! # Annotated primitives: synchronization built from atomics, checked by symx
//!
//! Locks and barriers that a program builds itself from atomics are invisible to a checker
//! that only knows `Mutex` and `Barrier`: it sees loads, stores and read-modify-writes, but
//! not who holds what. This crate shows how three classic primitives tell symx their meaning
//! with the annotation attributes, and what symx reports when one of them is wrong
//! (`docs/annotating-primitives.md` in the repository says more):
//!
//! | primitive | built from | annotations |
//! |---|---|---|
//! | [`SpinLock`] | test-and-set on an `AtomicBool` | `#[symx::acquire]`, `#[symx::try_acquire]`, `#[symx::release]` |
//! | [`TicketLock`] | `next_ticket` / `now_serving` counters | `#[symx::acquire]`, `#[symx::try_acquire]`, `#[symx::release]` |
//! | [`SenseBarrier`] | an arrival counter and a sense flag | `symx::annotate::barrier_init`, `#[symx::barrier_arrive]` |
//! | [`SpinMutex`] | a test-and-set flag, data inside, a guard that releases in `Drop` | `#[symx::acquire]`, `#[symx::release(self.lock)]` on the guard's `drop` |
//! | [`RawSpin`] / [`LockApiMutex`] | a test-and-set flag behind `lock_api::RawMutex` | `#[symx::acquire]`, `#[symx::try_acquire]`, `#[symx::release]` on the raw lock's methods |
//! | [`SpinRwLock`] | a reader count or a writer mark, data inside, two guards | `#[symx::acquire_shared]`, `#[symx::acquire]`, `#[symx::release_shared(self.lock)]`, `#[symx::release(self.lock)]` |
//!
//! With the annotations, symx checks each primitive's contract in every interleaving it
//! explores: an acquire that succeeds while another thread holds the lock ("mutual exclusion
//! is broken"), a release of a lock the thread does not hold, and a thread leaving a barrier
//! before every party arrived are reported as [`symx::FailureKind::Misuse`]; threads spinning
//! on a lock whose holder is stuck are a [`symx::FailureKind::Deadlock`]. The annotations do
//! not create happens-before: that comes from the orderings of the atomics, so a primitive
//! with a too-weak ordering still shows up as a data race on the data it protects.
//!
//! Two consequences of where the annotations take effect, worth knowing when reading a report:
//!
//! - A second holder is seen when its `#[symx::acquire]` call returns while the first holder
//!   has not yet *called* its `#[symx::release]` method (the release counts from the start of
//!   the call). A broken lock that lets a thread in after that point, but before the releasing
//!   store, is no misuse; nothing orders the two critical sections then, so it shows up as a
//!   data race on the protected data instead.
//! - Likewise a thread counts as arrived at a barrier when its `#[symx::barrier_arrive]` call
//!   begins, so a thread let out after every party *called* `wait` is no misuse, but it may
//!   race with what a late party wrote before arriving.
//!
//! [`broken`] holds one wrong variant of each primitive, with a doc comment naming its bug;
//! the tests show that symx finds each bug with the expected kind and that the reported
//! schedule replays to the same failure.
//!
//! Every spin loop calls [`symx::hint::spin_loop`]: it is a scheduling point at which the
//! spinning thread gives way to the others. Without it, a spin is an unbounded run of loads
//! and exhaustive exploration cannot end.
//!
//! ## Running it
//!
//! From the workspace root:
//!
//! ```sh
//! cargo test -p annotated-primitives
//! ```
//!
//! Outside a symx exploration (say, in a plain `#[test]` or in production code) the atomics
//! behave like std's and the annotations do nothing, so the primitives also work as ordinary
//! (if slow to build) locks and barriers.

pub mod broken;
mod raw_spin;
mod rw_lock;
mod sense_barrier;
mod spin_lock;
mod spin_mutex;
mod ticket_lock;

pub use raw_spin::{LockApiMutex, RawSpin};
pub use rw_lock::{ReadGuard, SpinRwLock, WriteGuard};
pub use sense_barrier::SenseBarrier;
pub use spin_lock::SpinLock;
pub use spin_mutex::{SpinMutex, SpinMutexGuard};
pub use ticket_lock::TicketLock;
