//! Bounded epochs (Bergan, dissertation §3.2.2): a run cut at *epoch markers*, which behave
//! as barriers. An epoch lasts until every thread is held at a marker, blocked on
//! synchronization, or finished ("blocked" is part of the end so that a thread waiting for a
//! lock held by a thread stalled at a marker does not deadlock); then every held thread
//! passes its marker at once and the next epoch begins.
//!
//! Here a marker is the visible operation `OpKind::EpochMarker`, and holding is the
//! scheduler's: a thread at a marker is not offered to the chooser while any other thread can
//! do something else. This module owns the boundary: where each thread was (the epoch's
//! identity), the loop heads seen, and the stop the enumeration asks for. Markers are no-ops
//! unless the run is cut into epochs (`Config::epochs`).

use super::execution::Execution;
use super::op::{Op, OpKind, ThreadId};
use super::threads::Status;
use crate::covering::epoch::Epochs;

/// The epochs of one run so far.
#[derive(Debug)]
pub(crate) struct EpochState {
    pub settings: Epochs,
    /// Each boundary: the scheduler's step count there, and where every thread was.
    pub boundaries: Vec<(u32, Vec<(ThreadId, String)>)>,
    /// The run ended at the last boundary.
    pub stopped: bool,
    /// Loop heads passed: site, active marker, the placement's reason, the function.
    pub loops: Vec<(String, bool, &'static str, &'static str)>,
    /// Where each thread last left each loop head: the step count then (by thread, site).
    pub heads: std::collections::HashMap<(ThreadId, String), usize>,
}

impl EpochState {
    pub fn new(settings: Epochs) -> Self {
        EpochState {
            settings,
            boundaries: Vec::new(),
            stopped: false,
            loops: Vec::new(),
            heads: std::collections::HashMap::new(),
        }
    }
}

/// `file:line:column`.
pub(crate) fn site(l: &std::panic::Location<'_>) -> String {
    format!("{}:{}:{}", l.file(), l.line(), l.column())
}

/// Holds back the threads at markers while another thread can run (removing them from
/// `enabled`); when none can, that is a boundary: records it, and either lets every held
/// thread pass or (at the boundary the settings stop at) ends the run, returning `false`.
pub(crate) fn hold_at_markers(e: &mut Execution, enabled: &mut Vec<(ThreadId, Op)>) -> bool {
    if e.epochs.is_none() {
        return true;
    }
    let held = |e: &Execution, t: ThreadId, op: &Op| {
        op.kind == OpKind::EpochMarker && !e.threads[t].epoch_pass
    };
    if enabled.is_empty() || !enabled.iter().all(|(t, op)| held(e, *t, op)) {
        enabled.retain(|(t, op)| !held(e, *t, op));
        return true;
    }
    let contexts = contexts(e);
    let step = e.trace.len() as u32;
    let state = e.epochs.as_mut().expect("checked above");
    state.boundaries.push((step, contexts));
    if state.settings.stop_at == Some(state.boundaries.len() as u32) {
        state.stopped = true;
        return false;
    }
    for (t, _) in enabled.iter() {
        e.threads[*t].epoch_pass = true;
    }
    true
}

/// Where every thread is at a boundary: at a marker, blocked at an operation, or finished.
fn contexts(e: &Execution) -> Vec<(ThreadId, String)> {
    (e.threads.iter().enumerate())
        .map(|(t, th)| {
            let at = match th.status {
                Status::Finished => "exit".to_string(),
                Status::Ready(op) if op.kind == OpKind::EpochMarker => {
                    format!("marker {}", site(op.location))
                }
                Status::Ready(op) => format!("blocked {}", site(op.location)),
                Status::Waiting(w) => format!("blocked {}", site(w.location)),
                Status::Fresh | Status::Running => "running".to_string(),
                Status::Assumed => "assumed".to_string(),
            };
            (t, at)
        })
        .collect()
}
