//! Failures that only the scheduler can see, and how an execution is shown in reports:
//! deadlock (including threads spinning on annotated locks held by blocked threads), the step
//! limit, and the rendering of the trace as numbered steps.

use std::collections::{BTreeMap, HashSet};

use super::execution::{Execution, Found};
use super::op::{Op, OpKind, ThreadId};
use super::threads::{Acquiring, Status};
use crate::report::kind::FailureKind;
use crate::report::step::{SourceLocation, Step};

/// A deadlock: no thread can make progress while some have not finished.
///
/// With no enabled thread at all this is the classic definition. Threads spinning inside an
/// annotated acquire call are enabled but cannot progress while a holder that excludes them
/// cannot release: they count as blocked when such a holder is itself stuck or has finished
/// (a thread that spins in an acquire is taken to do nothing else until it gets the lock).
pub(crate) fn deadlock(e: &Execution, enabled: &[(ThreadId, Op)]) -> Option<Found> {
    // Checked at every step: the common case (someone enabled who is not spinning) first.
    let spinning = |t: ThreadId| e.threads[t].acquiring.is_some();
    if !enabled.iter().all(|&(t, _)| spinning(t)) {
        return None;
    }
    let unfinished: Vec<ThreadId> = (0..e.threads.len())
        .filter(|&t| !e.threads[t].is_finished())
        .collect();
    if unfinished.is_empty() {
        return None;
    }
    let is_enabled = |t: ThreadId| enabled.iter().any(|&(u, _)| u == t);
    let mut stuck: HashSet<ThreadId> = unfinished.iter().copied().collect();
    loop {
        let before = stuck.len();
        let snapshot = stuck.clone();
        let cannot_release = |h: ThreadId| snapshot.contains(&h) || e.threads[h].is_finished();
        stuck.retain(|&t| {
            let progresses = is_enabled(t)
                && match e.threads[t].acquiring {
                    None => true,
                    Some(a) => !excluding_holders(e, t, a).any(cannot_release),
                };
            !progresses
        });
        if stuck.len() == before {
            break;
        }
    }
    if stuck.len() < unfinished.len() {
        return None;
    }
    let blocked: Vec<String> = unfinished.iter().map(|t| t.to_string()).collect();
    Some(Found {
        kind: FailureKind::Deadlock,
        message: format!(
            "no thread can make progress (blocked: thread {})",
            blocked.join(", ")
        ),
        details: (0..e.threads.len()).map(|t| describe(e, t)).collect(),
        location: None,
        thread: None,
    })
}

/// The threads other than `t` whose hold on the lock `t` is acquiring keeps it waiting: the
/// writer, and the readers too when `t` wants it exclusively.
fn excluding_holders<'e>(
    e: &'e Execution,
    t: ThreadId,
    a: Acquiring,
) -> impl Iterator<Item = ThreadId> + 'e {
    let lock = e.objects.get(a.obj).lock.as_ref();
    let writer = lock.and_then(|l| l.writer).map(|(w, _)| w);
    let readers = lock
        .filter(|_| !a.shared)
        .map_or(&[][..], |l| l.readers.as_slice());
    writer
        .into_iter()
        .chain(readers.iter().copied())
        .filter(move |&h| h != t)
}

/// One line per thread: what it is doing or waiting for, and where.
pub(crate) fn describe(e: &Execution, t: ThreadId) -> String {
    let th = &e.threads[t];
    let who = th.label(t);
    let held_by = |obj| match e.holder(obj) {
        Some((h, at)) => format!(", held by {} since {at}", e.threads[h].label(h)),
        None => ", which no thread holds".to_string(),
    };
    if let Some(a) = th.acquiring {
        let readers =
            excluding_holders(e, t, a).filter(|&h| e.holder(a.obj).is_none_or(|(w, _)| w != h));
        let readers: Vec<String> = readers.map(|r| e.threads[r].label(r)).collect();
        let held = if readers.is_empty() {
            held_by(a.obj)
        } else {
            format!(", held shared by {}", readers.join(", "))
        };
        return format!(
            "{who}: spins acquiring {}{} at {}{held}",
            e.objects.label(a.obj),
            if a.shared { " shared" } else { "" },
            a.location,
        );
    }
    match th.status {
        Status::Finished => format!("{who}: finished"),
        Status::Assumed => format!("{who}: stopped by a failed assumption"),
        Status::Ready(op) => match op.obj {
            Some(obj) if !e.is_enabled(&op) => format!(
                "{who}: waits to {} {} at {}{}",
                op.kind,
                e.objects.label(obj),
                op.location,
                held_by(obj)
            ),
            _ => format!("{who}: about to {} at {}", op.kind, op.location),
        },
        Status::Waiting(w) => match super::spawn::joined_thread(w.key, e.threads.len()) {
            Some(j) => format!(
                "{who}: waits for {} to finish (join) at {}",
                e.threads[j].label(j),
                w.location
            ),
            None => format!(
                "{who}: waits for {} on {} at {}",
                w.what,
                e.objects.label(w.obj),
                w.location
            ),
        },
        Status::Fresh | Status::Running => format!("{who}: running"),
    }
}

/// The step limit was exceeded: say who kept running, and where.
pub(crate) fn step_limit(e: &Execution) -> Found {
    let window = e.trace.len().saturating_sub(200);
    let mut per_thread: BTreeMap<ThreadId, BTreeMap<String, usize>> = BTreeMap::new();
    for ev in &e.trace[window..] {
        let obj = ev
            .obj
            .map(|o| format!(" {}", e.objects.label(o)))
            .unwrap_or_default();
        let what = format!("{}{obj} at {}", ev.kind, ev.location);
        *per_thread
            .entry(ev.thread)
            .or_default()
            .entry(what)
            .or_default() += 1;
    }
    let mut details: Vec<String> = per_thread
        .iter()
        .map(|(t, ops)| {
            let total: usize = ops.values().sum();
            format!(
                "{} ran {total} of the last {}{}",
                e.threads[*t].label(*t),
                count(e.trace.len() - window, "step"),
                mostly(ops)
            )
        })
        .collect();
    details.extend((0..e.threads.len()).map(|t| describe(e, t)));
    Found {
        kind: FailureKind::StepLimit,
        message: format!(
            "an execution exceeded {} steps: a livelock, or a loop that waits without \
             symx::hint::spin_loop() or thread::yield_now()",
            e.config.max_steps
        ),
        details,
        location: None,
        thread: None,
    }
}

/// What one thread's steps among the last ones were: `: yield at a.rs:3:5` (one step),
/// `, all yield at a.rs:3:5`, `, 5 of them load AtomicBool#0 at a.rs:9:13`.
fn mostly(ops: &BTreeMap<String, usize>) -> String {
    let (what, n) = ops.iter().max_by_key(|(_, n)| **n).expect("non-empty");
    match (ops.len(), *n) {
        (1, 1) => format!(": {what}"),
        (1, _) => format!(", all {what}"),
        (_, 1) => ", each a different operation".to_string(),
        _ => format!(", {n} of them {what}"),
    }
}

/// `1 step`, `2 steps`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Thread `t` ran past the end of its stack.
pub(crate) fn stack_overflow(e: &Execution, t: ThreadId) -> Found {
    let size = e.threads[t].stack_size.unwrap_or(e.config.stack_size);
    Found {
        kind: FailureKind::StackOverflow,
        message: format!(
            "{} overflowed its stack of {} KiB; give it more with \
             symx::thread::Builder::new().stack_size(BYTES), or every model thread with \
             symx::Builder::stack_size(BYTES) / #[symx::test(stack_size = BYTES)]",
            e.threads[t].label(t),
            size / 1024
        ),
        details: Vec::new(),
        location: None,
        thread: Some(t),
    }
}

/// The trace as numbered steps, every one of them (reports collapse repeats:
/// [`collapse_repeats`]).
pub(crate) fn render_steps(e: &Execution) -> Vec<Step> {
    let labels = e.objects.labels();
    e.trace
        .iter()
        .enumerate()
        .map(|(i, ev)| Step {
            index: i + 1,
            thread: ev.thread,
            thread_label: e.threads[ev.thread].label(ev.thread),
            operation: ev.kind.to_string(),
            order: ev.order.map(|o| format!("{o:?}")),
            object: ev.obj.map(|o| labels[o as usize].clone()),
            // An `AtomicBool` runs on a `u8`: its values read as the user wrote them.
            value: match ev.obj {
                Some(o) if e.objects.name(o) == "AtomicBool" => ev.value.as_bools(),
                _ => ev.value.to_string(),
            },
            location: user_site_of(e, i).unwrap_or_else(|| SourceLocation::from(ev.location)),
            omitted: 0,
        })
        .collect()
}

/// Step `i`'s line as the user reads it, when that is not its caller's (see `site`): an
/// annotated release the stack cannot place is at the thread's acquisition of the object.
fn user_site_of(e: &Execution, i: usize) -> Option<SourceLocation> {
    let (_, stack) = e.user_sites.iter().find(|(step, _)| *step == i)?;
    stack.user_site().or_else(|| {
        let ev = &e.trace[i];
        let released = matches!(
            ev.kind,
            OpKind::AnnotatedRelease | OpKind::AnnotatedReleaseShared
        );
        let obj = ev.obj.filter(|_| released)?;
        super::site::acquired_at(&e.trace[..i], ev.thread, obj).map(SourceLocation::from)
    })
}

/// Runs of at least this many identical steps are shown as their first step, one summary row
/// and their last step.
const COLLAPSE_AT: usize = 4;

/// Collapses runs of identical steps (same thread, operation, object, value and location: a
/// thread spinning): a 100,000-step spin reads as three rows, not 100,000.
pub(crate) fn collapse_repeats(steps: Vec<Step>) -> Vec<Step> {
    let same = |a: &Step, b: &Step| {
        (a.thread, &a.operation, &a.object, &a.value, &a.location)
            == (b.thread, &b.operation, &b.object, &b.value, &b.location)
    };
    let mut out: Vec<Step> = Vec::with_capacity(steps.len().min(1024));
    let mut i = 0;
    while i < steps.len() {
        let run = steps[i..].iter().take_while(|s| same(s, &steps[i])).count();
        if run >= COLLAPSE_AT {
            let last = &steps[i + run - 1];
            out.push(steps[i].clone());
            out.push(Step {
                index: steps[i + 1].index,
                omitted: (run - 2) as u64,
                ..steps[i + 1].clone()
            });
            out.push(last.clone());
        } else {
            out.extend_from_slice(&steps[i..i + run]);
        }
        i += run;
    }
    out
}
