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
//! Blocking makes switches free that no preemption count of the original schedule shows, so
//! this asks, when the bound (or a yield) keeps `u` from running at `i`, for `u` at every
//! earlier step where it can run (see [`Look::race`]), and for a thread that acquired a lock
//! another thread released before it, at that release, inside the critical section, where it
//! would block and the switch back is free (see [`Look::blocked_inside`]).
//!
//! [`Look::race`]: super::look::Look::race
//! [`Look::blocked_inside`]: super::look::Look::blocked_inside

use smallvec::SmallVec;

use super::apart::{Apart, Part};
use super::look::{step_of, Look};
use super::memo::{Asks, Memo};
use crate::explore::dpor::events::{Access, Canon, Ev};
use crate::explore::dpor::races::{HappensBefore, History};
use crate::rt::op::{OpKind, ThreadId};

/// A request for thread `thread` at the state before step `at`; `conservative` when it is a
/// conservative point. `initials` (for a race's own point): the threads that can start the
/// reversed sequence `notdep(i, E).p` there, any one of which covers it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Point {
    pub at: usize,
    pub thread: ThreadId,
    pub conservative: bool,
    /// The step of the race the point is for (`at` itself, or later for a conservative one).
    pub race: usize,
    pub initials: SmallVec<[ThreadId; 4]>,
    /// For a race through a step that may branch ([`Look::races_through_branches`]): the
    /// point holds only where this thread sleeps at `at` with an event that the event of
    /// this step (by index) depends on.
    ///
    /// [`Look::races_through_branches`]: super::look::Look::races_through_branches
    pub sleeper: Option<(ThreadId, usize)>,
}

/// Copied, not `clone`d (smallvec's `clone` goes through its `extend`): the memo replays points.
impl Clone for Point {
    fn clone(&self) -> Point {
        Point {
            initials: SmallVec::from_slice(&self.initials),
            ..*self
        }
    }
}

/// A thread that could run at a step, with what its next event does to which of this
/// execution's objects.
#[derive(PartialEq)]
pub(super) struct Lookahead {
    pub thread: ThreadId,
    pub kind: OpKind,
    pub exact: SmallVec<[Access; 3]>,
}

/// Copied, not `clone`d (as [`Point`]'s): the memo keeps every new step's lookaheads.
impl Clone for Lookahead {
    fn clone(&self) -> Lookahead {
        Lookahead {
            exact: SmallVec::from_slice(&self.exact),
            ..*self
        }
    }
}

/// What [`Scratch::points`] keeps from one execution to the next: happens-before of the
/// events the next execution shares with this one (an event's clock depends only on the events
/// up to it, [`HappensBefore::recompute`]), the last execution's events to tell how many those
/// are, what the races of the steps asked for (the [`Memo`], taken again for a step only where
/// everything they read is the same), and the memory of its tables.
#[derive(Default)]
pub(super) struct Scratch {
    /// Whether the exploration is under a preemption bound: conservative points only then.
    bounded: bool,
    /// The main thread's name, the one counted as running before the first step (no switch
    /// starts its first run: [`Look::race`]).
    pub(super) main: ThreadId,
    hb: HappensBefore,
    /// The last execution's events, as `points` saw them; while the next execution's are
    /// made from them ([`Scratch::events`]), the first `repeated` of them, and the others in
    /// `tail`.
    last: Vec<Ev>,
    tail: Vec<Ev>,
    repeated: usize,
    history: History,
    /// `positions[t]`: where thread t's events are in the trace.
    positions: Vec<Vec<usize>>,
    /// `ran[t]`: how many of thread t's events came before the current step.
    ran: Vec<usize>,
    asks: Asks,
    /// What the last execution's steps asked for.
    memo: Memo,
    /// Per call of a step of [`Scratch::points`], what it comes after (`None`: the last
    /// execution's), kept for its memory: a list of its own per execution was an allocation,
    /// its growth and its free per execution.
    befores: Vec<Option<SmallVec<[usize; 3]>>>,
    /// The last execution's threads that only their yield kept from running, per step: a race
    /// with an event at such a step asks for fewer points ([`Look::race`]), and these depend on
    /// when the thread was let go, which may come after the steps two executions share.
    gave_way: GaveWay,
}

/// What the caller of [`Scratch::points`] knows an execution repeats of the last one.
pub(super) struct Repeated {
    /// A point the memo asks again at one of the first `planted` steps is left out: the caller
    /// planted it there after the last execution, and planting it again would change nothing.
    pub planted: usize,
    /// The first `checked` steps' lists in `ready` were found the same as the last
    /// execution's (`Bpor::look`).
    pub checked: usize,
    /// How many first events are the last execution's but for their execution number (at
    /// most the `repeated` of [`Scratch::events`]; `events::of_trace_into`).
    pub unchanged: usize,
}

/// Per step of an execution, the threads a race with that step asks no points at earlier
/// steps for (see [`Look::race`]).
pub(super) enum GaveWay {
    /// At each of `steps` steps, the threads `0..threads` (names are dense from 0; compared
    /// with [`GaveWay::Yielded`] as that list): every thread of an execution where nothing can
    /// block (`look::blocks`), none where no thread yielded.
    First { threads: usize, steps: usize },
    /// Per step, the threads only their yield kept from running there (`fairness::gave_way`).
    Yielded(Vec<SmallVec<[ThreadId; 2]>>),
}

impl Default for GaveWay {
    fn default() -> Self {
        GaveWay::Yielded(Vec::new())
    }
}

impl GaveWay {
    /// Whether thread `u` is one of step `k`'s.
    pub(super) fn contains(&self, k: usize, u: ThreadId) -> bool {
        match self {
            GaveWay::First { threads, steps } => k < *steps && u < *threads,
            GaveWay::Yielded(lists) => lists.get(k).is_some_and(|g| g.contains(&u)),
        }
    }

    /// How many first steps both have, with the same threads in the same order.
    fn same_steps(&self, other: &GaveWay) -> usize {
        use GaveWay::{First, Yielded};
        // A step's list of `First`: the threads 0, 1, .. in order.
        let first = |n: usize, g: &SmallVec<[ThreadId; 2]>| {
            g.len() == n && g.iter().enumerate().all(|(i, &t)| i == t)
        };
        match (self, other) {
            (First { threads: a, .. }, First { threads: b, .. }) if a != b => 0,
            (First { steps: m, .. }, First { steps: n, .. }) => *m.min(n),
            (First { threads, steps }, Yielded(lists))
            | (Yielded(lists), First { threads, steps }) => lists
                .iter()
                .take(*steps)
                .take_while(|g| first(*threads, g))
                .count(),
            (Yielded(a), Yielded(b)) => a.iter().zip(b).take_while(|(a, b)| a == b).count(),
        }
    }
}

impl Scratch {
    pub fn new(bounded: bool) -> Scratch {
        Scratch {
            bounded,
            // The races are found per thread that could run (`Look::races_of`).
            hb: HappensBefore::clocks_only(),
            ..Scratch::default()
        }
    }

    /// The last execution's events, to make an execution's from that repeats its first
    /// `repeated` steps (`events::of_trace_into`): those steps' events, the others moved
    /// aside to compare the new ones with ([`Scratch::points`]).
    pub fn events(&mut self, repeated: usize) -> Vec<Ev> {
        let mut evs = std::mem::take(&mut self.last);
        self.repeated = repeated.min(evs.len());
        self.tail.clear();
        self.tail.extend(evs.drain(self.repeated..));
        evs
    }

    /// Keeps `evs`, the events `points` was last given, to make the next execution's from.
    pub fn keep(&mut self, evs: Vec<Ev>) {
        self.last = evs;
    }

    /// The events kept last ([`Scratch::keep`]).
    pub fn last(&self) -> &[Ev] {
        &self.last
    }

    /// Every backtracking point the execution `evs` asks for; `ready[k]` are the threads that
    /// could run at step `k` with their next events (the one taken at `k` is `evs[k]` itself),
    /// `end` the threads left with an operation when it ended (a lock or receive that never
    /// came free: Flanagan and Godefroid look at every thread's next transition, enabled or
    /// not, and these are the ones no step shows). Conservative points only under a bound
    /// ([`Scratch::new`]). `apart`: the steps' changes that race apart from their operations
    /// ([`Apart`]), in step order. `repeated`: what the caller knows the execution repeats of
    /// the last one ([`Repeated`]).
    pub fn points(
        &mut self,
        evs: &[Ev],
        ready: &[Vec<Lookahead>],
        end: &[Lookahead],
        apart: &[Apart],
        gave_way: GaveWay,
        repeated: Repeated,
    ) -> &[Point] {
        let Repeated {
            planted,
            checked,
            unchanged,
        } = repeated;
        let bounded = self.bounded;
        let threads = evs
            .iter()
            .map(|e| e.thread)
            .chain(ready.iter().flatten().chain(end).map(|l| l.thread))
            .max()
            .map_or(0, |t| t + 1);
        // The repeated steps' events are the last execution's, but where a later step changed
        // one differently; the steps after them may still make the same events.
        let kept = self.repeated.min(evs.len());
        let shared = match unchanged < kept {
            true => unchanged,
            false => {
                let again = (self.tail.iter().zip(&evs[kept..]))
                    .take_while(|(a, b)| same_for_happens_before(a, b))
                    .count();
                kept + again
            }
        };
        self.hb.recompute(evs, shared);
        let same_gave_way = self.gave_way.same_steps(&gave_way);
        self.gave_way = gave_way;
        let Scratch {
            hb,
            history,
            positions,
            ran,
            asks: out,
            memo,
            gave_way,
            befores,
            ..
        } = self;
        let hb = &*hb;
        positions.iter_mut().for_each(Vec::clear);
        positions.resize(threads.max(positions.len()), Vec::new());
        for (k, e) in evs.iter().enumerate() {
            positions[e.thread].push(k);
        }
        let positions = &positions[..threads];
        let look = Look {
            evs,
            hb,
            ready,
            positions,
            bounded,
            main: self.main,
            gave_way,
            apart,
        };
        ran.clear();
        ran.resize(threads, 0);
        out.clear();
        let reusable = memo
            .reusable(shared, ready, apart, checked)
            .min(same_gave_way);
        memo.start(out);
        let mut afresh = false;
        let mut queues = Queues::default();
        let mut aparts = apart.iter().peekable();
        let mut parts: SmallVec<[&Apart; 1]> = SmallVec::new();
        let mut skipped = skip_repeated(evs, ready, positions, shared, reusable.min(planted + 1));
        for (k, ek) in evs.iter().enumerate().take(skipped) {
            // The step's calls, as the loop below makes them.
            let mut parts = 0;
            while aparts.next_if(|a| a.step == k).is_some() {
                parts += 1;
            }
            let here = ready.get(k).map_or(&[][..], Vec::as_slice);
            let own = here.iter().filter(|l| l.thread == ek.thread).count();
            if !memo.skip(here.len() + parts * own) {
                // The last execution made fewer calls: the loop below finds that too.
                skipped = k;
                aparts = apart.iter().peekable();
                while aparts.next_if(|a| a.step < k).is_some() {}
                break;
            }
            queues.record(ek);
            ran[ek.thread] += 1;
        }
        for (k, ek) in evs.iter().enumerate().skip(skipped) {
            parts.clear();
            while let Some(a) = aparts.next_if(|a| a.step == k) {
                parts.push(a);
            }
            // Each thread that could run here looks at its next event; at a step with changes
            // apart from its operation, its own thread looks again for each: a join's race
            // only with what the joined threads did not do before their ends, a woken
            // thread's only with what that thread did not do before its wait.
            let mut calls: SmallVec<[(&Lookahead, Option<&Apart>); 4]> = SmallVec::new();
            for l in ready.get(k).into_iter().flatten() {
                calls.push((l, None));
                if l.thread == ek.thread {
                    calls.extend(parts.iter().map(|&a| (l, Some(a))));
                }
            }
            let before_of = |&(l, part): &(&Lookahead, Option<&Apart>)| {
                let mut before = earlier(evs, positions, ran, l.thread, k);
                if let Some(a) = part {
                    before.extend_from_slice(&a.after);
                }
                before
            };
            // Pushed into a list kept across steps: collecting them costs more than the rest.
            // At a step the memo may answer, a thread whose next event is one of the shared
            // events comes after the same events as in the last execution (its previous event,
            // and its next event's enablers, which come before that event): `None`, not
            // computed.
            let reusing = !afresh && k < reusable;
            befores.clear();
            for call in &calls {
                let u = call.0.thread;
                let same = reusing && positions[u].get(ran[u]).is_some_and(|&p| p < shared);
                befores.push((!same).then(|| before_of(call)));
            }
            if !afresh {
                let reused = reusing && memo.reuse(befores, out, planted);
                if !reused {
                    // From here on the races are computed again, over the events before `k`.
                    afresh = true;
                    memo.recompute(out);
                    history.forget_from(k);
                }
            }
            if afresh {
                let joined = (parts.iter()).find(|a| matches!(a.part, Part::Joined { .. }));
                let op = joined.map(|j| j.without(ek));
                for (call, before) in calls.iter().zip(befores.drain(..)) {
                    let before = before.unwrap_or_else(|| before_of(call));
                    let alone;
                    let next = match *call {
                        (l, _) if l.thread != ek.thread => &queues.as_event(l),
                        (_, None) => op.as_ref().unwrap_or(ek),
                        (_, Some(a)) => {
                            alone = a.alone(ek);
                            &alone
                        }
                    };
                    look.races_of(k, next, history, &before, out);
                    memo.called(before, out);
                }
                // Later events race with what the threads this step woke changed as with
                // the step.
                let mut woken = parts.iter().filter_map(|a| match &a.part {
                    Part::Woken(exact) => Some(exact),
                    Part::Joined { .. } => None,
                });
                match woken.next() {
                    None => history.record(k, ek),
                    Some(first) => {
                        let mut all = ek.clone();
                        all.exact
                            .extend(first.iter().chain(woken.flatten()).copied());
                        history.record(k, &all);
                    }
                }
            }
            queues.record(ek);
            ran[ek.thread] += 1;
        }
        if !afresh {
            history.forget_from(evs.len());
        }
        memo.end(out, reusable, ready, apart);
        for l in end {
            let before = earlier(evs, positions, ran, l.thread, evs.len());
            look.races_of(evs.len(), &queues.as_event(l), history, &before, out);
        }
        // What these ask at step `k` is read from the events up to `k`, the lookaheads up to
        // `k + 1` and which threads gave way at `k`, and asked at steps before `k + 1`
        // (`blocked_earlier`: before `k`): where all that is the last execution's (`k + 1 <
        // reusable`) and those steps are among the first `planted`, the last execution asked
        // it and it was planted there, so asking it again would change nothing (as the memo's
        // points, see `skip_repeated`).
        let repeated = reusable.saturating_sub(1).min(planted);
        for k in repeated..evs.len() {
            look.disabled(k, out);
        }
        if bounded {
            for k in reusable.min(planted + 1)..evs.len() {
                look.blocked_earlier(k, out);
            }
            // As `blocked_earlier`'s: read from the events up to the step, asked before it.
            let from = apart.partition_point(|a| a.step < reusable.min(planted + 1));
            for a in &apart[from..] {
                look.joined_earlier(a, out);
            }
        }
        if bounded {
            look.blocked_inside(out);
        }
        &out.points
    }
}

/// How many first steps of `evs` the races need not look at again (`Scratch::points`): the
/// memo would take every ask of such a step from the last execution and leave every one out.
/// Below `reusable` (at most the memo's [`Memo::reusable`], at most `planted + 1`), a step's
/// asks are taken from the memo when each thread that could run there has the same `before`
/// as in the last execution, which it has when its next event is one of the first `shared`
/// (the last execution's, and so what comes before it is); a thread's next event from step `k`
/// is one of those when the thread has an event among steps `k..shared`. And a step `k`'s
/// asks are at steps before `k` (a race with an earlier event, its run's start, steps before
/// that), so at `k <= planted` all are at steps the last execution's points were planted at
/// already, which the memo leaves out. So the steps before the first where a thread that could
/// run has no event left among the shared ones (or `reusable`) ask for nothing: only their
/// bookkeeping (the threads' event counts, the channels' messages) is done.
fn skip_repeated(
    evs: &[Ev],
    ready: &[Vec<Lookahead>],
    positions: &[Vec<usize>],
    shared: usize,
    reusable: usize,
) -> usize {
    // Per thread, the step after its last event among the shared ones (0: none).
    let mut until: SmallVec<[usize; 8]> = SmallVec::new();
    for mine in positions {
        let n = mine.partition_point(|&p| p < shared);
        until.push(n.checked_sub(1).map_or(0, |n| mine[n] + 1));
    }
    let steps = reusable.min(evs.len());
    (0..steps)
        .find(|&k| {
            let mut here = ready.get(k).into_iter().flatten();
            here.any(|l| until.get(l.thread).is_none_or(|&u| u <= k))
        })
        .unwrap_or(steps)
}

/// Whether two events are the same to happens-before ([`HappensBefore::recompute`] reads
/// their thread, index, exact accesses, enablers and whether they block to acquire).
fn same_for_happens_before(a: &Ev, b: &Ev) -> bool {
    let acquires = |e: &Ev| matches!(e.main(), Access::Lock(_) | Access::Shared(_));
    a.thread == b.thread
        && a.index == b.index
        && a.exact == b.exact
        && a.enablers == b.enablers
        && a.fair == b.fair
        && acquires(a) == acquires(b)
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
    // Pushed, not `extend`ed: smallvec's `extend` costs more than the rest here.
    let mut out: SmallVec<[usize; 3]> = SmallVec::new();
    if let Some(n) = ran[u].checked_sub(1) {
        out.push(mine[n]);
    }
    if let Some(&next) = mine.get(ran[u]) {
        for &enabler in &evs[next].enablers {
            match step_of(positions, enabler) {
                Some(p) if p < k => out.push(p),
                _ => {}
            }
        }
    }
    out
}

/// The unbounded channels' messages so far in an execution: per channel, the number of the
/// last message queued and of the last one taken.
#[derive(Default)]
struct Queues {
    counts: SmallVec<[(Canon, u32, u32); 2]>,
}

impl Queues {
    fn record(&mut self, ev: &Ev) {
        for a in &ev.exact {
            let (o, sent, took) = match *a {
                Access::Send(o, n) if n > 0 => (o, n, 0),
                Access::Took(o, n) => (o, 0, n),
                _ => continue,
            };
            match self.counts.iter_mut().find(|c| c.0 == o) {
                Some(c) => (c.1, c.2) = (c.1.max(sent), c.2.max(took)),
                None => self.counts.push((o, sent, took)),
            }
        }
    }

    /// A not-yet-run event of a thread, as happens-before history lookups need it. A receive
    /// from an unbounded channel with a message queued takes the first one, whatever it is
    /// reordered with: so it is that `Took` (which conflicts only with the send of its message,
    /// its enabler), not a receive that may find anything. Reordered before an event `i`, it
    /// still takes that message: an earlier message was taken by an earlier receive, after
    /// its send; a later one was queued after it, so the message was queued before `i` unless
    /// its send comes after `i`, and then `i` and that send are both before the receive in
    /// happens-before (the send enables it) and no race is asked for.
    fn as_event(&self, l: &Lookahead) -> Ev {
        let mut exact = l.exact.clone();
        if let (OpKind::Recv, [Access::Other(o)]) = (l.kind, &exact[..]) {
            let o = *o;
            if let Some(&(_, sent, took)) = self.counts.iter().find(|c| c.0 == o && c.1 > c.2) {
                exact[0] = Access::Took(o, took + 1);
                debug_assert!(took < sent);
            }
        }
        Ev {
            thread: l.thread,
            index: 0,
            nth: 0,
            accesses: exact.clone(),
            exact,
            execution: 0,
            enablers: SmallVec::new(),
            fair: Default::default(),
        }
    }
}
