//! The life of a model thread: spawn, exit, join, park and unpark.
//!
//! Spawning is not a scheduling point (a new thread's code is invisible until its first
//! visible operation), and neither is joining a finished thread; a join that must wait sits in
//! the wait queue under the thread's exit key and runs on when the thread ends.

use crate::sym::notes::Local;
use std::any::Any;
use std::panic::Location;

use super::clock::VClock;
use super::execution::{with, Found};
use super::op::{ObjId, OpKind, ThreadId};
use super::threads::{Thread, Wait};
use super::{panic_hook, switch};
use crate::report::kind::FailureKind;

/// Wait-queue keys of threads: addresses no object can have (the top of the address space).
fn exit_key(t: ThreadId) -> usize {
    usize::MAX - 2 * t
}

/// The thread (of `threads`) whose end the wait-queue `key` waits for, if it is a join's.
pub(crate) fn joined_thread(key: usize, threads: usize) -> Option<ThreadId> {
    (0..threads).find(|&t| exit_key(t) == key)
}

fn park_key(t: ThreadId) -> usize {
    usize::MAX - 2 * t - 1
}

/// Creates a model thread that runs `f`; it starts at the next scheduling decision.
///
/// # Safety
/// `f` may borrow data that the caller guarantees outlives the thread (scoped threads).
pub(crate) unsafe fn spawn<'a>(
    f: Box<dyn FnOnce() + 'a>,
    name: Option<String>,
    stack_size: Option<usize>,
) -> ThreadId {
    // SAFETY: per the contract, the borrowed data outlives the thread, and a thread that is torn
    // down is never resumed.
    let f: Box<dyn FnOnce() + 'static> = unsafe { std::mem::transmute(f) };
    with(|e| {
        let id = e.threads.len();
        let me = e.current;
        let mut child = Thread::new(id, &e.threads[me].clock, name);
        child.stack_size = stack_size;
        child.key = super::threads::child_key(e.threads[me].key, e.threads[me].spawned);
        e.threads[me].spawned += 1;
        // The child comes after everything its parent's next event would come after.
        child.after = e.frontier(me);
        e.threads.push(child);
        e.threads[me].clock.tick(me);
        e.spawns.push((id, f));
        e.note_local(Local::Spawn { child: id }, None);
        id
    })
    .expect("symx::thread::spawn called outside a symx model; run the code under #[symx::test] or symx::model")
}

/// Called by a thread's coroutine when its closure returned or panicked.
pub(crate) fn thread_finished(id: ThreadId, panic: Option<Box<dyn Any + Send>>) {
    if let Some(payload) = panic {
        let info = panic_hook::take();
        let message = info.as_ref().map(|i| i.message.clone()).unwrap_or_default();
        with(|e| {
            let label = e.threads[id].label(id);
            e.set_failure(Found {
                kind: FailureKind::Panic,
                message: format!("{label} panicked: {message}"),
                details: info
                    .as_ref()
                    .and_then(|i| i.location.as_ref())
                    .map(|l| vec![format!("panicked at {l}")])
                    .unwrap_or_default(),
                location: info.and_then(|i| i.location),
                thread: Some(id),
            })
        });
        // A payload whose own Drop panics must not take the process down with it.
        std::mem::forget(payload);
    } else {
        super::locals::thread_exit(id);
    }
    with(|e| {
        e.note_local(Local::Exit, None);
        let th = &mut e.threads[id];
        th.status = super::threads::Status::Finished;
        th.exit_clock = Some(VClock::copy_of(&th.clock));
    });
    switch::notify(exit_key(id), true);
}

/// Waits until thread `t` has finished and takes its final clock (join happens-before).
pub(crate) fn join(t: ThreadId, at: &'static Location<'static>) {
    let done = wait_finished(t, at);
    with(|e| {
        let me = e.current;
        if let Some(clock) = e.threads[t].exit_clock.take() {
            e.threads[me].clock.join(&clock);
            e.threads[t].exit_clock = Some(clock);
        }
        if done {
            e.joined_in_step(t);
            e.add_frontier(me, t);
        }
        e.note_local(Local::Join { child: t }, Some(at));
    });
}

/// Waits until thread `t` has finished; whether it already had.
fn wait_finished(t: ThreadId, at: &'static Location<'static>) -> bool {
    let done = with(|e| e.threads[t].is_finished()).unwrap_or(true);
    if !done {
        let obj = thread_obj(t);
        switch::wait(Wait {
            key: exit_key(t),
            obj,
            wake: None,
            spurious: false,
            timeout: false,
            location: at,
            what: "the thread to finish",
        });
    }
    done
}

/// The end of `thread::scope`: joins every thread it spawned, in spawn order. In a run cut
/// into bounded epochs it *joins on all threads* (Bergan, dissertation §3.8: lu and radix
/// were changed so), as std's scope waits on a count: it waits until all have finished and
/// only then joins them, so which of them happened to finish before an epoch boundary does
/// not change what the scope's thread does in which epoch (with symbolic thread ids the
/// epochs of both ways are one; the schedule does not order these joins among themselves).
pub(crate) fn join_all(ids: Vec<ThreadId>, at: &'static Location<'static>) {
    if with(|e| e.epochs.is_some()).unwrap_or(false) {
        for &t in &ids {
            wait_finished(t, at);
        }
    }
    for t in ids {
        join(t, at);
    }
}

/// The object that stands for thread `t` in reports and in the trace.
fn thread_obj(t: ThreadId) -> ObjId {
    with(|e| e.objects.by_address(exit_key(t), "Thread")).unwrap_or(0)
}

/// `thread::park`: consumes the unpark token, or waits for one.
pub(crate) fn park(at: &'static Location<'static>) {
    park_or_time_out(at, false)
}

/// `thread::park_timeout`: as [`park`], but when there is no token the explorer may also let
/// the wait time out (a choice: time does not pass in a model).
pub(crate) fn park_timeout(at: &'static Location<'static>) {
    park_or_time_out(at, true)
}

fn park_or_time_out(at: &'static Location<'static>, timeout: bool) {
    let Some(me) = switch::current_thread() else {
        return;
    };
    let obj = thread_obj(me);
    switch::visible(OpKind::Park, Some(obj), at);
    let has_token = with(|e| std::mem::take(&mut e.threads[me].park_token)).unwrap_or(true);
    let timed_out = !has_token && timeout && switch::choose(2) == 1;
    if !has_token && !timed_out {
        switch::wait(Wait {
            key: park_key(me),
            obj,
            wake: None,
            spurious: false,
            timeout,
            location: at,
            what: "an unpark",
        });
        with(|e| {
            e.threads[me].park_token = false;
            e.threads[me].timed_out = false;
        });
    }
    with(|e| e.acquire_from(obj, std::sync::atomic::Ordering::SeqCst));
}

/// `Thread::unpark`: gives `t` its token and wakes it if it is parked.
pub(crate) fn unpark(t: ThreadId, at: &'static Location<'static>) {
    let obj = thread_obj(t);
    switch::visible(OpKind::Unpark, Some(obj), at);
    with(|e| {
        e.threads[t].park_token = true;
        e.release_to(obj, std::sync::atomic::Ordering::SeqCst, true);
    });
    if switch::notify(park_key(t), true).is_empty() {
        switch::record_outcome(super::op::Outcome::TokenSet);
    }
}
