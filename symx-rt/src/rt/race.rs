//! Data-race detection on `symx::cell::UnsafeCell`: two accesses race when at least one writes
//! and neither happens before the other (vector clocks, FastTrack-style epochs per thread).
//!
//! Owns only the per-cell access history; the clocks come from the executing thread.

use std::panic::Location;

use super::clock::VClock;
use super::op::ThreadId;

/// One access: who, at which epoch of their clock, and where in the source.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    pub thread: ThreadId,
    pub time: u32,
    pub write: bool,
    pub location: &'static Location<'static>,
}

/// The accesses a new access must be ordered after: the last write and the reads since it.
#[derive(Debug, Default)]
pub(crate) struct CellState {
    last_write: Option<Access>,
    reads: Vec<Access>,
}

impl CellState {
    /// Records `access` (made by a thread whose clock is `clock`) and returns an earlier access
    /// it races with, if any.
    pub fn access(&mut self, access: Access, clock: &VClock) -> Option<Access> {
        let unordered = |a: &Access| a.thread != access.thread && !clock.has_seen(a.thread, a.time);
        if let Some(w) = self.last_write.filter(unordered) {
            return Some(w);
        }
        if access.write {
            if let Some(r) = self.reads.iter().find(|r| unordered(r)) {
                return Some(*r);
            }
            self.last_write = Some(access);
            self.reads.clear();
        } else {
            match self.reads.iter_mut().find(|r| r.thread == access.thread) {
                Some(r) => *r = access,
                None => self.reads.push(access),
            }
        }
        None
    }
}

impl CellState {
    /// Records an atomic write: atomics do not race with each other, only with an
    /// unsynchronised read of the same memory (`unsync_load`), the only reads recorded here.
    /// Returns such a read the write is not ordered after.
    pub fn atomic_write(&mut self, access: Access, clock: &VClock) -> Option<Access> {
        let unordered = |a: &Access| a.thread != access.thread && !clock.has_seen(a.thread, a.time);
        if let Some(r) = self.reads.iter().find(|r| unordered(r)) {
            return Some(*r);
        }
        self.last_write = Some(access);
        self.reads.clear();
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(thread: ThreadId, time: u32, write: bool) -> Access {
        Access {
            thread,
            time,
            write,
            location: Location::caller(),
        }
    }

    #[test]
    fn unordered_write_after_read_races_and_ordered_one_does_not() {
        let mut cell = CellState::default();
        let mut c0 = VClock::new();
        c0.tick(0);
        assert!(cell.access(at(0, 1, false), &c0).is_none());
        let mut c1 = VClock::new();
        c1.tick(1);
        let race = cell.access(at(1, 1, true), &c1).expect("race");
        assert_eq!((race.thread, race.write), (0, false));

        let mut cell = CellState::default();
        assert!(cell.access(at(0, 1, true), &c0).is_none());
        c1.join(&c0);
        assert!(cell.access(at(1, 1, true), &c1).is_none());
    }
}
