//! Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial order reduction",
//! POPL 2014 / JACM 2017, §6): the ordered set of event sequences still to be explored from a
//! state, with insertion that skips a sequence already covered by one in the tree.
//!
//! Sequences are compared through *weak initials* WI[E](v): the threads whose next event can
//! start an execution equivalent to a continuation of `v`.

use std::borrow::Borrow;

use super::events::{dependent, Ev, Names};

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
    pub fn is_empty(&self) -> bool {
        self.children.is_empty()
    }

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
    /// it adds); whether it added anything.
    pub fn insert<E: Borrow<Ev>>(&mut self, mut v: Vec<E>, names: &mut Names) -> bool {
        self.insert_from(&mut v, names)
    }

    /// [`insert`](Self::insert), leaving what is left of `v` in it (its buffer is the
    /// caller's to reuse).
    pub fn insert_from<E: Borrow<Ev>>(&mut self, v: &mut Vec<E>, names: &mut Names) -> bool {
        let mut node = self;
        'descend: loop {
            for i in 0..node.children.len() {
                if take_weak_initial(&node.children[i].0, v, names) {
                    if node.children[i].1.is_empty() || v.is_empty() {
                        return false; // a leaf (or all of v) already stands for it
                    }
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
            let blocked = v[..at]
                .iter()
                .any(|earlier| dependent(earlier.borrow(), v[at].borrow(), names));
            (!blocked).then_some(Some(at))
        }
        None => v
            .iter()
            .all(|e| !dependent(p, e.borrow(), names))
            .then_some(None),
    }
}

/// If `p`'s thread is a weak initial of `v`, takes `p` first: removes its event from `v` (if
/// there) and returns true; otherwise leaves `v` alone and returns false.
pub(crate) fn take_weak_initial<E: Borrow<Ev>>(p: &Ev, v: &mut Vec<E>, names: &mut Names) -> bool {
    match weak_initial(p, v, names) {
        Some(Some(at)) => {
            v.remove(at);
            true
        }
        Some(None) => true,
        None => false,
    }
}

/// Whether `p`'s thread is a weak initial of `v`.
pub(crate) fn is_weak_initial<E: Borrow<Ev>>(p: &Ev, v: &[E], names: &mut Names) -> bool {
    weak_initial(p, v, names).is_some()
}
