//! `symx::thread`: model threads with std's API. Spawning is not a scheduling point; joining a
//! thread that has not finished waits for it; `yield_now` lets other threads run first.

use std::marker::PhantomData;
use std::panic::Location;
use std::sync::{Arc, Mutex as StdMutex};

use crate::rt::{self, spawn as rt_spawn, OpKind};

pub use crate::thread_local::{AccessError, LocalKey};
pub use std::thread::{panicking, Result};

/// Identifies a model thread within its execution (the main thread is 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadId(usize);

impl ThreadId {
    /// The thread's index in its execution, as reports number it.
    pub fn as_usize(self) -> usize {
        self.0
    }
}

/// A handle to a model thread.
#[derive(Clone, Debug)]
pub struct Thread {
    id: ThreadId,
    name: Option<Arc<str>>,
}

impl Thread {
    /// The thread's id, unique within the execution.
    pub fn id(&self) -> ThreadId {
        self.id
    }

    /// The thread's name, if it was given one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Gives the thread its unpark token, waking it if it is parked (a scheduling point).
    #[track_caller]
    pub fn unpark(&self) {
        rt_spawn::unpark(self.id.0, Location::caller());
    }
}

/// The thread that calls it.
pub fn current() -> Thread {
    let id = rt::current_thread().expect("symx::thread::current called outside a symx model");
    let name = rt::with(|e| e.threads[id].name.clone()).flatten();
    Thread {
        id: ThreadId(id),
        name: name.map(Arc::from),
    }
}

/// Blocks until the thread's unpark token is available, then consumes it.
#[track_caller]
pub fn park() {
    rt_spawn::park(Location::caller());
}

/// Blocks until the thread's unpark token is available or the timeout elapses. Time does not
/// pass in a model: the timeout is a wake-up the explorer chooses, so both a timed-out return
/// and one after an unpark are explored.
#[track_caller]
pub fn park_timeout(_dur: std::time::Duration) {
    rt_spawn::park_timeout(Location::caller());
}

/// A scheduling point at which other threads run first if they can.
#[track_caller]
pub fn yield_now() {
    rt::visible(OpKind::Yield, None, Location::caller());
}

/// Time does not pass in a model: sleeping is yielding.
#[track_caller]
pub fn sleep(_: std::time::Duration) {
    yield_now();
}

/// An owned permission to join a thread.
#[derive(Debug)]
pub struct JoinHandle<T> {
    thread: Thread,
    result: Arc<StdMutex<Option<T>>>,
}

impl<T> JoinHandle<T> {
    /// Waits for the thread to finish and returns its result. A panic in any model thread
    /// fails the execution, so an `Err` is never returned.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        rt_spawn::join(self.thread.id.0, Location::caller());
        let value = self.result.lock().expect("result slot").take();
        Ok(value.expect("a joined thread has stored its result"))
    }

    /// The thread this handle joins.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    /// Whether the thread has finished (a scheduling point: it observes another thread).
    #[track_caller]
    pub fn is_finished(&self) -> bool {
        rt::visible(OpKind::Yield, None, Location::caller());
        rt::with(|e| e.threads[self.thread.id.0].is_finished()).unwrap_or(true)
    }
}

/// Spawns a model thread.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Builder::new()
        .spawn(f)
        .expect("spawning a model thread cannot fail")
}

/// Thread factory, for naming threads.
#[derive(Debug, Default)]
pub struct Builder {
    name: Option<String>,
    stack_size: Option<usize>,
}

impl Builder {
    /// A builder for an unnamed thread.
    pub fn new() -> Self {
        Builder::default()
    }

    /// Names the thread (reports show the name).
    pub fn name(mut self, name: String) -> Self {
        self.name = Some(name);
        self
    }

    /// The thread's stack size in bytes. A model thread's stack is the larger of this and
    /// `symx::Builder::stack_size` (256 KiB by default), since symx's own bookkeeping runs on
    /// it too; a thread that overflows it is reported as a failure of kind `stack-overflow`.
    pub fn stack_size(mut self, size: usize) -> Self {
        self.stack_size = Some(size);
        self
    }

    /// Spawns a model thread with these settings; never fails.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> std::io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        // SAFETY: `f` is 'static.
        Ok(unsafe { spawn_inner(f, self.name, self.stack_size) })
    }

    /// Spawns a model thread in `scope` with these settings; never fails.
    #[track_caller]
    pub fn spawn_scoped<'scope, 'env, F, T>(
        self,
        scope: &'scope Scope<'scope, 'env>,
        f: F,
    ) -> std::io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        // SAFETY: the scope joins the thread before the borrowed data goes away.
        let handle = unsafe { spawn_inner(f, self.name, self.stack_size) };
        scope
            .spawned
            .lock()
            .expect("scope list")
            .push(handle.thread.id.0);
        Ok(ScopedJoinHandle {
            inner: handle,
            _scope: PhantomData,
        })
    }
}

/// # Safety
/// Whatever `f` borrows must outlive the thread.
pub(crate) unsafe fn spawn_inner<'a, F, T>(
    f: F,
    name: Option<String>,
    stack_size: Option<usize>,
) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'a,
    T: 'a,
{
    let result = Arc::new(StdMutex::new(None));
    let slot = result.clone();
    let body: Box<dyn FnOnce() + 'a> = Box::new(move || {
        let value = f();
        *slot.lock().expect("result slot") = Some(value);
    });
    // SAFETY: forwarded from the caller.
    let id = unsafe { rt_spawn::spawn(body, name.clone(), stack_size) };
    JoinHandle {
        thread: Thread {
            id: ThreadId(id),
            name: name.map(Arc::from),
        },
        result,
    }
}

/// A scope for threads that borrow from the enclosing function (`thread::scope`).
pub struct Scope<'scope, 'env: 'scope> {
    spawned: StdMutex<Vec<usize>>,
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<&'env mut &'env ()>,
}

impl<'scope> Scope<'scope, '_> {
    /// Spawns a model thread in the scope: it may borrow from outside the scope, and is
    /// joined when the scope ends if it was not before.
    #[track_caller]
    pub fn spawn<F, T>(&'scope self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        Builder::new()
            .spawn_scoped(self, f)
            .expect("spawning a model thread cannot fail")
    }
}

/// A handle to a scoped thread.
#[derive(Debug)]
pub struct ScopedJoinHandle<'scope, T> {
    inner: JoinHandle<T>,
    _scope: PhantomData<&'scope ()>,
}

impl<T> ScopedJoinHandle<'_, T> {
    /// Waits for the thread to finish and returns its result (see [`JoinHandle::join`]).
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        self.inner.join()
    }

    /// The thread this handle joins.
    pub fn thread(&self) -> &Thread {
        self.inner.thread()
    }
}

/// Runs `f` with a scope whose threads may borrow local data; every thread spawned in it is
/// joined before `scope` returns.
#[track_caller]
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
{
    let at = Location::caller();
    let scope = Scope {
        spawned: StdMutex::new(Vec::new()),
        _scope: PhantomData,
        _env: PhantomData,
    };
    let result = f(&scope);
    let spawned = std::mem::take(&mut *scope.spawned.lock().expect("scope list"));
    rt_spawn::join_all(spawned, at);
    result
}
