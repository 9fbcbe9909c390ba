//! Confirmation: a prediction is a bug only if replaying its witness fails the same way
//! (digest §6.5). This module judges a replay ([`Replayed`]) against the prediction, and
//! reads back from it what the trace could not tell (an object's initial value). It never runs
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
fn by_position(run: &Replayed) -> HashMap<(usize, u32), &TraceEvent> {
    run.trace
        .events
        .iter()
        .map(|ev| ((ev.thread, ev.index), ev))
        .collect()
}

/// `Ok` if the replay shows the predicted violation, else why not.
pub fn check(ctp: &Ctp, property: &Property, run: &Replayed) -> Result<(), String> {
    // Every property but atomicity is a failure of the run; this is the one it failed with.
    let failed = || {
        run.failure
            .as_ref()
            .ok_or_else(|| "the replay passed".to_string())
    };
    let is = |kind: FailureKind| run.kind() == Some(kind.name());
    let replayed = by_position(run);
    let same_place = |e: Ev| {
        let ev = ctp.event(e);
        replayed
            .get(&(ev.thread, ev.index))
            .is_some_and(|r| r.kind == ev.kind && r.location == ev.location)
    };
    match *property {
        Property::Assertion { event } => {
            let failure = failed()?;
            let ev = ctp.event(event);
            let failed = replayed
                .get(&(ev.thread, ev.index))
                .and_then(|r| r.assert.as_ref())
                .is_some_and(|a| !a.holds);
            if is(FailureKind::Panic) && same_place(event) && failed {
                Ok(())
            } else {
                Err(format!("the replay failed otherwise: {}", failure.message))
            }
        }
        Property::Deadlock { ref cycle } => {
            let failure = failed()?;
            // Every thread of the cycle is blocked at its acquire when the runtime gives up.
            let blocked = |e: Ev| {
                let ev = ctp.event(e);
                let last = run.trace.events.iter().rfind(|r| r.thread == ev.thread);
                last.is_some_and(|r| r.index < ev.index)
            };
            let all_blocked = cycle.waits().iter().all(|w| blocked(w.acquire));
            if is(FailureKind::Deadlock) && all_blocked {
                Ok(())
            } else {
                Err(format!("the replay failed otherwise: {}", failure.message))
            }
        }
        // Not a failure of the run: the three accesses happened in the violating order.
        Property::Atomicity {
            first,
            remote,
            second,
            ..
        } => in_order(ctp, run, [first, remote, second]),
        Property::LockClaim { first, second, .. } => {
            let failure = failed()?;
            // The runtime stops at the acquisition that finds the lock held: either of the
            // two, whichever the replay made second.
            let ours = [first, second]
                .into_iter()
                .any(|e| failed_at(ctp, e, failure));
            if is(FailureKind::Misuse) && ours {
                Ok(())
            } else {
                Err(format!("the replay failed otherwise: {}", failure.message))
            }
        }
        Property::DataRace { first, second, obj } => {
            let failure = failed()?;
            let exact = same_place(first) && same_place(second);
            // The runtime reports the first happens-before race it meets: the witness's prefix
            // may already hold an unordered pair on the same object, a real race as well.
            let on_obj = racing_object(run).is_some_and(|ro| replay_id(ctp, run, obj) == Some(ro));
            if is(FailureKind::DataRace) && (exact || on_obj) {
                Ok(())
            } else {
                Err(format!("the replay failed otherwise: {}", failure.message))
            }
        }
    }
}

/// The replay ran `events` (same thread, position, kind and place) in this order.
fn in_order(ctp: &Ctp, run: &Replayed, events: [Ev; 3]) -> Result<(), String> {
    let replayed = by_position(run);
    let mut seqs = Vec::new();
    for e in events {
        let ev = ctp.event(e);
        match replayed.get(&(ev.thread, ev.index)) {
            Some(r) if r.kind == ev.kind && r.location == ev.location => seqs.push(r.seq),
            _ => {
                return Err(format!(
                    "the replay did not run thread {}'s access {} as predicted",
                    ev.thread, ev.index
                ))
            }
        }
    }
    if seqs.windows(2).all(|w| w[0] < w[1]) {
        Ok(())
    } else {
        Err("the replay ran the three accesses in another order".to_string())
    }
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
fn failed_at(ctp: &Ctp, e: Ev, failure: &FailureReport) -> bool {
    let (Some(l), Some(at)) = (&ctp.event(e).location, &failure.location) else {
        return false;
    };
    (&*l.file, l.line, l.column) == (&*at.file, at.line, at.column)
}

/// The object of the access at which a racy replay stopped (its last access event).
fn racing_object(run: &Replayed) -> Option<u32> {
    run.trace
        .events
        .iter()
        .rev()
        .find(|ev| ev.step.is_some())
        .and_then(|ev| ev.obj)
}

/// The replay's id of the original object `obj`, through any access both runs share.
fn replay_id(ctp: &Ctp, run: &Replayed, obj: u32) -> Option<u32> {
    let replayed = by_position(run);
    ctp.accesses.get(&obj)?.iter().find_map(|&e| {
        let ev = ctp.event(e);
        let r = replayed.get(&(ev.thread, ev.index))?;
        (r.kind == ev.kind && r.location == ev.location)
            .then_some(r.obj)
            .flatten()
    })
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
