//! Symx objects touched by an OS thread that symx did not spawn (`std::thread::spawn` inside a
//! `#[symx::test]`). Such a thread has no execution of its own, so its operations fall back to
//! the object's plain behaviour and the model never sees them: the exploration would be a
//! false proof. The access is posted here, and the scheduler fails the execution that owns the
//! object with kind `misuse` at its next step.
//!
//! An object belongs to a running execution when its identity slot carries that execution's
//! generation; objects of other (ordinary) tests running on other OS threads never do, so they
//! are not flagged. The model's fast path pays one relaxed load of [`PENDING`] per step.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::execution::Found;
use super::objects::ObjRef;
use crate::report::kind::FailureKind;

/// Generations of the executions running now, in any OS thread of the process.
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());
/// Misuses found, each with the generation of the execution it belongs to.
static POSTED: Mutex<Vec<(u32, Found)>> = Mutex::new(Vec::new());
/// Something is in `POSTED`: the only thing the scheduler reads per step.
static PENDING: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Marks execution `generation` as running until the guard drops.
pub(crate) struct Live(u32);

impl Live {
    pub fn new(generation: u32) -> Live {
        lock(&LIVE).push(generation);
        Live(generation)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        lock(&LIVE).retain(|&g| g != self.0);
        let mut posted = lock(&POSTED);
        posted.retain(|(g, _)| *g != self.0);
        PENDING.store(!posted.is_empty(), Ordering::Relaxed);
    }
}

/// Called where an operation on `obj` found no execution on this OS thread: if the object
/// belongs to a running execution, that execution fails with a misuse naming `type_name` and
/// `location`.
pub(crate) fn check(obj: &ObjRef, type_name: &str, location: &'static Location<'static>) {
    if super::execution::installed() {
        return; // the execution's own OS thread, between steps (drops at teardown)
    }
    let generation = obj.generation();
    if generation == 0 || !lock(&LIVE).contains(&generation) {
        return;
    }
    let found = Found {
        kind: FailureKind::Misuse,
        message: format!(
            "{type_name} of the model used by a thread symx did not spawn, at {}:{}:{}: \
             symx cannot schedule that thread, so nothing it does is explored",
            location.file(),
            location.line(),
            location.column()
        ),
        details: vec![
            "fix: spawn the thread with symx::thread::spawn (or symx::thread::scope) instead \
             of std::thread, so that it is a model thread"
                .to_string(),
        ],
        location: Some(location.into()),
        thread: None,
    };
    lock(&POSTED).push((generation, found));
    PENDING.store(true, Ordering::Relaxed);
}

/// The first misuse posted for execution `generation`, if any.
#[inline]
pub(crate) fn take(generation: u32) -> Option<Found> {
    if !PENDING.load(Ordering::Relaxed) {
        return None;
    }
    take_posted(generation)
}

/// [`take`] when something was posted: the scheduler asks at every step, and almost never
/// finds anything.
#[cold]
fn take_posted(generation: u32) -> Option<Found> {
    let mut posted = lock(&POSTED);
    let i = posted.iter().position(|(g, _)| *g == generation)?;
    let (_, found) = posted.remove(i);
    PENDING.store(!posted.is_empty(), Ordering::Relaxed);
    Some(found)
}
