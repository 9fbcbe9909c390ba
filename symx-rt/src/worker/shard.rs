//! Sharding one test's exploration across worker processes. Shard `i` of `n`:
//!
//! * **depth-first exploration** (strategy `dfs`) is split by schedule prefix: the explorer's
//!   DFS runs only the subtrees shard `i` owns (see `explore::dfs`);
//! * **random and PCT** take independent seeds (`seed` mixed with `i`) and `1/n` of the
//!   iterations each;
//! * **optimal DPOR** is split by work stealing when the shards share an exchange directory:
//!   shard 0 starts, and a busy shard deals half of its path's unexplored wakeup-tree subtrees
//!   to an idle one (see `explore::dpor::split`: no trace is missing, a few run in two shards);
//!   without a directory shard 0 explores it whole;
//! * **bounded partial-order reduction** (under a preemption bound or with spurious wake-ups)
//!   is not split: shard 0 explores everything and the others answer `unsupported`.

use super::protocol::Shard;
use crate::builder::{Builder, ExploreShard};
use crate::strategy::Strategy as Choice;

/// How a shard of `builder`'s exploration runs; `None` when the strategy cannot be sharded.
pub(crate) fn prepare(builder: Builder, shard: Shard) -> Option<Builder> {
    let n = shard.count.max(1) as u64;
    let mut b = builder.with_defaults();
    match b.strategy {
        Choice::Random { seed } => {
            b.strategy = Choice::Random {
                seed: mix(seed, shard),
            }
        }
        Choice::Pct { seed, depth } => {
            b.strategy = Choice::Pct {
                seed: mix(seed, shard),
                depth,
            }
        }
        // Without a directory to exchange work in, shard 0 explores it whole.
        Choice::Dpor if crate::explore::by_bpor(&b) || b.exchange.is_none() => return None,
        Choice::Dpor | Choice::Dfs => {
            b.shard = Some(ExploreShard {
                index: shard.index,
                count: shard.count,
            })
        }
    }
    if matches!(b.strategy, Choice::Random { .. } | Choice::Pct { .. }) {
        // Iterations are split so that the shards together run what one worker would.
        let total = b
            .max_executions
            .unwrap_or(crate::builder::DEFAULT_ITERATIONS);
        let share = total / n + u64::from((shard.index as u64) < total % n);
        b.max_executions = Some(share);
    }
    Some(b)
}

fn mix(seed: u64, shard: Shard) -> u64 {
    let mut rng = crate::rng::Rng::new(seed ^ (shard.index as u64).wrapping_mul(0x9e37_79b9));
    rng.next_u64()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::private::{explore_observed, ObservedStep};
    use crate::sync::atomic::{AtomicUsize, Ordering};
    use crate::sync::Arc;

    fn three_threads() {
        let n = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..3)
            .map(|_| {
                let n = n.clone();
                crate::thread::spawn(move || {
                    n.fetch_add(1, Ordering::SeqCst);
                    n.fetch_add(1, Ordering::SeqCst);
                })
            })
            .collect();
        n.fetch_add(1, Ordering::SeqCst);
        for h in handles {
            h.join().unwrap();
        }
    }

    fn executions(b: &Builder) -> Vec<Vec<ObservedStep>> {
        let mut seen = Vec::new();
        let report = explore_observed(b, three_threads, |steps| seen.push(steps.to_vec()));
        assert!(report.complete());
        seen
    }

    #[test]
    fn the_shards_of_a_dfs_together_run_every_execution() {
        let dfs = Builder::new().strategy(Choice::Dfs);
        let all: HashSet<_> = executions(&dfs).into_iter().collect();
        assert!(all.len() > 100, "a tree worth splitting: {}", all.len());
        for count in [2, 3] {
            let mut union = HashSet::new();
            let mut run = 0;
            for index in 0..count {
                let b = prepare(dfs.clone(), Shard { index, count }).expect("dfs shards");
                let mine = executions(&b);
                run += mine.len();
                assert!(
                    mine.len() < all.len(),
                    "shard {index}/{count} runs only part: {} of {}",
                    mine.len(),
                    all.len()
                );
                union.extend(mine);
            }
            assert_eq!(union, all, "{count} shards cover the tree");
            assert!(
                run < all.len() + all.len() / 4,
                "little is run twice: {run}"
            );
        }
    }

    #[test]
    fn bounded_dpor_is_not_sharded_and_sampling_splits_its_iterations() {
        let shard = Shard { index: 1, count: 2 };
        assert!(prepare(Builder::new().preemption_bound(Some(2)), shard).is_none());
        assert!(
            prepare(Builder::new(), shard).is_none(),
            "no directory to exchange work"
        );
        let mut b = Builder::new();
        b.exchange = Some("/tmp/nowhere".into());
        let optimal = prepare(b, shard).expect("optimal DPOR is split");
        assert_eq!(optimal.shard, Some(ExploreShard { index: 1, count: 2 }));
        let random = Builder::new().strategy(Choice::Random { seed: 5 });
        let b = prepare(random.clone(), shard).unwrap();
        assert_eq!(
            b.max_executions,
            Some(crate::builder::DEFAULT_ITERATIONS / 2)
        );
        let other = prepare(random, Shard { index: 0, count: 2 }).unwrap();
        assert_ne!(
            b.strategy, other.strategy,
            "the shards sample with different seeds"
        );
    }
}
