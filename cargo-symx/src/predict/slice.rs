//! Thread-sensitive slicing of a CTP (seed-predictive.md §3.11 and §6.2: "a variable counts
//! as shared only if accessed by more than one thread"): which objects are thread-local, what
//! each read of a local object returns, and which events need an order variable of their own.
//! Pure bookkeeping over `Ctp`, like it; `encode` turns it into fewer terms.
//!
//! Why this is exact, not an approximation:
//! - A read of a local object sees its thread's last earlier write (or the initial value) in
//!   every interleaving: prefix closure executes that write first, and no other thread
//!   writes the object. So the read is that value, with no pi-function.
//! - An event that touches no shared object and is no synchronization commutes with every
//!   event of every other thread, so its time stamp can be its thread's previous anchor's
//!   (any time between two anchors of its thread is as good). Only anchors get an `O(e)`.

use std::collections::BTreeMap;

use symx::trace::format::EventKind;

use super::ctp::{Ctp, Ev};

/// Where a read of a local object gets its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalSource {
    /// The value written by this event (the thread's last earlier write of the object).
    Write(Ev),
    /// The object's initial value.
    Initial(u32),
}

/// The slice of a CTP.
#[derive(Debug)]
pub struct Slice {
    /// Per read variable of a local object, its source.
    pub local_reads: BTreeMap<u32, LocalSource>,
    /// Objects accessed by one thread only.
    pub local_objects: Vec<u32>,
    /// Per event, the event whose order variable it uses: itself for an anchor, else its
    /// thread's previous anchor.
    pub anchor: Vec<Ev>,
}

impl Slice {
    pub fn new(ctp: &Ctp) -> Self {
        let local_objects: Vec<u32> = ctp
            .accesses
            .iter()
            .filter(|(_, acc)| acc.iter().all(|&e| ctp.thread(e) == ctp.thread(acc[0])))
            .map(|(&obj, _)| obj)
            .collect();
        let local_reads = local_reads(ctp, &local_objects);
        let anchor = anchors(ctp, &local_objects);
        Slice {
            local_reads,
            local_objects,
            anchor,
        }
    }

    pub fn is_local(&self, obj: u32) -> bool {
        self.local_objects.binary_search(&obj).is_ok()
    }

    /// `e` has an order variable of its own.
    pub fn is_anchor(&self, e: Ev) -> bool {
        self.anchor[e] == e
    }
}

/// The source of every read of a local object: a walk along its thread in program order.
fn local_reads(ctp: &Ctp, local: &[u32]) -> BTreeMap<u32, LocalSource> {
    let mut out = BTreeMap::new();
    for &obj in local {
        let mut last = LocalSource::Initial(obj);
        for &e in &ctp.accesses[&obj] {
            let ev = ctp.event(e);
            // An event that reads and writes (a read-modify-write) reads before it writes.
            if let Some(r) = ev.read {
                out.insert(r.var, last);
            }
            if ev.write.is_some() {
                last = LocalSource::Write(e);
            }
        }
    }
    out
}

/// Per event, the anchor whose time stamp it shares.
fn anchors(ctp: &Ctp, local: &[u32]) -> Vec<Ev> {
    let mut needs = vec![false; ctp.trace.events.len()];
    for (&obj, acc) in &ctp.accesses {
        if local.binary_search(&obj).is_err() {
            acc.iter().for_each(|&e| needs[e] = true);
        }
    }
    // Unmodelled blocking events, and what follows each (it waits for them: `encode`).
    for &e in &ctp.unmodelled {
        needs[e] = true;
    }
    for (e, p) in ctp.pred.iter().enumerate() {
        if p.is_some_and(|p| ctp.unmodelled.binary_search(&p).is_ok()) {
            needs[e] = true;
        }
    }
    // Assertions are ordered by their fire points (`properties`).
    for &a in &ctp.asserts {
        if let Some(f) = ctp.fire_point[a] {
            needs[f] = true;
        }
    }
    for (e, ev) in ctp.trace.events.iter().enumerate() {
        let thread_edge = matches!(ev.kind, EventKind::Spawn | EventKind::Join);
        if !ev.sync.is_empty() || thread_edge || ctp.pred[e].is_none() {
            needs[e] = true;
        }
    }
    // A thread's last event is what a join waits for.
    for events in &ctp.threads {
        if let Some(&last) = events.last() {
            needs[last] = true;
        }
    }
    let mut anchor: Vec<Ev> = (0..needs.len()).collect();
    for e in 0..needs.len() {
        if let (false, Some(p)) = (needs[e], ctp.pred[e]) {
            anchor[e] = anchor[p];
        }
    }
    anchor
}
