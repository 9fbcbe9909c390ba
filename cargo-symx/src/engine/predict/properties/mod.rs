//! The properties a query asks about (the paper's `PHI_PRP`, §4.2 and §5 of Wang et al., "Symbolic
//! Predictive Analysis for Concurrent Programs", in prefix form), one file each, behind one trait
//! (`Check`):
//! - `assertion`: a recorded assertion fails;
//! - `race`: two conflicting accesses by different threads can be adjacent;
//! - `deadlock`: a cyclic wait on locks;
//! - `atomicity`: a remote access breaks a region marked atomic;
//! - `lock_claim`: a user-annotated lock's mutual exclusion breaks.
//!
//! A property owns its candidates in a CTP, its violation formula over the encoding, the
//! confirmation of a replay, its description in words and the source locations it is reported
//! at. The engine's loop (`predict`) knows none of them by name: it asks the [`Property`]
//! registry below. Adding a property is one file here, one line in the registry and its
//! switch in `Options`.
//!
//! One rule holds for every property: its formula is a violation *in a prefix where no
//! assertion failed first* (the real run would stop at that one), which `Check::formula` adds
//! once for all (an assertion's own query orders the other failures after it instead).

use std::cell::OnceCell;
use std::fmt;

use symx::trace::format::Location;
use z3::ast::Bool;

use super::encode::Encoding;
use super::must_hb::MustHb;
use super::Options;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::dag;
use crate::solver::replayed::Replayed;

pub mod assertion;
pub mod atomicity;
pub mod deadlock;
pub mod lock_claim;
pub mod race;

pub use assertion::Assertion;
pub use atomicity::Atomicity;
pub use deadlock::Deadlock;
pub use lock_claim::LockClaim;
pub use race::DataRace;

/// What the engine asks of one kind of property. An implementation sees the CTP and the
/// encoding's terms; it never runs the program and never touches the solver itself (the
/// engine pushes its formula, checks and pops).
pub(crate) trait Check {
    /// Every candidate of the property in the trace, in a fixed order (the order of the
    /// queries, which decides the models z3 returns).
    fn candidates(scan: &Scan) -> Vec<Self>
    where
        Self: Sized;

    /// The violation over the encoding's variables.
    fn violation(&self, enc: &Encoding) -> Bool;

    /// `PHI_PRP`: the violation, in a prefix where no assertion failed (the real run would
    /// have stopped there).
    fn formula(&self, enc: &Encoding) -> Bool {
        let mut conj = vec![self.violation(enc)];
        conj.extend(no_assertion_fails(enc));
        Bool::and(&conj)
    }

    /// `Ok` if the replay of a witness shows this violation, else why not.
    fn confirm(&self, ctp: &Ctp, run: &Replayed) -> Result<(), String>;

    /// The property in words, with source locations.
    fn describe(&self, ctp: &Ctp, f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// The source locations it is about: one confirmed report per site.
    fn site(&self, ctp: &Ctp) -> Vec<Option<Location>>;

    /// The annotated lock whose claimed exclusion the query questions (every other query
    /// assumes it).
    fn questioned_lock(&self) -> Option<u32> {
        None
    }

    /// The event after which a witness prefix can stop (later events do not matter).
    fn last_event(&self, _ctp: &Ctp) -> Option<Ev> {
        None
    }

    /// Events poised at the end of the prefix that the witness's schedule runs after it, in
    /// order.
    fn poised(&self, _ctp: &Ctp) -> Vec<Ev> {
        Vec::new()
    }
}

/// What candidate scans share: the CTP, and must-happen-before, built once and only when a
/// property's filter needs it (a vector clock per event).
pub(crate) struct Scan<'a, 't> {
    pub ctp: &'a Ctp<'t>,
    mhb: OnceCell<MustHb>,
}

impl<'a, 't> Scan<'a, 't> {
    fn new(ctp: &'a Ctp<'t>) -> Self {
        Scan {
            ctp,
            mhb: OnceCell::new(),
        }
    }

    pub fn must_hb(&self) -> &MustHb {
        self.mhb.get_or_init(|| MustHb::new(self.ctp))
    }
}

/// The registry: the [`Property`] enum with one variant per property, the dispatch to its
/// [`Check`], and the candidates of every property the options enable, in the order listed.
macro_rules! registry {
    ($($(#[$doc:meta])* $name:ident if $enabled:ident,)*) => {
        /// One property query: a candidate of one of the properties.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Property {
            $($(#[$doc])* $name($name),)*
        }

        impl Property {
            pub(crate) fn check(&self) -> &dyn Check {
                match self {
                    $(Property::$name(p) => p,)*
                }
            }
        }

        /// The candidates of every enabled property.
        pub(crate) fn candidates(ctp: &Ctp, opts: &Options) -> Vec<Property> {
            let scan = Scan::new(ctp);
            let mut out = Vec::new();
            $(if opts.$enabled {
                out.extend($name::candidates(&scan).into_iter().map(Property::$name));
            })*
            out
        }
    };
}

// The order is the order of the queries: do not change it lightly (witnesses would).
registry! {
    /// A recorded assertion fails.
    Assertion if assertions,
    /// Two conflicting accesses can be adjacent.
    DataRace if races,
    /// A cyclic wait on locks.
    Deadlock if deadlocks,
    /// A remote access breaks a region marked atomic.
    Atomicity if atomicity,
    /// A user-annotated lock's mutual exclusion breaks.
    LockClaim if lock_claims,
}

/// A readable name of the property, for reports and test failures.
pub struct Describe<'a, 'c, 't>(pub &'a Ctp<'t>, pub &'c Property);

impl fmt::Display for Describe<'_, '_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.1.check().describe(self.0, f)
    }
}

/// Where an event is, in words: its thread and source location (or index).
fn at(ctp: &Ctp, e: Ev) -> String {
    let ev = ctp.event(e);
    match &ev.location {
        Some(l) => format!("thread {} at {}:{}:{}", ev.thread, l.file, l.line, l.column),
        None => format!("thread {} event {}", ev.thread, ev.index),
    }
}

/// The source location of an event.
fn loc(ctp: &Ctp, e: Ev) -> Option<Location> {
    ctp.event(e).location.clone()
}

/// No assertion a prefix reaches is false (the run would have stopped there).
fn no_assertion_fails(enc: &Encoding) -> Vec<Bool> {
    enc.ctp
        .asserts
        .iter()
        .map(|&a| Bool::and(&[enc.reached(a), fails(enc, a)]).not())
        .collect()
}

/// The assertion at `a` is false.
fn fails(enc: &Encoding, a: Ev) -> Bool {
    let rec = enc.ctp.event(a).assert.as_ref().expect("an assert event");
    dag::holds(&enc.values[rec.cond as usize]).not()
}
