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
//! subtree's leaves), keeps one and hands the other over (`peers`): *copies* of its path's
//! nodes (event, sleep set, value choices) with only the given items in their wakeup trees.
//! The exploration ends when every explorer is idle and nothing is on its way.
//!
//! Every node has one owner, the explorer that created it; a copy names it (owner, number).
//! The sequential algorithm has one wakeup tree and one sleep set per node, and deduplicates
//! every reversal against them; the split keeps exactly that:
//! - A reversal whose insertion point is a copy goes below the copy's own pending sequences
//!   if it fits there (they are this explorer's items), else to the owner, which inserts it
//!   into the node's wakeup tree as if it had found the race itself (forwarded in batches).
//! - A given leaf stays in the giver's wakeup tree as a *shadow*: never explored there, but an
//!   insertion that reaches it is covered, as by any leaf. When the giver moves past it, its
//!   event joins the sleep set, as it would have in the sequential order (it comes first).
//! - A node on the path of a gift is *lent*: after its pop it is kept with its path, since
//!   reversals may still be forwarded to it, and explored again (from its path) when one is.
//!
//! Why the union of the explorers' traces is the sequential exploration's set. Each child of
//! a node's wakeup tree is explored by exactly one explorer, from the same path, with a sleep
//! set that is the sequential one at that point or a subset (a copy's is the owner's at the
//! gift: it explores at least as much). Every reversal the sequential algorithm inserts at a
//! node is inserted into that node's one wakeup tree, whoever finds the race, and no node that
//! can receive one is gone. What differs is the order: the owner may explore a child before a
//! part that, sequentially, comes before it, and whose reversals would then have gone into
//! that child's pending sequence. So the owner checks a forwarded reversal against its sleep
//! set (the check the sequential algorithm makes where it finds the race) only with the
//! sleepers into which nothing could have been inserted from elsewhere: those explored before
//! the node was first lent (before any other part existed), and those explored from a wakeup
//! sequence of one event (a leaf covers whatever reaches it, so nothing is inserted below
//! it); the others (`Node::untrusted`) do not cover, and a reversal they would cover is
//! explored again. That, and sleep sets of copies older than the owner's, is the only source
//! of executions run twice (a few percent in `tests/dpor_shards.rs`, which checks the union on
//! random programs and counts the duplicates).

use super::events::Ev;
use super::wakeup::Tree;
use super::Node;
use crate::rt::op::ThreadId;

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

/// Adds to a sleep set the events of wakeup-tree children explored by other explorers
/// (`Tree::pop_leftmost`), each once; those given with more than one event are `untrusted`
/// (see the module doc).
pub(crate) fn put_to_sleep(
    sleep: &mut Vec<Ev>,
    untrusted: &mut Vec<(ThreadId, u32)>,
    given: Vec<(Ev, bool)>,
) {
    for (ev, alone) in given {
        if !sleep.iter().any(|s| same(s, &ev)) {
            if !alone {
                untrusted.push((ev.thread, ev.index));
            }
            sleep.push(ev);
        }
    }
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
        to.children.push((ev.clone(), Tree::default()));
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
