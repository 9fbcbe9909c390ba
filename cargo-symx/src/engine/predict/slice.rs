//! Thread-sensitive slicing of a CTP (the paper's §9: "a variable counts
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

use crate::solver::ctp::{Ctp, Ev};

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

/// Per event, the anchor whose time stamp it shares. Anchors: every event that involves
/// others (`involves_others`), the event after each of them (what a wait wakes into, what a
/// barrier goes on with), the fire point of each of them and of each assertion (thread-local
/// code is ordered by it: `properties`, `atomicity`), and each thread's first and last
/// event. What is left touches only the thread's own state.
fn anchors(ctp: &Ctp, local: &[u32]) -> Vec<Ev> {
    let n = ctp.trace.events.len();
    let involves: Vec<bool> = (0..n).map(|e| involves_others(ctp, e, local)).collect();
    let mut needs = involves.clone();
    for e in 0..n {
        let after_involved = ctp.pred[e].is_none_or(|p| involves[p]);
        if after_involved || ctp.event(e).kind == EventKind::Spawn {
            needs[e] = true;
        }
        let orders_local_code = involves[e] || ctp.event(e).assert.is_some();
        if let (true, Some(f)) = (orders_local_code, ctp.fire_point[e]) {
            needs[f] = true;
        }
    }
    // A thread's last event is what a join waits for.
    for events in &ctp.threads {
        if let Some(&last) = events.last() {
            needs[last] = true;
        }
    }
    let mut anchor: Vec<Ev> = (0..n).collect();
    for e in 0..n {
        if let (false, Some(p)) = (needs[e], ctp.pred[e]) {
            anchor[e] = anchor[p];
        }
    }
    anchor
}

/// `e` involves something other threads see: an object other than a thread-local variable
/// (a shared variable, a lock, a condvar, a barrier, a channel, a thread to join), a lock
/// or barrier record, or a blocking semantics the encoding does not model.
fn involves_others(ctp: &Ctp, e: Ev, local: &[u32]) -> bool {
    let ev = ctp.event(e);
    let mut objects = [ev.obj, ev.obj2].into_iter().flatten();
    objects.any(|o| local.binary_search(&o).is_err())
        || !ev.sync.is_empty()
        || matches!(ev.kind, EventKind::Spawn | EventKind::Join)
        || ctp.unmodelled.binary_search(&e).is_ok()
}
