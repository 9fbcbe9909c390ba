//! Exploration from declared program contexts, in process, in the four context modes: the
//! acceptance examples of Bergan, Grossman, Ceze, "Symbolic Execution of Multithreaded
//! Programs from Arbitrary Program Contexts" (OOPSLA 2014) and Bergan's dissertation ch. 2,
//! each asserting the counts the paper states for the full initial state and the naive one.

mod barriers;
mod from_start;
mod heap;
mod joins;
mod locks;
mod notify;
mod reaching;
mod recorded;
mod rwlocks;
mod table;

use cargo_symx::engine::context::{self, ContextResult};
use cargo_symx::engine::symbolic::Options;
use cargo_symx::engine::InProcess;
use symx::context::ContextMode;
use symx::Builder;

/// Explores `body`'s context in `mode`, every path.
pub fn explore(mode: ContextMode, body: fn()) -> ContextResult {
    let builder = Builder::new().context_mode(mode).keep_going(true);
    let mut exec = InProcess::new(builder, body);
    context::explore(&mut exec, &Options::default())
}

/// Every path's outcome labels, in order, without their sites.
pub fn labels(out: &ContextResult) -> Vec<Vec<String>> {
    (out.vectors.iter())
        .map(|v| v.iter().map(|(_, o)| o.clone()).collect())
        .collect()
}

/// Outcome vectors written as string slices.
pub fn vectors(rows: &[&[&str]]) -> Vec<Vec<String>> {
    (rows.iter())
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect()
}

/// Every outcome taken anywhere whose label starts with `prefix`.
pub fn outcomes(out: &ContextResult, prefix: &str) -> Vec<String> {
    let all: std::collections::BTreeSet<String> = (out.outcomes.values())
        .flatten()
        .filter(|o| o.starts_with(prefix))
        .cloned()
        .collect();
    all.into_iter().collect()
}

/// Every path's outcomes whose labels start with `prefix`, in order.
pub fn vectors_of(out: &ContextResult, prefix: &str) -> Vec<Vec<String>> {
    let all: std::collections::BTreeSet<Vec<String>> = (out.vectors.iter())
        .map(|v| {
            (v.iter())
                .filter(|(_, o)| o.starts_with(prefix))
                .map(|(_, o)| o.clone())
                .collect()
        })
        .collect();
    all.into_iter().collect()
}
