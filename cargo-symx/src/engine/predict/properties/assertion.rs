//! Assertion violations (Wang et al., "Symbolic Predictive Analysis for Concurrent Programs",
//! §4.2): an assertion that held in the recorded run fails in another feasible prefix. The
//! candidates are every recorded assertion that held (a failing one is already a found bug);
//! the query asks that the thread reach the assertion and that it be false there, in prefix
//! form: an assertion is thread-local code that runs right after its fire point, and the
//! first failing assertion of a run ends it.

use std::fmt;

use symx::trace::format::Location;
use symx::FailureKind;
use z3::ast::Bool;

use super::{fails, loc, Check, Scan};
use crate::engine::predict::confirm;
use crate::engine::predict::encode::Encoding;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::replayed::Replayed;

/// The assertion recorded at `event` fails where the prefix reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assertion {
    pub event: Ev,
}

impl Check for Assertion {
    fn candidates(scan: &Scan) -> Vec<Self> {
        scan.ctp
            .trace
            .events
            .iter()
            .enumerate()
            .filter(|(_, ev)| ev.assert.as_ref().is_some_and(|a| a.holds))
            .map(|(event, _)| Assertion { event })
            .collect()
    }

    /// The assertion is reached and false, and no assertion of another thread failed before
    /// it.
    fn violation(&self, enc: &Encoding) -> Bool {
        let event = self.event;
        let mut conj = vec![enc.reached(event), fails(enc, event)];
        for &other in &enc.ctp.asserts {
            if enc.ctp.thread(other) != enc.ctp.thread(event) {
                let first = fires_before(enc, event, other);
                conj.push(Bool::and(&[enc.reached(other), fails(enc, other)]).implies(first));
            }
        }
        Bool::and(&conj)
    }

    /// The violation alone: it orders other assertions' failures after its own instead of
    /// excluding them.
    fn formula(&self, enc: &Encoding) -> Bool {
        self.violation(enc)
    }

    /// The replay panicked at the same place, on this assertion failing.
    fn confirm(&self, ctp: &Ctp, run: &Replayed) -> Result<(), String> {
        let failure = confirm::failure(run)?;
        let ev = ctp.event(self.event);
        let replayed = confirm::by_position(run);
        let failed = replayed
            .get(&(ev.thread, ev.index))
            .and_then(|r| r.assert.as_ref())
            .is_some_and(|a| !a.holds);
        let at = confirm::same_place(ctp, &replayed, self.event);
        confirm::judged(
            confirm::is(run, FailureKind::Panic) && at && failed,
            failure,
        )
    }

    fn describe(&self, ctp: &Ctp, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &ctp.event(self.event).assert.as_ref().expect("assert").text;
        write!(
            f,
            "assertion `{text}` fails ({})",
            super::at(ctp, self.event)
        )
    }

    fn site(&self, ctp: &Ctp) -> Vec<Option<Location>> {
        vec![loc(ctp, self.event)]
    }

    /// The assertion fails right after its fire point.
    fn last_event(&self, ctp: &Ctp) -> Option<Ev> {
        ctp.fire_point[self.event]
    }
}

/// Assertion `a`'s thread-local code runs before `b`'s: their fire points are ordered.
fn fires_before(enc: &Encoding, a: Ev, b: Ev) -> Bool {
    match (enc.ctp.fire_point[a], enc.ctp.fire_point[b]) {
        (Some(fa), Some(fb)) => enc.hb(fa, fb),
        // Code before a thread's first step runs whenever the thread is first scheduled:
        // no order is known, so it must not fail.
        _ => Bool::from_bool(false),
    }
}
