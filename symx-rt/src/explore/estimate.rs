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
//! later can still add to: the estimate can only see the branching found so far, so it
//! tends to underestimate early (measured on the bench: BENCHMARKS.md).

/// The estimated executions of the whole exploration, after `executions` have ended, from the
/// current path's nodes as `(done, planned)`: subtrees explored before the current one and
/// still to explore.
pub(crate) fn total(executions: u64, path: impl Iterator<Item = (u32, u32)>) -> f64 {
    let mut weight = 1.0f64;
    let mut explored = 0.0f64;
    for (done, planned) in path {
        let d = f64::from(done) + 1.0 + f64::from(planned);
        explored += weight * f64::from(done) / d;
        weight /= d;
    }
    explored += weight;
    executions as f64 / explored
}

#[cfg(test)]
mod tests {
    use super::total;

    #[test]
    fn a_uniform_tree_is_estimated_exactly_at_every_leaf() {
        // A binary tree of depth 3 (8 leaves), explored depth-first.
        for leaf in 0..8u32 {
            let path = (0..3).rev().map(|level| {
                let taken = (leaf >> level) & 1;
                (taken, 1 - taken)
            });
            assert_eq!(total(u64::from(leaf) + 1, path), 8.0);
        }
    }

    #[test]
    fn the_first_path_gives_knuth_s_product() {
        assert_eq!(total(1, [(0, 2), (0, 1), (0, 0)].into_iter()), 6.0);
    }
}
