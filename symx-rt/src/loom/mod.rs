//! `symx::loom`: loom 0.7's public API over symx, so that a crate's loom tests run under symx
//! by changing one dependency line (`loom = { path = ".../symx-loom" }`, a package named `loom`
//! whose root is this module; see `docs/coming-from-loom.md`).
//!
//! Each loom path maps onto the symx item that does the same job; where loom's shape differs
//! from std's (and so from the rest of symx), the difference lives here and nowhere else:
//!
//! | loom | here |
//! |---|---|
//! | `model`, `model::Builder` (its public fields, `LOOM_*` variables) | [`model`](mod@model): maps the fields onto [`crate::Builder`] |
//! | `thread` (`spawn` takes closures that are not `Send`) | [`thread`]: symx's model threads |
//! | `sync` (+ `Notify`), `sync::atomic`, `sync::mpsc` | [`sync`]: symx's, plus loom's `Notify` |
//! | `cell::{UnsafeCell, ConstPtr, MutPtr, Cell}` | [`cell`]: `get`/`get_mut` as guards that span the access |
//! | `alloc::{alloc, alloc_zeroed, dealloc, Layout, Track}` | [`alloc`]: tracked by the leak check |
//! | `future::{block_on, AtomicWaker}` | [`future`] |
//! | `lazy_static!`, `lazy_static::Lazy`, `thread_local!` | [`lazy_static`](mod@lazy_static), symx's `thread_local!` |
//! | `hint`, `explore`, `skip_branch`, `stop_exploring`, `MAX_THREADS` | [`hint`], [`explore`](fn@explore) and the rest below |
//!
//! What symx does differently (sequentially consistent interleavings; everything explored
//! whatever `stop_exploring` says) is said in the items' docs and in
//! `docs/coming-from-loom.md`.

pub mod alloc;
pub mod cell;
pub mod future;
pub mod hint;
pub mod lazy_static;
pub mod model;
pub mod sync;
pub mod thread;

mod explore;

pub use self::explore::{explore, skip_branch, stop_exploring};
#[doc(inline)]
pub use self::model::model;
pub use crate::__loom_lazy_static as lazy_static;
pub use crate::thread_local;

/// loom's limit on threads per model, including the main thread: kept for code that sizes
/// per-thread arrays by it. symx itself has no such limit.
pub const MAX_THREADS: usize = 5;
