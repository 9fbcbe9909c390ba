//! The scheduler's two fairness rules, as the bounded reduction sees them: a thread that
//! yielded gives way until another thread's step changes something (the yield rule), and a
//! waiter that woke spuriously may do so again only after another thread's step (the spurious
//! wake-up rule). Each is modelled as accesses to an object of its own, so that its races are
//! reversed like any other's; and the threads that only their yield hid at a step need no
//! points at earlier steps (`look::Look::race`).

use smallvec::SmallVec;

use crate::explore::dpor::events::{self, Access, Canon, Ev};
use crate::rt::op::{Event, ObjId, OpKind, ThreadId};

/// The threads that only their yield kept from running at each step of `trace` (`evs`: its
/// events, `bound_hid[k]`: whether the bound hid a thread at step `k`): a thread that yielded
/// at step `y` and was let go by step `g` (its next step's `let_go`) is hidden at the steps
/// after `y` up to `g`; at a step where the bound hid a thread too, it counts as hidden by the
/// bound (whose points it keeps).
pub(super) fn gave_way(
    trace: &[Event],
    evs: &[Ev],
    bound_hid: &[bool],
) -> Vec<SmallVec<[ThreadId; 2]>> {
    let mut out = Vec::new();
    out.resize_with(trace.len(), SmallVec::new);
    // Per thread, the step of a yield not yet followed by the thread's next step.
    let mut open: SmallVec<[Option<usize>; 8]> = SmallVec::new();
    for (k, (e, ev)) in trace.iter().zip(evs).enumerate() {
        if open.len() <= ev.thread {
            open.resize(ev.thread + 1, None);
        }
        let yielded = open[ev.thread].take();
        if let (Some(y), Some(g)) = (yielded, e.let_go) {
            let end = (g as usize + 1).min(trace.len());
            for (at, hidden) in out.iter_mut().enumerate().take(end).skip(y + 1) {
                if !bound_hid.get(at).copied().unwrap_or(true) {
                    hidden.push(ev.thread);
                }
            }
        }
        if e.kind == OpKind::Yield {
            open[ev.thread] = Some(k);
        }
    }
    out
}

/// A step's access to the scheduler's rule that a thread that yielded gives way until another
/// thread's step changes something, once a thread has yielded (`yields`; before, nothing
/// writes it and its reads order nothing): a yield writes it, a step that may change
/// something reads it (as the optimal DPOR models it, `events::fairness`; the steps that let
/// a thread go write it too, known once they ran). Its races reorder a yield with the steps
/// that let the thread go, which the bound's points did before by asking for the thread at
/// every earlier step.
pub(super) fn yield_fairness(yields: bool, kind: OpKind) -> Option<Access> {
    yields
        .then(|| events::fairness(kind, None).access(events::FAIRNESS))
        .flatten()
}

/// The runtime id standing for the scheduler's spurious wake-up rule (no real object has it).
/// Not the yield rule's object (`events::FAIRNESS`, [`yield_fairness`]): the two rules are
/// different, and each one's accesses say what its own order decides. From session 12, when
/// the reduction began to model yields, until session 13 both were `ObjId::MAX`, so a yield
/// (a write of the yield rule's object) conflicted with every step the spurious wake-up rule
/// gives a read, loads included, though where a load falls against a yield decides nothing
/// for either rule. Sound (more dependence), but on the yielding programs with spurious
/// wake-ups on it cost executions: CI `programs_that_yield` 6,699 -> 6,182, the 2,000 larger
/// 113,385 -> 110,993 (over the optimal DPOR 417 -> 311 of 2,501), no trace missed.
pub(super) const FAIRNESS: ObjId = ObjId::MAX - 1;
const _: () = assert!(FAIRNESS != events::FAIRNESS, "two rules, two objects");

/// The access of an operation of `kind` to the scheduler's rule that a thread that woke
/// spuriously may do so again only after another thread took a step that was not itself a
/// spurious wake-up or a yield: such a step re-enables every spurious waiter, so where it falls
/// between a waiter's steps decides how often that waiter can wake spuriously. Modelled as an
/// object every such step reads and every spurious wake-up writes (two such steps commute).
/// Nothing without spurious wake-ups.
pub(super) fn spurious_fairness(spurious: bool, kind: OpKind, obj: Canon) -> Option<Access> {
    match kind {
        _ if !spurious => None,
        OpKind::SpuriousWake => Some(Access::Write(obj)),
        OpKind::Yield | OpKind::Checkpoint => None,
        _ => Some(Access::Read(obj)),
    }
}
