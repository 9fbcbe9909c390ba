//! The (input constraint, schedule) pairs as the paths come in: paths with equal schedules
//! share a pair whose constraint is the disjunction of their path conditions, and at the end
//! failing schedules that are prefixes of others join those (Bergan §3.4.1.1).

use symx::__worker::protocol::FailureReport;
use symx::covering::{End, HbSchedule};
use symx::InputValues;
use z3::ast::{Ast, Bool};

use crate::solver::smt::{Answer, Smt};

/// One (I, S) of Σ.
#[derive(Clone, Debug)]
pub struct Pair {
    pub schedule: HbSchedule,
    /// I: the inputs whose run follows `schedule` (a disjunction of path conditions).
    pub constraint: Bool,
    /// I in SMT-LIB, simplified; `true` when every input satisfies it.
    pub constraint_text: String,
    /// Paths merged into the pair, prefix paths included.
    pub paths: u64,
    /// Failing paths merged in as prefixes of `schedule`.
    pub prefixes: u64,
    /// An input satisfying I whose run followed `schedule` (the first path's).
    pub model: InputValues,
    /// How that run failed, if it did (a deadlock, a panic).
    pub failure: Option<FailureReport>,
    /// Every condition that run took in the epoch, assumptions and checks included: what
    /// the inputs of the epochs it leads to are held to.
    pub reach: Bool,
    /// The epoch it is a schedule of (an index into `Enumeration::epochs`).
    pub epoch: usize,
    /// The schedules of the epochs before, on the way the epoch was first reached: a
    /// constrained run of `model` follows them, then `schedule`.
    pub before: Vec<HbSchedule>,
    /// The epoch it ends in, when it ends at a boundary.
    pub next_epoch: Option<usize>,
}

impl Pair {
    /// The schedules a constrained run of the pair follows, epoch by epoch.
    pub fn chain(&self) -> Vec<HbSchedule> {
        let mut all = self.before.clone();
        all.push(self.schedule.clone());
        all
    }

    pub fn deadlocks(&self) -> bool {
        self.schedule.end == End::Deadlock
    }
}

/// A schedule and the paths that followed it.
struct Group {
    schedule: HbSchedule,
    /// Each path's condition, as a conjunction.
    paths: Vec<Bool>,
    prefixes: u64,
    model: InputValues,
    failure: Option<FailureReport>,
    reach: Bool,
}

#[derive(Default)]
pub(super) struct Found {
    groups: Vec<Group>,
}

impl Found {
    /// A path ran `schedule` with inputs `model` under the conditions `precondition`.
    pub fn add(
        &mut self,
        schedule: HbSchedule,
        precondition: Vec<Bool>,
        model: InputValues,
        failure: Option<FailureReport>,
        reach: Bool,
    ) {
        let condition = Bool::and(&precondition);
        match self.groups.iter_mut().find(|g| g.schedule == schedule) {
            Some(g) => g.paths.push(condition),
            None => self.groups.push(Group {
                schedule,
                paths: vec![condition],
                prefixes: 0,
                model,
                failure,
                reach,
            }),
        }
    }

    /// The pairs, with failing prefix schedules merged into a longer one when `prefix`;
    /// and how many paths were merged so.
    pub fn finish(mut self, prefix: bool, smt: &mut Smt) -> (Vec<Pair>, u64) {
        let mut merged = 0;
        if prefix {
            let mut i = 0;
            while i < self.groups.len() {
                let longer = (0..self.groups.len()).find(|&j| {
                    j != i
                        && self.groups[i]
                            .schedule
                            .is_prefix_of(&self.groups[j].schedule)
                });
                match longer {
                    Some(j) => {
                        let g = self.groups.remove(i);
                        let j = if j > i { j - 1 } else { j };
                        merged += g.paths.len() as u64;
                        self.groups[j].prefixes += g.paths.len() as u64 + g.prefixes;
                        self.groups[j].paths.extend(g.paths);
                    }
                    None => i += 1,
                }
            }
        }
        let pairs = self.groups.into_iter().map(|g| pair(g, smt)).collect();
        (pairs, merged)
    }
}

fn pair(g: Group, smt: &mut Smt) -> Pair {
    let constraint = Bool::or(&g.paths).simplify();
    let valid = matches!(smt.check(&[constraint.not()]), Answer::Unsat);
    let constraint_text = if valid {
        "true".into()
    } else {
        readable(&constraint)
    };
    Pair {
        schedule: g.schedule,
        constraint,
        constraint_text,
        paths: g.paths.len() as u64,
        prefixes: g.prefixes,
        model: g.model,
        failure: g.failure,
        reach: g.reach,
        epoch: 0,
        before: Vec::new(),
        next_epoch: None,
    }
}

/// SMT-LIB with inputs under their own names (`x`, not `|input:x|`).
pub fn readable(b: &Bool) -> String {
    let text = b.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("|input:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "|input:".len()..];
        let end = after.find('|').unwrap_or(after.len());
        out.push_str(&after[..end]);
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}
