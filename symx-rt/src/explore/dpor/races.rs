//! Happens-before over one finished execution and the races in it (`e ⋖ e'`: dependent
//! events of different threads, ordered by nothing but their own conflict), from which the
//! reduction plants reversals. Works on the execution's exact object ids.

use super::events::{conflict_on_one_object, orders_on_one_object, Access, Canon, Ev};
use crate::rt::op::ThreadId;

/// A few earlier events (at most one per thread and access class, usually one or two).
type Preds = smallvec::SmallVec<[usize; 4]>;

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
/// conflict, and whether the earlier orders the new one. Equal to asking
/// [`conflict_by`](super::events::conflict_by) and [`orders_by`](super::events::orders_by) of
/// the accesses themselves: a message number never changes how a send or a
/// receive relates to a class.
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
        // The leader (nothing left to come) apart from the arrivals before it; how many are
        // left after one of those makes no difference within one execution.
        Access::CountDown(o, 0) => (17, o),
        Access::CountDown(o, _) => (15, o),
        Access::Released(o) => (16, o),
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
            let is_fair = o == super::events::FAIRNESS;
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
        conflicts.sort_unstable();
        conflicts.dedup();
        // A blocking acquisition comes after the release of its lock, also where that release's
        // step conflicts with it on another object (it dropped an `Arc` whose count the
        // acquisition's step reads): the acquisition cannot move before the release alone, so
        // that is an ordering, and the race to reverse is with the acquisition before it, which
        // the release would otherwise hide.
        if blocking {
            conflicts.retain(|i| !orderings.contains(i));
        }
        // Conflicts only on the fairness object, apart: they must not hide a race on a real
        // object (a yield inside a critical section before the next acquisition).
        fair.retain(|i| !conflicts.contains(i));
        fair.sort_unstable();
        fair.dedup();
        conflicts.extend_from_slice(&fair);
        orderings.retain(|i| !conflicts.contains(i));
        (conflicts, orderings, fair)
    }
}

/// Moves the conflicts of `ej`, a blocking acquisition, that lie inside a critical section it
/// waits for (after that section's acquisition, which conflicts with `ej`, and before its
/// release, one of `lock_edges`) from `conflicts` to `lock_edges`: `ej` cannot move before
/// such an event alone, only before the section's acquisition, so the event orders `ej` and is
/// no race of it, and must not hide the race with that acquisition (as the release's own step
/// must not, [`History::predecessors`]). Such a conflict is on another object than the lock:
/// the code after `ej`'s acquisition read the count of an `Arc` that a step inside the section
/// dropped. Reversed as a race, `ej` was put where the lock is held: it could not run there,
/// its thread went to sleep, and the outcome where `ej` takes the lock first went unexplored
/// (`tests/dpor_vs_dfs.rs`, `Family::Woken`, seed 1149 of the larger programs, shrunk: thread
/// 1 drops its reference to an `Arc` inside a critical section, thread 2 reads its count inside
/// one).
fn inside_critical_sections(evs: &[Ev], ej: &Ev, conflicts: &mut Preds, lock_edges: &mut Preds) {
    let lock = |e: &Ev| match e.exact.first() {
        Some(Access::Lock(o) | Access::Shared(o)) => Some(*o),
        _ => None,
    };
    let Some(m) = lock(ej) else { return };
    // Per thread, the section's acquisition: its latest of the lock, a conflict of `ej` (a
    // conflict on another object may be an earlier acquisition's step).
    let acquisition = |t: ThreadId| {
        (conflicts.iter().copied())
            .filter(|&a| evs[a].thread == t && lock(&evs[a]) == Some(m))
            .max()
    };
    let inside = |i: usize| {
        let (ti, ii) = (evs[i].thread, evs[i].index);
        acquisition(ti).is_some_and(|a| evs[a].index < ii)
            && (lock_edges.iter()).any(|&p| evs[p].thread == ti && evs[p].index > ii)
    };
    let moved: Preds = conflicts.iter().copied().filter(|&i| inside(i)).collect();
    if !moved.is_empty() {
        conflicts.retain(|i| !moved.contains(i));
        lock_edges.extend_from_slice(&moved);
    }
}

/// Happens-before over one execution's events, and the races in it. Kept from one execution
/// to the next: its buffers are reused, and so is everything it computed for the events the
/// new execution shares with the last one ([`HappensBefore::recompute`]).
#[derive(Default)]
pub(crate) struct HappensBefore {
    threads: usize,
    /// clock[k * threads + t]: how many of thread t's events happen before or at event k.
    clock: Vec<u32>,
    /// (i, j): event i races with the later event j (i ⋖ j), in order of j.
    pub(super) races: Vec<(usize, usize)>,
    scratch: Scratch,
}

/// What computing happens-before needs besides its result.
#[derive(Default)]
struct Scratch {
    last_of: Vec<Option<usize>>,
    /// `positions[t][i]`: where thread t's i-th event is in the trace.
    positions: Vec<Vec<usize>>,
    history: History,
    ordering: Vec<usize>,
}

impl HappensBefore {
    #[cfg(test)]
    pub(crate) fn compute(evs: &[Ev]) -> HappensBefore {
        let mut hb = HappensBefore::default();
        hb.recompute(evs, 0);
        hb
    }

    /// Happens-before and the races of `evs`, replacing those of the previous execution, whose
    /// first `shared` events were the same as `evs`' (the caller knows: the exploration ran
    /// them again under the same schedule).
    ///
    /// An event's clock and its races with earlier events depend only on the events up to it.
    /// So the shared events (in the depth-first exploration, usually most of them: the
    /// execution branched off near its end) keep their clocks and races, and the object
    /// history goes back to where they end ([`History::forget_from`]): the cost is that of
    /// the events after them.
    pub(crate) fn recompute(&mut self, evs: &[Ev], shared: usize) {
        let threads = evs.iter().map(|e| e.thread + 1).max().unwrap_or(0);
        let history = &mut self.scratch.history;
        let kept = match threads == self.threads {
            true => shared.min(history.len()).min(evs.len()),
            false => 0,
        };
        self.threads = threads;
        self.clock.truncate(kept * threads);
        let races_kept = self.races.partition_point(|&(_, j)| j < kept);
        self.races.truncate(races_kept);
        self.forget_from(kept);
        for j in kept..evs.len() {
            self.add(evs, j);
        }
    }

    /// Goes back to before event `kept`: the events before it stay added.
    fn forget_from(&mut self, kept: usize) {
        let threads = self.threads;
        let Scratch {
            last_of,
            positions,
            history,
            ..
        } = &mut self.scratch;
        if kept == 0 {
            history.clear();
            positions.iter_mut().for_each(Vec::clear);
        } else {
            history.forget_from(kept);
            for p in positions.iter_mut() {
                while p.last().is_some_and(|&j| j >= kept) {
                    p.pop();
                }
            }
        }
        positions.resize(threads.max(positions.len()), Vec::new());
        last_of.clear();
        last_of.extend(positions[..threads].iter().map(|p| p.last().copied()));
    }

    /// Adds event `j` of `evs` (every earlier one added): its clock and its races.
    fn add(&mut self, evs: &[Ev], j: usize) {
        let threads = self.threads;
        let ej = &evs[j];
        let Scratch {
            last_of,
            positions,
            history,
            ordering,
        } = &mut self.scratch;
        // Predecessors that are ordering edges (never reversed) and conflicts (races).
        ordering.clear();
        ordering.extend(last_of[ej.thread]);
        ordering.extend(
            ej.enablers
                .iter()
                .filter_map(|&(t, i)| positions.get(t).and_then(|p| p.get(i as usize)).copied()),
        );
        let (mut conflicts, mut lock_edges, fair) = history.predecessors(ej);
        let acquires = matches!(ej.main(), Access::Lock(_) | Access::Shared(_));
        if acquires {
            inside_critical_sections(evs, ej, &mut conflicts, &mut lock_edges);
        }
        let start = self.clock.len();
        self.clock.resize(start + threads, 0);
        let (before, now) = self.clock.split_at_mut(start);
        for &p in ordering.iter().chain(&lock_edges).chain(&conflicts) {
            for (m, &c) in now.iter_mut().zip(&before[p * threads..(p + 1) * threads]) {
                *m = (*m).max(c);
            }
        }
        self.clock[start + ej.thread] = ej.index + 1;
        // i ⋖ j: a conflict that no other predecessor already orders. For a blocking
        // acquisition, `lock_edges` (the releases and failed tries between two critical
        // sections) do not count: the race with the earlier acquisition is to be reversed.
        for &i in &conflicts {
            let real = !fair.contains(&i);
            let (ti, ii) = (evs[i].thread, evs[i].index);
            // A yield inside the critical section an acquisition waits for: the acquisition
            // cannot come before it (the release comes after it), not a race.
            if !real
                && acquires
                && lock_edges
                    .iter()
                    .any(|&p| evs[p].thread == ti && evs[p].index > ii)
            {
                continue;
            }
            let seen_via = |p: usize| self.clock[p * threads + ti] > ii;
            let mut others = ordering
                .iter()
                .chain(if acquires {
                    [].iter()
                } else {
                    lock_edges.iter()
                })
                .chain(
                    conflicts
                        .iter()
                        .filter(|&&c| c != i && !(real && fair.contains(&c))),
                );
            if !others.any(|&p| seen_via(p)) {
                self.races.push((i, j));
            }
        }
        history.record(j, ej);
        last_of[ej.thread] = Some(j);
        positions[ej.thread].push(j);
    }

    /// A hash of the Mazurkiewicz trace of the first `ran` events (those of `recompute`'s
    /// `evs`): of each event's thread, index and vector clock, summed, so that every
    /// execution of one trace (the same events, the same happens-before) has the same hash.
    /// A split exploration's shards record it to count the traces two of them ran.
    pub(crate) fn trace_hash(&self, evs: &[Ev], ran: usize) -> u64 {
        use std::hash::{Hash, Hasher};
        let threads = self.threads;
        (0..ran).fold(0u64, |sum, k| {
            let mut h = rustc_hash::FxHasher::default();
            (evs[k].thread, evs[k].index).hash(&mut h);
            self.clock[k * threads..(k + 1) * threads].hash(&mut h);
            // FxHash's last step leaves low bits weak: spread them before summing.
            sum.wrapping_add(
                h.finish()
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    .rotate_left(29),
            )
        })
    }

    /// Whether event `i` (of thread `ti`) happens before event `k`.
    pub(crate) fn before(&self, i: usize, ti: ThreadId, k: usize) -> bool {
        self.clock[k * self.threads + ti] >= self.clock[i * self.threads + ti]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table made at compile time says what `conflict_by` and `orders_by` say of the
    /// classes' representative accesses.
    #[test]
    fn the_relations_table_is_what_the_accesses_say() {
        use super::super::events::{conflict_by, orders_by};
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

    /// Random events of three threads on two objects (xorshift: the same sequence every run),
    /// with each thread's next index and the last message number sent.
    struct Events(u64, [u32; 3], u32);

    impl Events {
        fn next(&mut self) -> Ev {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            let (thread, object) = ((self.0 % 3) as usize, ((self.0 >> 8) % 2) as u32);
            // Messages numbered from 1 by one count for both objects (unique, never reused),
            // and receives of one of the last few.
            let message = (self.0 >> 24) as u32 % 4;
            let access = match (self.0 >> 16) % 6 {
                4 => {
                    self.2 += 1;
                    Access::Send(object, self.2)
                }
                5 => Access::Took(object, self.2.saturating_sub(message).max(1)),
                c => {
                    [Access::Read, Access::Write, Access::Lock, Access::Unlock][c as usize](object)
                }
            };
            let index = self.1[thread];
            self.1[thread] += 1;
            Ev {
                thread,
                index,
                accesses: smallvec::smallvec![access],
                exact: smallvec::smallvec![access],
                execution: 1,
                enablers: smallvec::SmallVec::new(),
                fair: Default::default(),
            }
        }
    }

    /// The prefix-reusing `recompute` gives, execution after execution, exactly the clocks and
    /// races of a computation from scratch.
    #[test]
    fn recomputing_after_a_shared_prefix_equals_computing_from_scratch() {
        let mut events = Events(0x9e37_79b9_7f4a_7c15, [0; 3], 0);
        let mut reused = HappensBefore::default();
        let mut evs: Vec<Ev> = (0..12).map(|_| events.next()).collect();
        for round in 0..2000 {
            let keep = (round * 7) % (evs.len() + 1);
            evs.truncate(keep);
            events.1 = [0; 3];
            for e in &evs {
                events.1[e.thread] = e.index + 1;
            }
            while evs.len() < 12 {
                evs.push(events.next());
            }
            reused.recompute(&evs, keep);
            let fresh = HappensBefore::compute(&evs);
            assert_eq!(reused.clock, fresh.clock, "round {round}");
            assert_eq!(reused.races, fresh.races, "round {round}");
        }
    }
}
