//! loom's `thread`: symx's model threads, with loom's `spawn`, which takes closures that are
//! not `Send` (a model thread is a coroutine on the test's OS thread, so nothing crosses OS
//! threads; loom's own tests move `Rc`s into threads), and loom's `Builder`, whose stack size
//! counts words where std's counts bytes.

pub use crate::thread::{
    current, panicking, park, yield_now, AccessError, JoinHandle, LocalKey, Thread, ThreadId,
};

/// loom's thread factory: a name and a stack size, as [`crate::thread::Builder`], except for
/// the unit of [`Builder::stack_size`].
#[derive(Debug)]
pub struct Builder {
    name: Option<String>,
    stack_size: Option<usize>,
}

impl Builder {
    /// A builder for an unnamed thread (loom's, like std's, has no `Default`).
    #[allow(clippy::new_without_default)]
    pub fn new() -> Builder {
        Builder {
            name: None,
            stack_size: None,
        }
    }

    /// Names the thread (reports show the name).
    pub fn name(mut self, name: String) -> Builder {
        self.name = Some(name);
        self
    }

    /// The thread's stack size in `usize` words, as loom 0.7 gives it. loom documents bytes
    /// but hands the number to its coroutine library, which counts words, and tests written
    /// against loom size their stacks by what ran (loom's own `thread_stack_size` asks for
    /// `2 * 65536` and puts a 512 KiB array on the stack). symx gives the same room, so such a
    /// test passes here as it does under loom; `symx::thread::Builder::stack_size` counts
    /// bytes, as std's does.
    pub fn stack_size(mut self, words: usize) -> Builder {
        self.stack_size = Some(words.saturating_mul(std::mem::size_of::<usize>()));
        self
    }

    /// Spawns a model thread with these settings; never fails.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> std::io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let mut builder = crate::thread::Builder::new();
        if let Some(name) = self.name {
            builder = builder.name(name);
        }
        if let Some(bytes) = self.stack_size {
            builder = builder.stack_size(bytes);
        }
        builder.spawn(f)
    }
}

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
