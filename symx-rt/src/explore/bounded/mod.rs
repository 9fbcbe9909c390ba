//! Preemption-bounded exploration with partial-order reduction: bounded partial-order
//! reduction (BPOR; Coons, Musuvathi, McKinley, "Bounded partial-order reduction", OOPSLA
//! 2013) over persistent-set dynamic partial-order reduction with sleep sets (Flanagan and
//! Godefroid, POPL 2005; Godefroid's sleep sets).
//!
//! The scheduler enforces the bound: at every step this strategy is shown only the threads
//! that can run without exceeding it. The current execution is a stack of [`Node`]s, one per
//! step, each holding the threads still to try from the state before it (its *backtrack set*),
//! the ones tried, and its sleep set. After every execution, each race asks for the racing
//! thread to run before it ([`backtrack`]), and again at the last context switch before it
//! (Coons et al.'s *conservative* point, where the reversal costs no preemption the original
//! schedule did not pay; where the racing thread sleeps there, every thread that can run);
//! when the bound (or a yield) keeps the racing thread from running where the race is, also
//! at every earlier step where it can run. And a thread that acquired a lock after another
//! thread released it is asked for at that release, inside the critical section (where it
//! waits there, the threads its acquisition comes after). Blocking is why:
//! a switch away from a thread that blocked (on a lock, a join) or yielded is free, so the
//! cheapest schedule of a trace may preempt a thread inside a critical section and come back
//! for free once the other thread blocks on it, a point no single context switch of the
//! original schedule marks.
//!
//! Guarantee (the bound on the class, not on each schedule): every Mazurkiewicz trace that
//! has at least one schedule within the bound is explored by at least one execution, itself
//! within the bound; so every deadlock, panic or failed assertion that some schedule within
//! the bound reaches is found, with a schedule within the bound. One trace may be explored by
//! more than one execution (unlike the optimal DPOR without a bound). The reasoning is Coons
//! et al.'s for the backtracking points, and the argument at [`puts_to_sleep`] for the sleep
//! sets; `tests/bounded_por/` checks it against the bounded DFS on random programs. What
//! code changes right after a wait returns (woken threads' changes, below) is ordered by a
//! model of its own, checked only on random programs (`Family::Woken`: the 150 in CI reach
//! every final state, and so do the four larger seeds that missed one until session 19, the
//! two of its fresh-seed search that missed one until session 20; `docs/bounded-por.md`,
//! "Session 19" and "Session 20"). Code that branches on what an operation returned
//! (`Family::Branching`) is checked on random programs too: a step whose result may differ
//! where a reversal moves it races with what its other path touches
//! (`look::Look::races_through_branches`, session 21), and every one of the first 2,000 fresh
//! such programs reaches every final state (the last since a name made in one execution may
//! denote a sleeper's object, `events::Names::may_be_one`, session 21).
//!
//! Four departures from the textbook algorithm keep it complete (each found by the differential
//! test on random programs and pinned by a test there): a race is reversed by asking for an
//! *initial* of the reversed sequence `notdep(i, E).p` (source sets, Abdulla, Aronis, Jonsson,
//! Sagonas, POPL 2014), not for `p` itself, which may sleep there while the initial does not
//! (under a bound only where `p` sleeps: elsewhere the point asks for `p` as Coons et al.'s
//! does, since one initial's branch stands for the others only without a bound, see
//! [`Node::ask_initials`]); a step that takes a conflicting pending event away from another
//! thread (a notify ending a wait that could have woken spuriously) races with it, though no
//! later lookahead shows that event;
//! and with spurious wake-ups on, every step that is not itself a spurious wake-up or a yield
//! is dependent with spurious wake-ups (it re-enables a waiter that just woke spuriously, see
//! [`spurious_fairness`]); and the operations threads were left with when the execution ended
//! (a lock held by a thread that blocked for good on a failed `assume`) race like the next
//! operations of every step, though no step shows them.
//!
//! Why each rule is as it is (the measurement that decided it, the forms tried first and
//! rejected, the counts before and after) is in `docs/bounded-por.md`; read it before changing
//! a rule. What follows states the rules.
//!
//! Yields. The scheduler's fairness rule hides a thread that yielded until another thread's
//! step changes something, so where a yield falls against those steps decides who may run, and
//! spin counts. Once a thread has yielded in some execution, the reduction models the rule as
//! the optimal DPOR does (`events::fairness`): a yield writes a fairness object, a step that
//! may change something reads it, the step that let a thread go writes it; its races are
//! reversed like any other ([`yield_fairness`]). A thread that only its yield keeps from
//! running where a race is needs no points at earlier steps ([`gave_way`]); the bound's still
//! do, but only in an execution where a thread can block ([`blocks`]): they are for the free
//! switch back that blocking gives.
//!
//! Channels and joins. A thread's next operation is compared with the history as far as it is
//! known before it runs, except a receive from an unbounded channel with a message queued: it
//! takes the first one wherever it is moved to, so it races only with that message's send (its
//! enabler), not with every send and disconnect of the channel (`backtrack::Queues`). A step's
//! code can join threads that have finished (no step: the join does not wait) and then change
//! objects (main dropping a receiver after joining the threads): those changes are recorded on
//! the step (`Event::touched`) but come after the joined threads' ends, unlike the step's
//! operation. They race apart from it, with only what does not happen before a joined thread's
//! last event (`apart::Apart`): moving them before such an event is no schedule, since the
//! join would wait. A pending disconnect says which side it drops (`events::Access::of`). A
//! step that waited asks for its thread at the step it waited for
//! (`look::Look::blocked_earlier`; where the bound hides it there, at the start of that step's
//! run): trying the wait earlier and blocking makes the switch away free; and so does a step
//! whose code joined a thread that had ended and changed objects, at the last step up to that
//! end where its thread can run (`look::Look::joined_earlier`).
//!
//! Woken threads. A thread woken from a wait runs its code up to its next operation right after
//! the step that woke it, and that code belongs to no step (`Execution::step_now`). What it
//! changes (main, woken by a child's end, dropping a sender whose receiver is gone) is recorded
//! on the waking step apart (`Event::woke`) and races apart from it, after the woken thread's
//! past (`apart::Part::Woken`). It stays out of the step's event, so happens-before is not
//! made to order the step after the woken thread's past; later events race with it as with the
//! step, and sleep sets compare it as the step's. Such a change, and one a step's own code makes
//! after joining a thread that had ended (`apart::Part::Joined`), runs right after the later of
//! its step and its past: a later event that conflicts with it races with that past too
//! (`look::Look::races_with_pasts`); the initials of a reversed sequence are those of the trace
//! theory with the changes as events of their own, glued to their steps where their pasts stay
//! before them, the race's second event with its own step's, and, where that event is a
//! `try_lock` (which may get the other result where it is moved, and run other code), taken to
//! change anything such code can (`initials`); and a sleeping event that is part of a change's
//! past, or whose thread's end a joiner came to wait for, carries the change from the step
//! that made it so (`waits::Waits`).
//!
//! Where the bound acts. Both weakenings of the textbook algorithm are paid only where the
//! bound acts: a conservative point is planted only if the bound hid an enabled thread at a
//! later step meanwhile, and a branch below which it hid none puts its thread to sleep (an
//! exploration where the bound hid nothing is the unbounded one). A thread hidden by its yield
//! does not count (see [`Node`]'s `cut`), nor one the bound hid where it sleeps, which the
//! unbounded exploration does not run there either ([`hides_an_awake_thread`]). A conservative
//! point for a race of `u` with `v` waits for *any* thread to be hidden below it, not for `u`
//! or `v`: the point saves the preemption that the reversal where the race is spends
//! (preempting `v`), and the reversed trace may need that preemption much later for a third
//! thread, which the bound then hides instead.
//!
//! Executions. Never more than the bounded DFS on the same program (asserted per program by the
//! differential test). More than the unbounded optimal DPOR on some programs (1,506 of the
//! 15,615 comparisons of `many_random_programs`, session 23, 558 of them with spurious
//! wake-ups, which the optimal DPOR does not explore; over all of them far fewer): each such
//! program runs some trace more than once (or, with spurious wake-ups, more traces), since a
//! conservative point or an awake sleeper is planted when the branch that would make it
//! redundant may have been cut. `docs/bounded-por.md`, "Over the optimal DPOR", "Session 19"
//! and "Session 23", says where the over-count comes from (a half-asleep thread's branch, four
//! repeats in five) and why the ways around it considered are not here.
//!
//! Sleep sets under a bound: a thread sleeps at a state when an earlier sibling branch ran it
//! first, which covers every continuation *that branch could reach within the bound*, not
//! every continuation; so only branches that release nothing another thread could block on
//! and whose thread continued the last step's or cannot run right after its own, or below
//! which nothing was hidden, put their thread to sleep (see [`puts_to_sleep`]), whatever asked
//! for the branch (a conservative point too). A branch after a switch whose thread can run on
//! after its step, releasing nothing, puts it half to sleep ([`half_sleeps`]): in the later
//! branches it runs only to continue, no other thread right after it while it can run, and
//! so on down its steps after that release nothing and commute with the later branch's steps
//! before it ([`continue_half`]). A point that would ask for a half-asleep thread whose run
//! from there to its end is such a chain asks for nothing: that branch's every schedule is
//! covered by the thread's own branch at no more cost ([`runs_to_its_end`]).
//! Before the first step the main thread counts as the one running (a switch away from it there
//! is a preemption, as in CHESS and loom). A sleeping event is compared with the whole of each
//! step taken after it, including what the step's code dropped after its operation (known once
//! the step has ended), and refined accesses of different executions (barrier arrivals, `Arc`
//! drops) are compared as the events module says: `Arc` drops as conflicting, barrier arrivals
//! by their count (here the step taken is compared before it runs, as any barrier wait, so they
//! conflict too).
//!
//! Without a bound (spurious wake-ups on, see `explore::make`) this is the classic dynamic
//! partial-order reduction with sleep sets, without conservative points.
//!
//! Nondeterministic choices inside a step (which waiter a `notify_one` wakes) are explored
//! exhaustively per step, as in the optimal DPOR. A spurious wake-up is an operation a waiting
//! thread offers at a step, and races like any other: on its condition variable.
//!
//! [`blocks`]: look::blocks
//! [`gave_way`]: fairness::gave_way
//! [`yield_fairness`]: fairness::yield_fairness
//! [`puts_to_sleep`]: sleep::puts_to_sleep
//! [`half_sleeps`]: sleep::half_sleeps
//! [`continue_half`]: sleep::continue_half
//! [`hides_an_awake_thread`]: chooser::hides_an_awake_thread

mod apart;
mod backtrack;
mod chooser;
mod fairness;
mod initials;
mod look;
mod memo;
mod node;
mod ready;
mod sleep;
mod waits;

use smallvec::SmallVec;

use super::dpor::events::{self, dependent, Canon, Ev, EventKey, Names};
use super::dpor::steps::Threads;
use crate::rt::chooser::SchedulingPoint;
use crate::rt::op::{Event, Op, ThreadId};
use crate::rt::threads::MAIN_KEY;
use apart::Apart;
use backtrack::{GaveWay, Lookahead, Point, Repeated, Scratch};
use fairness::{spurious_fairness, FAIRNESS};
use node::Node;
use sleep::runs_to_its_end;
use waits::Waits;

/// The nodes an exploration makes room for at its start (steps of one execution).
const NODES: usize = 64;

#[derive(Default)]
pub(crate) struct Bpor {
    /// The preemption bound the scheduler enforces, if any.
    bound: Option<u32>,
    /// Whether condvar waits may wake spuriously (see [`spurious_fairness`]).
    spurious: bool,
    /// The current execution's steps. Boxed: a node is 400 bytes, and moving nodes between
    /// this stack and `spare_nodes` copied them (~3 k instructions per execution on the SPSC
    /// rows). (Clippy's `vec_box` assumes a box in a list only adds an allocation.)
    #[allow(clippy::vec_box)]
    nodes: Vec<Box<Node>>,
    names: Names,
    started: bool,
    /// Steps taken in the current execution, and value choices made in the current step.
    step: usize,
    value_calls: usize,
    /// Threads named stably across executions, with their event counts in this one.
    threads: Threads,
    /// Per thread of the current execution (by its runtime id), its name in `threads` once
    /// looked up (`usize::MAX`: not yet).
    named: SmallVec<[ThreadId; 8]>,
    /// Per step of the current execution, the threads that could run and their next events
    /// over this execution's objects. Between executions, the last execution's lists of the
    /// steps the next one repeats stay, to be checked rather than made again ([`Bpor::look`]).
    ready: Vec<Vec<Lookahead>>,
    /// How many first steps of the current execution found the last execution's list in
    /// `ready` the same ([`Bpor::look`]): the memo, which holds the last execution's lists,
    /// need not compare them again (`Memo::reusable`).
    checked: usize,
    /// The lists of earlier executions' steps, for their memory.
    spare_ready: Vec<Vec<Lookahead>>,
    /// Nodes popped, emptied, for their lists' memory: a new node takes one (allocating its
    /// lists anew cost about a third of the allocations of an execution on the SPSC rows).
    #[allow(clippy::vec_box)]
    spare_nodes: Vec<Box<Node>>,
    /// The threads left with an operation to do when the execution ended, and their next
    /// events (the lookahead of the final state).
    unfinished: Vec<Lookahead>,
    /// Executions ended so far.
    executions: u64,
    /// Whether a thread yielded in some execution: from then on events carry their access to
    /// the scheduler's fairness rule (see [`yield_fairness`](fairness::yield_fairness)).
    yields: bool,
    /// Per step of the current execution, whether the bound hid an enabled thread there.
    bound_hid: Vec<bool>,
    /// Per thread, whether `end_execution` has met a later step of it (walking the steps
    /// back), kept for its memory.
    later: Vec<bool>,
    /// What the backtracking points of one execution keep for the next (its events among them).
    scratch: Scratch,
    /// How many first nodes hold every point the last execution asked for them, changed since
    /// only by points added: a node's backtrack set loses threads only while it is the
    /// deepest (its next branch is taken, sleepers are dropped), and a point deferred to the
    /// node after its step stays in that node's list until the node is done. Planting such a
    /// point there again would change nothing ([`Bpor::plant`], [`Node::ask_initials`]'s
    /// threads tried or asked for only grow), so the points the memo asks again at those
    /// steps are left out (`backtrack::Scratch::points`).
    planted: usize,
    /// How many first steps of the current execution repeat the last one's (the nodes above
    /// the one that moved to its next choice): their events are the last execution's.
    repeated: usize,
    /// The objects of the last execution's events and its let-go changes, for keeping the
    /// repeated steps' events ([`events::of_trace_into`]).
    uses: events::FirstUses,
    /// The changes a sleeping event carries once a step it sleeps through made it their step.
    waits: Waits,
}

impl Bpor {
    pub fn new(bound: Option<u32>, spurious: bool) -> Self {
        Bpor {
            bound,
            spurious,
            scratch: Scratch::new(bound.is_some()),
            uses: events::FirstUses::undoing(),
            // Room for 64 steps at once. Before nodes were boxed, growing these lists by
            // doubling in the first execution copied the nodes into fresh pages at each step
            // (page faults, not instructions, were most of the first execution's extra time on
            // short rows); now it copies pointers, and a node's box is touched once.
            nodes: Vec::with_capacity(NODES),
            spare_nodes: Vec::with_capacity(NODES),
            ..Bpor::default()
        }
    }

    /// Creates the node for a step past the replayed prefix: its sleep set is what slept at
    /// the parent or was tried there before, and commutes with the parent's event.
    /// Its lists are a popped node's (`spare_nodes`), emptied there.
    fn new_node(&mut self, point: &SchedulingPoint<'_>) -> usize {
        let mut node = self.spare_nodes.pop().unwrap_or_default();
        self.ready_here(&mut node.ready);
        let (sleep, ready) = (&mut node.sleep, &node.ready);
        let last = match self.nodes.last_mut() {
            None => Some(self.threads.of(MAIN_KEY)),
            Some(parent) => {
                // The parent's step has ended: it is compared with what it touched too.
                let location = point.previous_location();
                let touched = point.touched();
                events::add_touched(&mut parent.event, touched, location, &mut self.names);
                let names = &mut self.names;
                sleep.extend(
                    (parent.sleep.iter().chain(&parent.taken))
                        .filter(|s| !dependent(s, &parent.event, names))
                        .cloned(),
                );
                node.half.extend(
                    (parent.half.iter().chain(&parent.half_taken))
                        .filter(|s| !dependent(s, &parent.event, names))
                        .cloned(),
                );
                for s in sleep.iter_mut().chain(&mut node.half) {
                    self.waits.carry(s, &parent.event);
                }
                Some(parent.chosen)
            }
        };
        let awake = |t: &ThreadId| !sleep.iter().any(|s: &Ev| s.thread == *t);
        // Continuing the last thread costs no preemption; otherwise the first awake thread.
        // When every thread sleeps the execution is redundant, but it runs to its end.
        let slot = last
            .and_then(|l| ready.iter().position(|&t| t == l && awake(&t)))
            .or_else(|| ready.iter().position(awake))
            .unwrap_or(0);
        let chosen = ready[slot];
        // The parent ran a thread of its `half`, which continues here (see `half_sleeps`).
        node.only = (self.nodes.last())
            .is_some_and(|p| p.chosen == chosen && p.half.iter().any(|s| s.thread == chosen));
        node.chosen = chosen;
        node.releases = true;
        node.continues = true;
        node.done.push(chosen);
        self.nodes.push(node);
        self.pending(self.nodes.len() - 1, chosen, &point.candidates[slot].op);
        slot
    }

    /// Writes into node `at`'s event what `t`'s pending operation `op` will be, as far as it is
    /// known before it runs ([`Names::pending_into`]). In place: an `Ev` is ~170 bytes,
    /// and returning one to move into the node copied it twice at every step (~1 % of an SPSC
    /// execution).
    fn pending(&mut self, at: usize, t: ThreadId, op: &Op) {
        let index = self.threads.next_index(t);
        let ev = &mut self.nodes[at].event;
        let counts = self.threads.occurrences();
        self.names.pending_into(ev, t, index, counts, op);
        if self.yields {
            ev.fair = events::fairness(op.kind, None);
        }
        // After the operation's objects, as `Names::pending` then this did: names are numbered
        // by first use.
        if self.spurious {
            let canon = self.fairness_name();
            let ev = &mut self.nodes[at].event;
            ev.accesses.extend(spurious_fairness(true, op.kind, canon));
        }
    }

    /// The canonical name of the scheduler's spurious wake-up rule (see [`spurious_fairness`]).
    fn fairness_name(&mut self) -> Canon {
        let key = EventKey {
            thread: ThreadId::MAX,
            index: 0,
            nth: 0,
            location: 0,
        };
        self.names.name(FAIRNESS, key, 0)
    }

    /// Drops the last node, done: the conservative points waiting for it are planted if the
    /// scheduler hid a thread at or below it, and its parent learns whether it did.
    fn pop(&mut self) {
        let Some(mut node) = self.nodes.pop() else {
            return;
        };
        if let Some(parent) = self.nodes.last_mut() {
            parent.cut |= node.cut;
            parent.below |= node.cut;
        }
        if node.cut {
            for &(at, t) in &node.deferred {
                if let Some(n) = self.nodes.get_mut(at) {
                    n.ask_conservative(t);
                }
            }
        }
        node.empty();
        self.spare_nodes.push(node);
    }

    /// Drops the nodes from `len` on without exploring them further: as if each were done and
    /// had hidden a thread (the points waiting for them are planted).
    fn truncate(&mut self, len: usize) {
        self.planted = self.planted.min(len);
        while self.nodes.len() > len {
            self.nodes.last_mut().expect("longer than len").cut = true;
            self.pop();
        }
    }

    /// Plants every backtracking point the finished execution asks for. A conservative point
    /// at step `at` waits for the node after it to be done, and is planted only if the bound
    /// hid an enabled thread at a step after `at` meanwhile (in this execution or any other
    /// explored below it): a conservative point is for a reversal that the bound cuts off
    /// where the race is, and where the bound never hid a thread below `at`, the exploration
    /// from there was the unbounded one, which reverses every race it sees.
    fn plant(
        &mut self,
        evs: &[Ev],
        fixed: usize,
        apart: &[Apart],
        gave_way: GaveWay,
        unchanged: usize,
        trace: &[Event],
    ) {
        let points = (self.scratch).points(
            evs,
            &self.ready,
            &self.unfinished,
            apart,
            gave_way,
            Repeated {
                planted: self.planted,
                checked: self.checked,
                unchanged,
            },
        );
        let bounded = self.bound.is_some();
        for Point {
            at,
            thread,
            conservative,
            race,
            initials,
            sleeper,
        } in points
        {
            let (at, thread, conservative, race) = (*at, *thread, *conservative, *race);
            if at < fixed {
                continue;
            }
            // A race through a step that may branch: only where that step's thread sleeps
            // with an event the later step's depends on (`Look::races_through_branches`).
            if let Some((s, k)) = *sleeper {
                let names = &mut self.names;
                let mut sleeping = (self.nodes.get(at).into_iter()).flat_map(|n| &n.sleep);
                if !sleeping.any(|e| e.thread == s && dependent(e, &evs[k], names)) {
                    continue;
                }
            }
            if conservative && race > at {
                if let Some(next) = self.nodes.get_mut(at + 1) {
                    next.deferred.push((at, thread));
                    continue;
                }
            }
            // A half-asleep thread whose run from here to its end is covered: as if tried here
            // already (see `runs_to_its_end`).
            if bounded && !self.yields {
                let asked = (self.nodes.get(at))
                    .and_then(|n| n.adds(conservative, thread, initials, bounded));
                let (nodes, names, left) = (&self.nodes, &mut self.names, &self.unfinished);
                let covered =
                    asked.is_some_and(|t| runs_to_its_end(nodes, evs, trace, at, t, left, names));
                if covered {
                    self.nodes[at].cut = true;
                    if !conservative {
                        self.nodes[at].ask_another_initial(thread, initials);
                    }
                    continue;
                }
            }
            if let Some(node) = self.nodes.get_mut(at) {
                if conservative {
                    node.ask_conservative(thread);
                } else {
                    node.ask_initials(thread, initials, bounded);
                }
            }
        }
    }
}
