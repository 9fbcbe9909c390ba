//! Plain depth-first enumeration of every schedule, without reduction: the oracle that
//! reduced strategies are checked against.
//!
//! Stateless in the textbook sense: each execution replays the choices on the stack and takes
//! the next untried alternative at the deepest point that has one. Memory is proportional to
//! the depth of one execution, not to the number of executions.
//!
//! A DFS can also explore one shard of the tree ([`ExploreShard`]): the subtree below the first
//! [`KEY_DEPTH`] choices belongs to shard `key % count`, where `key` numbers those choices in
//! mixed radix. Every shard walks the tree in the same order and skips subtrees it does not own
//! as soon as their key is known; an execution that reveals a foreign key is run once more than
//! needed, nothing is left out.

use crate::builder::ExploreShard;
use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

/// Choices that make up a subtree's key.
pub(crate) const KEY_DEPTH: usize = 4;

/// One choice point on the current path: its alternatives and the one being explored.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Node {
    options: Vec<u32>,
    index: usize,
}

/// The stack is the exploration's state, which a checkpoint saves (`explore::checkpoint`).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Dfs {
    stack: Vec<Node>,
    #[serde(skip)]
    depth: usize,
    started: bool,
    /// Executions ended so far.
    executions: u64,
    /// The subtrees this exploration owns; every one when `None` (the builder's, not saved).
    #[serde(skip)]
    shard: Option<ExploreShard>,
}

impl Dfs {
    /// A DFS of the subtrees `shard` owns, or of the whole tree.
    pub fn new(shard: Option<ExploreShard>) -> Self {
        Dfs {
            shard,
            ..Dfs::default()
        }
    }

    fn choose(&mut self, options: impl Iterator<Item = u32>) -> u32 {
        let depth = self.depth;
        self.depth += 1;
        if let Some(node) = self.stack.get(depth) {
            return node.options[node.index];
        }
        let options: Vec<u32> = options.collect();
        let first = options[0];
        self.stack.push(Node { options, index: 0 });
        first
    }

    /// Whether this exploration owns the subtree the path is in. Only a path that reaches the
    /// key depth has a subtree; a shorter one is a whole execution, which any shard may run.
    fn owns(&self) -> bool {
        let Some(shard) = self.shard else {
            return true;
        };
        if self.stack.len() < KEY_DEPTH {
            return true;
        }
        let key = self.stack[..KEY_DEPTH].iter().fold(0u64, |k, n| {
            k.wrapping_mul(n.options.len() as u64)
                .wrapping_add(n.index as u64)
        });
        key % u64::from(shard.count.max(1)) == u64::from(shard.index)
    }

    /// Moves to the next path in depth-first order; `false` when the tree is done.
    fn advance(&mut self) -> bool {
        while let Some(top) = self.stack.last_mut() {
            if top.index + 1 < top.options.len() {
                top.index += 1;
                return true;
            }
            self.stack.pop();
        }
        false
    }
}

impl Chooser for Dfs {
    fn next_execution(&mut self) -> bool {
        self.depth = 0;
        if !std::mem::replace(&mut self.started, true) {
            return true;
        }
        loop {
            // A foreign subtree is skipped whole: the next path differs within the key.
            if !self.owns() {
                self.stack.truncate(KEY_DEPTH);
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

    fn end_execution(&mut self, _events: &[crate::rt::op::Event]) {
        self.executions += 1;
    }

    fn estimate(&self) -> Option<f64> {
        let branches = self.stack.iter().map(|n| {
            let rest = n.options.len() - n.index - 1;
            (n.index as f64, rest as f64)
        });
        Some(crate::explore::estimate::total(self.executions, branches))
    }

    fn save(&self) -> Option<crate::json::Json> {
        crate::explore::checkpoint::state_of(self)
    }

    fn restore(&mut self, state: crate::json::Json) -> Result<(), String> {
        let shard = self.shard;
        *self = crate::explore::checkpoint::from_state(state)?;
        self.shard = shard;
        Ok(())
    }
}
