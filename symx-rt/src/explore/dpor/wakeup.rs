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
    /// set, as explored), each with whether it was a leaf.
    pub fn pop_leftmost(&mut self, given: &mut Vec<(Ev, bool)>) -> Option<(Ev, Tree)> {
        let own = self.children.iter().position(|(_, t)| t.has_own_leaf());
        let before = &self.children[..own.unwrap_or(self.children.len())];
        given.extend(before.iter().map(|(ev, t)| (ev.clone(), t.is_empty())));
        Some(self.children.remove(own?))
    }

    fn chain<E: Borrow<Ev>>(v: &[E]) -> Tree {
        let mut tree = Tree::default();
        for ev in v.iter().rev() {
            tree = Tree {
                children: vec![(ev.borrow().clone(), tree)],
                shadow: false,
            };
        }
        tree
    }

    /// [`insert`](Self::insert), if `v` goes below one of the tree's children; else `v` back.
    pub fn insert_below<E: Borrow<Ev>>(
        &mut self,
        mut v: Vec<E>,
        names: &mut Names,
    ) -> Result<(), Vec<E>> {
        let first = (0..self.children.len())
            .find(|&i| take_weak_initial(&self.children[i].0, &mut v, names));
        let Some(i) = first else {
            return Err(v);
        };
        let below = &mut self.children[i].1;
        if !below.is_empty() && !v.is_empty() {
            below.insert(v, names);
        }
        Ok(())
    }

    /// Inserts `v` unless a sequence in the tree already covers it (copying only the events
    /// it adds).
    pub fn insert<E: Borrow<Ev>>(&mut self, mut v: Vec<E>, names: &mut Names) {
        let mut node = self;
        'descend: loop {
            for i in 0..node.children.len() {
                if take_weak_initial(&node.children[i].0, &mut v, names) {
                    if node.children[i].1.is_empty() || v.is_empty() {
                        return; // a leaf (or all of v) already stands for it
                    }
                    node = &mut node.children[i].1;
                    continue 'descend;
                }
            }
            node.children
                .push((v[0].borrow().clone(), Tree::chain(&v[1..])));
            return;
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
