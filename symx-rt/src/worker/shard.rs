//! Sharding one test's exploration across worker processes. Shard `i` of `n`:
//!
//! * **depth-first exploration** (strategy `dfs`, and `dpor` under a preemption bound or with
//!   spurious wake-ups, which the explorer runs as a DFS) is split by schedule prefix: the
//!   subtree below the first [`KEY_DEPTH`] choices belongs to shard `key % n`, where `key`
//!   numbers those choices in mixed radix. Every shard walks the tree in the same order and
//!   skips subtrees it does not own as soon as their key is known; an execution that reveals a
//!   foreign key is run once more than needed, nothing is left out;
//! * **random and PCT** take independent seeds (`seed` mixed with `i`) and `1/n` of the
//!   iterations each;
//! * **optimal DPOR** cannot be split this way (its backtrack points in one subtree can lie in
//!   another's prefix), so shard 0 explores everything and the others answer `unsupported`.

use std::cell::Cell;

use super::protocol::Shard;
use crate::builder::{Builder, Strategy as Choice};
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

/// Choices that make up a subtree's key.
pub const KEY_DEPTH: usize = 4;

thread_local! {
    static DFS_SHARD: Cell<Option<Shard>> = const { Cell::new(None) };
}

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
        Choice::Dfs => set(Some(shard)),
        Choice::Dpor if b.preemption_bound.is_some() || b.spurious_wakeups => set(Some(shard)),
        Choice::Dpor => return None,
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

/// Ends a sharded exploration (the flag is per thread and must not outlive it).
pub(crate) fn finish() {
    set(None);
}

fn set(shard: Option<Shard>) {
    DFS_SHARD.with(|s| s.set(shard));
}

fn mix(seed: u64, shard: Shard) -> u64 {
    let mut rng = crate::rng::Rng::new(seed ^ (shard.index as u64).wrapping_mul(0x9e37_79b9));
    rng.next_u64()
}

/// The explorer's strategy, or the sharded DFS in its place when this thread explores a shard.
pub(crate) fn substitute(strategy: Box<dyn Chooser>) -> Box<dyn Chooser> {
    match DFS_SHARD.with(Cell::get) {
        Some(shard) => Box::new(ShardedDfs::new(shard)),
        None => strategy,
    }
}

/// A choice point on the current path: its alternatives and the one taken.
struct Point {
    options: Vec<u32>,
    taken: usize,
}

/// Depth-first enumeration that owns only the subtrees whose key maps to its shard.
struct ShardedDfs {
    shard: Shard,
    path: Vec<Point>,
    depth: usize,
    started: bool,
}

impl ShardedDfs {
    fn new(shard: Shard) -> Self {
        ShardedDfs {
            shard,
            path: Vec::new(),
            depth: 0,
            started: false,
        }
    }

    fn choose(&mut self, options: impl Iterator<Item = u32>) -> u32 {
        let depth = self.depth;
        self.depth += 1;
        if let Some(p) = self.path.get(depth) {
            return p.options[p.taken];
        }
        let options: Vec<u32> = options.collect();
        let first = options[0];
        self.path.push(Point { options, taken: 0 });
        first
    }

    /// Whether this shard owns the subtree the path is in. Only a path that reaches the key
    /// depth has a subtree; a shorter one is a whole execution, which any shard may run.
    fn owns(&self) -> bool {
        if self.path.len() < KEY_DEPTH {
            return true;
        }
        let key = self.path[..KEY_DEPTH].iter().fold(0u64, |k, p| {
            k.wrapping_mul(p.options.len() as u64)
                .wrapping_add(p.taken as u64)
        });
        key % u64::from(self.shard.count.max(1)) == u64::from(self.shard.index)
    }

    /// Moves to the next path in depth-first order; `false` when the tree is done.
    fn advance(&mut self) -> bool {
        while let Some(top) = self.path.last_mut() {
            if top.taken + 1 < top.options.len() {
                top.taken += 1;
                return true;
            }
            self.path.pop();
        }
        false
    }
}

impl Chooser for ShardedDfs {
    fn next_execution(&mut self) -> bool {
        self.depth = 0;
        if !std::mem::replace(&mut self.started, true) {
            return true;
        }
        loop {
            // A foreign subtree is skipped whole: the next path differs within the key.
            if !self.owns() {
                self.path.truncate(KEY_DEPTH);
            }
            if !self.advance() {
                return false;
            }
            // A path shorter than the key must run to reveal its key; a longer one is owned
            // or skipped now.
            if self.owns() {
                return true;
            }
        }
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        self.choose(point.candidates.iter().map(|c| c.thread as u32)) as ThreadId
    }

    fn choose_value(&mut self, n: usize) -> usize {
        self.choose(0..n as u32) as usize
    }
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
                finish();
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
    fn optimal_dpor_is_not_sharded_and_sampling_splits_its_iterations() {
        let shard = Shard { index: 1, count: 2 };
        assert!(prepare(Builder::new(), shard).is_none());
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
