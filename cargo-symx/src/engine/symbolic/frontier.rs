//! The frontier of the concolic search: which sides of which conditions an explored
//! execution already took (covered), which the solver was already asked for, and which input
//! assignments were already explored.
//!
//! A side is named by the set of conditions before it on its path and the condition itself,
//! each by its z3 term (inputs are named, reads resolved to what they read, so the same
//! condition of two executions is the same term). The prefix is a set, not a sequence: a path
//! condition is a conjunction, and two interleavings of the same conditions of independent
//! threads ask the same question.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashSet};
use std::hash::{Hash, Hasher};

use z3::ast::{Ast, Bool};

/// A condition's identity: the hash of its simplified term.
pub fn term_key(b: &Bool) -> u64 {
    let mut h = DefaultHasher::new();
    b.simplify().to_string().hash(&mut h);
    h.finish()
}

/// One side of one condition after one prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Side(u64);

impl Side {
    pub fn new(prefix: &BTreeSet<u64>, condition: u64) -> Side {
        let mut h = DefaultHasher::new();
        prefix.hash(&mut h);
        condition.hash(&mut h);
        Side(h.finish())
    }
}

/// What the search has seen and asked.
#[derive(Default)]
pub struct Frontier {
    covered: HashSet<Side>,
    asked: HashSet<Side>,
    /// Branch sides (a location and the condition as taken there) explored executions took,
    /// and those known to be feasible: what the report counts.
    branch_covered: HashSet<(String, u64)>,
    branch_feasible: HashSet<(String, u64)>,
    explored_inputs: HashSet<Vec<(String, i128)>>,
}

impl Frontier {
    /// An explored execution took `side`; of a branch at `site` (location, condition key),
    /// when `branch` is given.
    pub fn cover(&mut self, side: Side, branch: Option<(String, u64)>) {
        self.covered.insert(side);
        if let Some(site) = branch {
            self.branch_covered.insert(site.clone());
            self.branch_feasible.insert(site);
        }
    }

    /// Whether the solver should be asked for `side`: not taken by any explored execution
    /// and not asked before. Marks it asked.
    pub fn ask(&mut self, side: Side) -> bool {
        !self.covered.contains(&side) && self.asked.insert(side)
    }

    /// The solver found the branch side at `site` feasible.
    pub fn feasible(&mut self, site: (String, u64)) {
        self.branch_feasible.insert(site);
    }

    /// Branch sides taken by explored executions, and known to be feasible.
    pub fn sides(&self) -> (usize, usize) {
        (self.branch_covered.len(), self.branch_feasible.len())
    }

    /// Records an input assignment as explored; `false` if it already was.
    pub fn explore_inputs(&mut self, inputs: &symx::InputValues) -> bool {
        let key: Vec<(String, i128)> = inputs.iter().map(|(k, &v)| (k.clone(), v)).collect();
        self.explored_inputs.insert(key)
    }
}
