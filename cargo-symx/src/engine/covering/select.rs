//! The schedule selector `F_E` (Bergan §3.6.2): the pair whose input constraint the given
//! input values satisfy. The paper compiles Σ into a decision tree the runtime evaluates;
//! here the driver asks z3 whether the values satisfy each constraint in turn (the pairs are
//! exclusive, so at most one does), and the runtime is handed the chosen schedule.

use symx::InputValues;
use z3::ast::Bool;

use super::Enumeration;
use crate::solver::dag::constant;
use crate::solver::path::input_var;
use crate::solver::smt::{Answer, Smt};

/// The index of the pair of the first epoch `inputs` select (an input not given has the
/// test's default, 0); `None` when no constraint holds: an uncovered input. (Selecting in a
/// later epoch needs the state at its boundary, which a run would have to report: not
/// built.)
pub fn select(e: &Enumeration, inputs: &InputValues) -> Option<usize> {
    let fixed: Vec<Bool> = (e.inputs.iter())
        .filter(|(name, _)| !super::deadlock::is_havocked(name))
        .map(|(name, &ty)| {
            let value = inputs.get(name).copied().unwrap_or(0);
            input_var(name, ty).eq(constant(ty, value))
        })
        .collect();
    let mut smt = Smt::new(None);
    e.pairs.iter().position(|p| {
        if p.epoch != 0 {
            return false;
        }
        let mut query = fixed.clone();
        query.push(p.constraint.clone());
        matches!(smt.check(&query), Answer::Sat(_))
    })
}
