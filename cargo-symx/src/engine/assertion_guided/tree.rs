//! The nodes of the search tree on the current path: scheduling points (the paper's i-PPs),
//! input-dependent conditions (b-PPs) and the state after an execution's last step, with
//! what has been explored from each and the weakest precondition of the explored part so far.

use std::collections::BTreeSet;
use std::rc::Rc;

use symx::trace::Trace;
use symx::InputValues;
use z3::ast::Bool;

use super::names::Names;
use super::races::Access;
use super::summary::Rw;

/// A thread asleep at a scheduling point: exploring it from there is known to be redundant.
#[derive(Clone, Debug)]
pub struct Sleeper {
    pub thread: usize,
    pub canonical: String,
    /// What its next step does.
    pub access: Vec<Access>,
    /// The objects whose ids were stable where it was put to sleep.
    pub known: BTreeSet<u32>,
}

/// How a side of a condition stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Explored,
    Pending,
    Infeasible,
    /// The solver gave up: not explored, the search is not complete.
    Unknown,
}

pub enum Kind {
    /// A scheduling point.
    Schedule {
        enabled: Vec<usize>,
        chosen: usize,
        /// Threads to explore from here (DPOR's backtrack set), in the order added.
        backtrack: Vec<usize>,
        done: Vec<usize>,
        sleep: Vec<Sleeper>,
    },
    /// After the execution's last step: no choice left, only thread-local code.
    Last,
    /// A condition that depends on an input: one side per way it can go.
    Condition {
        /// Each side as a term over the inputs, and how it stands.
        sides: Vec<(Bool, Status)>,
        /// The path condition before it.
        before: Vec<Bool>,
    },
}

/// One node of the current path.
pub struct Node {
    /// The run that created it (every later run through it replays the same prefix); set
    /// when that run ends.
    pub trace: Option<Rc<Trace>>,
    pub names: Option<Rc<Names>>,
    pub inputs: InputValues,
    /// The event it stands before.
    pub pos: usize,
    pub key: u64,
    /// Canonical names of the threads asleep when it was first reached.
    pub sleep0: BTreeSet<String>,
    pub kind: Kind,
    /// The weakest precondition of what was explored from here (children conjoined at a
    /// scheduling point, disjoined at a condition); `None` before the first child completes.
    pub wp: Option<Bool>,
    /// Accesses below it, by canonical names here.
    pub rw: BTreeSet<Rw>,
    /// Decided without exploring below (a summary covered it, or every thread was asleep).
    pub closed: bool,
}

impl Node {
    /// Adds a completed child's precondition, carried back to this node.
    pub fn add_child(&mut self, wp: Bool) {
        self.wp = Some(match (self.wp.take(), &self.kind) {
            (None, _) => wp,
            (Some(acc), Kind::Condition { .. }) => Bool::or(&[&acc, &wp]),
            (Some(acc), _) => Bool::and(&[&acc, &wp]),
        });
    }

    pub fn is_checkpoint(&self) -> bool {
        !matches!(self.kind, Kind::Condition { .. })
    }
}
