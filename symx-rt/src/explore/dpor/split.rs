//! One optimal-DPOR exploration split among `count` explorers (`--shards`: one worker process
//! each) by work stealing of unexplored wakeup-tree subtrees, as in the distributed stateless
//! search of Yang, Chen, Gopalakrishnan and Kirby ("Distributed dynamic partial order
//! reduction based verification of threaded software", SPIN 2008) and Simsa, Bryant, Gibson
//! and Flinn ("Scalable dynamic partial order reduction", RV 2012).
//!
//! The scheme. Explorer 0 starts the exploration; the others start idle. Between two of its
//! executions a busy explorer that sees an idle one (`exchange`) and has at least two
//! unexplored *items* on its path (the leaves of its nodes' wakeup trees, each a whole wakeup
//! sequence, and a node's untried value choices) deals them in two parts (largest estimated
//! subtree first, each to the lighter part; an item at depth d weighs the product of the
//! branching of the path below d, as in Knuth's estimator, shared equally among a wakeup
//! subtree's leaves), keeps one and hands the other over (`peers`): *copies* of its path's
//! nodes (event, sleep set, value choices) with only the given items in their wakeup trees.
//! The giver's part starts with a head start ([`HEAD_START`]): the giver keeps more than its
//! items, since the reversals that races below a gift plant at the gift's copies of the giver's
//! nodes are forwarded to the giver and become its work, and so does the growth of the
//! wakeup trees along its own path. Dealt evenly, the receiver soon ran out and asked again:
//! two shards of the 4 × 3 counters exchanged 33–61 gifts a run, nearly all to the same
//! shard, which was idle 0.76–0.86 s (at load 7–11); with a head start of a third, 6–10 gifts
//! each way and 0.13–0.39 s idle (`BENCHMARKS.md`).
//! The exploration ends when every explorer is idle and nothing is on its way.
//!
//! Every node has one owner, the explorer that created it; a copy names it (owner, number).
//! The sequential algorithm has one wakeup tree and one sleep set per node, explores the
//! node's children in order, and deduplicates every reversal against the sleep set (the
//! children explored before the one whose exploration found the race) and the wakeup tree
//! (the children after it). The split keeps exactly that, with the order made explicit:
//! every child has a *place* ([`Key`]) in the sequential order, which travels with it.
//! - The sleep set a child is explored with is the node's sleepers that come from its parent
//!   and the children *placed* before it (`Node::sleep_at`), whenever and by whomever they
//!   were explored; a gift's copy also puts to sleep the giver's children it does not get (the
//!   giver explores them, and they come before the given ones they come before).
//! - A reversal found below a copy goes to the node's owner with the place of the child
//!   whose exploration found it (forwarded in batches). The owner places it as the sequential
//!   algorithm would have at that moment (`Node::place`): covered if a child placed before
//!   that one is a weak initial; else below the first child placed after it that is one,
//!   whether pending (into its wakeup subtree), being explored (on along the current path),
//!   or explored already: then into that child's wakeup subtree as it was taken (kept for the
//!   purpose), and what it adds is explored as a new child placed just after it. A leaf
//!   covers what reaches it.
//! - A given leaf stays in the giver's wakeup tree as a *shadow* until the giver moves past
//!   it; then it sleeps at its place, as explored.
//! - A node on the path of a gift is *lent*: after its pop it is kept with its path, since
//!   reversals may still be forwarded to it, and explored again (from its path) when one is.
//!
//! Why the union of the explorers' traces is the sequential exploration's set. Each child of
//! a node is explored by exactly one explorer, from the same path: a given item is a shadow at
//! its giver, which never explores it, and the gift that carries it reaches its explorer
//! whole and is never replaced before it is taken (`exchange`: at most one gift on its way to
//! an explorer; a gift renamed over one not yet taken lost its items, which was the cause of
//! the rare missing traces before it). Its sleep set is the
//! sequential one or a subset: the sleepers placed before it are the sequential sleepers, of
//! which some may not exist yet (children planted later with an earlier place); a subset
//! explores at least as much. A sleeper explored later, or elsewhere, still covers what it
//! covers sequentially, because its own exploration is (inductively) the sequential one or
//! more. Every reversal the sequential algorithm inserts at a node is placed at that node,
//! whoever finds the race, against the sleepers and children the sequential algorithm has
//! there at that moment (by place), and no node that can receive one is gone; where the child
//! it goes below was explored already, the part it adds is explored after all. A reversal
//! still on its way to the owner when the owner deals a gift is placed when it arrives, at the
//! owner's node, whose given leaves are shadows there: one that reaches a shadow leaf is
//! covered by it (the leaf's explorer explores all below it), one that adds to a given subtree
//! adds an own leaf of the owner, which the owner explores; so what the gift's copies lack of
//! it is explored all the same. What can run
//! twice: a child explored with a sleep set that lacks a sleeper not yet planted, and a part
//! explored again as a new child where the sequential run would have found it below an
//! explored child's wakeup subtree as it grew later (a few percent in `tests/dpor_shards.rs`,
//! which checks the union on random programs and counts the duplicates).

use std::borrow::Cow;

use super::events::{Ev, Names};
use super::wakeup::{is_weak_initial, take_weak_initial, SeqEv, Tree};
use super::Node;

/// A child's place among its node's children in the order of the sequential exploration:
/// compared lexicographically, so that `k ++ [n]` comes after `k` and before whatever came
/// after `k`. Children get `[1]`, `[2]`, ... in the order they join the node's wakeup tree.
pub(crate) type Key = Vec<u32>;

/// Where a sequence planted at a node goes in the sequential exploration (see the module doc).
pub(crate) enum Place {
    /// A sleeper of the sequential sleep set, or a leaf it reaches, covers it.
    Covered,
    /// Below the node's current choice: on along the current path.
    Chosen,
    /// Below the pending child with this index.
    Below(usize),
    /// Below the child explored already that is the sleeper with this index among the
    /// `places`: into its wakeup subtree as it was, and what that adds is explored as a new
    /// child just after it.
    After(usize),
    /// A new child after all others.
    End,
}

impl Node {
    /// The sleepers before the first of `places` (which come from the node's parent).
    fn inherited(&self) -> usize {
        self.sleep.len() - self.places.len()
    }

    /// Whether sleeper `i` sleeps for the child at `key`: it came from the parent, or it is a
    /// child explored before `key` in the sequential order (see the module doc).
    fn sleeps_for(&self, i: usize, key: &Key) -> bool {
        let inherited = self.inherited();
        i < inherited || self.places[i - inherited].0 < *key
    }

    /// The sleep set of the node's child at `key` (all of the sleep set in a whole
    /// exploration, which has no places).
    pub fn sleep_at<'a>(&'a self, key: &'a Key) -> impl Iterator<Item = &'a Ev> {
        (0..self.sleep.len())
            .filter(move |&i| self.sleeps_for(i, key))
            .map(|i| &self.sleep[i])
    }

    /// Puts `ev` to sleep as the node's child explored at `place` (key, its wakeup subtree),
    /// unless its thread sleeps already; in a whole exploration (`keyed` false) without the
    /// place.
    pub fn fall_asleep(&mut self, ev: Ev, place: (Key, Tree), keyed: bool) {
        if keyed {
            if self.sleep.iter().any(|s| same(s, &ev)) {
                return;
            }
            self.places.push(place);
        }
        self.sleep.push(ev);
    }

    /// In a gift's copy of `mine`: the children of `mine` not given go to sleep at their
    /// places, as explored. In the sequential order each is explored before the given children
    /// that come after it, whoever explores it, so it sleeps for those (and only those).
    pub fn sleep_before_given(&mut self, mine: &Node) {
        for (ev, t) in &mine.wut.children {
            if !self.wut.children.iter().any(|g| g.1.key == t.key) {
                self.fall_asleep(ev.clone(), (t.key.clone(), Tree::default()), true);
            }
        }
    }

    /// A fresh place for a child that joins the node's wakeup tree after all the others.
    pub fn fresh_key(&mut self) -> Key {
        self.next_key += 1;
        vec![self.next_key]
    }

    /// Gives the top-level children of the node's wakeup tree without a place one, in order.
    pub fn number_children(&mut self) {
        let mut next = self.next_key;
        for (_, t) in self.wut.children.iter_mut().filter(|c| c.1.key.is_empty()) {
            next += 1;
            t.key = vec![next];
        }
        self.next_key = next;
    }

    /// Where `v`, planted here from the exploration of the child at `from` (`None`: from
    /// above, everything here comes after), goes in the sequential exploration; `v` loses the
    /// event of the child it goes below. `live`: the node is on the current path (its
    /// `chosen` is being explored).
    pub fn place<E: SeqEv>(
        &self,
        from: Option<&Key>,
        live: bool,
        v: &mut Vec<E>,
        names: &mut Names,
    ) -> Place {
        if let Some(from) = from {
            // The sequential sleep set there: what came before `from`, explored yet or not.
            let pending_before = self.wut.children.iter().filter(|c| c.1.key < *from);
            if self
                .sleep_at(from)
                .chain(pending_before.map(|c| &c.0))
                .any(|s| is_weak_initial(s, v, names))
            {
                return Place::Covered;
            }
        }
        let after = |k: &Key| from.is_none_or(|f| k > f);
        // The children that come after `from`: explored, being explored, pending.
        enum Child {
            Explored(usize),
            Chosen,
            Pending(usize),
        }
        let inherited = self.inherited();
        let mut later: Vec<(&Key, Child)> = Vec::new();
        for (i, (key, _)) in self.places.iter().enumerate() {
            if after(key) {
                later.push((key, Child::Explored(i)));
            }
        }
        if live && after(&self.key) {
            later.push((&self.key, Child::Chosen));
        }
        for (i, (_, t)) in self.wut.children.iter().enumerate() {
            if after(&t.key) {
                later.push((&t.key, Child::Pending(i)));
            }
        }
        later.sort_by(|a, b| a.0.cmp(b.0));
        for (_, child) in later {
            let ev = match child {
                Child::Explored(i) => &self.sleep[inherited + i],
                Child::Chosen => &self.chosen,
                Child::Pending(i) => &self.wut.children[i].0,
            };
            if !take_weak_initial(ev, v, names) {
                continue;
            }
            // A leaf does not cover what reaches it: that is kept below it (see `wakeup`).
            return match child {
                _ if v.is_empty() => Place::Covered,
                Child::Explored(i) => Place::After(i),
                Child::Chosen => Place::Chosen,
                Child::Pending(i) => Place::Below(i),
            };
        }
        Place::End
    }

    /// Plants `v` at a place [`place`](Self::place) found that is not `Covered` or `Chosen`.
    pub fn plant<E: SeqEv>(&mut self, place: Place, mut v: Vec<E>, names: &mut Names) {
        match place {
            Place::Covered | Place::Chosen => {}
            Place::Below(i) => {
                self.wut.children[i].1.insert(&mut v, names);
            }
            Place::After(i) => {
                let mut refs: Vec<Cow<Ev>> = v.iter().map(|e| Cow::Borrowed(e.borrow())).collect();
                if !self.places[i].1.insert(&mut refs, names) {
                    return; // a leaf explored below that child covers it
                }
                let mut tree = Tree::chain(&v);
                tree.key = self.places[i].0.clone();
                tree.key.push(self.fresh_key()[0]);
                let ev = self.sleep[self.inherited() + i].clone();
                let at = self
                    .wut
                    .children
                    .iter()
                    .position(|c| c.1.key > tree.key)
                    .unwrap_or(self.wut.children.len());
                self.wut.children.insert(at, (ev, tree));
            }
            Place::End => {
                let mut tree = Tree::chain(&v[1..]);
                tree.key = self.fresh_key();
                self.wut.children.push((v[0].borrow().clone(), tree));
            }
        }
    }
}

/// The share of the items' estimated total weight that the giver's part starts with, in
/// percent (see the module doc; `exchange::tune` may replace it).
static HEAD_START: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(33);

/// Sets the giver's head start in the deal (see [`HEAD_START`]).
pub(crate) fn head_start(percent: u64) {
    HEAD_START.store(percent, std::sync::atomic::Ordering::Relaxed);
}

/// One unexplored item of the current path: a leaf of node `node`'s wakeup tree (a whole
/// wakeup sequence, reached by the child indices `at`), or (`at` empty) its untried value
/// choices.
struct Item {
    node: usize,
    at: Vec<usize>,
    weight: f64,
}

/// Splits the path's unexplored items in two halves (see the module doc); `None` when there
/// are fewer than two. `nodes` keeps the first half; the second is returned as the wakeup tree
/// and whether the value choices are given, per node (up to the deepest node given anything).
pub(crate) fn give_half(nodes: &mut [Node]) -> Option<Vec<(Tree, bool)>> {
    let items = items(nodes);
    if items.len() < 2 {
        return None;
    }
    let percent = HEAD_START.load(std::sync::atomic::Ordering::Relaxed);
    let owner = deal(&items, 2, percent as f64 / 100.0);
    let mut given: Vec<(Tree, bool)> = nodes.iter().map(|_| (Tree::default(), false)).collect();
    let mut deepest = 0;
    for (item, _) in items.iter().zip(&owner).filter(|(_, &o)| o == 1) {
        let node = &mut nodes[item.node];
        deepest = deepest.max(item.node + 1);
        if item.at.is_empty() {
            node.values_elsewhere = true;
            given[item.node].1 = true;
        } else {
            copy_path(&node.wut, &item.at, &mut given[item.node].0);
            leaf_at(&mut node.wut, &item.at).shadow = true;
        }
    }
    given.truncate(deepest);
    Some(given)
}

/// The subtree of `tree` at child indices `at`.
fn leaf_at<'t>(tree: &'t mut Tree, at: &[usize]) -> &'t mut Tree {
    at.iter().fold(tree, |t, &c| &mut t.children[c].1)
}

/// Whether the path has at least two unexplored items, so that half can be given.
pub(crate) fn has_two_items(nodes: &[Node]) -> bool {
    let mut n = 0;
    for node in nodes {
        n += usize::from(node.values.has_alternative() && !node.values_elsewhere);
        n += node
            .wut
            .children
            .iter()
            .filter(|c| c.1.has_own_leaf())
            .count();
        if n >= 2 {
            return true;
        }
    }
    // A single child may still have two leaves.
    n == 1 && items(nodes).len() >= 2
}

/// Copies into `to` the path of `from` to the leaf at `at` (child indices), merging it with
/// the paths already copied, in `from`'s order (leaves are copied in that order).
fn copy_path(from: &Tree, at: &[usize], to: &mut Tree) {
    let Some((&first, rest)) = at.split_first() else {
        return;
    };
    let (ev, below) = &from.children[first];
    // Paths are copied in order, so a shared prefix is the last child copied so far.
    let fresh = to.children.last().is_none_or(|(e, _)| !same(e, ev));
    if fresh {
        let key = below.key.clone();
        to.children.push((
            ev.clone(),
            Tree {
                key,
                ..Tree::default()
            },
        ));
    }
    let last = &mut to.children.last_mut().expect("just ensured").1;
    copy_path(below, rest, last);
}

/// The same wakeup-tree child: events of one thread at one index (siblings differ in thread).
fn same(a: &Ev, b: &Ev) -> bool {
    a.thread == b.thread && a.index == b.index
}

/// The path's unexplored items, with their estimated sizes: a top-level child of node `d`'s
/// wakeup tree stands for about as much as the path below `d` (Knuth's estimator), shared
/// equally among its children at each level.
fn items(nodes: &[Node]) -> Vec<Item> {
    // below[d]: the estimated size of a subtree rooted just below node d.
    let mut below = vec![1.0f64; nodes.len() + 1];
    for d in (0..nodes.len()).rev() {
        let branching = nodes[d].done as f64 + 1.0 + nodes[d].wut.children.len() as f64;
        below[d] = below[d + 1] * branching;
    }
    let mut items = Vec::new();
    for (d, node) in nodes.iter().enumerate() {
        if node.values.has_alternative() && !node.values_elsewhere {
            items.push(Item {
                node: d,
                at: Vec::new(),
                weight: below[d + 1],
            });
        }
        for (c, (_, subtree)) in node.wut.children.iter().enumerate() {
            leaves(subtree, &mut vec![c], below[d + 1], &mut |at, weight| {
                items.push(Item {
                    node: d,
                    at,
                    weight,
                })
            });
        }
    }
    items
}

/// Calls `found` with the path and share of `weight` of every leaf of `tree` (reached by `at`).
fn leaves(tree: &Tree, at: &mut Vec<usize>, weight: f64, found: &mut impl FnMut(Vec<usize>, f64)) {
    if tree.children.is_empty() {
        if !tree.shadow {
            found(at.clone(), weight);
        }
        return;
    }
    let share = weight / tree.children.len() as f64;
    for (c, (_, below)) in tree.children.iter().enumerate() {
        at.push(c);
        leaves(below, at, share, found);
        at.pop();
    }
}

/// Which explorer gets each item: largest first, each to the least loaded (the lowest-numbered
/// on ties), explorer 0 (the giver) starting with `head_start` times the total weight.
fn deal(items: &[Item], count: usize, head_start: f64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[b].weight.total_cmp(&items[a].weight).then(a.cmp(&b)));
    let mut load = vec![0.0f64; count];
    load[0] = head_start * items.iter().map(|i| i.weight).sum::<f64>();
    let mut owner = vec![0; items.len()];
    for i in order {
        let least = (0..count)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("count >= 1");
        load[least] += items[i].weight;
        owner[i] = least;
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(weight: f64) -> Item {
        Item {
            node: 0,
            at: vec![0],
            weight,
        }
    }

    #[test]
    fn the_deal_gives_the_largest_items_to_the_least_loaded() {
        let items = [item(8.0), item(1.0), item(4.0), item(4.0), item(1.0)];
        assert_eq!(deal(&items, 2, 0.0), vec![0, 0, 1, 1, 1]);
        assert_eq!(deal(&items, 1, 0.0), vec![0; 5]);
        // A head start of a third of 18 (6): the receiver takes the 8 and a 4 (12 of 18).
        assert_eq!(deal(&items, 2, 1.0 / 3.0), vec![1, 0, 0, 1, 0]);
    }
}
