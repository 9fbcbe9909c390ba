//! The predicate summaries `PS[key]` (the paper's §4) and the accesses below each key
//! (`RVar`/`WVar`, §5.2).
//!
//! A summary is a disjunction: each disjunct is the weakest precondition of one completed
//! visit of a state with that key, under which every explored continuation from it passes
//! every assertion. Each disjunct keeps the sleep set its visit had: threads asleep there were
//! not explored below it, so it only covers a later visit whose sleep set contains them too.
//! Past `bound` disjuncts a key takes no more (dropping a disjunct under-approximates, which
//! the paper's §6.2 shows sound).

use std::collections::{BTreeSet, HashMap, HashSet};

use z3::ast::{Ast, Bool};

use super::races::Class;

/// An access somewhere below a state: the object and thread by their canonical names there,
/// the threads its thread had joined when it made it (their steps happen before it) and the
/// locks it held (named there; what happened before their last release happens before it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rw {
    pub object: String,
    pub thread: String,
    pub class: Class,
    pub joined: BTreeSet<String>,
    pub held: BTreeSet<String>,
}

#[derive(Default)]
struct Summary {
    disjuncts: Vec<(Bool, BTreeSet<String>)>,
    /// The disjuncts already stored: z3 shares equal terms, so equal formulas are equal
    /// handles (no printing needed to compare them).
    seen: HashSet<(Bool, BTreeSet<String>)>,
    rw: BTreeSet<Rw>,
}

/// Every key's summary.
pub struct Table {
    map: HashMap<u64, Summary>,
    bound: usize,
    /// Disjuncts stored over all keys.
    pub disjuncts: u64,
}

impl Table {
    pub fn new(bound: usize) -> Table {
        Table {
            map: HashMap::new(),
            bound,
            disjuncts: 0,
        }
    }

    /// Keys with a summary.
    pub fn keys(&self) -> usize {
        self.map.len()
    }

    /// Adds the precondition `wp` of a completed visit with sleep set `sleep`, and the
    /// accesses below it.
    pub fn add(&mut self, key: u64, wp: &Bool, sleep: BTreeSet<String>, rw: &BTreeSet<Rw>) {
        let s = self.map.entry(key).or_default();
        s.rw.extend(rw.iter().cloned());
        let wp = wp.simplify();
        if wp.as_bool() == Some(false) || s.disjuncts.len() >= self.bound {
            return;
        }
        if s.seen.insert((wp.clone(), sleep.clone())) {
            s.disjuncts.push((wp, sleep));
            self.disjuncts += 1;
        }
    }

    /// Whether `key` has disjuncts made where a thread slept that does not sleep in a visit
    /// with sleep set `sleep` (which [`Table::covering`] leaves out).
    pub fn guarded(&self, key: u64, sleep: &BTreeSet<String>) -> bool {
        (self.map.get(&key))
            .is_some_and(|s| (s.disjuncts.iter()).any(|(_, stored)| !stored.is_subset(sleep)))
    }

    /// The disjunction of the disjuncts of `key` that cover a visit with sleep set `sleep`,
    /// and every access below the key; `None` when none does.
    pub fn covering(&self, key: u64, sleep: &BTreeSet<String>) -> Option<(Bool, &BTreeSet<Rw>)> {
        let s = self.map.get(&key)?;
        let usable: Vec<&Bool> = s
            .disjuncts
            .iter()
            .filter(|(_, stored)| stored.is_subset(sleep))
            .map(|(f, _)| f)
            .collect();
        if usable.is_empty() {
            return None;
        }
        Some((Bool::or(&usable), &s.rw))
    }
}
