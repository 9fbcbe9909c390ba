//! From a satisfying model to a schedule: the executed events sorted by `(O(e), thread, index)`
//! form a valid SC prefix (every order that matters is a strict cross-thread HB, so ties are
//! between independent events: `docs/papers.md`, "Prefix mode"); its visible events give the thread
//! of each step of a `symx::Guide`, and the model gives the input values.

use symx::{Guide, InputValues};
use z3::ast::BV;
use z3::Model as Z3Model;

use super::blocking;
use super::encode::Encoding;
use super::properties::Property;
use crate::solver::ctp::Ev;
use crate::solver::dag;
use crate::solver::model::value_of;

/// A decoded witness.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The events of the predicted prefix, in order (for an assertion, up to the step after
    /// which it fails).
    pub prefix: Vec<Ev>,
    /// The schedule that replays it.
    pub guide: Guide,
    /// Context switches between the guide's steps: the witness's true count, which the
    /// paper's bound does not measure (Gap C).
    pub context_switches: u32,
}

pub fn decode(enc: &Encoding, model: &Z3Model, property: &Property) -> Witness {
    let n = enc.order.len();
    let mut prefix: Vec<(i64, usize, u32, Ev)> = (0..n)
        .filter(|&e| model.eval(&enc.exec[e], true).and_then(|b| b.as_bool()) == Some(true))
        .map(|e| {
            let o = model.eval(&enc.order[e], true).and_then(|o| o.as_i64());
            let ev = enc.ctp.event(e);
            (o.unwrap_or(0), ev.thread, ev.index, e)
        })
        .collect();
    prefix.sort_unstable();
    let mut prefix: Vec<Ev> = prefix.into_iter().map(|(.., e)| e).collect();
    if let Some(last) = property.check().last_event(enc.ctp) {
        if let Some(pos) = prefix.iter().position(|&e| e == last) {
            prefix.truncate(pos + 1);
        }
    }
    let mut steps: Vec<usize> = prefix
        .iter()
        .filter(|&&e| enc.ctp.event(e).step.is_some())
        .map(|&e| enc.ctp.thread(e))
        .collect();
    // Events poised at the prefix's edge run after it (a race's accesses, an atomicity
    // violation's point).
    for e in property.check().poised(enc.ctp) {
        steps.push(enc.ctp.thread(e));
    }
    let context_switches = steps.windows(2).filter(|w| w[0] != w[1]).count() as u32;
    let choices = blocking::choices(enc.ctp, &prefix);
    Witness {
        prefix,
        guide: Guide {
            steps,
            choices,
            inputs: inputs(enc, model),
        },
        context_switches,
    }
}

/// The model's input values; an input the model leaves open keeps its observed value.
fn inputs(enc: &Encoding, model: &Z3Model) -> InputValues {
    let trace = enc.ctp.trace;
    trace
        .inputs
        .iter()
        .enumerate()
        .map(|(i, info)| {
            let term = BV::new_const(dag::input_name(i as u32), info.ty.bits());
            let value = model
                .eval(&term, false)
                .and_then(|v| value_of(&v, info.ty))
                .unwrap_or(info.value);
            (info.name.clone(), value)
        })
        .collect()
}
