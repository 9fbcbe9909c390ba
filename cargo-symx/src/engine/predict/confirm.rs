//! Confirmation: a prediction is a bug only if replaying its witness fails the same way
//! (`docs/papers.md`). Each property judges its own replays (`Check::confirm`) with the pieces
//! here; this module also tells a replay that left the trace, and reads back from a replay
//! what the trace could not tell (an object's initial value). It never runs
//! anything itself: the caller replays, in process or through a worker.

use std::collections::{BTreeMap, HashMap};

use symx::__worker::protocol::FailureReport;
use symx::trace::format::TraceEvent;
use symx::FailureKind;

use super::properties::Property;
use super::witness::Witness;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::replayed::Replayed;

/// The replay's events by `(thread, index)`: along the witness's prefix, threads follow their
/// recorded paths, so the same position is the same event (object ids are numbered by first
/// use and may differ between the runs; positions do not).
pub(crate) fn by_position(run: &Replayed) -> HashMap<(usize, u32), &TraceEvent> {
    run.trace
        .events
        .iter()
        .map(|ev| ((ev.thread, ev.index), ev))
        .collect()
}

/// `Ok` if the replay shows the predicted violation, else why not (the property judges).
pub fn check(ctp: &Ctp, property: &Property, run: &Replayed) -> Result<(), String> {
    property.check().confirm(ctp, run)
}

/// The failure the replay ended with: every property but atomicity is one.
pub(crate) fn failure(run: &Replayed) -> Result<&FailureReport, String> {
    run.failure
        .as_ref()
        .ok_or_else(|| "the replay passed".to_string())
}

/// The replay failed with this kind.
pub(crate) fn is(run: &Replayed, kind: FailureKind) -> bool {
    run.kind() == Some(kind.name())
}

/// The verdict on a replay that failed: confirmed if it failed the predicted way.
pub(crate) fn judged(predicted: bool, failure: &FailureReport) -> Result<(), String> {
    if predicted {
        Ok(())
    } else {
        Err(format!("the replay failed otherwise: {}", failure.message))
    }
}

/// The replay ran the recorded event `e` at its position, with its kind and location.
pub(crate) fn same_place(ctp: &Ctp, replayed: &HashMap<(usize, u32), &TraceEvent>, e: Ev) -> bool {
    let ev = ctp.event(e);
    replayed
        .get(&(ev.thread, ev.index))
        .is_some_and(|r| r.kind == ev.kind && r.location == ev.location)
}

/// The replay failed in a thread that left its recorded path: a branch the prediction
/// flipped took the thread into code the trace does not have, and that code failed before
/// the predicted violation could show. Not the engine's mistake (the prefix semantics stops
/// such a thread; the program runs on) but not the prediction either: a different failure,
/// found by the replay.
pub fn failed_off_the_trace(ctp: &Ctp, run: &Replayed) -> bool {
    let Some(failure) = &run.failure else {
        return false;
    };
    let Some(thread) = failure.thread else {
        return false;
    };
    let recorded = ctp.threads.get(thread).map_or(&[][..], Vec::as_slice);
    let left_the_path = run
        .trace
        .events
        .iter()
        .filter(|r| r.thread == thread)
        .any(|r| match recorded.get(r.index as usize) {
            Some(&e) => {
                let ev = ctp.event(e);
                ev.kind != r.kind || ev.location != r.location
            }
            None => true,
        });
    // A flipped branch keeps its kind and place; the code after it fails where the recorded
    // thread never was.
    let failed_elsewhere =
        failure.location.is_some() && !recorded.iter().any(|&e| failed_at(ctp, e, failure));
    left_the_path || failed_elsewhere
}

/// The failure is reported at the source location of the recorded event `e`.
pub(crate) fn failed_at(ctp: &Ctp, e: Ev, failure: &FailureReport) -> bool {
    let (Some(l), Some(at)) = (&ctp.event(e).location, &failure.location) else {
        return false;
    };
    (&*l.file, l.line, l.column) == (&*at.file, at.line, at.column)
}

/// Initial values of `unknown` objects (by original id) that the replay shows: its first
/// access to the object was a read.
pub fn learned_initial(
    ctp: &Ctp,
    witness: &Witness,
    run: &Replayed,
    unknown: impl Iterator<Item = u32>,
) -> BTreeMap<u32, i128> {
    let replayed = by_position(run);
    // Original object id -> replay object id, through the prefix's accesses.
    let mut ids: BTreeMap<u32, u32> = BTreeMap::new();
    for &e in &witness.prefix {
        let ev = ctp.event(e);
        if let (Some(o), Some(r)) = (ev.obj, replayed.get(&(ev.thread, ev.index))) {
            if let Some(ro) = r.obj.filter(|_| r.kind == ev.kind) {
                ids.insert(o, ro);
            }
        }
    }
    let mut out = BTreeMap::new();
    for obj in unknown {
        let Some(&ro) = ids.get(&obj) else { continue };
        let first = run
            .trace
            .events
            .iter()
            .find(|ev| ev.obj == Some(ro) && (ev.read.is_some() || ev.write.is_some()));
        // A read-modify-write reads before it writes: its read is the initial value too.
        if let Some(r) = first.and_then(|ev| ev.read) {
            out.insert(obj, r.value);
        }
    }
    out
}
