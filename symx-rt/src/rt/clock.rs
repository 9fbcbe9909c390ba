//! Vector clocks: the happens-before relation between the events of one execution.
//!
//! Owns only the clock arithmetic. Which operations join or publish a clock is decided by the
//! objects that use them (atomics, locks, cells, thread spawn and join).

use smallvec::SmallVec;

/// A vector clock indexed by model thread id; missing entries are zero. The clocks of up to
/// [`INLINE`] threads are stored inline: an execution makes a clock for each thread and object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VClock(SmallVec<[u32; INLINE]>);

/// Threads whose clock components are stored without an allocation.
const INLINE: usize = 8;

impl VClock {
    pub fn new() -> Self {
        VClock(SmallVec::new())
    }

    pub fn get(&self, thread: usize) -> u32 {
        self.0.get(thread).copied().unwrap_or(0)
    }

    /// Advances `thread`'s own component: a new epoch begins for it.
    pub fn tick(&mut self, thread: usize) {
        // Pushed one by one: `SmallVec::resize` costs more than the few entries a clock grows by.
        while self.0.len() <= thread {
            self.0.push(0);
        }
        self.0[thread] += 1;
    }

    /// Pointwise maximum: afterwards everything `other` has seen, `self` has seen.
    #[inline]
    pub fn join(&mut self, other: &VClock) {
        let theirs = other.0.as_slice();
        if self.0.len() < theirs.len() {
            self.grow(theirs.len());
        }
        let mine = &mut self.0.as_mut_slice()[..theirs.len()];
        for (mine, theirs) in mine.iter_mut().zip(theirs) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// Zero components up to `len` (a thread this clock has not heard of yet). Pushed one by
    /// one, as in `tick`: `SmallVec::resize` costs more than the loop.
    #[cold]
    fn grow(&mut self, len: usize) {
        while self.0.len() < len {
            self.0.push(0);
        }
    }

    /// True when the epoch `(thread, time)` happens before (or is) the point this clock describes.
    pub fn has_seen(&self, thread: usize, time: u32) -> bool {
        time <= self.get(thread)
    }

    /// An empty clock, on storage an earlier execution's clock of more than [`INLINE`] threads
    /// left (see [`VClock::recycle`]): allocating them anew was a visible share of a short
    /// execution's cost. Equal to [`VClock::new`] in every respect but its capacity.
    pub fn spare() -> Self {
        SPARE.with_borrow_mut(Vec::pop).unwrap_or_default()
    }

    /// A copy of `other` on a spare clock's storage.
    pub fn copy_of(other: &VClock) -> Self {
        let mut c = VClock::spare();
        // Pushed one by one: a call of `memcpy` (`extend_from_slice`) or `SmallVec::extend`
        // for a few entries costs more.
        for &time in &other.0 {
            c.0.push(time);
        }
        c
    }

    /// Keeps this clock's storage, emptied, for [`VClock::spare`] on this OS thread, if it is
    /// an allocation.
    pub fn recycle(mut self) {
        if !self.0.spilled() {
            return;
        }
        self.0.clear();
        SPARE.with_borrow_mut(|spare| {
            if spare.len() < MAX_SPARE {
                spare.push(self);
            }
        });
    }
}

/// At most this many clocks are kept for reuse (a long execution's threads and objects).
const MAX_SPARE: usize = 4096;

thread_local! {
    static SPARE: std::cell::RefCell<Vec<VClock>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
mod tests {
    use super::VClock;

    #[test]
    fn join_takes_the_pointwise_maximum() {
        let mut a = VClock::new();
        a.tick(0);
        a.tick(0);
        let mut b = VClock::new();
        b.tick(1);
        b.tick(3);
        a.join(&b);
        assert_eq!((a.get(0), a.get(1), a.get(2), a.get(3)), (2, 1, 0, 1));
        assert!(a.has_seen(3, 1));
        assert!(!a.has_seen(3, 2));
    }
}
