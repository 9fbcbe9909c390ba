//! The seam the runtime drives the bounded reduction through ([`Chooser`]): which execution
//! comes next (the deepest node with a branch left, after putting the branch just explored to
//! sleep), which thread and value each step takes, and, once an execution has ended, its
//! events, from which the backtracking points for the next ones are planted ([`Bpor::plant`]).

use super::apart::Apart;
use super::backtrack::GaveWay;
use super::fairness::{gave_way, spurious_fairness, yield_fairness, FAIRNESS};
use super::look::blocks;
use super::node::Node;
use super::sleep::{continue_half, ends_release, half_sleeps, puts_to_sleep, releases, threads_in};
use super::Bpor;
use crate::explore::dpor::events;
use crate::rt::chooser::{Candidate, Chooser, SchedulingPoint};
use crate::rt::op::{Event, OpKind, ThreadId};
use crate::rt::threads::MAIN_KEY;

impl Chooser for Bpor {
    fn sees_every_step(&self) -> bool {
        true
    }

    fn next_execution(&mut self) -> bool {
        self.step = 0;
        self.value_calls = 0;
        self.threads.new_execution();
        self.named.clear();
        self.checked = 0;
        self.unfinished.clear();
        self.bound_hid.clear();
        self.names.new_execution();
        if !std::mem::replace(&mut self.started, true) {
            return true;
        }
        while !self.nodes.is_empty() {
            let n = self.nodes.len();
            // Before the first step the main thread is the one running (see `puts_to_sleep`).
            let last = match n.checked_sub(2) {
                Some(p) => self.nodes[p].chosen,
                None => self.threads.of(MAIN_KEY),
            };
            let bounded = self.bound.is_some();
            let node = &mut self.nodes[n - 1];
            if node.values.advance() {
                self.planted = n - 1;
                self.repeated = n - 1;
                self.keep_ready(n);
                return true;
            }
            let sleeps = puts_to_sleep(node, last, bounded);
            if sleeps || half_sleeps(node, last, bounded) {
                // As it ran in the last execution (see `Node::woke`).
                let event = match node.woke {
                    true => node.event.clone(),
                    false => self.scratch.last()[n - 1].clone(),
                };
                let taken = match sleeps {
                    true => &mut node.taken,
                    false => &mut node.half_taken,
                };
                // Mostly one: room for one at first, since a pooled node keeps its lists and a
                // list of four events per node was heap the first executions touched afresh.
                if taken.capacity() == 0 {
                    taken.reserve_exact(1);
                }
                taken.push(event);
            }
            if node.only {
                // The other branches here are covered (`half_sleeps`). Left out, they make the
                // exploration below the parent other than the unbounded one: as if cut.
                node.cut |= node.next_choice().is_some();
                self.pop();
                continue;
            }
            if let Some(t) = node.next_choice() {
                node.chosen = t;
                node.done.push(t);
                node.values.clear();
                node.below = false;
                self.planted = n - 1;
                self.repeated = n - 1;
                self.keep_ready(n);
                return true;
            }
            self.pop();
        }
        false
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        let step = self.step;
        self.step += 1;
        self.value_calls = 0;
        let want = self.nodes.get(step).map(|n| n.chosen);
        let slot = match (want, self.look(step, point, want)) {
            (Some(want), Some(slot)) => {
                self.pending(step, want, &point.candidates[slot].op);
                slot
            }
            // The program did not repeat itself: explore on from here afresh.
            (Some(_), None) => {
                self.truncate(step);
                // What the step before did after its operation may differ too.
                self.repeated = self.repeated.min(step.saturating_sub(1));
                self.new_node(point)
            }
            (None, _) => self.new_node(point),
        };
        // Only the bound cuts: a yield hides a thread without a bound too, and the reduction
        // models that (`yield_fairness`), so an exploration below which only yields hid
        // threads is the unbounded one (see `Node::cut`); and only where it hid a thread that
        // is awake here (`hides_an_awake_thread`).
        let hidden = point.hidden;
        let cut =
            hidden.bound && hides_an_awake_thread(hidden.by_bound, &self.named, &self.nodes[step]);
        self.nodes[step].cut |= cut;
        self.bound_hid.push(point.hidden.bound);
        let mine = self.nodes[step].chosen;
        self.threads.stepped(mine, &point.candidates[slot].op);
        point.candidates[slot].thread
    }

    fn choose_value(&mut self, n: usize) -> usize {
        let Some(node) = self.step.checked_sub(1).and_then(|s| self.nodes.get_mut(s)) else {
            return 0;
        };
        self.value_calls += 1;
        node.values.choose(self.value_calls - 1, n)
    }

    fn unfinished(&mut self, pending: &[Candidate], _after: &[crate::rt::op::Enablers]) {
        let mut unfinished = std::mem::take(&mut self.unfinished);
        unfinished.clear();
        self.lookahead(pending, &mut unfinished);
        self.unfinished = unfinished;
    }

    fn end_execution(&mut self, trace: &[Event]) {
        self.executions += 1;
        let threads = &mut self.threads;
        let yielded = trace.iter().any(|e| e.kind == OpKind::Yield);
        if !self.yields && yielded {
            // The last execution's events were made without the fairness rule's accesses.
            self.repeated = 0;
            // The first execution with a yield: its lookaheads were made without the fairness
            // rule's accesses.
            self.yields = true;
            for l in self.ready.iter_mut().flatten().chain(&mut self.unfinished) {
                l.exact.extend(yield_fairness(true, l.kind));
            }
            // The memo's lists were made without them: no step is the same.
            self.checked = 0;
        }
        let repeated = (self.repeated.min(trace.len())).min(self.scratch.last().len());
        let mut evs = self.scratch.events(repeated);
        let unchanged = events::of_trace_into(
            trace,
            &mut self.names,
            &mut |k| threads.of(k),
            self.executions,
            self.yields.then_some(true),
            &mut evs,
            Some((repeated, &mut self.uses)),
        );
        if self.spurious {
            let canon = self.fairness_name();
            let new = evs.iter_mut().zip(trace).skip(repeated);
            for (ev, step) in new {
                ev.accesses
                    .extend(spurious_fairness(true, step.kind, canon));
                ev.exact
                    .extend(spurious_fairness(true, step.kind, FAIRNESS));
            }
        }
        // Steps past the end of the trace (a failure ended it early) have no node.
        self.truncate(evs.len());
        let mut later = std::mem::take(&mut self.later);
        later.clear();
        later.resize(evs.iter().map(|e| e.thread + 1).max().unwrap_or(0), false);
        let ends = ends_release(&evs, self.yields);
        let steps = self.nodes.iter_mut().zip(&evs).zip(trace).enumerate();
        for (k, ((node, ev), step)) in steps.rev() {
            // The points below race a woken thread's changes apart (`Apart`); sleep sets
            // compare them as the step's: such a step's event as it ran is kept here, with
            // them (any other's is the scratch's, see `Node::woke`).
            node.woke = !step.woke.is_empty();
            if node.woke {
                node.event = ev.clone();
                events::add_woken(&mut node.event, step, true, &mut self.names);
            }
            // A thread's last step ends it, which a join may wait for.
            let ends = !std::mem::replace(&mut later[ev.thread], true) && ends[ev.thread];
            node.releases = ends || releases(ev);
            // The state after the step is the same in every execution of its branch. After
            // the last step, not known (a failure may have ended the execution): as if it could.
            let next = self.ready.get(k + 1);
            node.continues = next.is_none_or(|r| r.iter().any(|l| l.thread == node.chosen));
        }
        self.later = later;
        if self.bound.is_some() {
            continue_half(&mut self.nodes, &evs, &mut self.names);
        }
        // The prefix of a recorded context ran under a fixed schedule: no point goes there.
        let fixed = trace.iter().take_while(|e| e.fixed).count();
        let steps = trace.len();
        let gave_way = if !blocks(trace, &evs) {
            // Nothing to pay a preemption back: no thread needs points at earlier steps.
            let threads = threads_in(&evs);
            GaveWay::First { threads, steps }
        } else if !yielded {
            GaveWay::First { threads: 0, steps }
        } else {
            GaveWay::Yielded(gave_way(trace, &evs, &self.bound_hid))
        };
        self.scratch.main = self.threads.of(MAIN_KEY);
        self.plant(
            &evs,
            fixed,
            &Apart::of_trace(trace),
            gave_way,
            unchanged,
            trace,
        );
        self.waits.record(trace, &evs, &mut self.names);
        self.scratch.keep(evs);
    }
}

/// Whether the threads the bound kept out of a step's candidates (`by_bound`: bit `t` for
/// runtime thread `t`, [`Hidden::by_bound`](crate::rt::chooser::Hidden)) include one that is
/// awake at the step's node (not [`Node::sleeps`] there; `named`: the stable names of this
/// execution's threads looked up so far, `usize::MAX` where not yet). A thread not named yet
/// in this execution is awake: a sleeper was a candidate at an earlier step of the execution
/// (where a branch ran it first), so it is named.
///
/// Why (session 23): a node is `cut` when the bound hid an enabled thread there or below, and
/// where nothing was cut the exploration is taken for the unbounded one, which reverses every
/// race it sees: the conservative points waiting for the node are dropped, and its branch puts
/// its thread to sleep ([`puts_to_sleep`]). A thread that sleeps at the node is not run there
/// by the unbounded exploration either (no branch, no default choice takes a sleeper,
/// [`Node::next_choice`](super::node::Node::next_choice)), so hiding it leaves out nothing
/// that exploration runs: with every thread the bound hid asleep, the thread the node runs and
/// every branch taken at it are the unbounded exploration's. What the hidden sleeper changes
/// is only more points: one that asks for a thread that cannot run asks for every thread that
/// can (`Node::ask`), and a racing thread that cannot run at a step has conservative points at
/// earlier steps (`Look::race`), where asking for a sleeper would have asked for nothing. A
/// half-asleep thread (`Node::half`) is awake: its later branches are the bound's. The
/// argument and the measurements: `docs/bounded-por.md`, "Session 23".
pub(super) fn hides_an_awake_thread(by_bound: u64, named: &[ThreadId], node: &Node) -> bool {
    // Every bit: some hidden thread's id is 64 or more, which the mask cannot tell apart, so
    // the node is cut as before the rule (even with threads 0 to 63 all asleep).
    if by_bound == u64::MAX {
        return true;
    }
    (0..64).filter(|&t| by_bound & (1 << t) != 0).any(|t| {
        let name = named.get(t).copied().filter(|&n| n != usize::MAX);
        !name.is_some_and(|n| node.sleeps(n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::dpor::events::Ev;

    /// A node where `threads` sleep.
    fn asleep(threads: impl IntoIterator<Item = ThreadId>) -> Node {
        let ev = |thread| Ev {
            thread,
            ..Ev::default()
        };
        Node {
            sleep: threads.into_iter().map(ev).collect(),
            ..Node::default()
        }
    }

    #[test]
    fn only_a_hidden_thread_that_is_awake_makes_a_cut() {
        let named = [0, 1, 2];
        let node = asleep([1]);
        assert!(!hides_an_awake_thread(0b010, &named, &node));
        assert!(hides_an_awake_thread(0b110, &named, &node));
        // Not named yet in this execution: never a candidate before, so not a sleeper.
        assert!(hides_an_awake_thread(0b1000, &named, &node));
    }

    #[test]
    fn a_mask_that_lost_a_thread_id_over_63_is_a_cut() {
        let named: Vec<ThreadId> = (0..64).collect();
        let node = asleep(0..64);
        assert!(!hides_an_awake_thread(u64::MAX >> 1, &named, &node));
        assert!(hides_an_awake_thread(u64::MAX, &named, &node));
    }
}
