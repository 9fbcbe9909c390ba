//! Facts of a context: assumptions over its unknown values, each of one family (which the
//! [`ContextMode`](super::ContextMode) keeps or drops) and one provenance (which the report
//! gives for every fact a failure depends on).

use std::panic::Location;

use crate::sym::notes::Local;
use crate::sym::record;
use crate::sym::{Condition, Sym};
use crate::trace::format::FactRecord;

use super::mode::FactFamily;

/// Where a fact comes from: how far it can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provenance {
    /// Stated by the test: the test's responsibility.
    Declared,
    /// Derived by an analysis of the program: sound within the analysis' scope.
    Analysed,
    /// Observed in the recorded run that reached the context: exact for that run.
    Recorded,
    /// A recorded fact kept for values other than the recorded ones: a likely invariant.
    Generalised,
}

impl Provenance {
    /// The name reports use.
    pub fn name(self) -> &'static str {
        match self {
            Provenance::Declared => "declared",
            Provenance::Analysed => "analysed",
            Provenance::Recorded => "recorded",
            Provenance::Generalised => "generalised",
        }
    }
}

/// Assumes `cond`, a fact of `family` from `provenance` described by `text`, unless the
/// context mode drops the family. An execution where it does not hold is discarded, as with
/// `symx::assume`.
#[track_caller]
pub fn fact(family: FactFamily, provenance: Provenance, text: &str, cond: impl Condition) {
    super::note_used();
    if !super::mode().keeps(family) {
        return;
    }
    let c = cond.into_sym();
    let symbolic = c.expr.is_some();
    let note = FactRecord {
        family: family.name().to_string(),
        provenance: provenance.name().to_string(),
        text: text.to_string(),
    };
    let holds = record::condition(c, Location::caller(), |guard, _| Local::Assume {
        guard,
        fact: Some(note),
    });
    if !holds {
        crate::rt::switch::discard("a context fact", symbolic);
    }
}

/// A declared value fact (`i == k`, `r2 == 5`): dropped by the `no-rd` and `naive` modes.
#[track_caller]
pub fn value_fact(text: &str, cond: impl Condition) {
    fact(FactFamily::Value, Provenance::Declared, text, cond)
}

/// A declared synchronization invariant (`i1 == i2` for threads in lockstep at a barrier):
/// dropped by the `no-si` and `naive` modes.
#[track_caller]
pub fn sync_fact(text: &str, cond: impl Condition) {
    fact(FactFamily::Sync, Provenance::Declared, text, cond)
}

/// The unknown identity of an object of a pool of `n` (one alias class): a symbolic input
/// named `name` below `n`. The bound is the object's type, not a fact: every mode keeps it,
/// as the paper's evaluation keeps its points-to restriction in every configuration.
#[track_caller]
pub fn identity(name: &str, n: usize) -> Sym<usize> {
    super::note_used();
    let id: Sym<usize> = crate::sym::any_named(name);
    crate::sym::assume(id.sym_lt(n));
    id
}
