//! Locks and barriers as the runtime tracks them: who holds which lock, built-in and
//! user-annotated alike, and which barrier arrivals belong together. Misuse of either (a
//! release of a lock not held, a second holder, a re-acquire by the holder, leaving a barrier
//! early) ends the execution with a failure.

use crate::sym::notes::SyncOp;
use std::panic::Location;
use std::sync::atomic::Ordering;

use super::execution::{Execution, Found};
use super::objects::{BarrierState, LockState};
use super::op::{ObjId, Op, OpKind, ThreadId};
use crate::report::kind::FailureKind;

impl Execution {
    fn lock_state(&mut self, obj: ObjId) -> &mut LockState {
        self.objects
            .get_mut(obj)
            .lock
            .get_or_insert_with(Default::default)
    }

    /// The exclusive holder of a lock, if any.
    pub fn holder(&self, obj: ObjId) -> Option<(ThreadId, &'static Location<'static>)> {
        self.objects.get(obj).lock.as_ref().and_then(|l| l.writer)
    }

    /// Whether a pending operation can run in the current state (a lock must be free, a
    /// blocking receive must find a message or no sender).
    pub(crate) fn is_enabled(&self, op: &Op) -> bool {
        match (op.kind, op.obj) {
            (OpKind::Lock, Some(obj)) => self.lock_is_free(obj, false),
            (OpKind::ReadLock, Some(obj)) => self.lock_is_free(obj, true),
            (OpKind::Recv, Some(obj)) => self
                .objects
                .get(obj)
                .channel
                .as_ref()
                .is_none_or(|c| !c.receiving || c.takeable),
            _ => true,
        }
    }

    pub fn lock_is_free(&self, obj: ObjId, shared: bool) -> bool {
        match &self.objects.get(obj).lock {
            None => true,
            Some(l) => l.writer.is_none() && (shared || l.readers.is_empty()),
        }
    }

    /// A thread about to take a lock it already holds can never get it.
    pub fn self_deadlock(&self, obj: ObjId, location: &'static Location<'static>) -> Option<Found> {
        let me = self.current;
        let (holder, at) = self.holder(obj)?;
        (holder == me).then(|| Found {
            kind: FailureKind::Deadlock,
            message: format!(
                "{} tries to acquire {} which it already holds: a self-deadlock",
                self.threads[me].label(me),
                self.objects.label(obj)
            ),
            details: vec![
                format!("acquired at:   {at}"),
                format!("re-acquire at: {location}"),
            ],
            location: Some(location.into()),
            thread: Some(me),
        })
    }

    /// Takes a built-in lock that the scheduler found free (exclusive or shared).
    pub fn take_lock(&mut self, obj: ObjId, shared: bool, location: &'static Location<'static>) {
        let me = self.current;
        let state = self.lock_state(obj);
        if shared {
            state.readers.push(me);
        } else {
            state.writer = Some((me, location));
        }
        self.acquire_from(obj, Ordering::SeqCst);
        self.note_sync(SyncOp::Acquire { shared }, obj);
    }

    /// Releases a built-in lock held by the current thread.
    pub fn drop_lock(&mut self, obj: ObjId, shared: bool) {
        let me = self.current;
        let state = self.lock_state(obj);
        if shared {
            if let Some(i) = state.readers.iter().position(|&r| r == me) {
                state.readers.swap_remove(i);
            }
        } else {
            state.writer = None;
        }
        self.release_to(obj, Ordering::SeqCst, true);
        self.note_sync(SyncOp::Release { shared }, obj);
    }

    /// A thread about to wait for an annotated lock in a mode its own hold excludes: write
    /// while it holds the lock at all, read while it writes. It can never get it.
    pub fn annotated_self_deadlock(
        &self,
        obj: ObjId,
        shared: bool,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        let me = self.current;
        let reading = self
            .objects
            .get(obj)
            .lock
            .as_ref()
            .is_some_and(|l| l.readers.contains(&me));
        if shared || !reading {
            return self.self_deadlock(obj, location);
        }
        Some(Found {
            kind: FailureKind::Deadlock,
            message: format!(
                "{} tries to acquire {} exclusively while it holds it shared: a self-deadlock",
                self.threads[me].label(me),
                self.objects.label(obj)
            ),
            details: vec![format!("acquire at: {location}")],
            location: Some(location.into()),
            thread: Some(me),
        })
    }

    /// An annotated acquisition returned (its scheduling point, [`OpKind::AnnotatedAcquire`]
    /// or [`OpKind::AnnotatedAcquireShared`], has just run): the current thread now holds the
    /// user's lock, exclusively or shared. Another holder the mode excludes means the lock's
    /// implementation let two threads in.
    pub fn annotated_acquired(
        &mut self,
        obj: ObjId,
        shared: bool,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        let me = self.current;
        if let Some((other, at)) = self.excluding_holder(obj, shared) {
            let at = at.map(|at| format!("held since:  {at}"));
            return Some(
                self.misuse(
                    format!(
                        "{} acquired {}{} while {} still holds it{}: mutual exclusion is broken",
                        self.threads[me].label(me),
                        self.objects.label(obj),
                        if shared { " shared" } else { "" },
                        self.threads[other].label(other),
                        if at.is_some() { "" } else { " shared" },
                    ),
                    at.into_iter()
                        .chain([format!("acquired at: {location}")])
                        .collect(),
                    location,
                ),
            );
        }
        let state = self.lock_state(obj);
        state.annotated = true;
        if shared {
            state.readers.push(me);
        } else {
            state.writer = Some((me, location));
        }
        self.note_sync(SyncOp::Acquire { shared }, obj);
        None
    }

    /// Another thread's hold on `obj` that an acquisition in this mode must not overlap: its
    /// writer, or (for an exclusive acquisition) a reader, which has no location.
    fn excluding_holder(
        &self,
        obj: ObjId,
        shared: bool,
    ) -> Option<(ThreadId, Option<&'static Location<'static>>)> {
        let me = self.current;
        let lock = self.objects.get(obj).lock.as_ref()?;
        if let Some((w, at)) = lock.writer.filter(|&(w, _)| w != me) {
            return Some((w, Some(at)));
        }
        let reader = lock.readers.iter().find(|&&r| r != me).filter(|_| !shared);
        reader.map(|&r| (r, None))
    }

    /// An annotated release was called (its scheduling point has just run): the current
    /// thread must hold the user's lock in that mode.
    pub fn annotated_release(
        &mut self,
        obj: ObjId,
        shared: bool,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        let me = self.current;
        let state = self.lock_state(obj);
        let held = if shared {
            let at = state.readers.iter().position(|&r| r == me);
            at.map(|i| state.readers.swap_remove(i)).is_some()
        } else {
            let mine = state.writer.is_some_and(|(w, _)| w == me);
            if mine {
                state.writer = None;
            }
            mine
        };
        if held {
            self.note_sync(SyncOp::Release { shared }, obj);
            return None;
        }
        let by = self.held_by(obj);
        let mode = if shared { " shared" } else { "" };
        Some(self.misuse(
            format!(
                "{} releases {}{mode} which it does not hold{mode}: {by}",
                self.threads[me].label(me),
                self.objects.label(obj)
            ),
            vec![format!("release at: {location}")],
            location,
        ))
    }

    /// Who holds `obj`, in words, for misuse reports.
    fn held_by(&self, obj: ObjId) -> String {
        let lock = self.objects.get(obj).lock.as_ref();
        if let Some((t, at)) = lock.and_then(|l| l.writer) {
            return format!("it is held by {} (since {at})", self.threads[t].label(t));
        }
        let readers: Vec<String> = lock
            .map(|l| {
                l.readers
                    .iter()
                    .map(|&r| self.threads[r].label(r))
                    .collect()
            })
            .unwrap_or_default();
        if readers.is_empty() {
            "nobody holds it".to_string()
        } else {
            format!("it is held shared by {}", readers.join(", "))
        }
    }

    pub fn barrier_init(&mut self, obj: ObjId, expected: usize) {
        self.objects.get_mut(obj).barrier = Some(BarrierState {
            expected,
            arrived: 0,
        });
    }

    /// An arrival at an annotated barrier; returns the generation it belongs to. A barrier
    /// nobody announced has no generations: arriving at it is misuse.
    pub fn barrier_arrive(
        &mut self,
        obj: ObjId,
        location: &'static Location<'static>,
    ) -> Result<usize, Found> {
        let Some(b) = self.objects.get_mut(obj).barrier.as_mut() else {
            let me = self.current;
            return Err(self.misuse(
                format!(
                    "{} arrives at barrier {}, which no barrier_init announced: call \
                     `symx::annotate::barrier_init(&barrier, n)` once the barrier is where the \
                     threads use it (a `const fn new` cannot carry `#[symx::barrier_init(n)]`; \
                     put that on a method that runs first, or call the function)",
                    self.threads[me].label(me),
                    self.objects.label(obj)
                ),
                vec![format!("arrives at: {location}")],
                location,
            ));
        };
        let generation = b.arrived / b.expected.max(1);
        b.arrived += 1;
        Ok(generation)
    }

    /// A thread leaves the barrier: every arrival of its generation must have happened.
    pub fn barrier_depart(
        &mut self,
        obj: ObjId,
        generation: usize,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        let b = self.objects.get(obj).barrier.clone()?;
        let needed = (generation + 1) * b.expected;
        if b.arrived >= needed {
            return None;
        }
        let me = self.current;
        let came = b.arrived - generation * b.expected;
        Some(self.misuse(
            format!(
                "{} left barrier {} (generation {generation}) after only {came} of {} threads arrived",
                self.threads[me].label(me),
                self.objects.label(obj),
                b.expected
            ),
            vec![format!("left at: {location}")],
            location,
        ))
    }

    pub(crate) fn misuse(
        &self,
        message: String,
        details: Vec<String>,
        location: &'static Location<'static>,
    ) -> Found {
        Found {
            kind: FailureKind::Misuse,
            message,
            details,
            location: Some(location.into()),
            thread: Some(self.current),
        }
    }
}
