//! Plain depth-first enumeration of every schedule, without reduction: the oracle that
//! reduced strategies are checked against.
//!
//! Stateless in the textbook sense: each execution replays the choices on the stack and takes
//! the next untried alternative at the deepest point that has one. Memory is proportional to
//! the depth of one execution, not to the number of executions.

use crate::rt::chooser::{Chooser, SchedulingPoint};
use crate::rt::op::ThreadId;

/// One choice point on the current path: its alternatives and the one being explored.
#[derive(Debug)]
struct Node {
    options: Vec<u32>,
    index: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Dfs {
    stack: Vec<Node>,
    depth: usize,
    started: bool,
}

impl Dfs {
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
}

impl Chooser for Dfs {
    fn next_execution(&mut self) -> bool {
        self.depth = 0;
        if !self.started {
            self.started = true;
            return true;
        }
        while let Some(top) = self.stack.last_mut() {
            if top.index + 1 < top.options.len() {
                top.index += 1;
                return true;
            }
            self.stack.pop();
        }
        false
    }

    fn choose_thread(&mut self, point: &SchedulingPoint<'_>) -> ThreadId {
        self.choose(point.candidates.iter().map(|c| c.thread as u32)) as ThreadId
    }

    fn choose_value(&mut self, n: usize) -> usize {
        self.choose(0..n as u32) as usize
    }
}
