//! One step of the bounded reduction's current execution ([`Node`]): the threads that could
//! run there, the one run, and what remains to explore from the state before it (its
//! backtrack set, the threads tried, its sleep set), with the bookkeeping that decides whether
//! its conservative points are planted and whether its branch puts its thread to sleep.

use smallvec::SmallVec;

use crate::explore::dpor::events::Ev;
use crate::explore::dpor::steps::Values;
use crate::rt::op::ThreadId;

/// One step of the current execution and what remains to explore from the state before it.
#[derive(Default)]
pub(super) struct Node {
    /// The threads that could run here (within the bound).
    pub(super) ready: Vec<ThreadId>,
    /// The thread run here in the current execution, and its event as known before it ran
    /// ([`Bpor::pending`](super::Bpor::pending); with what the step touched, once a later step
    /// came): a new node's sleep set is made from its parent's. Once the execution has ended, the
    /// event as it ran is the scratch's (`Scratch::last`), or this one if `woke`.
    pub(super) chosen: ThreadId,
    pub(super) event: Ev,
    /// Whether the step woke threads whose code changed objects before their next operations
    /// (`Event::woke`): once the execution has ended, `event` is its event as it ran with
    /// those changes, which sleep sets compare as the step's (`end_execution`).
    pub(super) woke: bool,
    /// Whether the step may let another thread's operation run that could not before (see
    /// [`releases`](super::sleep::releases)).
    pub(super) releases: bool,
    /// Whether `chosen` could run right after its step (within the bound; continuing costs no
    /// preemption, so unless it blocked or its yield hides it): if not, a switch away from it
    /// there is free (see [`puts_to_sleep`](super::sleep::puts_to_sleep)).
    pub(super) continues: bool,
    /// Threads still to try here.
    pub(super) backtrack: Vec<ThreadId>,
    /// Threads tried here (including `chosen`).
    pub(super) done: Vec<ThreadId>,
    /// Threads (with their next events) not to run from here.
    pub(super) sleep: Vec<Ev>,
    /// Events of the threads tried here before `chosen` whose branches put them to sleep (see
    /// [`puts_to_sleep`](super::sleep::puts_to_sleep)): they sleep in the branches after them.
    pub(super) taken: Vec<Ev>,
    /// Threads (with their next events) that run here only to continue: a thread in `half`
    /// that is run here, and can run right after its step, runs again there, no other thread
    /// (see [`half_sleeps`](super::sleep::half_sleeps)).
    pub(super) half: Vec<Ev>,
    /// Events of the threads tried here before `chosen` whose branches [`half_sleeps`]: they
    /// are in `half` in the branches after them.
    ///
    /// [`half_sleeps`]: super::sleep::half_sleeps
    pub(super) half_taken: Vec<Ev>,
    /// Whether the step before ran a thread of its node's `half` that can run here, or
    /// continued such a thread down a chain ([`continue_half`]): then only the branch that
    /// continues it (the first, `chosen`) is explored here.
    ///
    /// [`continue_half`]: super::sleep::continue_half
    pub(super) only: bool,
    /// Nondeterministic choices made during this step.
    pub(super) values: Values,
    /// Whether the bound hid an enabled thread at this step or a later one, in any execution since
    /// this node was made. Not a yield (until session 13 it counted): a yield hides a thread
    /// without a bound too, and the reduction's events model that rule as the optimal DPOR's do
    /// ([`yield_fairness`](super::fairness::yield_fairness)), so an exploration below which only
    /// yields hid threads is the unbounded reduction, which reverses every race it sees (the
    /// yielding programs' differentials, `bounded_por/main.rs::programs_that_yield` and its
    /// 2,000 larger programs, check that, and ran 114,561 -> 113,385 executions on the larger;
    /// the SPSC queue, where the bound also cuts nearly everywhere, is unchanged). Nor a thread
    /// the bound hid where it sleeps (session 23,
    /// [`hides_an_awake_thread`](super::chooser::hides_an_awake_thread)).
    pub(super) cut: bool,
    /// Whether it hid one at a later step in the branch of `chosen` (see
    /// [`puts_to_sleep`](super::sleep::puts_to_sleep)).
    pub(super) below: bool,
    /// Conservative points `(step, thread)` at earlier steps, planted only if `cut` when this
    /// node is done (see [`Bpor::plant`](super::Bpor::plant)).
    pub(super) deferred: Vec<(usize, ThreadId)>,
}

impl Node {
    /// Empties the node, keeping its lists' memory, as [`Default`] makes it (see
    /// `Bpor::spare_nodes`).
    pub(super) fn empty(&mut self) {
        let Node {
            ready,
            chosen,
            event: _,
            woke,
            releases,
            continues,
            backtrack,
            done,
            sleep,
            taken,
            half,
            half_taken,
            only,
            values,
            cut,
            below,
            deferred,
        } = self;
        ready.clear();
        backtrack.clear();
        done.clear();
        sleep.clear();
        taken.clear();
        half.clear();
        half_taken.clear();
        values.clear();
        deferred.clear();
        (*chosen, *woke, *releases, *continues, *only, *cut, *below) = Default::default();
    }

    pub(super) fn sleeps(&self, t: ThreadId) -> bool {
        self.sleep.iter().any(|s| s.thread == t)
    }

    /// Asks for `t` here; a thread that cannot run here stands for every one that can.
    pub(super) fn ask(&mut self, t: ThreadId) {
        if self.ready.contains(&t) {
            self.add(t);
        } else {
            for at in 0..self.ready.len() {
                self.add(self.ready[at]);
            }
        }
    }

    /// Asks for `t` here for a conservative point (under a bound): as [`Node::ask`], and where
    /// `t` sleeps here, for every thread that can run, as where it cannot.
    ///
    /// Why (session 20): a conservative point asks for `t`, the racing thread, where the
    /// reversal of its race may start at no more cost than the original schedule paid, for a
    /// trace in which `t`'s event comes before the race's first. A sleeping `t` covers only the
    /// traces with `t` among their initials here ([`puts_to_sleep`]'s argument), and the
    /// reversed trace need not be one: `t`'s event may follow events of other threads in it
    /// (the initials of the reversed sequence, `Look::initials`, are asked for at the race's
    /// own point, which the bound may cut off). So asking for a sleeping `t` asked for
    /// nothing. Every thread that can run makes the node's exploration the full one, whose
    /// only left-out branches are the sleepers', each covering its own traces. Until session
    /// 20 a sleeping `t` was asked for, and seed 43,084 of `Yielding` missed a final state at
    /// bounds 0 to 3 (`bounded_por/`,
    /// `a_conservative_point_for_a_sleeping_thread_asks_for_every_thread`).
    ///
    /// [`puts_to_sleep`]: super::sleep::puts_to_sleep
    pub(super) fn ask_conservative(&mut self, t: ThreadId) {
        match self.sleeps(t) {
            true => {
                for at in 0..self.ready.len() {
                    self.add(self.ready[at]);
                }
            }
            false => self.ask(t),
        }
    }

    /// Asks here for the reversal of a race of `p`'s next event, `initials` those of the
    /// reversed sequence (`Look::initials`). Without a bound, or where `p` sleeps here, one of
    /// `initials` (the source-set rule): nothing when one was tried or is asked for already;
    /// else [`Node::initial`]; when none can run here (the bound), as [`Node::ask`] for `p`.
    /// Under a bound where `p` is awake, Coons et al.'s rule: [`Node::ask`] for `p` (`p` where
    /// it can run, every thread that can where it cannot), whatever initials were tried.
    ///
    /// Why (session 20): without a bound, the branch of an initial `w` explores every trace
    /// that has `w` among its initials here, so any one initial tried covers the reversal.
    /// Under a bound it explores only those with a schedule within the bound through it, and
    /// moving `w`'s step to the front of a trace's schedule can cost a preemption: where `w`
    /// runs on after its step there and came to it by a free switch (the thread before it
    /// ended or blocked), the front pays the switch away from `w` that the schedule did not
    /// (the case [`half_sleeps`] leaves out). So one initial tried is no cover for another,
    /// and asking for one more where one was tried does not restore the rule that the
    /// conservative points complete: Coons et al.'s asks for `p`. Where `p` sleeps, the
    /// sleeper covers every trace within the bound with `p` among its initials
    /// ([`puts_to_sleep`]'s argument), and an initial is asked for as before (the reversed
    /// sequence may not start with `p`). Until session 20 the source-set rule held under the
    /// bound too, and missed a final state of seed 41,194 (`bounded_por/`,
    /// `a_failed_try_lock_inside_a_section_is_asked_for_as_its_own_thread`): inside `t1`'s
    /// section, at its unlock, the race of `t3`'s `try_lock` had initials `t2` and `t3`, and
    /// `t2` was asked for; but the state where `t3`'s `try_lock` fails and `t1` loads `x`
    /// before `t2` adds has only `t3 t3 t1 t1 t2 t2` from there within bound 1 (`t2`'s load
    /// first pays the switches to `t2` and from it to `t3`, two preemptions).
    ///
    /// Under a bound, where `p` is awake, an initial is asked for as well, as without a bound:
    /// `p`'s branch covers only traces that have a schedule within the bound starting with
    /// `p`, and the reversed sequence's cheapest schedule may start with another initial.
    /// Asking for `p` alone lost 1 of the 18 final states of `Woken` seed 8,009,321 at bounds
    /// 2 and 3, which the source-set rule had reached (`bounded_por/`,
    /// `a_race_under_a_bound_asks_for_an_initial_as_well`).
    ///
    /// [`half_sleeps`]: super::sleep::half_sleeps
    /// [`puts_to_sleep`]: super::sleep::puts_to_sleep
    pub(super) fn ask_initials(&mut self, p: ThreadId, initials: &[ThreadId], bounded: bool) {
        if bounded && !self.sleeps(p) {
            self.ask(p);
        }
        if initials.iter().any(|t| self.tried(t)) {
            return;
        }
        match self.initial(initials) {
            Some(t) => self.add(t),
            None => self.ask(p),
        }
    }

    /// Asks here for the reversal of a race whose point would add `covered`, a half-asleep
    /// thread whose branch here is covered ([`runs_to_its_end`]): for another of `initials`,
    /// as where `covered` sleeps ([`Node::ask_initials`]), unless one was tried.
    ///
    /// Why (session 21): the cover is of `covered`'s run to its end from here, the only
    /// schedules a half-asleep thread's branch runs, not of every trace with `covered` among
    /// its initials; the reversed sequence may have another initial whose branch reaches a
    /// trace within the bound that no schedule starting with `covered` does. Until session 21
    /// the point asked for nothing, and seed 44,273 of `Deadlocky` missed a trace at bound 3
    /// (`bounded_por/points.rs`, `a_covered_half_asleep_initial_leaves_the_others_asked`).
    ///
    /// [`runs_to_its_end`]: super::sleep::runs_to_its_end
    pub(super) fn ask_another_initial(&mut self, covered: ThreadId, initials: &[ThreadId]) {
        let others: SmallVec<[ThreadId; 4]> =
            initials.iter().copied().filter(|&t| t != covered).collect();
        if others.iter().any(|t| self.tried(t)) {
            return;
        }
        if let Some(t) = self.initial(&others) {
            self.add(t);
        }
    }

    /// The thread a point for `t` would add here: `t` itself if `conservative`, or under a
    /// bound (`bounded`) where `t` is awake ([`Node::ask`], [`Node::ask_conservative`], when
    /// it can run here and is awake, and the initial [`Node::ask_initials`] adds too is `t` or
    /// none), else the one of `initials` [`Node::ask_initials`] adds; none where it would add
    /// nothing, two threads, or every thread that can run.
    pub(super) fn adds(
        &self,
        conservative: bool,
        t: ThreadId,
        initials: &[ThreadId],
        bounded: bool,
    ) -> Option<ThreadId> {
        let union = !conservative && bounded && !self.sleeps(t);
        if union && !initials.iter().any(|t| self.tried(t)) && self.initial(initials) != Some(t) {
            return None;
        }
        match conservative || bounded && !self.sleeps(t) {
            true => {
                Some(t).filter(|t| self.ready.contains(t) && !self.tried(t) && !self.sleeps(*t))
            }
            false if initials.iter().any(|t| self.tried(t)) => None,
            false => self.initial(initials),
        }
    }

    /// Whether `t` was tried here or is asked for already.
    pub(super) fn tried(&self, t: &ThreadId) -> bool {
        self.done.contains(t) || self.backtrack.contains(t)
    }

    /// The one of `initials` [`Node::ask_initials`] asks for: an awake one that can run here,
    /// else any that can.
    pub(super) fn initial(&self, initials: &[ThreadId]) -> Option<ThreadId> {
        let mut ready = initials.iter().copied().filter(|t| self.ready.contains(t));
        let first = ready.clone().next();
        ready.find(|&t| !self.sleeps(t)).or(first)
    }

    pub(super) fn add(&mut self, t: ThreadId) {
        if !self.done.contains(&t) && !self.backtrack.contains(&t) {
            self.backtrack.push(t);
        }
    }

    /// The next thread to try here: not tried yet, and awake.
    pub(super) fn next_choice(&mut self) -> Option<ThreadId> {
        while !self.backtrack.is_empty() {
            let t = self.backtrack.remove(0);
            if !self.sleeps(t) {
                return Some(t);
            }
        }
        None
    }
}
