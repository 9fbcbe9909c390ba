//! One step of the optimal DPOR's current execution ([`Node`]: the event taken, the sleep set,
//! the wakeup tree of what remains to explore from the state before it), and how the stack of
//! nodes moves: to the next execution ([`Dpor::advance`]: the leftmost wakeup sequence of the
//! deepest node that has one, the branch left falling asleep), and down by a step not on the
//! replayed prefix ([`Dpor::new_node`]: the parent's event refined by what its step did, the
//! sleep set the parent's passes on, the next wakeup sequence or the first thread awake).

use super::events::{self, Ev};
use super::peers::{Home, Lent};
use super::split;
use super::steps::Values;
use super::wakeup::Tree;
use super::woken;
use super::Dpor;
use crate::rt::chooser::SchedulingPoint;
use crate::rt::op::ThreadId;

/// One step of the current execution and what remains to explore from the state before it.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Node {
    /// The event taken here in the current execution.
    pub(super) chosen: Ev,
    /// Threads (with their next events) whose exploration from here is known to be redundant.
    pub(super) sleep: Vec<Ev>,
    /// Sequences still to explore from here, after the current one.
    pub(super) wut: Tree,
    /// Nondeterministic choices made during this step.
    pub(super) values: Values,
    /// Subtrees below this node already explored (for the estimate of the remaining work).
    pub(super) done: u32,
    /// Threads enabled and awake when the node was made: the most subtrees it can have (for
    /// the estimate, see [`Growth`](crate::explore::estimate::Growth)).
    #[serde(default)]
    pub(super) room: u32,
    /// The untried `values` were dealt to another explorer of a split exploration.
    #[serde(default)]
    pub(super) values_elsewhere: bool,
    /// A split exploration's number for the node, unique in the explorer that made it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) id: u64,
    /// Where the node of which this one is a copy lives (it came in a gift, see [`split`]):
    /// what is planted here goes to that node's wakeup tree. `None`: this explorer's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) home: Option<Home>,
    /// The node was on the path of work given away: the path to it, kept after its pop.
    #[serde(skip)]
    pub(super) lent: Option<Lent>,
    /// A split exploration's wakeup subtree of `chosen` as it was taken from the tree (empty:
    /// a leaf, or no wakeup sequence at all), kept for its place among the sleepers later.
    #[serde(skip)]
    pub(super) below: Tree,
    /// A split exploration's place of `chosen` among the node's children in the sequential
    /// order (see [`split`]); empty in a whole exploration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) key: split::Key,
    /// A split exploration's places of the sleepers that are children explored here (the last
    /// ones of `sleep`), each with its wakeup subtree when it was taken (see `below`); the
    /// others came from the parent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) places: Vec<(split::Key, Tree)>,
    /// The last number given to a child's place.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) next_key: u32,
}

impl Node {
    /// Whether thread `t`'s next event sleeps here.
    pub(super) fn asleep(&self, t: ThreadId) -> bool {
        self.sleep.iter().any(|s| s.thread == t)
    }

    /// The next wakeup sequence to explore from here: the leftmost with a leaf of this
    /// explorer's ([`Tree::pop_leftmost`], which puts the children before it in `given`),
    /// past those whose first thread sleeps here, which are dropped.
    ///
    /// A sleeper's event is its thread's next event as it is here (it ran where it fell
    /// asleep, and every step taken since commutes with it), and every execution from here
    /// that starts with it is one explored from the node where it fell asleep: so is every
    /// sequence that starts with its thread. The paper's insertion never puts such a sequence
    /// in a tree (a sleeper that is a weak initial of it covers it), but here a sequence is
    /// compared with a node's sleepers where it is planted, when some of them have not run
    /// yet, and through events taken to do more than they will: a moved operation's
    /// [`Access::Touches`](super::events::Access::Touches), a step's woken changes from the
    /// execution it came from. Followed, such a sequence ran its thread's sleeping event
    /// again, and the execution repeated a trace (session 23: the largest cause of the
    /// traces the optimal DPOR ran twice; `tests/dpor_vs_dfs/moved.rs`,
    /// `a_sequence_that_starts_with_a_sleeper_is_not_followed`).
    ///
    /// Not in a split exploration (`keyed`): there a sleeper may be a child given to another
    /// explorer, whose subtree is that explorer's as it was given, while sequences inserted
    /// below its leaf later are this one's to explore (`Tree::shadow`). Dropped, they were
    /// explored by nobody (`dpor_shards.rs`, a `Yielding` program of its CI run missed a
    /// trace).
    pub(super) fn next_sequence(
        &mut self,
        given: &mut Vec<(Ev, Tree)>,
        keyed: bool,
    ) -> Option<(Ev, Tree)> {
        loop {
            let (ev, tree) = self.wut.pop_leftmost(given)?;
            if keyed || !self.asleep(ev.thread) {
                return Some((ev, tree));
            }
        }
    }
}

fn is_zero<N: Default + PartialEq>(n: &N) -> bool {
    *n == N::default()
}

impl Dpor {
    /// Moves to the next execution of this explorer's part; `false` when it has none left.
    pub(super) fn advance(&mut self) -> bool {
        while let Some(node) = self.nodes.last_mut() {
            if !node.values_elsewhere && node.values.advance() {
                self.pending = Tree::default();
                return true;
            }
            let keyed = self.peers.is_some();
            // Replaced below, or popped with the node (which a split exploration keeps).
            let done = match keyed {
                true => node.chosen.clone(),
                false => std::mem::take(&mut node.chosen),
            };
            let below = std::mem::take(&mut node.below);
            node.fall_asleep(done, (node.key.clone(), below), keyed);
            let mut given = Vec::new();
            let next = node.next_sequence(&mut given, keyed);
            for (ev, mut tree) in given {
                let key = std::mem::take(&mut tree.key);
                node.fall_asleep(ev, (key, tree), keyed);
            }
            if let Some((ev, subtree)) = next {
                if keyed {
                    node.below = subtree.clone();
                }
                node.key.clone_from(&subtree.key);
                node.done += 1;
                node.chosen = ev;
                node.values.clear();
                node.values_elsewhere = false;
                self.pending = subtree;
                return true;
            }
            let mut popped = self.nodes.pop().expect("a node");
            self.growth.finished(popped.done + 1, popped.room);
            match &mut self.peers {
                Some(peers) => peers.retire(popped),
                None => self.recycle_sleep(&mut popped.sleep),
            }
        }
        false
    }

    /// Keeps a finished node's sleep set's storage for a node made later.
    pub(super) fn recycle_sleep(&mut self, sleep: &mut Vec<Ev>) {
        sleep.clear();
        if sleep.capacity() > 0 {
            self.spare_sleep.push(std::mem::take(sleep));
        }
    }

    /// Re-creates the node at this step after its wakeup sequence turned out not to be
    /// runnable, keeping its sleep set and remaining wakeup tree.
    pub(super) fn reopen(&mut self, node: Node, point: &SchedulingPoint<'_>) -> ThreadId {
        self.pending = node.wut;
        let inherited = node.sleep.len() - node.places.len();
        let thread = self.new_node(point, node.next_key, Some(node.key));
        let created = self.nodes.last_mut().expect("just created");
        (created.id, created.home, created.lent) = (node.id, node.home, node.lent);
        let keyed = self.peers.is_some();
        for (i, s) in node.sleep.into_iter().enumerate() {
            if !created.asleep(s.thread) {
                // A sleeper from the parent sleeps for every child (the least place).
                let place = match i.checked_sub(inherited) {
                    Some(p) => node.places[p].clone(),
                    None => (Vec::new(), Tree::default()),
                };
                created.fall_asleep(s, place, keyed);
            }
        }
        thread
    }

    /// Creates the node for a step not on the replayed prefix (`next_key`, `old_key`: a node
    /// re-created, see [`reopen`](Self::reopen): the last number of a place it gave, and the
    /// place of the choice it replaces).
    pub(super) fn new_node(
        &mut self,
        point: &SchedulingPoint<'_>,
        next_key: u32,
        old_key: Option<split::Key>,
    ) -> ThreadId {
        let threads: smallvec::SmallVec<[ThreadId; 8]> = point
            .candidates
            .iter()
            .map(|c| self.threads.of(c.key))
            .collect();
        let mut sleep = self.spare_sleep.pop().unwrap_or_default();
        // Not a node above the one that moved (a re-created node's parent, see `reopen`): its
        // event is the one its step ran with in the last execution, and stays so.
        let moved_or_below = self.nodes.len() > self.moved;
        match self.nodes.last_mut() {
            None => {}
            Some(parent) => {
                // The parent's step has ended: what it did is known, and may commute with
                // more of the sleeping events than its kind alone would.
                let previous = point.previous();
                if let (Some(prev), Some(a)) = (previous, parent.chosen.accesses.first_mut()) {
                    *a = a.unrefined().refined(prev.0, prev.1, prev.2);
                }
                // A pending event has no changes yet. One that ran before (the first event of a
                // wakeup sequence, taken in `advance`) carries those its step and the threads
                // it woke made where it ran, and `Access::Touches` if its code may take another
                // path here: now that its step ran here, it has what the step changed here
                // instead, as a pending event does (the module doc's "Traces run twice").
                let taken = parent.chosen.execution != 0 && moved_or_below;
                if let Some(step) = point.last.filter(|_| taken) {
                    let unchanged = point.touched().next().is_none();
                    parent.chosen.keep_operation(step, unchanged);
                }
                if parent.chosen.execution == 0 || taken {
                    let location = point.previous_location();
                    events::add_touched(
                        &mut parent.chosen,
                        point.touched(),
                        location,
                        &mut self.names,
                    );
                }
                // Known only now: the step turned out quiet, so it let no thread that yielded
                // go, and its thread can run on, so no new round starts after it. The same
                // holds with a sleeping event run first: one independent of the step leaves it
                // quiet; a quiet one cannot stop the step's thread, and one that changed
                // something let every thread that yielded go itself. `pending` took every step
                // after a first yield as one that may let a thread go, which woke a sleeping
                // yield at the first load (the SPSC queue of `bounded_por/` ran 2.6 times
                // its traces).
                if let Some((kind, ..)) = previous.filter(|_| point.quiet()) {
                    if threads.contains(&parent.chosen.thread) {
                        parent.chosen.fair = events::fairness(kind, Some(true));
                    }
                }
                let chosen = &parent.chosen;
                for s in parent.sleep_at(&parent.key) {
                    if !events::dependent(s, chosen, &mut self.names) {
                        let on = woken::asleep_after(&self.waits, s, chosen, &mut self.names);
                        sleep.push(on.unwrap_or_else(|| s.clone()));
                    }
                }
            }
        }
        let keyed = self.peers.is_some();
        let id = self.peers.as_mut().map_or(0, |p| p.fresh_id());
        // Made in place: a node is a few hundred bytes, and moving it in cost a copy.
        self.nodes.push(Node {
            chosen: Ev::default(),
            sleep,
            wut: std::mem::take(&mut self.pending),
            values: Values::default(),
            done: 0,
            room: 0,
            values_elsewhere: false,
            id,
            home: None,
            lent: None,
            below: Tree::default(),
            key: Vec::new(),
            places: Vec::new(),
            next_key,
        });
        let node = self.nodes.last_mut().expect("just made");
        if keyed {
            node.number_children();
        }
        node.room = (threads.iter()).filter(|&&t| !node.asleep(t)).count() as u32;
        let mut given = Vec::new();
        let next = node.next_sequence(&mut given, keyed);
        for (ev, mut tree) in given {
            let key = std::mem::take(&mut tree.key);
            node.fall_asleep(ev, (key, tree), keyed);
        }
        let slot = match next {
            Some((ev, subtree)) if threads.contains(&ev.thread) => {
                if keyed {
                    node.below = subtree.clone();
                }
                node.key.clone_from(&subtree.key);
                self.pending = subtree;
                threads
                    .iter()
                    .position(|&t| t == ev.thread)
                    .expect("enabled")
            }
            // No runnable wakeup sequence: the first thread not asleep (or, if every one is,
            // the first runnable thread), in the place of the sequence it replaces.
            not_runnable => {
                if keyed {
                    node.key = match (not_runnable, old_key) {
                        (Some((_, subtree)), _) => subtree.key,
                        (None, Some(mut old)) => {
                            old.push(node.fresh_key()[0]);
                            old
                        }
                        (None, None) => node.fresh_key(),
                    };
                }
                threads.iter().position(|&t| !node.asleep(t)).unwrap_or(0)
            }
        };
        // Only the chosen thread's event is needed here; the others are named when they run.
        let t = threads[slot];
        let index = self.threads.next_index(t);
        let chosen = self.pending(t, index, &point.candidates[slot].op);
        self.nodes.last_mut().expect("just made").chosen = chosen;
        point.candidates[slot].thread
    }
}
