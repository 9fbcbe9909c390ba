//! One optimal-DPOR exploration split among `count` explorers (`--shards`: one worker process
//! each) by work stealing of unexplored wakeup-tree subtrees, as in the distributed stateless
//! search of Yang, Chen, Gopalakrishnan and Kirby ("Distributed dynamic partial order
//! reduction based verification of threaded software", SPIN 2008) and Simsa, Bryant, Gibson
//! and Flinn ("Scalable dynamic partial order reduction", RV 2012).
//!
//! The scheme. Explorer 0 starts the exploration; the others start idle. Between two of its
//! executions a busy explorer that sees an idle one (`exchange`) and has at least two
//! unexplored *items* on its path (the leaves of its nodes' wakeup trees, each a whole wakeup
//! sequence, and a node's untried value choices) deals them in two halves (largest estimated
//! subtree first, each to the lighter half; an item at depth d weighs the product of the
//! branching of the path below d, as in Knuth's estimator, shared equally among a wakeup
//! subtree's leaves), keeps one and hands the other over: its path (each node's event, sleep
//! set and value choices) with only the given items in the wakeup trees, and the object names.
//! It drops what it gave: a given leaf is removed from its wakeup tree (with the inner nodes
//! leading only to given leaves), given value choices are not advanced. The receiver explores
//! from that state as an ordinary optimal DPOR; its executions plant reversals into its own copy
//! of the path, and it explores them itself. The exploration ends when every explorer is idle.
//!
//! Why the union of the explorers' traces is the sequential exploration's set. An explorer's
//! state is one the sequential algorithm could be in had its wakeup trees lacked the given
//! children (a child of an inner node of a wakeup tree is a child of the wakeup tree of a node
//! its sequence will create), with the same sleep sets. Sleep sets stay sound because a given
//! child is *not* put to sleep where it was given: an event sleeps in an explorer only once its
//! subtree was explored, by that explorer and by the explorers that received items below it,
//! each with everything its executions planted; by induction from the deepest item up, the
//! usual argument for sleep sets (Abdulla, Aronis, Jonsson, Sagonas, JACM 2017) holds. A given
//! item is explored by its receiver, which has the same path and sleep sets, and which explores
//! everything the sequential algorithm would explore because of that subtree, since it plants
//! the reversals of the races it finds there in its own copy of the path. A race whose reversal
//! the sequential algorithm would insert into a given subtree (found by the giver) becomes a
//! new child in the giver: explored there instead, at the price of a possible duplicate. So
//! every trace the sequential exploration runs, some explorer runs; what is lost is only
//! optimality: a trace may run in two explorers (both planted it). The differential test
//! (`tests/dpor_shards.rs`) checks the union on random programs and counts the duplicates.

use super::wakeup::Tree;
use super::Node;

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
    let owner = deal(&items, 2);
    let mut kept: Vec<Tree> = nodes.iter().map(|_| Tree::default()).collect();
    let mut given: Vec<(Tree, bool)> = nodes.iter().map(|_| (Tree::default(), false)).collect();
    let mut deepest = 0;
    for (item, &o) in items.iter().zip(&owner) {
        let node = &mut nodes[item.node];
        if o == 1 {
            deepest = deepest.max(item.node + 1);
        }
        match (item.at.is_empty(), o) {
            (true, 0) => {}
            (true, _) => {
                node.values_elsewhere = true;
                given[item.node].1 = true;
            }
            (false, 0) => copy_path(&node.wut, &item.at, &mut kept[item.node]),
            (false, _) => copy_path(&node.wut, &item.at, &mut given[item.node].0),
        }
    }
    for (node, wut) in nodes.iter_mut().zip(kept) {
        node.wut = wut;
    }
    given.truncate(deepest);
    Some(given)
}

/// Whether the path has at least two unexplored items, so that half can be given.
pub(crate) fn has_two_items(nodes: &[Node]) -> bool {
    let mut n = 0;
    for node in nodes {
        n += usize::from(node.values.has_alternative() && !node.values_elsewhere);
        n += node.wut.children.len();
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
        to.children.push((ev.clone(), Tree::default()));
    }
    let last = &mut to.children.last_mut().expect("just ensured").1;
    copy_path(below, rest, last);
}

/// The same wakeup-tree child: events of one thread at one index (siblings differ in thread).
fn same(a: &super::events::Ev, b: &super::events::Ev) -> bool {
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
        return found(at.clone(), weight);
    }
    let share = weight / tree.children.len() as f64;
    for (c, (_, below)) in tree.children.iter().enumerate() {
        at.push(c);
        leaves(below, at, share, found);
        at.pop();
    }
}

/// Which explorer gets each item: largest first, each to the least loaded (the lowest-numbered
/// on ties), so that every explorer computes the same deal.
fn deal(items: &[Item], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[b].weight.total_cmp(&items[a].weight).then(a.cmp(&b)));
    let mut load = vec![0.0f64; count];
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
        assert_eq!(deal(&items, 2), vec![0, 0, 1, 1, 1]);
        assert_eq!(deal(&items, 1), vec![0; 5]);
    }
}
