//! The rules by which one finished execution's steps ask for other threads (the "look" of
//! [`backtrack`](super::backtrack) over an execution): a race's own point and, under the
//! bound, the conservative points Coons et al. add to it ([`Look::race`]), the points for a
//! thread whose step waited for another's ([`Look::blocked_earlier`]), for a thread that
//! blocked on a lock another thread held ([`Look::blocked_inside`]), for a thread whose step
//! joined a thread that had ended ([`Look::joined_earlier`]), and for a thread disabled
//! where it could have run ([`Look::disabled`]); and whether an execution needs the points at
//! earlier steps at all ([`blocks`]).

use smallvec::SmallVec;

use super::apart::{Apart, Part};
use super::backtrack::{GaveWay, Lookahead, Point};
use super::initials::Reversal;
use super::memo::Asks;
use crate::explore::dpor::events::{conflict_by, orders_by, Access, Canon, Ev};
use crate::explore::dpor::races::{HappensBefore, History};
use crate::explore::dpor::result_may_differ;
use crate::rt::op::{Event, OpKind, ThreadId};

/// What the points of one execution are computed over.
pub(super) struct Look<'a> {
    pub(super) evs: &'a [Ev],
    pub(super) hb: &'a HappensBefore,
    pub(super) ready: &'a [Vec<Lookahead>],
    pub(super) positions: &'a [Vec<usize>],
    pub(super) bounded: bool,
    /// The main thread's name: before the first step it counts as the one running.
    pub(super) main: ThreadId,
    /// Per step `k`, the threads a race with step `k` asks no points at earlier steps for
    /// (see [`Look::race`]): those only their yield kept from running there, or every thread
    /// when nothing in the execution can block ([`blocks`]).
    pub(super) gave_way: &'a GaveWay,
    /// The steps' changes apart from their operations, in step order: they race with their
    /// pasts too ([`Look::races_with_pasts`]), and [`Look::initials`] orders by them.
    pub(super) apart: &'a [Apart],
}

/// Where thread `t`'s `n`-th event is in the trace (`positions`: each thread's steps), if it ran.
pub(super) fn step_of(positions: &[Vec<usize>], (t, n): (ThreadId, u32)) -> Option<usize> {
    positions.get(t)?.get(n as usize).copied()
}

impl Look<'_> {
    /// The races of `next`, a thread's next event at step `k`, with the events before it (in
    /// `history`): what each asks for. `before`: the events `next` comes after
    /// (`backtrack::earlier`).
    pub(super) fn races_of(
        &self,
        k: usize,
        next: &Ev,
        history: &History,
        before: &[usize],
        out: &mut Asks,
    ) {
        let (evs, hb) = (self.evs, self.hb);
        // The fairness object's conflicts (yields, spurious wake-ups) race too: `predecessors`
        // lists them after the others (its third list is only they, apart).
        let (conflicts, _, _) = history.predecessors(next);
        for i in conflicts {
            // Already ordered before u's next event: no reversal.
            if before.iter().any(|&p| hb.before(i, evs[i].thread, p)) {
                continue;
            }
            self.reverse(Reversal { i, k, next, before }, out);
        }
        self.races_with_pasts(k, next, before, out);
        let own =
            (self.evs.get(k)).is_some_and(|e| (e.thread, e.index) == (next.thread, next.index));
        if !own {
            return;
        }
        for (i, sleeper) in self.races_through_branches(k, next, before) {
            let initials = self.initials(Reversal { i, k, next, before });
            out.point(Point {
                at: i,
                thread: next.thread,
                conservative: false,
                race: i,
                initials,
                sleeper: Some((sleeper, k)),
            });
        }
    }

    /// The races of `next` (at step `k`, after `before`; a step's own event) through a step
    /// that may branch: pairs `(i, b's thread)` where `b`, a step of another thread between
    /// `i` and `k` not ordered before `next`, races with `i` (not ordered before `next`
    /// either), and its operation's result may differ where a reversal moves it
    /// (`dpor::result_may_differ`), while `next` changes something code after an operation
    /// can touch ([`Access::Touches`]: a count, a channel). Each asks, at `i`, for an initial
    /// of `notdep(i, E).next`, but only where `b`'s thread sleeps there with an event that
    /// `next` depends on (checked where the point is planted, `Point::sleeper`).
    ///
    /// Why (session 21): the race of `i` with `b` asks for an initial of `notdep(i, E).b`,
    /// and source sets take every trace that reverses it to be reached from there, through
    /// the races of the executions below. Moved before `i`, `b` may read another value, and
    /// its step's code take another path, which touches what `next` changes: then the
    /// reversed trace may have `next` before `b`, though `next` commutes with `b` as it ran
    /// (so no race of this execution puts it first). Where `b`'s thread sleeps at `i`, its
    /// event there is `b` as moved, and the sleeper covers only the traces that start with
    /// it; the branch that started with `b`, where its race with `next` was reversed, ran
    /// before `i`'s own step, and its point (before `b`) is not after `i`. So nothing asks
    /// for `next`'s thread here unless this does. `t1: if x.swap(2) != 1 { count(arc1) };
    /// load x`, `t2: load y`, `t3: y.swap(1); x = 1` (`Family::Branching` seed 9,001,386,
    /// shrunk; `tests/bounded_por.rs`, `a_step_that_may_branch_races_through_its_other_path`):
    /// after `t3`'s swap, `t1` sleeps (its swap read 0 and counted 4 at the start); the race
    /// of `t3`'s store with `t1`'s swap (which read 1 and counted nothing) asked for `t1`,
    /// asleep, and the states where `t2` ends before `t1`'s swap, which then counts 3, were
    /// never reached (2 of 15, at bound 3 and without a bound).
    fn races_through_branches(
        &self,
        k: usize,
        next: &Ev,
        before: &[usize],
    ) -> SmallVec<[(usize, ThreadId); 4]> {
        let (evs, hb) = (self.evs, self.hb);
        let mut out: SmallVec<[(usize, ThreadId); 4]> = SmallVec::new();
        if !depends(&next.exact, &[Access::Touches]) {
            return out;
        }
        let ordered = |m: usize| before.iter().any(|&p| hb.before(m, evs[m].thread, p));
        for b in 0..k {
            let eb = &evs[b];
            if eb.thread == next.thread || ordered(b) {
                continue;
            }
            let kind = (self.ready.get(b).into_iter().flatten()).find(|l| l.thread == eb.thread);
            if !kind.is_some_and(|l| result_may_differ(l.kind)) {
                continue;
            }
            let prev = (eb.index > 0)
                .then(|| step_of(self.positions, (eb.thread, eb.index - 1)))
                .flatten();
            for (i, ei) in evs.iter().enumerate().take(b) {
                if ei.thread == eb.thread
                    || !depends(&ei.exact, &eb.exact)
                    || prev.is_some_and(|p| hb.before(i, ei.thread, p))
                    || ordered(i)
                    || out.contains(&(i, eb.thread))
                {
                    continue;
                }
                out.push((i, eb.thread));
            }
        }
        out
    }

    /// Asks for the reversal `r` of a race ([`Look::race`], with the initials of the reversed
    /// sequence, [`Look::initials`]).
    fn reverse(&self, r: Reversal<'_>, out: &mut Asks) {
        let initials = self.initials(r);
        self.race(r.i, r.next.thread, initials, r.before, &r.next.exact, out);
    }

    /// The races of `next` (at step `k`, after `before`) with the pasts of the changes it
    /// conflicts with. A change a step `g` carries apart from its operation (what the code of
    /// a thread `g` woke changed, or what `g`'s own code changed after joining a finished
    /// thread, [`Apart`]) comes after `g` and after a past (`Apart::after`: the woken thread's
    /// last event and what that came after, or the joined thread's); the history races `next`
    /// with it as with `g` only. But `next` can come before the change by coming before that
    /// past too: the woken thread then comes to its wait after `g` and finds it over, or the
    /// join waits, and the change comes with the past's own step, after `next`. So each event
    /// of the past that is not ordered before `next` races with it, unless an event after `g`
    /// that conflicts with the change is ordered before `next` (then that event's own race
    /// stands for it). The optimal DPOR has these races (`dpor::woken::later_races`).
    /// Without them, `t1: spawn c { load y }; load x; join c`, `t2: y.cas(0, 2)`, with main
    /// reading the `Arc` counts after joining `t1`, never read them after `t2`'s drops with
    /// `c`'s load before the compare-exchange (`tests/bounded_por/`,
    /// `a_change_races_as_its_past`).
    fn races_with_pasts(&self, k: usize, next: &Ev, before: &[usize], out: &mut Asks) {
        let (evs, hb) = (self.evs, self.hb);
        let upto = self.apart.partition_point(|a| a.step < k);
        for a in &self.apart[..upto] {
            let change = self.part(a);
            if !depends(change, &next.exact) {
                continue;
            }
            let ordered = |m: usize| before.iter().any(|&b| hb.before(m, evs[m].thread, b));
            if (a.step + 1..k).any(|m| depends(change, &evs[m].exact) && ordered(m)) {
                continue;
            }
            for &i in a.after.iter().filter(|&&p| p < a.step && !ordered(p)) {
                self.reverse(Reversal { i, k, next, before }, out);
            }
        }
    }

    /// The accesses of a change apart from its step's operation.
    pub(super) fn part<'p>(&'p self, a: &'p Apart) -> &'p [Access] {
        match &a.part {
            Part::Woken(exact) => exact,
            &Part::Joined { from, len } => &self.evs[a.step].exact[from..from + len],
        }
    }

    /// The first step of the run of step `i`'s thread that contains `i` (the step after the
    /// last switch before it; 0 for main's first run).
    fn run_start(&self, i: usize) -> usize {
        let v = self.evs[i].thread;
        (0..i)
            .rev()
            .find(|&j| self.evs[j].thread != v)
            .map_or(0, |j| j + 1)
    }

    /// Whether thread `t` could run at step `k` (within the bound).
    fn runs(&self, k: usize, t: ThreadId) -> bool {
        (self.ready.get(k)).is_some_and(|r| r.iter().any(|l| l.thread == t))
    }

    /// Whether the events of a thread up to its next event, whose accesses are `next`,
    /// depend on step `j`: `j` happens before an event `next` comes after (`before`), or
    /// conflicts with `next`.
    fn needs(&self, j: usize, before: &[usize], next: &[Access]) -> bool {
        let e = &self.evs[j];
        before.iter().any(|&p| self.hb.before(j, e.thread, p)) || depends(&e.exact, next)
    }

    /// A thread whose step `k` waited for another thread's step `p` (a receive for the message
    /// or the disconnect it got, a join, a wake-up; not a spawn) could have tried it before
    /// `p` and blocked, which makes the switch away from it free: under a bound, that is the
    /// only schedule within it of some traces, and the wait is never reversed as a race (the
    /// step could not have completed before `p`). So the thread is asked for at `p`, where it
    /// can run, conservatively. (`bounded_channels.rs`, seed 1,138 at bound 0: thread 2 sends,
    /// tries a receive that blocks, and only then may thread 1 drop the channel's last other
    /// sender and end for free.) Where the bound hides the thread at `p` (inside the run of
    /// `p`'s thread, which would be preempted there), it is asked for at that run's start, if
    /// it can run there: Coons's point, where switching to it costs what the execution's switch
    /// did (session 24, seed 10,041 at bound 0: `t0` receives and sends, `t1`'s receive took
    /// that message, and its outcome needs `t1` to send and block before `t0`'s run).
    /// Not at earlier steps too, as [`Look::race`] asks where the bound hides a racing thread:
    /// measured, that form moved 8 pinned counts of `tests/bounded_por/` (one 5 -> 10), and
    /// no program measured needs it; it is not argued unneeded (`docs/bounded-por.md`).
    pub(super) fn blocked_earlier(&self, k: usize, out: &mut Asks) {
        let (evs, positions) = (self.evs, self.positions);
        let ek = &evs[k];
        if ek.index == 0 {
            return; // a thread's first event waits for its spawn, which it cannot precede
        }
        for &(t, n) in &ek.enablers {
            let Some(p) = step_of(positions, (t, n)) else {
                continue;
            };
            if t == ek.thread || p >= k {
                continue;
            }
            if self.runs(p, ek.thread) {
                out.conservative(p, ek.thread, k);
                continue;
            }
            // The bound hides the thread at `p`: at the start of the run of `p`'s thread.
            let start = self.run_start(p);
            if start < p && self.runs(start, ek.thread) {
                out.conservative(start, ek.thread, k);
            }
        }
    }

    /// A step `k` whose code joined a thread that had ended and then changed objects (`a`, a
    /// [`Part::Joined`], after the joined thread's last event `q`) could have come to the join
    /// before `q` and waited: its changes then come right after `q` (a woken thread's), and
    /// the switch away from its thread `u`, blocked in the join, is free. Under a bound that is
    /// the only schedule within it of some traces: those where the changes come before another
    /// thread's event that comes before `u`'s next one, as main's count reads after a third
    /// thread's end with `u`'s drop before them and its end after them. No race asks for it
    /// (the step and `q` commute; its changes' race with that event asks for `u` after `q`,
    /// where the join does not wait and `u` runs on to its end), and [`Look::blocked_earlier`]
    /// asks only for a step that waited. So `u` is asked for, conservatively, at the last step
    /// up to `q` where it can run, after its last event before `q` (its events from there to
    /// `k` then run before `q`; their races with the events they pass have points of their
    /// own); none where it cannot run there, nor where the step's operation comes after `q` in
    /// happens-before (its previous event or an enabler does: the join cannot come before `q`
    /// in any schedule of the trace, and a trace where it can is reached by reversing a race on
    /// the way from `q`, whose execution asks again; main receiving, in the bench's pipeline,
    /// what the thread it then joins sent last).
    /// Without it, `t1: x += 1`, `t2: spawn c { load x; x.swap(3) }; y += 1; join c;
    /// drop(arc1); y = 2`, bound 0, main reading the `Arc` counts after each join, never read
    /// them after `t1`'s end with `t2`'s drop before them and its end after them, with `c`'s
    /// load before `t1`'s add (`tests/bounded_por/`,
    /// `a_join_that_did_not_wait_could_have_waited`; seed 8,003,450 of `Family::Woken`).
    pub(super) fn joined_earlier(&self, a: &Apart, out: &mut Asks) {
        if !matches!(a.part, Part::Joined { .. }) {
            return;
        }
        let (k, evs) = (a.step, self.evs);
        let u = evs[k].thread;
        let mine = &self.positions[u];
        // What the step's operation comes after: its thread's previous event, its enablers.
        let previous = (mine.partition_point(|&p| p < k).checked_sub(1)).map(|n| mine[n]);
        let enablers = evs[k]
            .enablers
            .iter()
            .filter_map(|&e| step_of(self.positions, e));
        let before: SmallVec<[usize; 3]> = previous.into_iter().chain(enablers).collect();
        for &q in a.after.iter().filter(|&&q| q < k) {
            let after_q = |p: usize| p == q || p > q && self.hb.before(q, evs[q].thread, p);
            if before.iter().any(|&p| after_q(p)) {
                continue;
            }
            // After `u`'s last event before `q` (its events from there on run first).
            let from = (mine.partition_point(|&p| p < q).checked_sub(1)).map_or(0, |n| mine[n] + 1);
            if let Some(s) = (from..=q).rev().find(|&s| self.runs(s, u)) {
                out.conservative(s, u, k);
            }
        }
    }

    /// A thread `u` whose acquisition `q` of a lock came after another thread `v` released it
    /// (at step `r`, the lock's last release before `q`) is asked for at `r`, conservatively,
    /// if it can run there: switching to `u` inside `v`'s critical section costs a preemption,
    /// and once `u` comes to the lock it blocks and the switch back is free. That is the only
    /// schedule within the bound of some traces (`u`'s events before the lock between `v`'s
    /// last events inside and its first events after the critical section); no race asks for
    /// it, since where `u` blocks is no event.
    ///
    /// Why here, and not for every race inside a critical section, as until session 14: a
    /// race of `u`'s next event `n` with `v`'s event `i` asked for `u` at every step of `v`'s
    /// run before `i` where `v` held a lock. Such a point runs `u`'s events up to `n` and on,
    /// and differs from the race's own point at `i` only if `u` then blocks on a lock `v`
    /// holds there and releases before `i` (otherwise it is the same trace at the same cost,
    /// `v` running without a switch from there to `i`, or its continuation conflicts with an
    /// event `g` of `v` in between, a race the execution of the point at `i` reverses at `g`,
    /// again one preemption of `v`). But the execution of the point at `i` runs `u` there with
    /// the same events up to `n` and the same continuation up to that lock (or up to such a
    /// conflict, reversed as said), and there `u` *acquires* it after `v`'s release: this rule
    /// asks for `u` at that release, where it blocks. So the points inside runs were only
    /// ever needed for what this rule asks, from the execution that shows `u` coming to the
    /// lock rather than from every race before it (98 % of the executions only they asked for
    /// repeated a trace, session 13). A shared acquisition after a shared release is left
    /// out: readers do not block each other, so no switch back is free.
    ///
    /// Where `u` cannot run at `r` (it waits there, for a join, a message), the run that
    /// reaches its lock inside `v`'s critical section starts with another thread: the schedule
    /// preempts `v` before `r`, runs the events after `r` that `u`'s acquisition comes after,
    /// `u` blocks, and the switch back is free. So each thread `w` other than `v` whose first
    /// event after `r` comes before `q`, and not after `r`, is asked for at `r` if it can run
    /// there; none when `u`'s event before `q` comes after `r` (it reaches the lock only
    /// after the release, as main after joining `v`). Until session 18 nothing was asked there:
    /// `tests/bounded_por/blocked.rs::a_thread_waiting_at_the_release_gets_what_it_waits_for`.
    pub(super) fn blocked_inside(&self, out: &mut Asks) {
        // Per lock, its last release so far: the step, the thread, and whether by a reader.
        let mut released: SmallVec<[(Canon, usize, ThreadId, bool); 4]> = SmallVec::new();
        for (q, e) in self.evs.iter().enumerate() {
            for &a in &e.exact {
                let (o, shared) = match a {
                    Access::Lock(o) => (o, false),
                    Access::Shared(o) => (o, true),
                    Access::Unlock(o) | Access::UnlockShared(o) => {
                        let by_reader = matches!(a, Access::UnlockShared(_));
                        released.retain(|l| l.0 != o);
                        released.push((o, q, e.thread, by_reader));
                        continue;
                    }
                    _ => continue,
                };
                let Some(&(_, r, v, by_reader)) = released.iter().find(|l| l.0 == o) else {
                    continue;
                };
                if v == e.thread || shared && by_reader {
                    continue;
                }
                if self.runs(r, e.thread) {
                    out.conservative(r, e.thread, q);
                    continue;
                }
                // `u` waits at `r` (for a join, a message): the threads whose events after `r`
                // come before its acquisition, and that can run at `r`, start that run instead;
                // none when `u` (or such an event) comes to the lock only after the release.
                let u = &self.positions[e.thread];
                let previous = u.partition_point(|&p| p < q).checked_sub(1).map(|n| u[n]);
                let after_r = |j: usize| j > r && self.hb.before(r, v, j);
                if previous.is_some_and(after_r) {
                    continue;
                }
                for (w, mine) in self.positions.iter().enumerate() {
                    let Some(&j) = mine.get(mine.partition_point(|&j| j <= r)) else {
                        continue;
                    };
                    let before_q = j < q && self.hb.before(j, w, q) && !after_r(j);
                    if w != v && before_q && self.runs(r, w) {
                        out.conservative(r, w, q);
                    }
                }
            }
        }
    }

    /// Races of step `k` with the pending events it takes away: a thread that could run at
    /// `k` with an event conflicting with `evs[k]`, and not with that event after it (a notify
    /// ends a wait that a spurious wake-up could have ended; an acquisition blocks another).
    /// Such an event is in no later step's lookahead, so its race would otherwise go unseen
    /// when it never comes back (Flanagan and Godefroid treat a transition that disables
    /// another as dependent on it).
    pub(super) fn disabled(&self, k: usize, out: &mut Asks) {
        let (evs, ready) = (self.evs, self.ready);
        let ek = &evs[k];
        let after = ready.get(k + 1);
        for l in ready.get(k).into_iter().flatten() {
            let still =
                |a: &Vec<Lookahead>| a.iter().any(|m| m.thread == l.thread && m.exact == l.exact);
            if l.thread == ek.thread || after.is_some_and(still) {
                continue;
            }
            let same = &mut |x, y| x == y;
            let conflicts = l.exact.iter().any(|&b| {
                ek.exact
                    .iter()
                    .any(|&a| conflict_by(a, b, same) || orders_by(a, b, same))
            });
            if conflicts {
                self.race(
                    k,
                    l.thread,
                    smallvec::smallvec![l.thread],
                    &[],
                    &l.exact,
                    out,
                );
            }
        }
    }

    /// The points for running `u` before event `i`: at `i`, and conservatively at the start
    /// of the run of `i`'s thread `v` that contains it (Coons et al.'s point; where `u` sleeps
    /// there, every thread that can run, [`Node::ask_conservative`]), unless `i`
    /// starts that run: then the race's own point is Coons's, switching where the original
    /// schedule switched (to `u` instead of `v`, at no more cost, or every thread that can run
    /// when `u` cannot; where `u` sleeps there, to an initial, which stands for the reversal as
    /// at any race's point: [`Node::ask_initials`]), and no conservative point is asked there
    /// besides (until session 15 one was; until session 20 the race's own point asked for an
    /// initial also where `u` was awake). Running `u` at a step of that run in between
    /// instead only moves `u`'s events behind `v`'s independent ones (the same trace) or
    /// reverses a race of its own, with its own points, unless `u` then blocks on a lock `v`
    /// holds there and the switch back is free: those schedules are [`Look::blocked_inside`]'s
    /// (until session 14 this asked for `u` at every step of the run where `v` held a lock).
    /// When the bound keeps `u` from running at `i`, also at every earlier step where `u` can
    /// run: the cheapest schedule of the reversed trace may switch to `u` earlier still and
    /// come back for free once threads block (on a lock, on a join), which no switch of this
    /// execution marks. Where `u` cannot run at such a step because it waits for another
    /// thread (a join, a lock), the thread that lets it go (an enabler of `u`'s first event
    /// from there on, one level deep) is asked for there instead, if it has not run yet: once
    /// it has, switching to `u` can be free. (Seed 3,799 of `Family::Untouched`: `u` joined a
    /// child, and only running the child before the race's thread took the lock made `u`'s
    /// critical section first fit the bound.)
    ///
    /// No conservative point at the start of main's first run (step 0, `v` main) where `u` can
    /// run at `i` (session 20): no switch starts that run (before the first step main counts as
    /// the one running), so running `u` at step 0 preempts main as running it at `i` does, and
    /// the point saves no preemption for later. From either point `u` runs, then main comes
    /// back at the same cost; main's steps before `i` that nothing `u` does first conflicts
    /// with go before `u` or after it in the same trace, and one that conflicts is a race of
    /// its own, with its own point. Where `u` cannot run at `i` (the bound, a lock), step 0 is
    /// the earlier step the point stays at. The bench's SPSC queue (main is the consumer):
    /// 15 / 96 / 957 -> 14 / 87 / 879 executions at bounds 1 / 2 / 4, one per trace of the
    /// yield rule's relation (`docs/bounded-por.md`, session 20).
    ///
    /// Of two steps in a row where `u` can run, the earlier is not asked for when the event
    /// between them is another thread's that none of `u`'s events up to its next one depends
    /// on ([`Look::needs`]); the later may be the run's start, Coons's point (session 14).
    /// Running `u` at either gives the same trace, unless what `u` does after its next event
    /// conflicts with the event between; then the execution of the later point has that race,
    /// and its own point runs `u` before the event, where `u` can run. On the larger runs these
    /// points were 84 % repeats (session 13), and leaving those out took them from 287,427 to
    /// 284,722 executions (over the optimal DPOR 1,406 -> 1,370 of 12,505), and to 283,377
    /// (1,344) once the later may be the run's start; no trace missed on any differential.
    ///
    /// [`Node::ask_initials`]: super::node::Node::ask_initials
    /// [`Node::ask_conservative`]: super::node::Node::ask_conservative
    fn race(
        &self,
        i: usize,
        u: ThreadId,
        initials: SmallVec<[ThreadId; 4]>,
        before: &[usize],
        next: &[Access],
        out: &mut Asks,
    ) {
        let (evs, positions) = (self.evs, self.positions);
        out.point(Point {
            at: i,
            thread: u,
            conservative: false,
            race: i,
            initials,
            sleeper: None,
        });
        if !self.bounded {
            return;
        }
        let v = evs[i].thread;
        let start = self.run_start(i);
        let runs = |k: usize, t: ThreadId| self.runs(k, t);
        // No switch starts main's first run: the run's start saves nothing (see above).
        if start < i && !(start == 0 && v == self.main && runs(i, u)) {
            out.conservative(start, u, i);
        }
        // A thread that only its yield keeps from running at `i` needs no earlier point: the
        // fairness object's races reorder its yield with the steps that let it go. Nor does
        // any thread where nothing can block, which is what those points are for.
        let gave_way = |k: usize| self.gave_way.contains(k, u);
        if runs(i, u) || gave_way(i) {
            return;
        }
        // u's events before the race's (up to its previous one, which `before` starts with).
        let last_mine = before.iter().copied().find(|&p| evs[p].thread == u);
        let mine = positions.get(u).map_or(&[][..], Vec::as_slice);
        for at in 0..start {
            if runs(at, u) {
                // The next step does as well (the run's start: Coons's point), unless it is u's.
                let later = evs[at].thread != u && runs(at + 1, u);
                if !later || self.needs(at, before, next) {
                    out.conservative(at, u, i);
                }
                continue;
            }
            // What u waits for at `at`: the enablers of its first event from there.
            let first = last_mine.and_then(|l| {
                let j = *mine.get(mine.partition_point(|&j| j < at))?;
                (j <= l).then_some(j)
            });
            let enablers: SmallVec<[usize; 3]> = match first {
                Some(j) => (evs[j].enablers.iter())
                    .filter_map(|&e| step_of(positions, e))
                    .collect(),
                None => before
                    .iter()
                    .copied()
                    .filter(|&p| evs[p].thread != u)
                    .collect(),
            };
            for p in enablers {
                let w = evs[p].thread;
                if w != u && p >= at && runs(at, w) {
                    out.conservative(at, w, i);
                }
            }
        }
    }
}

/// Whether some access of `a` and some of `b` (of one execution) do not commute ([`depend`]).
pub(super) fn depends(a: &[Access], b: &[Access]) -> bool {
    a.iter().any(|&x| b.iter().any(|&y| depend(x, y)))
}

/// Whether two accesses of one execution (compared by exact object ids) do not commute: they
/// conflict, or one orders the other.
fn depend(a: Access, b: Access) -> bool {
    let same = &mut |x, y| x == y;
    conflict_by(a, b, same) || orders_by(a, b, same) || orders_by(b, a, same)
}

/// Whether a thread of `trace` (`evs`: its events) can block: a step that may wait (a lock, a
/// condition variable, a channel receive, a barrier, a park, an annotated acquisition), or an
/// event another thread's step let run that is not its thread's first (a wake-up, a join).
/// The points at every earlier step where a racing thread can run ([`Look::race`]) are
/// for the free switch back that blocking gives: in an execution where nothing blocks they ask
/// for nothing the race's own and conservative points do not (no trace missed without them on
/// the differential tests' executions where nothing blocks; with them, the SPSC queue, whose
/// threads only spin and yield, ran 19 / 151 / 2,237 executions at bounds 1 / 2 / 4 instead of
/// 15 / 96 / 957).
pub(super) fn blocks(trace: &[Event], evs: &[Ev]) -> bool {
    trace.iter().zip(evs).any(|(e, ev)| {
        matches!(
            e.kind,
            OpKind::Lock
                | OpKind::ReadLock
                | OpKind::CondvarWait
                | OpKind::BarrierWait
                | OpKind::Recv
                | OpKind::Park
                | OpKind::QueueWait
                | OpKind::AnnotatedAcquire
                | OpKind::AnnotatedAcquireShared
        ) || (ev.index > 0 && !e.enablers.is_empty())
    })
}
