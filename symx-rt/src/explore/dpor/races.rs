//! Happens-before over one finished execution and the races in it (`e ⋖ e'`: dependent
//! events of different threads, ordered by nothing but their own conflict), from which the
//! reduction plants reversals. Works on the execution's exact object ids.

use super::events::{conflict_by, orders_by, Access, Canon, Ev};
use crate::rt::op::ThreadId;

/// A few earlier events (at most one per thread and access class, usually one or two).
type Preds = smallvec::SmallVec<[usize; 4]>;

/// Per object and thread, the latest event of each access class: the only earlier events of a
/// thread that can race with (or order) a new one, since that thread's earlier events of the
/// same class come before them in program order. Keeps race detection linear in the trace.
pub(crate) struct History {
    threads: usize,
    latest: rustc_hash::FxHashMap<Canon, Vec<[Option<usize>; CLASSES]>>,
    /// The send of each channel's n-th message: the one event a receive that took it
    /// conflicts with (not the latest send of its thread).
    sends: rustc_hash::FxHashMap<(Canon, u32), (usize, ThreadId)>,
}

const CLASSES: usize = 15;

/// A representative access of each class, to test conflicts by class.
fn class_of(a: Access) -> Option<(usize, Canon)> {
    Some(match a {
        Access::None => return None,
        Access::Read(o) => (0, o),
        Access::Write(o) => (1, o),
        Access::Lock(o) => (2, o),
        Access::Shared(o) => (3, o),
        Access::Unlock(o) => (4, o),
        Access::UnlockShared(o) => (5, o),
        Access::Other(o) => (6, o),
        Access::TryLock(o) => (7, o),
        Access::TryLockOk(o) => (8, o),
        // A send's class stands for every send; which message it queued is in `sends`.
        Access::Send(o, _) => (9, o),
        Access::Took(o, _) => (10, o),
        Access::SendersGone(o) => (11, o),
        Access::ReceiverGone(o) => (12, o),
        Access::DroppedSender(o) => (13, o),
        Access::Observe(o) => (14, o),
    })
}

fn class_access(class: usize, o: Canon) -> Access {
    [
        Access::Read(o),
        Access::Write(o),
        Access::Lock(o),
        Access::Shared(o),
        Access::Unlock(o),
        Access::UnlockShared(o),
        Access::Other(o),
        Access::TryLock(o),
        Access::TryLockOk(o),
        Access::Send(o, 0),
        Access::Took(o, 0),
        Access::SendersGone(o),
        Access::ReceiverGone(o),
        Access::DroppedSender(o),
        Access::Observe(o),
    ][class]
}

impl History {
    pub(crate) fn new(threads: usize) -> Self {
        History {
            threads,
            latest: rustc_hash::FxHashMap::default(),
            sends: rustc_hash::FxHashMap::default(),
        }
    }

    pub(crate) fn record(&mut self, j: usize, ev: &Ev) {
        for &a in &ev.exact {
            if let Some((class, o)) = class_of(a) {
                let per_thread = self
                    .latest
                    .entry(o)
                    .or_insert_with(|| vec![[None; CLASSES]; self.threads]);
                per_thread[ev.thread][class] = Some(j);
            }
            if let Access::Send(o, n @ 1..) = a {
                self.sends.insert((o, n), (j, ev.thread));
            }
        }
    }

    /// Earlier events of other threads that conflict with `ev` (the latest per thread) and
    /// that order it without being its races. A `try_lock` that failed because the lock was
    /// held comes inside another critical section: a blocking acquisition cannot be moved
    /// before it alone, only before the acquisition that made it fail.
    pub(crate) fn predecessors(&self, ev: &Ev) -> (Preds, Preds) {
        let same = &mut |x: Canon, y: Canon| x == y;
        let blocking = matches!(ev.main(), Access::Lock(_) | Access::Shared(_));
        let (mut conflicts, mut orderings) = (Preds::new(), Preds::new());
        for &b in &ev.exact {
            let Some((_, o)) = class_of(b) else { continue };
            let Some(per_thread) = self.latest.get(&o) else {
                continue;
            };
            for (t, classes) in per_thread.iter().enumerate() {
                if t == ev.thread {
                    continue;
                }
                let (mut c, mut r) = (None, None);
                for (class, &at) in classes.iter().enumerate() {
                    let Some(i) = at else { continue };
                    let a = class_access(class, o);
                    if blocking && conflict_by(a, b, same) && matches!(a, Access::TryLock(_)) {
                        r = r.max(Some(i));
                    } else if conflict_by(a, b, same) {
                        c = c.max(Some(i));
                    } else if orders_by(a, b, same) {
                        r = r.max(Some(i));
                    }
                }
                conflicts.extend(c);
                orderings.extend(r);
            }
            if let Access::Took(o, n) = b {
                let send = self.sends.get(&(o, n));
                conflicts.extend(send.filter(|s| s.1 != ev.thread).map(|s| s.0));
            }
        }
        conflicts.sort_unstable();
        conflicts.dedup();
        orderings.retain(|i| !conflicts.contains(i));
        (conflicts, orderings)
    }
}

/// Happens-before over one execution's events, and the races in it.
pub(crate) struct HappensBefore {
    threads: usize,
    /// clock[k * threads + t]: how many of thread t's events happen before or at event k.
    clock: Vec<u32>,
    /// (i, j): event i races with the later event j (i ⋖ j), in order of j.
    pub(super) races: Vec<(usize, usize)>,
}

impl HappensBefore {
    pub(crate) fn compute(evs: &[Ev]) -> HappensBefore {
        let threads = evs.iter().map(|e| e.thread + 1).max().unwrap_or(0);
        let mut hb = HappensBefore {
            threads,
            clock: Vec::with_capacity(evs.len() * threads),
            races: Vec::new(),
        };
        let mut last_of: Vec<Option<usize>> = vec![None; threads];
        // positions[t][i]: where thread t's i-th event is in the trace.
        let mut positions: Vec<Vec<usize>> = vec![Vec::new(); threads];
        let mut history = History::new(threads);
        let mut ordering: Vec<usize> = Vec::new();
        for (j, ej) in evs.iter().enumerate() {
            // Predecessors that are ordering edges (never reversed) and conflicts (races).
            ordering.clear();
            ordering.extend(last_of[ej.thread]);
            ordering.extend(
                ej.enablers.iter().filter_map(|&(t, i)| {
                    positions.get(t).and_then(|p| p.get(i as usize)).copied()
                }),
            );
            let (conflicts, lock_edges) = history.predecessors(ej);
            let start = hb.clock.len();
            hb.clock.resize(start + threads, 0);
            for &p in ordering.iter().chain(&lock_edges).chain(&conflicts) {
                for t in 0..threads {
                    let c = hb.clock[p * threads + t];
                    let m = &mut hb.clock[start + t];
                    *m = (*m).max(c);
                }
            }
            hb.clock[start + ej.thread] = ej.index + 1;
            // i ⋖ j: a conflict that no other predecessor already orders. For a blocking
            // acquisition, `lock_edges` (the releases and failed tries between two critical
            // sections) do not count: the race with the earlier acquisition is to be reversed.
            let acquires = matches!(ej.main(), Access::Lock(_) | Access::Shared(_));
            for &i in &conflicts {
                let (ti, ii) = (evs[i].thread, evs[i].index);
                let seen_via = |p: usize| hb.clock[p * threads + ti] > ii;
                let mut others = ordering
                    .iter()
                    .chain(if acquires {
                        [].iter()
                    } else {
                        lock_edges.iter()
                    })
                    .chain(conflicts.iter().filter(|&&c| c != i));
                if !others.any(|&p| seen_via(p)) {
                    hb.races.push((i, j));
                }
            }
            history.record(j, ej);
            last_of[ej.thread] = Some(j);
            positions[ej.thread].push(j);
        }
        hb
    }

    /// Whether event `i` (of thread `ti`) happens before event `k`.
    pub(crate) fn before(&self, i: usize, ti: ThreadId, k: usize) -> bool {
        self.clock[k * self.threads + ti] >= self.clock[i * self.threads + ti]
    }
}
