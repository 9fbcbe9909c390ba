//! Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial order reduction",
//! POPL 2014 / JACM 2017, §6): the ordered set of event sequences still to be explored from a
//! state, with insertion that skips a sequence already covered by one in the tree.
//!
//! Sequences are compared through *weak initials* `WI[E](v)`: the threads whose next event can
//! start an execution equivalent to a continuation of `v`.
//!
//! Unlike the paper's, a leaf does not cover a longer sequence that reaches it: what remains of
//! the sequence is kept below the leaf, whose exploration then follows it. The paper's
//! argument for a covering leaf is that the exploration below it, whichever continuation comes
//! first, runs into the races that lead to the rest of the sequence. Here that fails three
//! ways, each found by `tests/dpor_vs_dfs/`. A sequence's events are as they ran in their
//! own execution, while below the leaf an operation whose result differs there runs other
//! code after it (`events::Access::Touches`), and a woken thread's changes are glued to the
//! step that woke it: a thread explored at the node after the leaf was planted then sleeps
//! below the leaf and, a weak initial of the reversals found there, blocks them
//! (`a_leaf_that_covers_a_reversal_below_a_sleeper_that_blocks_its_races`, and 11 of 4,000
//! fresh `Family::Branching` programs, one a blocking lock's section that branched on its data
//! where the leaf put it first). And a sequence that gives way (a yield, or a step that lets
//! a thread that yielded go, see `events::FAIRNESS`) is no free continuation: the scheduler
//! hides a thread that yielded until another changes something, and the reversal that would
//! put the yield back before the change was dropped against a thread asleep there that
//! commutes with the yield (thread 1 stores 1 then 2 to `x`, thread 2 loads `x`, thread 3
//! loads `x`, yields and compare-exchanges `x` from 0: thread 2 never read 1 while thread 3's
//! compare-exchange saw 1; 2 of 1,200 `Yielding` programs, for which this rule once held
//! alone). Kept below the leaf, the sequence costs an execution only where two of them reach
//! one leaf by different continuations.
//!
//! A sequence's barrier arrivals carry how many arrivals their generation still needs where
//! they stand in the sequence, run from the state the sequence is compared at (see
//! `events::last_but_one`). Taking a weak initial that is an arrival moves the state past it,
//! and the sequence's arrivals that now come after it count one fewer to come
//! ([`take_weak_initial`]).

use std::borrow::{Borrow, Cow};

use super::events::{dependent, Ev, Names};

/// An event of a sequence being inserted: borrowed from the trace it came from, or owned,
/// and changed in place where taking a weak initial changes its count (see the module doc).
pub(crate) trait SeqEv: Borrow<Ev> {
    fn ev_mut(&mut self) -> &mut Ev;
}

impl SeqEv for Ev {
    fn ev_mut(&mut self) -> &mut Ev {
        self
    }
}

impl SeqEv for Cow<'_, Ev> {
    fn ev_mut(&mut self) -> &mut Ev {
        self.to_mut()
    }
}

/// A wakeup tree: children in exploration order, each an event with its own subtree.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tree {
    pub children: Vec<(Ev, Tree)>,
    /// A leaf whose sequence was given to another explorer of a split exploration
    /// (`split`): never explored here, but it still covers the sequences inserted into it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub shadow: bool,
    /// A child of a node's tree in a split exploration: its place among the node's children in
    /// the sequential order (`split::Key`); empty below the top level and in a whole exploration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key: super::split::Key,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Tree {
    /// Whether some leaf of the tree is this explorer's to explore (not a shadow).
    pub fn has_own_leaf(&self) -> bool {
        match self.children.is_empty() {
            true => !self.shadow,
            false => self.children.iter().any(|(_, t)| t.has_own_leaf()),
        }
    }

    /// Removes and returns the leftmost child with a leaf of this explorer's: the next
    /// sequence to explore. The events of the children before it (all of them if there is
    /// none), whose leaves are all explored elsewhere, go to `given` (they belong in the sleep
    /// set, as explored), each with its subtree.
    pub fn pop_leftmost(&mut self, given: &mut Vec<(Ev, Tree)>) -> Option<(Ev, Tree)> {
        let own = self.children.iter().position(|(_, t)| t.has_own_leaf());
        given.extend(self.children.drain(..own.unwrap_or(self.children.len())));
        own.map(|_| self.children.remove(0))
    }

    pub fn chain<E: Borrow<Ev>>(v: &[E]) -> Tree {
        let mut tree = Tree::default();
        for ev in v.iter().rev() {
            tree = Tree {
                children: vec![(ev.borrow().clone(), tree)],
                ..Tree::default()
            };
        }
        tree
    }

    /// Inserts `v` unless a sequence in the tree already covers it (copying only the events
    /// it adds); whether it added anything. What is left of `v` is of no use after it (the
    /// caller keeps its storage).
    pub fn insert<E: SeqEv>(&mut self, v: &mut Vec<E>, names: &mut Names) -> bool {
        let mut node = self;
        'descend: loop {
            for i in 0..node.children.len() {
                if take_weak_initial(&node.children[i].0, v, names) {
                    if v.is_empty() {
                        return false; // the tree already holds all of v
                    }
                    // A leaf does not stand for what remains: it is kept below the leaf (see
                    // the module doc).
                    node = &mut node.children[i].1;
                    continue 'descend;
                }
            }
            node.children
                .push((v[0].borrow().clone(), Tree::chain(&v[1..])));
            return true;
        }
    }
}

/// Where `p`'s thread stands as a weak initial of `v`: `Some(Some(at))` when `v` contains its
/// event at `at` and nothing in `v` must come before it, `Some(None)` when `p` touches nothing
/// `v` does, `None` when it is no weak initial.
fn weak_initial<E: Borrow<Ev>>(p: &Ev, v: &[E], names: &mut Names) -> Option<Option<usize>> {
    match v.iter().position(|e| e.borrow().thread == p.thread) {
        Some(at) => {
            // Compared where the earlier one stands (see `dependent`). `p` as it ran too: the
            // event in `v` is as it ran in `v`'s execution, where it may have done less (a
            // `try_lock` that failed there succeeds where `v` puts it, and its step reads what
            // an earlier event of `v` changed; `tests/dpor_vs_dfs/moved.rs`,
            // `a_sleeping_try_lock_that_read_what_a_reversal_changes_first`).
            let blocked = v[..at].iter().any(|earlier| {
                dependent(v[at].borrow(), earlier.borrow(), names)
                    || dependent(p, earlier.borrow(), names)
            });
            (!blocked).then_some(Some(at))
        }
        None => v
            .iter()
            .all(|e| !dependent(p, e.borrow(), names))
            .then_some(None),
    }
}

/// If `p`'s thread is a weak initial of `v`, takes `p` first: removes its event from `v` (if
/// there) and returns true; otherwise leaves `v` alone and returns false. What remains of `v`
/// then stands after `p`: if `p` is an arrival at a barrier (not its last), the arrivals of
/// `v` now after it count one fewer still to come (those before its event in `v`, or all of
/// them when `p` touches nothing `v` does).
pub(crate) fn take_weak_initial<E: SeqEv>(p: &Ev, v: &mut Vec<E>, names: &mut Names) -> bool {
    let (arrival, passed) = match weak_initial(p, v, names) {
        Some(Some(at)) => (Borrow::<Ev>::borrow(&v.remove(at)).arrival(), at),
        Some(None) => (p.arrival(), v.len()),
        None => return false,
    };
    if let Some((barrier, _)) = arrival {
        for e in &mut v[..passed] {
            if let Some((other, left)) = Borrow::<Ev>::borrow(e).arrival() {
                if names.find(other) == names.find(barrier) {
                    e.ev_mut().set_left(left - 1);
                }
            }
        }
    }
    true
}

/// Whether `p`'s thread is a weak initial of `v`.
pub(crate) fn is_weak_initial<E: Borrow<Ev>>(p: &Ev, v: &[E], names: &mut Names) -> bool {
    weak_initial(p, v, names).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::dpor::events::{Access, EventKey};

    /// Thread `thread`'s arrival at barrier `b`, leaving `left` more to come where it stands.
    fn arrival(thread: usize, b: u32, left: u32, execution: u64) -> Ev {
        Ev {
            thread,
            index: 0,
            nth: 0,
            accesses: smallvec::smallvec![Access::CountDown(b, left)],
            exact: smallvec::smallvec![Access::CountDown(b, left)],
            execution,
            enablers: smallvec::SmallVec::new(),
            fair: Default::default(),
        }
    }

    /// At a barrier of three that nobody reached yet, the tree holds the arrivals of threads 1
    /// then 2. Thread 3's arrival alone is no continuation of theirs: after both it is the
    /// leader. Taken as commuting with thread 1's arrival (two more still to come after it
    /// where it stands), it comes after it, where one fewer is still to come, and it conflicts
    /// with thread 2's: the sequence is inserted. Without that count it was taken as covered.
    #[test]
    fn an_arrival_taken_first_counts_down_the_sequence_after_it() {
        let mut names = Names::default();
        let at = EventKey {
            thread: 0,
            index: 0,
            nth: 0,
            location: 0,
        };
        let b = names.name(0, at, 0);
        let mut tree = Tree::default();
        let mut first = vec![arrival(1, b, 2, 1), arrival(2, b, 1, 1)];
        assert!(tree.insert(&mut first, &mut names));
        assert!(tree.insert(&mut vec![arrival(3, b, 2, 2)], &mut names));
        let below = &tree.children[0].1;
        assert_eq!(below.children.len(), 2, "{tree:?}");
        // Inserted where it stands: one more to come after it.
        assert_eq!(below.children[1].0.main(), Access::CountDown(b, 1));
    }
}
