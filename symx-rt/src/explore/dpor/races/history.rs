//! The object history of one execution ([`History`]): per object and thread, the latest event
//! of each access class, from which happens-before and the races find an event's conflicting
//! and ordering predecessors, and the compile-time table of how the classes relate.

use super::Preds;
use crate::explore::dpor::events::{
    conflict_on_one_object, orders_on_one_object, Access, Canon, Ev,
};
use crate::rt::op::ThreadId;

/// Per object and thread, the latest event of each access class: the only earlier events of a
/// thread that can race with (or order) a new one, since that thread's earlier events of the
/// same class come before them in program order. Keeps race detection linear in the trace.
/// Only the threads that used an object have an entry for it, so that the cost of an event
/// grows with the threads sharing its object, not with all threads.
///
/// Every change an event makes is logged with what it replaced, so that the history can go
/// back to before any event ([`History::forget_from`]): an execution that shares its start
/// with the last one keeps the history of that start instead of recording it again.
#[derive(Default)]
pub(crate) struct History {
    latest: rustc_hash::FxHashMap<Canon, Vec<(ThreadId, Latest)>>,
    /// The send of each channel's n-th message: the one event a receive that took it
    /// conflicts with (not the latest send of its thread).
    sends: rustc_hash::FxHashMap<(Canon, u32), (usize, ThreadId)>,
    /// What the recorded events changed, in order, each with the value it replaced.
    undo: Vec<Undo>,
    /// `marks[j]`: the length of `undo` before event `j` was recorded.
    marks: Vec<usize>,
}

/// One change to the history, with what it replaced.
enum Undo {
    /// Thread `slot` (of the object's list) had its latest event of `class` at `was`.
    Latest {
        object: Canon,
        slot: u32,
        class: u8,
        was: Option<usize>,
    },
    /// The send of a message was `was`.
    Send {
        key: (Canon, u32),
        was: Option<(usize, ThreadId)>,
    },
}

/// How the classes relate, computed at compile time (see [`Relations`]): made at the first
/// use, it was a sixth of the first execution's instructions on the bench's channel pipeline.
static RELATIONS: Relations = Relations::new();

const CLASSES: usize = 19;

// The classes of a thread's latest events are bits of a `u32` (see [`Latest`]).
const _: () = assert!(CLASSES <= 32);

/// One thread's latest event of each class on one object: `at[c]` is meaningful where bit `c`
/// of `present` is set, so that a look-up visits only the classes the thread used.
#[derive(Clone, Copy)]
struct Latest {
    present: u32,
    at: [usize; CLASSES],
}

impl Latest {
    const NONE: Latest = Latest {
        present: 0,
        at: [0; CLASSES],
    };

    /// The classes of `mask` present, each with its latest event.
    fn among(&self, mask: u32) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut bits = self.present & mask;
        std::iter::from_fn(move || {
            let class = bits.trailing_zeros() as usize;
            (bits != 0).then(|| {
                bits &= bits - 1;
                (class, self.at[class])
            })
        })
    }
}

/// For each pair of access classes (the earlier, the new one) on one object: whether they
/// conflict, and whether the earlier orders the new one. Equal to asking [`conflict_by`] and
/// [`orders_by`] of the accesses themselves: a message number never changes how a send or a
/// receive relates to a class.
///
/// [`conflict_by`]: crate::explore::dpor::events::conflict_by
/// [`orders_by`]: crate::explore::dpor::events::orders_by
struct Relations {
    conflict: [[bool; CLASSES]; CLASSES],
    orders: [[bool; CLASSES]; CLASSES],
    /// For each new class, the earlier classes that conflict with it or order it, as bits.
    related: [u32; CLASSES],
}

impl Relations {
    const fn new() -> Relations {
        let mut r = Relations {
            conflict: [[false; CLASSES]; CLASSES],
            orders: [[false; CLASSES]; CLASSES],
            related: [0; CLASSES],
        };
        let mut a = 0;
        while a < CLASSES {
            let x = class_access(a, 0);
            let mut b = 0;
            while b < CLASSES {
                let y = class_access(b, 0);
                r.conflict[a][b] = conflict_on_one_object(x, y);
                r.orders[a][b] = orders_on_one_object(x, y);
                if r.conflict[a][b] || r.orders[a][b] {
                    r.related[b] |= 1 << a;
                }
                b += 1;
            }
            a += 1;
        }
        r
    }
}

/// A representative access of each class, to test conflicts by class.
fn class_of(a: Access) -> Option<(usize, Canon)> {
    Some(match a {
        // Only a moved event's, which is no step of an execution.
        Access::None | Access::Touches => return None,
        Access::Read(o) => (0, o),
        Access::Write(o) => (1, o),
        Access::Lock(o) => (2, o),
        Access::Shared(o) => (3, o),
        Access::Unlock(o) => (4, o),
        Access::UnlockShared(o) => (5, o),
        // Conflicts as `Other` does (they differ only against `Touches`, which has no class).
        Access::Other(o) | Access::Signal(o) => (6, o),
        Access::TryLock(o) => (7, o),
        Access::TryLockOk(o) => (8, o),
        // A send's class stands for every send; which message it queued is in `sends`.
        Access::Send(o, _) => (9, o),
        Access::Took(o, _) => (10, o),
        Access::SendersGone(o) => (11, o),
        Access::ReceiverGone(o) => (12, o),
        Access::DroppedSender(o) => (13, o),
        Access::Observe(o) | Access::ObserveSignal(o) => (14, o),
        // The leader (nothing left to come) apart from the arrivals before it; how many are
        // left after one of those makes no difference within one execution.
        Access::CountDown(o, 0) => (17, o),
        Access::CountDown(o, _) => (15, o),
        // Within one execution the two kinds conflict alike (see `events::count_sensitive`).
        Access::Released(o) | Access::ReleasedNoGlue(o) => (16, o),
        Access::CountedSenders(o) => (18, o),
    })
}

const fn class_access(class: usize, o: Canon) -> Access {
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
        Access::CountDown(o, 1),
        Access::Released(o),
        Access::CountDown(o, 0),
        Access::CountedSenders(o),
    ][class]
}

impl History {
    /// Forgets every event, keeping the memory for the next execution: the objects' entries
    /// stay, emptied, since the next execution mostly uses the same objects again.
    pub(crate) fn clear(&mut self) {
        self.latest.values_mut().for_each(Vec::clear);
        self.sends.clear();
        self.undo.clear();
        self.marks.clear();
    }

    /// How many events are recorded.
    pub(crate) fn len(&self) -> usize {
        self.marks.len()
    }

    /// Records event `j`, the next one (`j == self.len()`).
    pub(crate) fn record(&mut self, j: usize, ev: &Ev) {
        debug_assert_eq!(j, self.marks.len());
        self.marks.push(self.undo.len());
        for &a in &ev.exact {
            if let Some((class, o)) = class_of(a) {
                let per_thread = self.latest.entry(o).or_default();
                let at = match per_thread.iter().position(|(t, _)| *t == ev.thread) {
                    Some(at) => at,
                    None => {
                        per_thread.push((ev.thread, Latest::NONE));
                        per_thread.len() - 1
                    }
                };
                let latest = &mut per_thread[at].1;
                let was = (latest.present & 1 << class != 0).then_some(latest.at[class]);
                latest.present |= 1 << class;
                latest.at[class] = j;
                self.undo.push(Undo::Latest {
                    object: o,
                    slot: at as u32,
                    class: class as u8,
                    was,
                });
            }
            if let Access::Send(o, n @ 1..) = a {
                let was = self.sends.insert((o, n), (j, ev.thread));
                self.undo.push(Undo::Send { key: (o, n), was });
            }
        }
    }

    /// Forgets events `j` and after, as if only the ones before had been recorded. (A thread
    /// that first used an object in a forgotten event keeps an empty entry for it: one with no
    /// class present, which no look-up sees.)
    pub(crate) fn forget_from(&mut self, j: usize) {
        let Some(&mark) = self.marks.get(j) else {
            return;
        };
        for change in self.undo.drain(mark..).rev() {
            match change {
                Undo::Latest {
                    object,
                    slot,
                    class,
                    was,
                } => {
                    let per_thread = self.latest.get_mut(&object).expect("recorded");
                    let latest = &mut per_thread[slot as usize].1;
                    match was {
                        Some(at) => latest.at[class as usize] = at,
                        None => latest.present &= !(1 << class),
                    }
                }
                Undo::Send { key, was } => match was {
                    Some(send) => {
                        self.sends.insert(key, send);
                    }
                    None => {
                        self.sends.remove(&key);
                    }
                },
            }
        }
        self.marks.truncate(j);
    }

    /// Calls `f` with every event of [`History::predecessors`]' three lists (their union),
    /// or with a later event of the same thread in its place, in no order and maybe more than
    /// once: per object and thread, the latest event of a class that conflicts with `ev` or
    /// orders it, which comes at or after each of that thread's events `predecessors` lists
    /// for the object. For a vector clock, the join of these is the join of those (a thread's
    /// later event's clock is at least its earlier one's), without sorting them.
    pub(crate) fn each_predecessor(&self, ev: &Ev, mut f: impl FnMut(usize)) {
        let relations = &RELATIONS;
        for &b in &ev.exact {
            let Some((bc, o)) = class_of(b) else { continue };
            let Some(per_thread) = self.latest.get(&o) else {
                continue;
            };
            for (t, classes) in per_thread {
                if *t == ev.thread {
                    continue;
                }
                if let Some(i) = classes.among(relations.related[bc]).map(|(_, i)| i).max() {
                    f(i);
                }
            }
            if let Access::Took(o, n) = b {
                let send = self.sends.get(&(o, n));
                if let Some(&(at, _)) = send.filter(|s| s.1 != ev.thread) {
                    f(at);
                }
            }
        }
    }

    /// Earlier events of other threads that conflict with `ev` (the latest per thread) and
    /// that order it without being its races. A `try_lock` that failed because the lock was
    /// held comes inside another critical section: a blocking acquisition cannot be moved
    /// before it alone, only before the acquisition that made it fail.
    pub(crate) fn predecessors(&self, ev: &Ev) -> (Preds, Preds, Preds) {
        let relations = &RELATIONS;
        let blocking = matches!(ev.main(), Access::Lock(_) | Access::Shared(_));
        let (mut conflicts, mut orderings) = (Preds::new(), Preds::new());
        let mut fair = Preds::new();
        for &b in &ev.exact {
            let Some((bc, o)) = class_of(b) else { continue };
            let is_fair = o == crate::explore::dpor::events::FAIRNESS;
            let Some(per_thread) = self.latest.get(&o) else {
                continue;
            };
            for (t, classes) in per_thread {
                if *t == ev.thread {
                    continue;
                }
                let (mut c, mut r) = (None, None);
                for (ac, i) in classes.among(relations.related[bc]) {
                    let conflict = relations.conflict[ac][bc];
                    // A failed try (class 7) before a blocking acquisition.
                    if blocking && conflict && ac == 7 {
                        r = r.max(Some(i));
                    } else if conflict {
                        c = c.max(Some(i));
                    } else if relations.orders[ac][bc] {
                        r = r.max(Some(i));
                    }
                }
                // Pushed, not `extend`ed: smallvec's `extend` of an `Option` costs more than
                // the rest of this loop.
                if let Some(c) = c {
                    if is_fair {
                        fair.push(c);
                    } else {
                        conflicts.push(c);
                    }
                }
                if let Some(r) = r {
                    orderings.push(r);
                }
            }
            if let Access::Took(o, n) = b {
                let send = self.sends.get(&(o, n));
                if let Some(&(at, _)) = send.filter(|s| s.1 != ev.thread) {
                    conflicts.push(at);
                }
            }
        }
        // Each step below is skipped where it could change nothing (a list of one is sorted,
        // a retain against an empty list keeps all): mostly so, and the calls were a tenth of
        // this function on the bench's SPSC rows.
        if conflicts.len() > 1 {
            conflicts.sort_unstable();
            conflicts.dedup();
        }
        // A blocking acquisition comes after the release of its lock, also where that release's
        // step conflicts with it on another object (it dropped an `Arc` whose count the
        // acquisition's step reads): the acquisition cannot move before the release alone, so
        // that is an ordering, and the race to reverse is with the acquisition before it, which
        // the release would otherwise hide.
        if blocking && !orderings.is_empty() {
            conflicts.retain(|i| !orderings.contains(i));
        }
        // Conflicts only on the fairness object, apart: they must not hide a race on a real
        // object (a yield inside a critical section before the next acquisition).
        if !fair.is_empty() {
            if !conflicts.is_empty() {
                fair.retain(|i| !conflicts.contains(i));
            }
            if fair.len() > 1 {
                fair.sort_unstable();
                fair.dedup();
            }
            conflicts.extend_from_slice(&fair);
        }
        if !conflicts.is_empty() && !orderings.is_empty() {
            orderings.retain(|i| !conflicts.contains(i));
        }
        (conflicts, orderings, fair)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table made at compile time says what `conflict_by` and `orders_by` say of the
    /// classes' representative accesses.
    #[test]
    fn the_relations_table_is_what_the_accesses_say() {
        use crate::explore::dpor::events::{conflict_by, orders_by};
        let same = &mut |x: Canon, y: Canon| x == y;
        for a in 0..CLASSES {
            for b in 0..CLASSES {
                let (x, y) = (class_access(a, 0), class_access(b, 0));
                assert_eq!(class_of(x).map(|c| c.0), Some(a));
                assert_eq!(
                    RELATIONS.conflict[a][b],
                    conflict_by(x, y, same),
                    "{x:?} {y:?}"
                );
                assert_eq!(RELATIONS.orders[a][b], orders_by(x, y, same), "{x:?} {y:?}");
                let related = RELATIONS.related[b] & (1 << a) != 0;
                assert_eq!(related, RELATIONS.conflict[a][b] || RELATIONS.orders[a][b]);
            }
        }
    }
}
