//! The watchdog: notices a model thread that runs for long without reaching a scheduling point.
//!
//! Model threads are coroutines on one OS thread, so a thread that never reaches a symx
//! operation (a busy loop on no atomic, a blocking `std` call such as
//! `std::sync::OnceLock::get_or_init` waiting for another model thread, I/O) holds that OS
//! thread forever: nothing inside the execution can notice. When armed, the scheduler
//! publishes before every resumption which thread it resumes, the operation the thread is
//! about to perform and the schedule's decisions so far, and a watching OS thread calls the
//! caller's `on_stuck` when one resumption lasts longer than the limit. Unarmed (plain
//! `cargo test`, the `Builder`), the scheduler pays one relaxed load per resumption.
//!
//! The publication costs a lock of an uncontended mutex per step while armed, and saves the
//! re-run of the whole exploration that recovering the prefix of a hang would otherwise need.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::execution::Execution;
use super::op::{ObjId, OpKind, ThreadId};
use super::threads::Status;

static ARMED: AtomicBool = AtomicBool::new(false);
/// Bumped when the scheduler resumes a thread and when the thread gives control back: odd
/// while a model thread runs.
static BEAT: AtomicU64 = AtomicU64::new(0);
static SEEN: Mutex<Seen> = Mutex::new(Seen {
    generation: 0,
    thread: usize::MAX,
    label: String::new(),
    operation: None,
    decisions: Vec::new(),
});

/// An operation's kind, object (type name, id and where it was created) and location.
type LastOp = (
    OpKind,
    Option<(&'static str, ObjId, Option<&'static Location<'static>>)>,
    &'static Location<'static>,
);

/// What the scheduler published last.
struct Seen {
    generation: u32,
    thread: ThreadId,
    label: String,
    /// The operation the thread was resumed to perform: its kind, its object (type and id)
    /// and location. Formatted only when reported: this is written at every step.
    operation: Option<LastOp>,
    decisions: Vec<u32>,
}

/// A thread that ran past the limit without reaching a scheduling point.
#[derive(Clone, Debug)]
pub struct Stuck {
    /// `thread 1`, `thread 2 (worker)`.
    pub thread: String,
    /// Its last symx operation (`load AtomicBool created at once.rs:9`), when it performed one.
    pub operation: Option<String>,
    pub location: Option<crate::report::SourceLocation>,
    /// The decisions of the running execution's schedule so far (a replay prefix).
    pub decisions: Vec<u32>,
    /// How long it has run.
    pub after: Duration,
}

impl Stuck {
    /// The report: who, since where, and the two likely causes.
    pub fn message(&self) -> String {
        let since = match (&self.operation, &self.location) {
            (Some(op), Some(at)) => format!(" since its last symx operation, {op} at {at}"),
            _ => " since it started".to_string(),
        };
        format!(
            "{} ran for {:.0?} without reaching a scheduling point{since}",
            self.thread, self.after
        )
    }

    /// The likely causes, with their fixes.
    pub fn causes() -> [&'static str; 2] {
        [
            "a loop that waits without any symx operation (a busy loop on a plain variable or \
             a std atomic): make it wait on a symx atomic, and call symx::hint::spin_loop()",
            "a blocking call symx does not model (std::sync locks, OnceLock::get_or_init, \
             channels, I/O, sleep) waiting for another model thread, which cannot run while \
             this one holds the test's OS thread: use the symx::sync equivalent",
        ]
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts watching (once per process): `on_stuck` is called from the watching thread when a
/// model thread has run for `limit` without reaching a scheduling point. It is not expected
/// to return (the stuck thread cannot be stopped); if it does, watching ends.
pub(crate) fn arm(limit: Duration, on_stuck: impl FnOnce(Stuck) + Send + 'static) {
    if ARMED.swap(true, Ordering::Relaxed) {
        return;
    }
    let poll = (limit / 4).clamp(Duration::from_millis(10), Duration::from_millis(250));
    let watch = move || {
        let mut last = BEAT.load(Ordering::Relaxed);
        let mut since = Instant::now();
        loop {
            std::thread::sleep(poll);
            let beat = BEAT.load(Ordering::Relaxed);
            if beat != last || beat.is_multiple_of(2) {
                last = beat;
                since = Instant::now();
            } else if since.elapsed() >= limit {
                return on_stuck(snapshot(since.elapsed()));
            }
        }
    };
    std::thread::Builder::new()
        .name("symx-watchdog".into())
        .spawn(watch)
        .expect("symx: cannot start the watchdog thread");
}

fn snapshot(after: Duration) -> Stuck {
    let seen = lock(&SEEN);
    Stuck {
        thread: seen.label.clone(),
        operation: seen.operation.map(|(kind, obj, _)| match obj {
            Some((name, _, Some(created))) => {
                format!(
                    "{kind} {name} created at {}",
                    super::objects::place(created)
                )
            }
            Some((name, id, None)) => format!("{kind} {name}#{id}"),
            None => kind.to_string(),
        }),
        location: seen.operation.map(|(_, _, at)| at.into()),
        decisions: seen.decisions.clone(),
        after,
    }
}

/// The scheduler is about to resume thread `t` of `e`.
pub(crate) fn resuming(e: &Execution, t: ThreadId) {
    if !ARMED.load(Ordering::Relaxed) {
        return;
    }
    let mut seen = lock(&SEEN);
    if seen.generation != e.objects.generation {
        seen.generation = e.objects.generation;
        seen.decisions.clear();
        seen.thread = usize::MAX;
    }
    let known = seen.decisions.len().min(e.decisions.len());
    seen.decisions.extend_from_slice(&e.decisions[known..]);
    if seen.thread != t {
        seen.thread = t;
        seen.label = e.threads[t].label(t);
    }
    let th = &e.threads[t];
    // The operation it resumes to perform, or else the last one it performed.
    let last = match th.status {
        Status::Ready(op) => Some((op.kind, op.obj, op.location)),
        _ => th.last_event.map(|i| {
            let ev = &e.trace[i as usize];
            (ev.kind, ev.obj, ev.location)
        }),
    };
    let object = |o| (e.objects.name(o), o, e.objects.get(o).created);
    seen.operation = last.map(|(kind, obj, at)| (kind, obj.map(object), at));
    BEAT.fetch_add(1, Ordering::Relaxed);
}

/// The resumed thread gave control back to the scheduler.
pub(crate) fn returned() {
    if ARMED.load(Ordering::Relaxed) {
        BEAT.fetch_add(1, Ordering::Relaxed);
    }
}
