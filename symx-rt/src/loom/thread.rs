//! loom's `thread`: symx's model threads, with loom's `spawn`, which takes closures that are
//! not `Send` (a model thread is a coroutine on the test's OS thread, so nothing crosses OS
//! threads; loom's own tests move `Rc`s into threads).

pub use crate::thread::{
    current, panicking, park, yield_now, AccessError, Builder, JoinHandle, LocalKey, Thread,
    ThreadId,
};

/// Spawns a model thread running `f`, which need not be `Send` (loom's signature).
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    // SAFETY: `f` and its result are 'static.
    unsafe { crate::thread::spawn_inner(f, None, None) }
}
