//! Locks and barriers as the runtime tracks them: who holds which lock, built-in and
//! user-annotated alike, and which barrier arrivals belong together. Misuse of either (a
//! release of a lock not held, a second holder, a re-acquire by the holder, leaving a barrier
//! early) ends the execution with a failure.

use crate::sym::record::SyncOp;
use std::panic::Location;
use std::sync::atomic::Ordering;

use super::execution::{Execution, Found};
use super::objects::{BarrierState, LockState};
use super::op::{ObjId, Op, OpKind, ThreadId};
use crate::report::FailureKind;

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

    /// Whether a pending operation can run in the current state (a lock must be free).
    pub(crate) fn is_enabled(&self, op: &Op) -> bool {
        match (op.kind, op.obj) {
            (OpKind::Lock, Some(obj)) => self.lock_is_free(obj, false),
            (OpKind::ReadLock, Some(obj)) => self.lock_is_free(obj, true),
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

    /// `#[symx::acquire]` returned (its scheduling point, [`OpKind::AnnotatedAcquire`], has
    /// just run): the current thread now holds the user's lock.
    pub fn annotated_acquired(
        &mut self,
        obj: ObjId,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        let me = self.current;
        if let Some((other, at)) = self.holder(obj).filter(|&(t, _)| t != me) {
            return Some(self.misuse(
                format!(
                    "{} acquired {} while {} still holds it: mutual exclusion is broken",
                    self.threads[me].label(me),
                    self.objects.label(obj),
                    self.threads[other].label(other)
                ),
                vec![
                    format!("held since:  {at}"),
                    format!("acquired at: {location}"),
                ],
                location,
            ));
        }
        let state = self.lock_state(obj);
        state.annotated = true;
        state.writer = Some((me, location));
        self.note_sync(SyncOp::Acquire { shared: false }, obj);
        None
    }

    /// `#[symx::release]` was called (its scheduling point, [`OpKind::AnnotatedRelease`], has
    /// just run): the current thread must hold the user's lock.
    pub fn annotated_release(
        &mut self,
        obj: ObjId,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        let me = self.current;
        match self.holder(obj) {
            Some((t, _)) if t == me => {
                self.lock_state(obj).writer = None;
                self.note_sync(SyncOp::Release { shared: false }, obj);
                None
            }
            held => {
                let by = match held {
                    Some((t, at)) => {
                        format!("it is held by {} (since {at})", self.threads[t].label(t))
                    }
                    None => "nobody holds it".to_string(),
                };
                Some(self.misuse(
                    format!(
                        "{} releases {} which it does not hold: {by}",
                        self.threads[me].label(me),
                        self.objects.label(obj)
                    ),
                    vec![format!("release at: {location}")],
                    location,
                ))
            }
        }
    }

    pub fn barrier_init(&mut self, obj: ObjId, expected: usize) {
        self.objects.get_mut(obj).barrier = Some(BarrierState {
            expected,
            arrived: 0,
        });
    }

    /// An arrival at an annotated barrier; returns the generation it belongs to.
    pub fn barrier_arrive(&mut self, obj: ObjId) -> Option<usize> {
        let b = self.objects.get_mut(obj).barrier.as_mut()?;
        let generation = b.arrived / b.expected.max(1);
        b.arrived += 1;
        Some(generation)
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
