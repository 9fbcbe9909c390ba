//! What the races of one execution asked for, step by step, kept for the next execution
//! ([`Memo`]), and the list of asks an execution builds ([`Asks`]). It owns no rule of the
//! reduction: `backtrack` decides what a race asks for, and when a step's asks may be taken
//! from the last execution instead of computed again.
//!
//! The depth-first exploration's next execution repeats most of the last one's steps before it
//! branches off. What the races at step `k` ask for is computed from the events up to `k`, the
//! threads that could run at the steps up to `k` (with their next events), those steps' changes
//! that race apart from their operations (`apart::Apart`), and for each thread that could
//! run at `k`, the events its next operation comes after (`before`: its previous event, and
//! the enablers of its next event *in this execution*, which may come after the shared
//! steps). So a step's asks are taken from the memo only when all of those are the same as in
//! the last execution, `before` included.

use smallvec::SmallVec;

use super::apart::Apart;
use super::backtrack::{Lookahead, Point};
use crate::rt::op::ThreadId;

/// One ask of a race: a point with its initials, or a conservative point `(at, thread, race)`.
#[derive(Clone)]
enum Ask {
    Point(Point),
    Conservative(usize, ThreadId, usize),
}

/// The points asked for so far, each conservative one once (many races ask for the same), and
/// while `recording`, every ask as it came (what the memo keeps of a step).
#[derive(Default)]
pub(super) struct Asks {
    pub points: Vec<Point>,
    conservative: rustc_hash::FxHashSet<(usize, ThreadId, usize)>,
    said: Vec<Ask>,
    recording: bool,
}

impl Asks {
    /// Forgets the last execution's points, keeping the memory (and what was said).
    pub fn clear(&mut self) {
        self.points.clear();
        self.conservative.clear();
    }

    pub fn point(&mut self, point: Point) {
        if self.recording {
            self.said.push(Ask::Point(point.clone()));
        }
        self.points.push(point);
    }

    pub fn conservative(&mut self, at: usize, thread: ThreadId, race: usize) {
        if self.recording {
            self.said.push(Ask::Conservative(at, thread, race));
        }
        self.add_conservative(at, thread, race);
    }

    fn add_conservative(&mut self, at: usize, thread: ThreadId, race: usize) {
        if self.conservative.insert((at, thread, race)) {
            self.points.push(Point {
                at,
                thread,
                conservative: true,
                race,
                initials: SmallVec::new(),
                sleeper: None,
            });
        }
    }

    /// Asks again what was said from `from` to `to`, in order, but for the points at the
    /// first `planted` steps.
    fn replay(&mut self, from: usize, to: usize, planted: usize) {
        for n in from..to {
            match &self.said[n] {
                Ask::Point(p) if p.at >= planted => {
                    let p = p.clone();
                    self.points.push(p);
                }
                &Ask::Conservative(at, thread, race) if at >= planted => {
                    self.add_conservative(at, thread, race)
                }
                _ => {}
            }
        }
    }
}

/// One look at a thread's next operation at a step (a call of the races of one event), in
/// step order: the events it comes after, and where its asks end in [`Asks`]'s record.
struct Call {
    before: SmallVec<[usize; 3]>,
    said: usize,
}

/// What the last execution's steps asked for, and what they were computed from besides the
/// events (which the caller compares): the threads that could run at each step and the joins.
#[derive(Default)]
pub(super) struct Memo {
    calls: Vec<Call>,
    /// The last execution's lookaheads, all steps' in one list, and where each step's end.
    ready: Vec<Lookahead>,
    ready_ends: Vec<usize>,
    apart: Vec<Apart>,
    /// Calls kept of the last execution in the current one so far.
    kept: usize,
}

impl Memo {
    /// How many first steps of an execution whose first `shared` events are the last one's,
    /// and whose steps could run `ready` with changes `apart` from their operations, are the
    /// last one's in all that their races read but `before`. The first `checked` lists of
    /// `ready` are known to be the last execution's, which the memo holds (`Memo::end`).
    pub fn reusable(
        &self,
        shared: usize,
        ready: &[Vec<Lookahead>],
        apart: &[Apart],
        checked: usize,
    ) -> usize {
        let mut same = shared.min(ready.len()).min(self.ready_ends.len());
        for (k, here) in ready.iter().enumerate().take(same).skip(checked) {
            let from = k.checked_sub(1).map_or(0, |p| self.ready_ends[p]);
            if self.ready[from..self.ready_ends[k]] != here[..] {
                same = k;
                break;
            }
        }
        let differs = self.apart.iter().zip(apart).find(|(a, b)| a != b);
        let differs = differs.map(|(a, b)| a.step.min(b.step));
        // A join only one of the two executions has, at a step before `same`.
        let longer = (self.apart.get(apart.len()))
            .or(apart.get(self.apart.len()))
            .map(|j| j.step);
        same.min(differs.unwrap_or(usize::MAX))
            .min(longer.unwrap_or(usize::MAX))
    }

    /// Starts an execution: no call kept yet, asks recorded.
    pub fn start(&mut self, asks: &mut Asks) {
        self.kept = 0;
        asks.recording = false;
    }

    /// Whether the next calls of the last execution (one per item of `befores`; `None`: known
    /// to be the same) saw the same `before`s; if so, asks what they asked again (but for the
    /// points at the first `planted` steps, [`Asks::replay`]) and keeps them.
    pub fn reuse(
        &mut self,
        befores: &[Option<SmallVec<[usize; 3]>>],
        asks: &mut Asks,
        planted: usize,
    ) -> bool {
        let calls = self.calls.get(self.kept..self.kept + befores.len());
        let same = |(c, b): (&Call, &Option<_>)| b.as_ref().is_none_or(|b| c.before == *b);
        if !calls.is_some_and(|c| c.iter().zip(befores).all(same)) {
            return false;
        }
        let from = self.said_before(self.kept);
        self.kept += befores.len();
        let to = self.said_before(self.kept);
        asks.replay(from, to, planted);
        true
    }

    /// Keeps the next `calls` calls of the last execution without asking what they asked
    /// (every ask at a step where it was planted already, `backtrack::skip_repeated`); false
    /// (nothing kept) if the last execution made fewer.
    pub fn skip(&mut self, calls: usize) -> bool {
        if self.kept + calls > self.calls.len() {
            return false;
        }
        self.kept += calls;
        true
    }

    /// Drops the last execution's calls from the first not kept on, and records what the
    /// current execution's calls ask from there.
    pub fn recompute(&mut self, asks: &mut Asks) {
        self.calls.truncate(self.kept);
        asks.said.truncate(self.said_before(self.kept));
        asks.recording = true;
    }

    /// The current call, computed afresh, ends: its asks are recorded.
    pub fn called(&mut self, before: SmallVec<[usize; 3]>, asks: &Asks) {
        self.calls.push(Call {
            before,
            said: asks.said.len(),
        });
        self.kept = self.calls.len();
    }

    /// Ends the execution: the last one's calls not kept are dropped, no more asks are
    /// recorded, and the steps' lookaheads and joins are kept from step `same` on (the first
    /// `same` are the last execution's).
    pub fn end(&mut self, asks: &mut Asks, same: usize, ready: &[Vec<Lookahead>], apart: &[Apart]) {
        self.recompute(asks);
        asks.recording = false;
        let same = same.min(self.ready_ends.len());
        self.ready_ends.truncate(same);
        self.ready
            .truncate(same.checked_sub(1).map_or(0, |p| self.ready_ends[p]));
        for here in &ready[same.min(ready.len())..] {
            self.ready.extend(here.iter().cloned());
            self.ready_ends.push(self.ready.len());
        }
        self.apart.clear();
        self.apart.extend(apart.iter().cloned());
    }

    /// Where the asks of the calls before call `n` end.
    fn said_before(&self, n: usize) -> usize {
        n.checked_sub(1).map_or(0, |p| self.calls[p].said)
    }
}
