//! Reading a z3 model back in the trace's terms: input values and numerals.

use std::collections::BTreeMap;

use symx::trace::format::Ty;
use z3::ast::{Ast, BV};

use super::path::input_var;

/// The input values a z3 model gives, for every input of `inputs`; an input the model leaves
/// open keeps the value it had (`inputs`' third field).
pub fn model_inputs(
    model: &z3::Model,
    inputs: &BTreeMap<String, (Ty, i128)>,
) -> BTreeMap<String, i128> {
    inputs
        .iter()
        .map(|(name, &(ty, value))| {
            let term = input_var(name, ty);
            let got = model
                .eval(&term, false)
                .and_then(|v| value_of(&v.simplify(), ty))
                .unwrap_or(value);
            (name.clone(), got)
        })
        .collect()
}

/// A numeral's value as the trace writes numbers (`None` if the term is not a numeral).
pub fn value_of(bv: &BV, ty: Ty) -> Option<i128> {
    let w = ty.bits();
    let bits: u128 = if w <= 64 {
        bv.as_u64()? as u128
    } else {
        let hi = bv.extract(w - 1, 64).simplify().as_u64()? as u128;
        let lo = bv.extract(63, 0).simplify().as_u64()? as u128;
        (hi << 64) | lo
    };
    Some(ty.to_i128(bits))
}
