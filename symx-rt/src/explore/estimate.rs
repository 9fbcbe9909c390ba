//! An estimate of the size of an exhaustive exploration while it runs, from the current path
//! alone: Knuth's estimator ("Estimating the efficiency of backtrack programs", Math. Comp.
//! 1975) read as the fraction of the tree already explored.
//!
//! Along the current path, node `i` has `d_i` subtrees: `done_i` explored before the current
//! one, the current one, and the ones still planned. Taking sibling subtrees to be alike (the
//! assumption behind Knuth's estimator), the explored part of the tree is
//!
//! ```text
//! f = Σ_i (Π_{j<i} 1/d_j) · done_i/d_i  +  Π_j 1/d_j
//! ```
//!
//! (the last term is the execution that just ended), and the whole tree has about
//! `executions / f` executions. After the first execution this is exactly Knuth's estimate
//! `Π d_i` of the first path; it is exact once the exploration has ended.
//!
//! In a DPOR tree the planned subtrees of a node are its wakeup tree's, which races found
//! later can still add to: a node's branching is final only once it is finished. Read
//! alone, the current path then underestimates early (the counters at under half their true
//! size after a tenth of the exploration). [`Growth`] corrects for it from the nodes already
//! finished: how many subtrees the finished nodes with as much *room* (the threads enabled and
//! awake when a node was made, the most subtrees it can have) ended with predicts how many a
//! node on the current path will end with. A program whose threads all conflict fills all its
//! room; one whose threads commute fills none, and the estimate is then the path's alone.

/// The estimated executions of the whole exploration, after `executions` have ended, from the
/// current path's nodes as `(done, planned)`: subtrees explored before the current one and
/// still to explore.
pub(crate) fn total(executions: u64, path: impl Iterator<Item = (f64, f64)>) -> f64 {
    let mut weight = 1.0f64;
    let mut explored = 0.0f64;
    for (done, planned) in path {
        let d = done + 1.0 + planned;
        explored += weight * done / d;
        weight /= d;
    }
    explored += weight;
    executions as f64 / explored
}

/// How much of their room the finished nodes of a DPOR tree filled, by the size of the room:
/// for each size, the finished nodes that had it and the sum of their final branching less one.
/// Kept apart by size because a node deep in the tree, where few threads are left and they
/// often conflict, says little about a node near the root, where many threads are awake.
#[derive(Clone, Default, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Growth {
    by_room: Vec<(u64, u64)>,
}

impl Growth {
    /// Counts a finished node that had `branches` subtrees in all and `room` for them.
    pub(crate) fn finished(&mut self, branches: u32, room: u32) {
        let room = room as usize;
        if room > 1 {
            if self.by_room.len() <= room {
                self.by_room.resize(room + 1, (0, 0));
            }
            let (nodes, filled) = &mut self.by_room[room];
            *nodes += 1;
            *filled += u64::from(branches.clamp(1, room as u32) - 1);
        }
    }

    /// The subtrees a node on the current path is expected to have still to explore: what its
    /// wakeup tree plans, or, where finished nodes with as much room filled more of it than
    /// this node's tree has so far, that share of its room.
    pub(crate) fn planned(&self, done: u32, planned: u32, room: u32) -> (f64, f64) {
        let (done, planned) = (f64::from(done), f64::from(planned));
        match self.by_room.get(room as usize) {
            Some(&(nodes, filled)) if nodes > 0 => {
                let expected = 1.0 + filled as f64 / nodes as f64;
                (done, planned.max(expected - done - 1.0))
            }
            _ => (done, planned),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{total, Growth};

    #[test]
    fn a_uniform_tree_is_estimated_exactly_at_every_leaf() {
        // A binary tree of depth 3 (8 leaves), explored depth-first.
        for leaf in 0..8u32 {
            let path = (0..3).rev().map(|level| {
                let taken = f64::from((leaf >> level) & 1);
                (taken, 1.0 - taken)
            });
            assert_eq!(total(u64::from(leaf) + 1, path), 8.0);
        }
    }

    #[test]
    fn the_first_path_gives_knuth_s_product() {
        let path = [(0.0, 2.0), (0.0, 1.0), (0.0, 0.0)];
        assert_eq!(total(1, path.into_iter()), 6.0);
    }

    #[test]
    fn a_node_is_expected_to_branch_as_the_finished_nodes_with_as_much_room_did() {
        let mut growth = Growth::default();
        assert_eq!(
            growth.planned(0, 0, 5),
            (0.0, 0.0),
            "nothing finished: the tree alone"
        );
        // Finished nodes with room for 5 subtrees had 3 and 2 of them: 2.5 expected.
        growth.finished(3, 5);
        growth.finished(2, 5);
        growth.finished(3, 3);
        growth.finished(1, 1);
        assert_eq!(growth.planned(0, 0, 5), (0.0, 1.5));
        assert_eq!(growth.planned(1, 0, 5), (1.0, 0.5));
        assert_eq!(
            growth.planned(0, 3, 5),
            (0.0, 3.0),
            "a tree planning more keeps its plan"
        );
        assert_eq!(growth.planned(0, 0, 3), (0.0, 2.0));
        assert_eq!(
            growth.planned(0, 0, 4),
            (0.0, 0.0),
            "no finished node had room for 4"
        );
        assert_eq!(growth.planned(2, 0, 1), (2.0, 0.0));
    }
}
