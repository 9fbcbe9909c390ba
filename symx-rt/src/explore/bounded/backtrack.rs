//! Where one finished execution asks for other threads to be tried: the backtracking points of
//! bounded partial-order reduction (Coons, Musuvathi, McKinley, "Bounded partial-order
//! reduction", OOPSLA 2013), over the classic dynamic partial-order reduction of Flanagan and
//! Godefroid (POPL 2005).
//!
//! At every step `k` and for every thread `u` that could run there (within the bound), `u`'s
//! next event `n` is compared with the history: for each other thread `v`, the latest event
//! `i` of `v` before `k` that conflicts with `n` and does not already happen before `u` is a
//! race. Reversing it means running `u` at the state before `i`: a *backtracking point*
//! `(i, u)`. Running `u` there may cost a preemption the original schedule did not pay, and
//! the bound may then cut the reversal off; so BPOR also asks for `u` at the *conservative
//! point*: the start `j` of the run of `v`'s thread that contains `i` (the last context switch
//! before `i`), where switching to `u` instead costs nothing the original schedule did not.

use smallvec::SmallVec;

use crate::explore::dpor::events::{Access, Ev};
use crate::explore::dpor::races::{HappensBefore, History};
use crate::rt::op::ThreadId;

/// A request for thread `thread` at the state before step `at`; `conservative` when it is a
/// conservative point (explored even if the thread sleeps there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Point {
    pub at: usize,
    pub thread: ThreadId,
    pub conservative: bool,
}

/// A thread that could run at a step, with what its next event does to which of this
/// execution's objects.
pub(super) struct Lookahead {
    pub thread: ThreadId,
    pub exact: SmallVec<[Access; 2]>,
}

/// Every backtracking point the execution `evs` asks for; `ready[k]` are the threads that could
/// run at step `k` with their next events (the one taken at `k` is `evs[k]` itself).
/// Conservative points only under a bound (`bounded`).
pub(super) fn points(evs: &[Ev], ready: &[Vec<Lookahead>], bounded: bool) -> Vec<Point> {
    let threads = evs
        .iter()
        .map(|e| e.thread)
        .chain(ready.iter().flatten().map(|l| l.thread))
        .max()
        .map_or(0, |t| t + 1);
    let hb = HappensBefore::compute(evs);
    // positions[t]: where thread t's events are in the trace.
    let mut positions: Vec<Vec<usize>> = vec![Vec::new(); threads];
    for (k, e) in evs.iter().enumerate() {
        positions[e.thread].push(k);
    }
    let mut history = History::new(threads);
    // ran[t]: how many of thread t's events came before the current step.
    let mut ran: Vec<usize> = vec![0; threads];
    let mut out = Vec::new();
    for (k, ek) in evs.iter().enumerate() {
        for l in ready.get(k).into_iter().flatten() {
            let next = if l.thread == ek.thread {
                ek.clone()
            } else {
                as_event(l)
            };
            let before = earlier(evs, &positions, &ran, l.thread, k);
            let (conflicts, _) = history.predecessors(&next);
            for i in conflicts {
                // Already ordered before u's next event: no reversal.
                if before.iter().any(|&p| hb.before(i, evs[i].thread, p)) {
                    continue;
                }
                race(evs, i, l.thread, bounded, &mut out);
            }
        }
        history.record(k, ek);
        ran[ek.thread] += 1;
    }
    out
}

/// The events before step `k` that `u`'s next event comes after by program order or by being
/// enabled by them (its spawn, its wake-up): its previous event and, if it runs later in the
/// execution, what enabled it.
fn earlier(
    evs: &[Ev],
    positions: &[Vec<usize>],
    ran: &[usize],
    u: ThreadId,
    k: usize,
) -> SmallVec<[usize; 3]> {
    let mine = &positions[u];
    let mut out: SmallVec<[usize; 3]> = SmallVec::new();
    out.extend(ran[u].checked_sub(1).map(|n| mine[n]));
    if let Some(&next) = mine.get(ran[u]) {
        out.extend(
            evs[next]
                .enablers
                .iter()
                .filter_map(|&(t, n)| positions.get(t)?.get(n as usize).copied())
                .filter(|&p| p < k),
        );
    }
    out
}

/// The points for running `u` before event `i`: at `i`, and conservatively at the start of the
/// run of `i`'s thread that contains it.
fn race(evs: &[Ev], i: usize, u: ThreadId, bounded: bool, out: &mut Vec<Point>) {
    out.push(Point {
        at: i,
        thread: u,
        conservative: false,
    });
    if !bounded {
        return;
    }
    let v = evs[i].thread;
    let start = (0..i)
        .rev()
        .find(|&j| evs[j].thread != v)
        .map_or(0, |j| j + 1);
    if start < i {
        out.push(Point {
            at: start,
            thread: u,
            conservative: true,
        });
    }
}

/// A not-yet-run event of a thread, as happens-before history lookups need it.
fn as_event(l: &Lookahead) -> Ev {
    Ev {
        thread: l.thread,
        index: 0,
        accesses: l.exact.clone(),
        exact: l.exact.clone(),
        execution: 0,
        enablers: SmallVec::new(),
    }
}
