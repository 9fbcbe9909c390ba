//! Happens-before bookkeeping: which operations publish a thread's clock, which take one, and
//! the data-race check of `UnsafeCell` accesses against the result.
//!
//! Interleavings are sequentially consistent, but happens-before honours each operation's
//! `Ordering` (a `Relaxed` store publishes nothing), so a race that needs a weaker ordering than
//! the code uses is still reported.

use std::panic::Location;
use std::sync::atomic::Ordering;

use super::clock::VClock;
use super::execution::{Execution, Found};
use super::op::ObjId;
use super::race::{Access, CellState};
use crate::report::kind::FailureKind;

fn acquires(o: Ordering) -> bool {
    matches!(o, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

fn releases(o: Ordering) -> bool {
    matches!(o, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
}

impl Execution {
    /// The reading half of an atomic operation (or of any acquire, with `SeqCst`).
    pub fn acquire_from(&mut self, obj: ObjId, order: Ordering) {
        let t = self.current;
        let clock = &self.objects.get(obj).clock;
        let me = &mut self.threads[t];
        if acquires(order) {
            me.clock.join(clock);
        } else {
            me.fence_acquire.join(clock);
        }
    }

    /// The writing half: a store replaces the object's release clock, a read-modify-write
    /// extends it (release sequences).
    pub fn release_to(&mut self, obj: ObjId, order: Ordering, rmw: bool) {
        let t = self.current;
        let me = &mut self.threads[t];
        let published = if releases(order) {
            &me.clock
        } else {
            &me.fence_release
        };
        let clock = &mut self.objects.get_mut(obj).clock;
        if rmw {
            clock.join(published);
        } else {
            clock.clone_from(published);
        }
        if releases(order) {
            me.clock.tick(t);
        }
    }

    /// Synchronisation through a clock a primitive keeps itself (a barrier generation, a
    /// channel message, a `Once` completion): the current thread takes everything `from`
    /// published, and the returned snapshot is what it publishes in turn. A new epoch begins
    /// afterwards, as after any release, so later accesses are not covered by the snapshot.
    pub fn sync_clock(&mut self, from: &VClock) -> VClock {
        let t = self.current;
        let me = &mut self.threads[t];
        me.clock.join(from);
        let snapshot = me.clock.clone();
        me.clock.tick(t);
        snapshot
    }

    pub fn fence(&mut self, order: Ordering) {
        let t = self.current;
        let me = &mut self.threads[t];
        if acquires(order) {
            let pending = std::mem::take(&mut me.fence_acquire);
            me.clock.join(&pending);
        }
        if releases(order) {
            me.fence_release.clone_from(&me.clock);
            me.clock.tick(t);
        }
    }

    /// Remembers an atomic write to `obj`, which a later `unsync_load` must be ordered after;
    /// an earlier `unsync_load` it is not ordered after is a race.
    pub fn atomic_write(
        &mut self,
        obj: ObjId,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        self.check_cell(obj, true, location, CellState::atomic_write)
    }

    /// Checks an `UnsafeCell` access against the cell's history; a race is a failure that
    /// names both accesses.
    pub fn cell_access(
        &mut self,
        obj: ObjId,
        write: bool,
        location: &'static Location<'static>,
    ) -> Option<Found> {
        self.check_cell(obj, write, location, CellState::access)
    }

    /// The current thread's access to `obj`'s cell history, checked by `check` (which returns
    /// the earlier access it races with, if any).
    fn check_cell(
        &mut self,
        obj: ObjId,
        write: bool,
        location: &'static Location<'static>,
        check: fn(&mut CellState, Access, &VClock) -> Option<Access>,
    ) -> Option<Found> {
        self.effects += 1;
        let t = self.current;
        let clock = &self.threads[t].clock;
        let access = Access {
            thread: t,
            time: clock.get(t),
            write,
            location,
        };
        let state = self
            .objects
            .get_mut(obj)
            .cell
            .get_or_insert_with(Default::default);
        let other = check(state, access, clock)?;
        Some(self.race(obj, other, access))
    }

    /// The report of `access` (by the current thread) racing with the earlier `other`.
    fn race(&self, obj: ObjId, other: Access, access: Access) -> Found {
        let t = access.thread;
        let location = access.location;
        let what = |a: &Access| if a.write { "write" } else { "read" };
        let cell = self.objects.label(obj);
        let mut details = vec![
            format!(
                "first access:  {} by {} at {}",
                what(&other),
                self.threads[other.thread].label(other.thread),
                other.location
            ),
            format!(
                "second access: {} by {} at {}",
                what(&access),
                self.threads[t].label(t),
                location
            ),
        ];
        details.extend(self.relaxed_operations(&[other.thread, t]));
        Found {
            kind: FailureKind::DataRace,
            message: format!(
                "data race on {cell}: {} by {} and {} by {} are not ordered by happens-before",
                what(&other),
                self.threads[other.thread].label(other.thread),
                what(&access),
                self.threads[t].label(t),
            ),
            details,
            location: Some(location.into()),
            thread: Some(t),
        }
    }

    /// The `Relaxed` atomic operations `threads` made so far, each once: the usual reason two
    /// accesses are not ordered (a flag loaded `Relaxed`).
    fn relaxed_operations(&self, threads: &[usize]) -> Vec<String> {
        let mut seen = Vec::new();
        for ev in &self.trace {
            let relaxed = ev.order == Some(Ordering::Relaxed) && threads.contains(&ev.thread);
            let key = (ev.kind, ev.obj, ev.location);
            if relaxed && !seen.contains(&key) {
                seen.push(key);
            }
        }
        seen.into_iter()
            .take(4)
            .map(|(kind, obj, at)| {
                let obj = obj.map(|o| format!(" {}", self.objects.label(o)));
                format!(
                    "{kind}(Relaxed){} at {at} synchronises with nothing by itself: \
                     Release publishes, Acquire reads what was published",
                    obj.unwrap_or_default()
                )
            })
            .collect()
    }
}
