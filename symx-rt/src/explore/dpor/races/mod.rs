//! Happens-before over one finished execution and the races in it (`e ⋖ e'`: dependent
//! events of different threads, ordered by nothing but their own conflict), from which the
//! reduction plants reversals. Works on the execution's exact object ids.

mod history;

use super::events::{Access, Ev};
use crate::rt::op::ThreadId;
pub(crate) use history::History;

/// A few earlier events (at most one per thread and access class, usually one or two).
pub(crate) type Preds = smallvec::SmallVec<[usize; 4]>;

/// Moves the conflicts of `ej`, a blocking acquisition, that lie inside a critical section it
/// waits for (after that section's acquisition, which conflicts with `ej`, and before its
/// release, one of `lock_edges`) from `conflicts` to `lock_edges`: `ej` cannot move before
/// such an event alone, only before the section's acquisition, so the event orders `ej` and is
/// no race of it, and must not hide the race with that acquisition (as the release's own step
/// must not, [`History::predecessors`]). Such a conflict is on another object than the lock:
/// the code after `ej`'s acquisition read the count of an `Arc` that a step inside the section
/// dropped. Reversed as a race, `ej` was put where the lock is held: it could not run there,
/// its thread went to sleep, and the outcome where `ej` takes the lock first went unexplored
/// (`tests/dpor_vs_dfs/`, `Family::Woken`, seed 1149 of the larger programs, shrunk: thread
/// 1 drops its reference to an `Arc` inside a critical section, thread 2 reads its count inside
/// one).
fn inside_critical_sections(evs: &[Ev], ej: &Ev, conflicts: &mut Preds, lock_edges: &mut Preds) {
    let lock = |e: &Ev| match e.exact.first() {
        Some(Access::Lock(o) | Access::Shared(o)) => Some(*o),
        _ => None,
    };
    let Some(m) = lock(ej) else { return };
    // A section a `try_lock` opened, too: without it, the drop's race was reversed where
    // thread 1's `try_lock` had opened the section (`tests/dpor_vs_dfs/changes.rs`,
    // `an_acquisition_after_a_section_a_try_lock_opened`).
    let opens = |e: &Ev| match e.exact.first() {
        Some(Access::TryLockOk(o)) => Some(*o),
        _ => lock(e),
    };
    // Per thread, the section's acquisition: its latest of the lock, a conflict of `ej` (a
    // conflict on another object may be an earlier acquisition's step).
    let acquisition = |t: ThreadId| {
        (conflicts.iter().copied())
            .filter(|&a| evs[a].thread == t && opens(&evs[a]) == Some(m))
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
    /// Only the clocks, not the races ([`HappensBefore::clocks_only`]).
    clocks_only: bool,
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

    /// Happens-before without the races (`races` stays empty): the bounded reduction finds its
    /// races itself, per thread that could run at each step, and reads only the clocks
    /// ([`HappensBefore::before`]). The races were 1.1 k of 168.6 k instructions per execution
    /// on the bench's SPSC queue at bound 4.
    pub(crate) fn clocks_only() -> HappensBefore {
        HappensBefore {
            clocks_only: true,
            ..HappensBefore::default()
        }
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
            if self.clocks_only {
                self.add_clock(evs, j);
            } else {
                self.add(evs, j);
            }
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

    /// Adds event `j` of `evs` (every earlier one added): its clock only. The clock [`add`]
    /// computes, without sorting its predecessors into orderings, conflicts and the fairness
    /// object's (`History::predecessors`): the clock joins them all, and however they are
    /// sorted (`inside_critical_sections` moves some between the lists) the union is the same,
    /// which `History::each_predecessor` gives. With the sorting, its lists and their joins
    /// one by one, `recompute` was 9.8 M instructions on the bench's spsc-1 at bound 4, 6.9 M
    /// without (session 22; the equality with `add`'s clocks is the test below's).
    ///
    /// [`add`]: HappensBefore::add
    fn add_clock(&mut self, evs: &[Ev], j: usize) {
        let threads = self.threads;
        let ej = &evs[j];
        let Scratch {
            last_of,
            positions,
            history,
            ..
        } = &mut self.scratch;
        let start = self.clock.len();
        self.clock.resize(start + threads, 0);
        let (before, now) = self.clock.split_at_mut(start);
        let mut join = |p: usize| join_clock(now, before, p);
        if let Some(p) = last_of[ej.thread] {
            join(p);
        }
        for &(t, i) in &ej.enablers {
            if let Some(&p) = positions.get(t).and_then(|p| p.get(i as usize)) {
                join(p);
            }
        }
        history.each_predecessor(ej, join);
        self.clock[start + ej.thread] = ej.index + 1;
        history.record(j, ej);
        last_of[ej.thread] = Some(j);
        positions[ej.thread].push(j);
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
            join_clock(now, before, p);
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

/// Joins into `now` (one event's clock, being computed) the clock of event `p`, stored in
/// `before` as `now.len()` entries per event.
fn join_clock(now: &mut [u32], before: &[u32], p: usize) {
    let threads = now.len();
    for (m, &c) in now.iter_mut().zip(&before[p * threads..(p + 1) * threads]) {
        *m = (*m).max(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                nth: index,
                accesses: smallvec::smallvec![access],
                exact: smallvec::smallvec![access],
                execution: 1,
                enablers: smallvec::SmallVec::new(),
                fair: Default::default(),
            }
        }
    }

    /// The prefix-reusing `recompute` gives, execution after execution, exactly the clocks and
    /// races of a computation from scratch, and a clocks-only one the same clocks.
    #[test]
    fn recomputing_after_a_shared_prefix_equals_computing_from_scratch() {
        let mut events = Events(0x9e37_79b9_7f4a_7c15, [0; 3], 0);
        let mut reused = HappensBefore::default();
        let (mut clocks, mut races) = (HappensBefore::clocks_only(), 0);
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
            clocks.recompute(&evs, keep);
            let fresh = HappensBefore::compute(&evs);
            assert_eq!(reused.clock, fresh.clock, "round {round}");
            assert_eq!(reused.races, fresh.races, "round {round}");
            assert_eq!(clocks.clock, fresh.clock, "round {round}");
            assert!(clocks.races.is_empty(), "round {round}");
            races += fresh.races.len();
        }
        assert!(races > 0, "the clocks-only check saw no race left out");
    }
}
