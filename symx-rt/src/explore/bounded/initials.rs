//! The initials of a race's reversed sequence (`notdep(i, E).u`, source sets) in the trace
//! theory where the changes a step carries apart from its operation are events of their own
//! ([`Look::initials`]): what the code of a thread the step woke changed (`apart::Part::Woken`)
//! and what the step's own code changed after joining a finished thread (`Part::Joined`).

use smallvec::SmallVec;

use super::apart::Apart;
use super::look::{depends, Look};
use crate::explore::dpor::events::{Access, Ev};
use crate::rt::op::ThreadId;

/// A race to reverse: event `i` with `next`, thread `next.thread`'s next event at step `k`,
/// which comes after the events `before` (`backtrack::earlier`, and a change's past where
/// `next` is a change).
#[derive(Clone, Copy)]
pub(super) struct Reversal<'r> {
    pub i: usize,
    pub k: usize,
    pub next: &'r Ev,
    pub before: &'r [usize],
}

/// A change step `at` carries apart from its operation: its accesses, and the events of its
/// thread's past it comes after besides the step (`apart::Apart::after`).
struct Change<'a> {
    at: usize,
    exact: &'a [Access],
    past: &'a [usize],
}

impl Look<'_> {
    /// The initials of `v = notdep(i, E).u` for the reversal `r` of a race of event `i` with
    /// `u`'s next event `next` at step `k`: the threads whose first event in `v` has no
    /// predecessor in `v` (Abdulla, Aronis, Jonsson, Sagonas, "Source sets", POPL 2014), and
    /// `u` if it has no event in `v` and `next` no predecessor there. Running one of them at
    /// the state before `i` starts an execution that can reach the reversal; `u` itself may
    /// not be one (its events between `i` and `k` may follow others).
    ///
    /// The order is happens-before, `hb`, of the steps, with the changes of the steps from
    /// `i` on as events of their own ([`Order`]); without such changes, `hb` alone. Until
    /// session 19 an event that conflicted with a woken change of an earlier step followed
    /// that step, one step of the order only (`bounded_por/`,
    /// `initials_follow_the_changes_of_woken_threads`), not what followed it.
    pub(super) fn initials(&self, r: Reversal<'_>) -> SmallVec<[ThreadId; 4]> {
        let Reversal { i, k, next, before } = r;
        let (evs, hb) = (self.evs, self.hb);
        let changes = self.changes(i, k);
        let order = (!changes.is_empty()).then(|| Order::new(self, i, k, &changes));
        let ti = evs[i].thread;
        let in_v = |j: usize| {
            j > i
                && j < k
                && match &order {
                    None => !hb.before(i, ti, j),
                    Some(o) => !o.after[j - i],
                }
        };
        // Each thread's first event in v (a thread's later events follow it).
        let mut firsts: SmallVec<[usize; 4]> = SmallVec::new();
        for mine in self.positions {
            if let Some(&j) = mine.get(mine.partition_point(|&j| j <= i)) {
                if in_v(j) {
                    firsts.push(j);
                }
            }
        }
        let u = next.thread;
        let u_in_v = firsts.iter().any(|&j| evs[j].thread == u);
        // Where `next` is step `k`'s own (or a change of it), the changes of step `k` whose
        // past stays before `i` or in v: they come right after `next` in `v.next` as in this
        // execution, and so `next` after whatever they come after.
        let after_i = |p: usize| match &order {
            None => p >= i && hb.before(i, ti, p),
            Some(o) => p >= i && o.after[p - i],
        };
        let own = (evs.get(k)).is_some_and(|e| e.thread == u && e.index == next.index);
        let from = self.apart.partition_point(|a| a.step < k);
        let glued: SmallVec<[&Apart; 2]> = (self.apart[from..].iter())
            .take_while(|a| own && a.step == k)
            .filter(|a| !a.after.iter().any(|&p| after_i(p)))
            .collect();
        // Whether an event of v comes before `next`: one it (as it lands, `moved_accesses`,
        // or a change glued to it) conflicts with, one an event it comes after comes after, a
        // glued change's past, or the step of a change in v it conflicts with. (Every event
        // of v comes after its thread's first event in v.)
        let moved = moved_accesses(next);
        let conflicts =
            |e: &[Access]| depends(e, &moved) || glued.iter().any(|&a| depends(e, self.part(a)));
        let directly = |j: usize| {
            in_v(j)
                && (conflicts(&evs[j].exact)
                    || before.iter().any(|&p| hb.before(j, evs[j].thread, p))
                    || glued.iter().any(|a| a.after.contains(&j)))
        };
        let next_free = !(i + 1..k).any(directly)
            && !(order.as_ref()).is_some_and(|o| o.change_before(&changes, conflicts));
        let mut out = SmallVec::new();
        for &j in &firsts {
            let first = match &order {
                None => !firsts
                    .iter()
                    .any(|&f| f < j && hb.before(f, evs[f].thread, j)),
                Some(o) => o.first(j),
            };
            if first {
                out.push(evs[j].thread);
            }
        }
        if !u_in_v && next_free {
            out.push(u);
        }
        out
    }

    /// The changes of the steps from `i` to `k - 1`, in step order.
    fn changes(&self, i: usize, k: usize) -> SmallVec<[Change<'_>; 4]> {
        let from = self.apart.partition_point(|a| a.step < i);
        let parts = self.apart[from..].iter().take_while(|a| a.step < k);
        (parts.map(|a| Change {
            at: a.step,
            exact: self.part(a),
            past: &a.after,
        }))
        .collect()
    }
}

/// `next`'s accesses where the reversal moves it, before the race's first event: as it ran
/// (or, not run yet, its operation's), and, for a `try_lock`, [`Access::Touches`]. Moved
/// before an operation on its mutex, a `try_lock` may get the other result: one that
/// succeeded fails, and its thread's code runs on past the section (to its end, say, dropping
/// its references and waking its joiner, whose code reads them); one that failed succeeds and
/// runs its section. So what its step's code changes there is not what it changed where it
/// ran, and may be anything such code can change: an event of `v` that conflicts with that
/// comes before it, and so it is no initial. As the optimal DPOR's wakeup sequences
/// (`dpor::reversals`' `may_take_another_path`, which says why no other operation is taken so).
/// Without it (`tests/bounded_por/`, `a_moved_try_lock_takes_the_other_path`): `t1: x = 1`,
/// `t2: if m.try_lock() { drop(arc0) }; x.cas(0, 3)`, `t3: x.cas(0, 1); lock m {}`, main
/// reading the `Arc` counts after each join, never read them after `t1`'s end and before
/// `t2`'s drop with `t2`'s section between `t3`'s compare-exchange and lock: the race of
/// `t2`'s `try_lock`, failed inside `t3`'s section, with `t3`'s lock took `t2` for an initial
/// of `t1.t2` (as it ran, it changed nothing), and `t2`, asleep there, for cover; and a
/// `try_lock` that succeeded, moved inside a section, failed and ended its thread unseen.
fn moved_accesses(next: &Ev) -> SmallVec<[Access; 4]> {
    let mut out = SmallVec::from_slice(&next.exact);
    if matches!(
        next.exact.first(),
        Some(Access::TryLock(_) | Access::TryLockOk(_))
    ) {
        out.push(Access::Touches);
    }
    out
}

/// The order of the events from `i` to `k - 1` in the trace theory with the changes as events
/// of their own, for the reversal of a race of `i` (the optimal DPOR's, at
/// `dpor::woken::after_with_changes`, which argues it). A change comes after its step and its
/// past, and after or before the events it conflicts with, as they ran; and it runs right
/// after the later of its step and its past, so where its past stays before the step (before
/// `i`, or in `notdep(i, E)`), it is glued to the step: the step comes after whatever the
/// change comes after. An event after `i` (not in `notdep`) is one that happens after `i` or
/// after such an event, or conflicts with a change after `i`; a change after `i` is one whose
/// step or past is, or that conflicts with an event or change after `i`, and one glued to its
/// step takes the step (and its other changes) after `i` too. Within `notdep`, where every
/// change is glued (a change whose past is after `i` is after `i`, and so is every event that
/// conflicts with it), an event follows the events it happens after, the step of a change it
/// conflicts with, and, if it is a change's step, what that change follows: the events and
/// changes it conflicts with and its past. (The past is no real predecessor of the step: run
/// first, the step would leave the change to the past's own step. Taken as one, it only
/// leaves out initials, which asks for more.)
struct Order {
    i: usize,
    /// Per event from `i` to `k - 1` (by step - `i`), whether it comes after `i`.
    after: Vec<bool>,
    /// Per change, whether it comes after `i` (otherwise it is glued to its step).
    late: Vec<bool>,
    /// Per event from `i` to `k - 1` in `notdep`, the events of `notdep` it follows, as bits
    /// by step - `i`, `words` words a row (empty rows for the others).
    preds: Vec<u64>,
    words: usize,
}

impl Order {
    fn new(look: &Look<'_>, i: usize, k: usize, changes: &[Change<'_>]) -> Order {
        let (evs, hb) = (look.evs, look.hb);
        let ti = evs[i].thread;
        let n = k - i;
        let mut after = vec![false; n];
        after[0] = true;
        // The changes of threads `i` woke come after it.
        let mut late: Vec<bool> = changes.iter().map(|c| c.at == i).collect();
        // The events after `i` other than by happens-before from `i`.
        let mut through: SmallVec<[usize; 8]> = SmallVec::new();
        let mut next = changes.partition_point(|c| c.at <= i);
        for m in i + 1..k {
            let ordered = hb.before(i, ti, m);
            let mut after_m = ordered
                || through.iter().any(|&x| hb.before(x, evs[x].thread, m))
                || (changes[..next].iter().zip(&late))
                    .any(|(c, &l)| l && depends(c.exact, &evs[m].exact));
            let here = next..next + changes[next..].iter().take_while(|c| c.at == m).count();
            let mut glue = false;
            for c in here.clone() {
                let change = &changes[c];
                let past_after = (change.past.iter()).any(|&p| p >= i && after[p - i]);
                let late_now = after_m
                    || past_after
                    || (i..m).any(|z| after[z - i] && depends(change.exact, &evs[z].exact))
                    || (0..c).any(|d| late[d] && depends(changes[d].exact, change.exact));
                if late_now {
                    late[c] = true;
                    glue |= !past_after;
                }
            }
            if glue && !after_m {
                after_m = true;
                late[here.clone()].fill(true);
            }
            after[m - i] = after_m;
            if after_m && !ordered {
                through.push(m);
            }
            next = here.end;
        }
        let words = n.div_ceil(64);
        let mut order = Order {
            i,
            after,
            late,
            preds: vec![0; n * words],
            words,
        };
        for m in i + 1..k {
            if !order.after[m - i] {
                order.follow(evs, hb, changes, m);
            }
        }
        order
    }

    /// Fills in the row of `m`, an event of `notdep`, from the rows of the events before it.
    fn follow(
        &mut self,
        evs: &[Ev],
        hb: &crate::explore::dpor::races::HappensBefore,
        changes: &[Change<'_>],
        m: usize,
    ) {
        let (i, words) = (self.i, self.words);
        let (done, rest) = self.preds.split_at_mut((m - i) * words);
        let row = &mut rest[..words];
        let mut add = |x: usize| {
            row[(x - i) / 64] |= 1 << ((x - i) % 64);
            for (r, p) in row
                .iter_mut()
                .zip(&done[(x - i) * words..(x - i + 1) * words])
            {
                *r |= p;
            }
        };
        let in_v = |x: usize| x > i && !self.after[x - i];
        for x in (i + 1..m).filter(|&x| in_v(x)) {
            if hb.before(x, evs[x].thread, m) {
                add(x);
            }
        }
        let glued = |c: usize| !self.late[c];
        for (c, change) in changes.iter().enumerate().filter(|&(c, _)| glued(c)) {
            if change.at < m && depends(change.exact, &evs[m].exact) {
                add(change.at);
            }
            if change.at != m {
                continue;
            }
            for &p in change.past.iter().filter(|&&p| p > i) {
                add(p);
            }
            for x in (i + 1..m).filter(|&x| in_v(x)) {
                if depends(change.exact, &evs[x].exact) {
                    add(x);
                }
            }
            for (d, other) in changes.iter().enumerate().take(c) {
                if glued(d) && other.at < m && depends(other.exact, change.exact) {
                    add(other.at);
                }
            }
        }
    }

    /// Whether event `j` of `notdep` follows none of its events.
    fn first(&self, j: usize) -> bool {
        let row = (j - self.i) * self.words;
        self.preds[row..row + self.words].iter().all(|&w| w == 0)
    }

    /// Whether an event conflicts with a change glued to a step of `notdep` (and so comes
    /// after that step): `conflicts`, given the change's accesses.
    fn change_before(&self, changes: &[Change<'_>], conflicts: impl Fn(&[Access]) -> bool) -> bool {
        (changes.iter().zip(&self.late))
            .any(|(c, &late)| !late && c.at > self.i && conflicts(c.exact))
    }
}
