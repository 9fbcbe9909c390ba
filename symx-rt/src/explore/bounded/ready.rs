//! The threads that could run at each step of the current execution, with their next events
//! over this execution's objects (lookaheads, [`Bpor::look`]), and how the lists of the steps
//! an execution repeats are kept for the next one to check rather than make again.

use smallvec::SmallVec;

use super::backtrack::Lookahead;
use super::fairness::{spurious_fairness, yield_fairness, FAIRNESS};
use super::Bpor;
use crate::explore::dpor::events::{self, Access};
use crate::explore::dpor::steps::Threads;
use crate::rt::chooser::{Candidate, SchedulingPoint};
use crate::rt::op::ThreadId;

impl Bpor {
    /// Records who could run at step `step` and what they would do (in a list of an earlier
    /// execution's, for its memory), and returns the slot of `want` among them.
    ///
    /// At a step the execution repeats, the last execution's list is still there (kept by
    /// `next_execution`) and is only checked: a thread's lookahead is a function of its
    /// candidate alone ([`Bpor::lookahead_of`]: its name, a function of its spawn-path key
    /// kept by `threads` for the whole exploration; its operation's kind and objects; and the
    /// flags `spurious`, fixed, and `yields`, whose change `end_execution` applies to every list
    /// it holds), so equal candidates make an equal list. Where they differ (the program did
    /// not repeat itself) the lists from here on are dropped and this one is made again.
    pub(super) fn look(
        &mut self,
        step: usize,
        point: &SchedulingPoint<'_>,
        want: Option<ThreadId>,
    ) -> Option<usize> {
        if let Some(kept) = self.ready.get(step) {
            let candidates = point.candidates;
            let same = kept.len() == candidates.len()
                && (candidates.iter().zip(kept)).all(|(c, l)| {
                    // Named first, as `lookahead_of` names every candidate it is asked about:
                    // a thread's first look-up may give it its name (`Threads::of`).
                    let thread = name_of(&mut self.named, &mut self.threads, c);
                    l.thread == thread && is_lookahead_of(l, c, self.spurious, self.yields)
                });
            let slot = want.and_then(|w| kept.iter().position(|l| l.thread == w));
            if same {
                self.checked += usize::from(self.checked == step);
                return slot;
            }
            self.spare_ready.extend(self.ready.drain(step..));
        }
        let mut here = self.spare_ready.pop().unwrap_or_default();
        here.clear();
        self.lookahead(point.candidates, &mut here);
        let slot = want.and_then(|w| here.iter().position(|l| l.thread == w));
        self.ready.push(here);
        slot
    }

    /// Keeps the lookaheads of the first `n` steps for the next execution, which repeats the
    /// first `n - 1` steps and so starts step `n - 1` from the same state ([`Bpor::look`]
    /// checks them); the others' lists go back for their memory.
    pub(super) fn keep_ready(&mut self, n: usize) {
        let n = n.min(self.ready.len());
        self.spare_ready.extend(self.ready.drain(n..));
    }

    /// The threads that could run at the current step, into `to`.
    pub(super) fn ready_here(&self, to: &mut Vec<ThreadId>) {
        let here = self.ready.last().into_iter().flatten();
        to.extend(here.map(|l| l.thread));
    }

    /// What `candidates` would do next, over this execution's objects, into `out`.
    pub(super) fn lookahead(&mut self, candidates: &[Candidate], out: &mut Vec<Lookahead>) {
        out.extend(candidates.iter().map(|c| self.lookahead_of(c)));
    }

    /// What candidate `c` would do next, over this execution's objects.
    pub(super) fn lookahead_of(&mut self, c: &Candidate) -> Lookahead {
        let mut exact = events::exact_of(&c.op);
        if let Some(a) = spurious_fairness(self.spurious, c.op.kind, FAIRNESS) {
            exact.push(a);
        }
        if let Some(a) = yield_fairness(self.yields, c.op.kind) {
            exact.push(a);
        }
        Lookahead {
            thread: name_of(&mut self.named, &mut self.threads, c),
            kind: c.op.kind,
            exact,
        }
    }
}

/// Candidate `c`'s thread's stable name (`named`: per runtime thread, looked up once per
/// execution in `threads`, which names a key at its first look-up). Inlined, with the first
/// look-up apart: called for every candidate at every step, it cost ~40 instructions a call
/// as a function of its own, most of them its frame.
#[inline]
fn name_of(named: &mut SmallVec<[ThreadId; 8]>, threads: &mut Threads, c: &Candidate) -> ThreadId {
    match named.get(c.thread) {
        Some(&t) if t != usize::MAX => t,
        _ => look_up(named, threads, c),
    }
}

/// [`name_of`] of a thread not looked up yet in this execution.
#[cold]
fn look_up(named: &mut SmallVec<[ThreadId; 8]>, threads: &mut Threads, c: &Candidate) -> ThreadId {
    while named.len() <= c.thread {
        named.push(usize::MAX);
    }
    named[c.thread] = threads.of(c.key);
    named[c.thread]
}

/// Whether `l`'s kind and accesses are [`Bpor::lookahead_of`] `c`'s (its thread is compared
/// apart), compared without making that lookahead: at a step an execution repeats, every
/// candidate is checked against the kept list, and making each candidate's lookahead to
/// compare and drop cost more than the rest of the check.
#[inline]
fn is_lookahead_of(l: &Lookahead, c: &Candidate, spurious: bool, yields: bool) -> bool {
    let op = &c.op;
    let mut kept = l.exact.iter();
    // Each access `lookahead_of` pushes, in its order, must be the next one kept.
    let mut next = |a: Option<Access>| a.is_none_or(|a| kept.next() == Some(&a));
    let [own, released] = events::exact_parts(op);
    l.kind == op.kind
        && next(own)
        && next(released)
        && next(spurious_fairness(spurious, op.kind, FAIRNESS))
        && next(yield_fairness(yields, op.kind))
        && kept.next().is_none()
}
