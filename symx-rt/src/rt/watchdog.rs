//! The watchdog: notices a model thread that runs for long without reaching a scheduling point.
//!
//! Model threads are coroutines on one OS thread, so a thread that never reaches a symx
//! operation (a busy loop on no atomic, a blocking `std` call such as
//! `std::sync::OnceLock::get_or_init` waiting for another model thread, I/O) holds that OS
//! thread forever: nothing inside the execution can notice. An OS thread that explores asks to
//! be watched ([`watch_this_thread`]: the worker under `cargo symx`, and a `#[symx::test]`
//! under plain `cargo test`); its scheduler then publishes before every resumption which
//! thread it resumes, the operation the thread is about to perform and the schedule's
//! decisions so far, and one watching OS thread (for the whole process: libtest runs tests on
//! several threads at once) calls the watch's `on_stuck` when one resumption lasts longer than
//! its limit. An unwatched exploration (`Builder::explore`) pays nothing per step.
//!
//! The publication costs a lock of an uncontended mutex per step while watched, and saves the
//! re-run of the whole exploration that recovering the prefix of a hang would otherwise need.

use std::cell::RefCell;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use super::execution::Execution;
use super::op::{ObjId, OpKind, ThreadId};
use super::threads::Status;

/// What to do with a stuck thread: report it and end the process (the thread cannot be
/// stopped). Called on the watching thread.
type OnStuck = Box<dyn FnOnce(Stuck) + Send>;

/// One watched OS thread.
pub(crate) struct Watch {
    limit: Duration,
    /// Bumped when the scheduler resumes a thread and when the thread gives control back: odd
    /// while a model thread runs.
    beat: AtomicU64,
    seen: Mutex<Seen>,
    on_stuck: Mutex<Option<OnStuck>>,
    /// The watcher's view: the beat it saw last, and since when.
    last: Mutex<(u64, Instant)>,
}

thread_local! {
    /// This OS thread's watch, while it is watched.
    static CURRENT: RefCell<Option<Arc<Watch>>> = const { RefCell::new(None) };
}

/// Every watch, for the watching thread.
static WATCHES: Mutex<Vec<Weak<Watch>>> = Mutex::new(Vec::new());

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
    pub location: Option<crate::report::step::SourceLocation>,
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

/// Watches the current OS thread's explorations until the returned guard is dropped:
/// `on_stuck` is called (once, from the watching thread) when a model thread has run for
/// `limit` without reaching a scheduling point. It is not expected to return (the stuck thread
/// cannot be stopped).
pub(crate) fn watch_this_thread(
    limit: Duration,
    on_stuck: impl FnOnce(Stuck) + Send + 'static,
) -> Watching {
    let watch = Arc::new(Watch {
        limit,
        beat: AtomicU64::new(0),
        seen: Mutex::new(Seen {
            generation: 0,
            thread: usize::MAX,
            label: String::new(),
            operation: None,
            decisions: Vec::new(),
        }),
        on_stuck: Mutex::new(Some(Box::new(on_stuck))),
        last: Mutex::new((0, Instant::now())),
    });
    lock(&WATCHES).push(Arc::downgrade(&watch));
    CURRENT.with_borrow_mut(|w| *w = Some(watch));
    start_watching();
    Watching(())
}

/// While alive, the current OS thread is watched (see [`watch_this_thread`]).
pub(crate) struct Watching(());

impl Drop for Watching {
    fn drop(&mut self) {
        // The registry holds it weakly: it goes with the last strong reference.
        CURRENT.with_borrow_mut(|w| *w = None);
    }
}

/// The current OS thread's watch, if it is watched: the scheduler takes it once per execution.
pub(crate) fn current() -> Option<Arc<Watch>> {
    CURRENT.with_borrow(|w| w.clone())
}

/// Starts the watching thread (once per process): it polls every watch, often enough for the
/// shortest limit.
fn start_watching() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        std::thread::Builder::new()
            .name("symx-watchdog".into())
            .spawn(watch_all)
            .expect("symx: cannot start the watchdog thread");
    });
}

fn watch_all() {
    loop {
        let watches: Vec<Arc<Watch>> = {
            let mut all = lock(&WATCHES);
            all.retain(|w| w.strong_count() > 0);
            all.iter().filter_map(Weak::upgrade).collect()
        };
        let shortest = watches.iter().map(|w| w.limit).min();
        let poll = shortest.map_or(Duration::from_millis(250), |l| l / 4);
        for w in &watches {
            w.check();
        }
        drop(watches);
        std::thread::sleep(poll.clamp(Duration::from_millis(10), Duration::from_millis(250)));
    }
}

impl Watch {
    /// Calls `on_stuck` when a model thread has been running, one resumption, past the limit.
    fn check(&self) {
        let beat = self.beat.load(Ordering::Relaxed);
        let mut last = lock(&self.last);
        if beat != last.0 || beat.is_multiple_of(2) {
            *last = (beat, Instant::now());
        } else if last.1.elapsed() >= self.limit {
            let after = last.1.elapsed();
            drop(last);
            if let Some(on_stuck) = lock(&self.on_stuck).take() {
                on_stuck(self.snapshot(after));
            }
        }
    }

    fn snapshot(&self, after: Duration) -> Stuck {
        let seen = lock(&self.seen);
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
    pub(crate) fn resuming(&self, e: &Execution, t: ThreadId) {
        let mut seen = lock(&self.seen);
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
        self.beat.fetch_add(1, Ordering::Relaxed);
    }

    /// The resumed thread gave control back to the scheduler.
    pub(crate) fn returned(&self) {
        self.beat.fetch_add(1, Ordering::Relaxed);
    }
}
