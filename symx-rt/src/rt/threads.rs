//! Model threads as the runtime sees them: status, clocks, and what each is blocked on.
//!
//! The coroutines that run them belong to the scheduler; this module owns only their state.

use std::panic::Location;

use corosensei::Yielder;

use super::clock::VClock;
use super::op::{ObjId, Op, ThreadId};

/// Where a thread is in its life, from the scheduler's point of view.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Status {
    /// Spawned or woken without a pending operation: runs (invisibly) to its next visible one
    /// before the next scheduling decision.
    Fresh,
    /// Stopped at a visible operation; runnable when the operation is enabled.
    Ready(Op),
    /// In a wait queue, named by `key` (an address), until notified.
    Waiting(Wait),
    /// Executing now.
    Running,
    /// Returned from its closure.
    Finished,
    /// An `assume` failed in it: it never runs again, and the execution will be discarded.
    Assumed,
}

/// A thread's entry in the global wait queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wait {
    pub key: usize,
    pub obj: ObjId,
    /// What the thread does when woken: retry an operation (a scheduling point) or run on.
    pub wake: Option<Op>,
    /// A condvar waiter may wake spuriously (when the Builder allows it).
    pub spurious: bool,
    /// A wait with a timeout (`wait_timeout`, `park_timeout`): when no thread can run, time
    /// passes and it times out instead of deadlocking.
    pub timeout: bool,
    pub location: &'static Location<'static>,
    /// What it waits for, for deadlock reports (`a notify on Condvar created at queue.rs:14`).
    pub what: &'static str,
}

pub(crate) struct Thread {
    pub name: Option<String>,
    /// A name for the thread that is the same in every execution: a hash of its spawn path
    /// (the main thread, its 2nd child, that one's 1st child, ...). Thread ids are given in
    /// spawn order, which differs between executions when two threads spawn concurrently.
    pub key: u64,
    /// Threads this one has spawned so far.
    pub spawned: u32,
    pub status: Status,
    pub clock: VClock,
    /// Clocks read by relaxed loads, taken by the next acquire fence.
    pub fence_acquire: VClock,
    /// The clock at the last release fence, published by relaxed stores.
    pub fence_release: VClock,
    /// Gave way with `yield_now`/`spin_loop` and has not been passed by another thread since.
    pub yielded: bool,
    /// The step (trace index) that let this thread run again after it gave way: a step of
    /// another thread that changed something, or the last step before every runnable thread
    /// had given way (a new round). Taken by the thread's next event (`Event::let_go`).
    pub let_go: Option<u32>,
    /// Woke spuriously and no other thread has taken a step since: offering another spurious
    /// wake-up would only repeat the same states forever.
    pub spurious_used: bool,
    /// Inside a `#[symx::acquire]` call (spinning on its lock, typically).
    pub acquiring: Option<Acquiring>,
    pub park_token: bool,
    /// Woken from a timed wait because it timed out (see `Wait::timeout`); read and cleared
    /// by the waiter.
    pub timed_out: bool,
    pub yielder: *const Yielder<(), ()>,
    /// Events that must precede this thread's next event (see `Event::enablers`).
    pub after: super::op::Enablers,
    /// Index of this thread's latest event in the trace.
    pub last_event: Option<u32>,
    /// The atomic operation this thread is about to take drops its result (see
    /// `sync::blind`): taken by that operation's step.
    pub blind_next: bool,
    /// The final clock, taken by `join`.
    pub exit_clock: Option<VClock>,
    /// The stack size `thread::Builder::stack_size` asked for, then (once its coroutine
    /// exists) the size it got.
    pub stack_size: Option<usize>,
    /// Held at an epoch marker at a boundary: may pass it now (see `rt::epochs`).
    pub epoch_pass: bool,
    /// Passed an epoch marker since the instrumented code last asked (`symx::covering`'s
    /// havoc of the loop's state).
    pub crossed: bool,
    /// Inside this many calls of `#[symx::r#abstract]` functions: nothing it does on symbolic
    /// values is recorded (see `covering::abstraction`).
    pub abstracting: u32,
    /// Accessed a symx object without a scheduling point (an `UnsafeCell`): with
    /// `last_event`, whether the model saw the thread do anything at all.
    pub accessed: bool,
    /// Stopped at the checkpoint of the context being explored, waiting for the prefix to
    /// end (see `prefix`).
    pub parked: bool,
    /// Has passed that checkpoint once: later passes are not the context.
    pub reached: bool,
}

/// The main thread's runtime id: the thread that runs the body.
pub(crate) const MAIN: ThreadId = 0;

/// The spawn-path key of the main thread ([`MAIN`]).
pub(crate) const MAIN_KEY: u64 = 0x9e37_79b9_7f4a_7c15;

/// The key of the `n`-th child of the thread with key `parent`.
pub(crate) fn child_key(parent: u64, n: u32) -> u64 {
    let mut z = parent ^ (n as u64 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 30)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Thread {
    /// Thread `id`, starting from the clock `parent` (its spawner's; empty for the main one).
    pub fn new(id: ThreadId, parent: &VClock, name: Option<String>) -> Self {
        let mut clock = VClock::copy_of(parent);
        clock.tick(id);
        Thread {
            name,
            key: MAIN_KEY,
            spawned: 0,
            status: Status::Fresh,
            clock,
            fence_acquire: VClock::spare(),
            fence_release: VClock::spare(),
            yielded: false,
            let_go: None,
            spurious_used: false,
            acquiring: None,
            park_token: false,
            timed_out: false,
            yielder: std::ptr::null(),
            after: super::op::Enablers::new(),
            last_event: None,
            blind_next: false,
            exit_clock: None,
            stack_size: None,
            epoch_pass: false,
            crossed: false,
            abstracting: 0,
            accessed: false,
            parked: false,
            reached: false,
        }
    }

    /// Gives the thread's clocks back for the threads of later executions (in place: moving
    /// a thread out of its table copies it whole).
    pub fn recycle(&mut self) {
        std::mem::take(&mut self.clock).recycle();
        std::mem::take(&mut self.fence_acquire).recycle();
        std::mem::take(&mut self.fence_release).recycle();
        if let Some(c) = self.exit_clock.take() {
            c.recycle();
        }
    }

    /// Made no operation the model sees: the code it ran is not under the model's control
    /// (it uses `std::sync`, or is plain code).
    pub fn is_idle(&self) -> bool {
        self.last_event.is_none() && !self.accessed
    }

    pub fn is_finished(&self) -> bool {
        matches!(self.status, Status::Finished)
    }

    /// `thread 2 ("worker")`: how reports name a thread.
    pub fn label(&self, id: ThreadId) -> String {
        match &self.name {
            Some(n) => format!("thread {id} ({n})"),
            None if id == 0 => "thread 0 (main)".to_string(),
            None => format!("thread {id}"),
        }
    }
}

/// An annotated acquisition in progress: which lock, in which mode, called from where.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Acquiring {
    pub obj: ObjId,
    pub location: &'static Location<'static>,
    /// `#[symx::acquire_shared]`: only a writer keeps the thread waiting.
    pub shared: bool,
}
