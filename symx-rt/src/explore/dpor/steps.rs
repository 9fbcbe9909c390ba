//! Bookkeeping that every stateless partial-order reduction keeps per step of the current
//! execution: threads named stably across executions with their event counts ([`Threads`]),
//! and the nondeterministic choices made inside one step ([`Values`]), explored exhaustively
//! like a DFS nested in the reduction's tree.

use super::events::Occurrences;
use crate::rt::execution::location_hash;
use crate::rt::op::{Op, ThreadId};

/// Threads as a reduction names them: dense indices of their spawn-path keys, stable across
/// executions (the runtime's ids follow spawn order, which is not); and how many events each
/// has taken in the current execution, in all and at each source location.
/// The names are part of a checkpoint (`explore::checkpoint`); the counts are per execution.
#[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Threads {
    #[serde(with = "super::events::pairs")]
    dense: rustc_hash::FxHashMap<u64, ThreadId>,
    #[serde(skip)]
    counts: Vec<u32>,
    /// How many events each has taken at each source location in this execution.
    #[serde(skip)]
    occurrences: Occurrences,
}

impl Threads {
    /// The name of the thread with spawn-path key `key`.
    pub fn of(&mut self, key: u64) -> ThreadId {
        let n = self.dense.len();
        *self.dense.entry(key).or_insert(n)
    }

    /// The spawn-path key of each thread name (names are dense from 0).
    pub fn keys(&self) -> Vec<u64> {
        let mut keys = vec![0; self.dense.len()];
        for (&key, &t) in &self.dense {
            keys[t] = key;
        }
        keys
    }

    /// The index thread `t`'s next event will have.
    pub fn next_index(&mut self, t: ThreadId) -> u32 {
        if self.counts.len() <= t {
            self.counts.resize(t + 1, 0);
        }
        self.counts[t]
    }

    /// How many events each thread has taken at each location: with [`Threads::next_index`],
    /// what names a thread's next event (`events::Names::pending`).
    pub fn occurrences(&self) -> &Occurrences {
        &self.occurrences
    }

    /// Thread `t` took a step, its operation `op`'s.
    pub fn stepped(&mut self, t: ThreadId, op: &Op) {
        let index = self.next_index(t);
        self.counts[t] = index + 1;
        self.occurrences.count(t, location_hash(op.location));
    }

    pub fn new_execution(&mut self) {
        self.counts.clear();
        self.occurrences.clear();
    }
}

/// The nondeterministic choices made during one step: (taken, alternatives) in call order.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Values(Vec<(u32, u32)>);

impl Values {
    /// The alternative to take at the `call`-th choice among `n` of this step: the one on the
    /// current path, or the first for a choice not made before.
    pub fn choose(&mut self, call: usize, n: usize) -> usize {
        match self.0.get(call) {
            Some(&(taken, _)) => taken as usize,
            None => {
                self.0.push((0, n as u32));
                0
            }
        }
    }

    /// Moves to the next combination of choices (the last one with an alternative left
    /// advances, the ones after it are forgotten); `false` when every one is explored.
    pub fn advance(&mut self) -> bool {
        match self.0.iter().rposition(|&(taken, n)| taken + 1 < n) {
            Some(pos) => {
                self.0[pos].0 += 1;
                self.0.truncate(pos + 1);
                true
            }
            None => false,
        }
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether some combination of choices is still to be explored.
    pub fn has_alternative(&self) -> bool {
        self.0.iter().any(|&(taken, n)| taken + 1 < n)
    }
}
