//! The accesses a summary carries: the steps below a node, named canonically at the node,
//! with what orders each after other threads' steps (threads joined, locks held).

use std::collections::BTreeSet;

use symx::trace::format::EventKind;
use symx::trace::Trace;

use crate::engine::assertion_guided::names::{Names, Objects};
use crate::engine::assertion_guided::races::{self, Class, Step};
use crate::engine::assertion_guided::summary::Rw;

/// The accesses of the steps between `from` and `to`, by canonical names at `from` (an
/// object first touched in between cannot race with anything before `from`).
pub(super) fn edge_accesses(
    trace: &Trace,
    names: &Names,
    from: usize,
    to: usize,
    sliced: &[bool],
) -> Vec<Rw> {
    let objects = Objects::at(trace, names, from);
    let steps = races::steps(trace, to, sliced);
    let contexts = contexts(trace, names, &steps);
    let mut out = Vec::new();
    for (s, (joined, held)) in steps.iter().zip(contexts).filter(|(s, _)| s.pos >= from) {
        let held: BTreeSet<String> = (held.iter())
            .filter_map(|l| objects.name.get(l).cloned())
            .collect();
        for &(o, class) in &s.access {
            if let Some(name) = objects.name.get(&o) {
                out.push(Rw {
                    object: name.clone(),
                    thread: names.thread[s.thread].clone(),
                    class,
                    joined: joined.clone(),
                    held: held.clone(),
                });
            }
        }
    }
    out
}

/// Per step, what orders it after other threads' steps: the threads (canonical names) its
/// thread had joined before it, and the locks (trace ids) its thread held.
fn contexts(
    trace: &Trace,
    names: &Names,
    steps: &[Step],
) -> Vec<(BTreeSet<String>, BTreeSet<u32>)> {
    let n = trace.threads.len();
    let mut joined: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
    let mut held: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
    let mut next = 0;
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        for ev in &trace.events[next.min(s.pos)..s.pos] {
            if let (EventKind::Join, Some(c)) = (ev.kind, ev.child) {
                joined[ev.thread].insert(names.thread[c].clone());
            }
        }
        next = next.max(s.pos);
        out.push((joined[s.thread].clone(), held[s.thread].clone()));
        for &(o, class) in &s.access {
            match class {
                Class::Acquire => held[s.thread].insert(o),
                Class::Release => held[s.thread].remove(&o),
                _ => false,
            };
        }
    }
    out
}

/// Accesses named at `from` renamed to the names at `to` (earlier) of the same trace.
pub(super) fn rename(
    rw: &BTreeSet<Rw>,
    trace: &Trace,
    names: &Names,
    from: usize,
    to: usize,
) -> Vec<Rw> {
    let (below, above) = (
        Objects::at(trace, names, from),
        Objects::at(trace, names, to),
    );
    rw.iter()
        .filter_map(|a| {
            let o = below.id.get(&a.object)?;
            let held = (a.held.iter())
                .filter_map(|l| above.name.get(below.id.get(l)?).cloned())
                .collect();
            Some(Rw {
                object: above.name.get(o)?.clone(),
                held,
                ..a.clone()
            })
        })
        .collect()
}
