//! Blocking primitives with exact semantics in the encoding (beyond the paper, `docs/papers.md`):
//! condvar and wait-queue waits are matched to the notify that woke them, barrier arrivals form
//! generations that open together. Other blocking primitives (channels, park, once) keep their
//! observed order (`Encoding::unmodelled`).
//!
//! **Condvar.** `wait(g)` is recorded as a `condvar_wait` step (it releases the mutex and
//! enqueues the thread) and, once woken, the thread's next event re-locks the mutex. The wake
//! needs a notify on the condvar between the two: `x(A_i) => OR_j m_ij`, `m_ij => x(N_j)
//! AND HB(W_i, N_j) AND HB(N_j, A_i)`, and a `notify_one` wakes at most one waiter (exact
//! per-waiter matching). A notify with nobody waiting is lost, as in the
//! runtime. Spurious wake-ups are off unless the Builder enables them; they are not modelled
//! (a witness never needs one). A `symx::wait_queue` wait is the same without the mutex: the
//! thread's next event, whatever it is, needs a notify on the object since the wait.
//!
//! **Barrier.** The arrivals of one generation all come before any participant goes on: the
//! event after a built-in `Barrier::wait`, or the annotated `barrier_depart` of a user
//! barrier. Generations are read off the observed run: arrivals accumulate until a
//! participant goes on. Which participant leads (`is_leader`) is not modelled.
//!
//! The replay needs to know which waiter each `notify_one` wakes when several wait (a choice
//! of the runtime, explored like a schedule): `choices` picks, along the witness's order,
//! the waiter whose wake comes first (earliest deadline first, which wakes every waiter that
//! the prefix needs awake whenever any matching does).

use std::collections::BTreeMap;

use symx::trace::format::{EventKind, SyncKind};
use z3::ast::Bool;

use crate::solver::ctp::{Ctp, Ev};

/// One wait on a condvar or wait queue: the waiting step and the thread's next event, which
/// runs only once woken (none if the trace ends with the thread waiting).
#[derive(Clone, Copy, Debug)]
struct CvWait {
    cv: u32,
    wait: Ev,
    wake: Option<Ev>,
}

fn is_wait(kind: EventKind) -> bool {
    matches!(kind, EventKind::CondvarWait | EventKind::QueueWait)
}

/// Whether a notify wakes every waiter (`None`: not a notify).
fn notify_all(kind: EventKind) -> Option<bool> {
    match kind {
        EventKind::NotifyOne | EventKind::QueueNotify => Some(false),
        EventKind::NotifyAll | EventKind::QueueNotifyAll => Some(true),
        _ => None,
    }
}

/// What the blocking constraints need of an encoding: the program, each event's executed
/// flag, the happens-before term, and a solver to state them on. `encode::Encoding` gives
/// it; this module knows nothing else of the formula.
pub trait Order<'t> {
    fn ctp(&self) -> &Ctp<'t>;
    /// The event ran (is in the prefix).
    fn executed(&self, e: Ev) -> Bool;
    /// `a` ran before `b`.
    fn hb(&self, a: Ev, b: Ev) -> Bool;
    /// States `constraint` on the solver.
    fn require(&self, constraint: &Bool);
}

/// States the condvar and barrier constraints on `enc`'s solver.
pub fn constrain<'t>(enc: &impl Order<'t>) {
    condvars(enc);
    barriers(enc);
}

fn waits(ctp: &Ctp) -> Vec<CvWait> {
    ctp.trace
        .events
        .iter()
        .enumerate()
        .filter(|(_, ev)| is_wait(ev.kind))
        .filter_map(|(e, ev)| {
            Some(CvWait {
                cv: ev.obj?,
                wait: e,
                wake: ctp.later(e).first().copied(),
            })
        })
        .collect()
}

/// Per condvar or wait queue, its notifies and whether each wakes every waiter.
fn notifies(ctp: &Ctp) -> BTreeMap<u32, Vec<(Ev, bool)>> {
    let mut out: BTreeMap<u32, Vec<(Ev, bool)>> = BTreeMap::new();
    for (e, ev) in ctp.trace.events.iter().enumerate() {
        let Some(all) = notify_all(ev.kind) else {
            continue;
        };
        if let Some(cv) = ev.obj {
            out.entry(cv).or_default().push((e, all));
        }
    }
    out
}

fn condvars<'t>(enc: &impl Order<'t>) {
    let notifies = notifies(enc.ctp());
    // Per notify_one, the match literals of the waiters it may wake.
    let mut woken_by: BTreeMap<Ev, Vec<Bool>> = BTreeMap::new();
    for w in waits(enc.ctp()) {
        let Some(wake) = w.wake else { continue };
        let mut options = Vec::new();
        for &(n, all) in notifies.get(&w.cv).map_or(&[][..], Vec::as_slice) {
            if enc.ctp().thread(n) == enc.ctp().thread(w.wait) {
                continue;
            }
            let m = Bool::new_const(format!("m{}_{n}", w.wait));
            let fits = Bool::and(&[enc.executed(n), enc.hb(w.wait, n), enc.hb(n, wake)]);
            enc.require(&m.implies(&fits));
            if !all {
                woken_by.entry(n).or_default().push(m.clone());
            }
            options.push(m);
        }
        enc.require(&enc.executed(wake).implies(Bool::or(&options)));
    }
    for ms in woken_by.values() {
        for (i, a) in ms.iter().enumerate() {
            for b in &ms[i + 1..] {
                enc.require(&Bool::and(&[a, b]).not());
            }
        }
    }
}

/// A barrier arrival and the event of its thread that may only run once the generation is
/// complete.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    arrive: Ev,
    goes_on: Option<Ev>,
}

/// Per barrier, its generations as observed: arrivals accumulate until one of them goes on.
fn generations(ctp: &Ctp) -> Vec<Vec<Arrival>> {
    let mut open: BTreeMap<u32, Vec<Arrival>> = BTreeMap::new();
    let mut out = Vec::new();
    for (e, ev) in ctp.trace.events.iter().enumerate() {
        // An event that goes on after a pending arrival closes that barrier's generation.
        let closes: Vec<u32> = open
            .iter()
            .filter(|(_, g)| g.iter().any(|a| a.goes_on == Some(e)))
            .map(|(&b, _)| b)
            .collect();
        for b in closes {
            out.push(open.remove(&b).expect("an open generation"));
        }
        for s in ev.sync.iter().filter(|s| s.op == SyncKind::BarrierArrive) {
            let goes_on = if s.annotated {
                departure(ctp, e, s.obj)
            } else {
                ctp.later(e).first().copied()
            };
            open.entry(s.obj)
                .or_default()
                .push(Arrival { arrive: e, goes_on });
        }
    }
    out.extend(open.into_values());
    out
}

/// The annotated `barrier_depart` on `barrier` that ends the arrival at `e`.
fn departure(ctp: &Ctp, e: Ev, barrier: u32) -> Option<Ev> {
    ctp.later(e).iter().copied().find(|&d| {
        let ev = ctp.event(d);
        (ev.sync.iter()).any(|s| s.op == SyncKind::BarrierDepart && s.obj == barrier)
    })
}

fn barriers<'t>(enc: &impl Order<'t>) {
    for generation in generations(enc.ctp()) {
        for a in &generation {
            let Some(on) = a.goes_on else { continue };
            for b in &generation {
                if b.arrive != a.arrive {
                    let arrived = Bool::and(&[enc.executed(b.arrive), enc.hb(b.arrive, on)]);
                    enc.require(&enc.executed(on).implies(&arrived));
                }
            }
        }
    }
}

/// The runtime's choice at every `notify_one` (condvar or wait queue) that finds several waiters,
/// along `prefix` (the witness's events in order): the index, in the wait queue's order of arrival,
/// of the waiter whose wake comes first in the prefix (or the first waiter, when none wakes).
pub fn choices(ctp: &Ctp, prefix: &[Ev]) -> Vec<u32> {
    let position: BTreeMap<Ev, usize> = prefix.iter().enumerate().map(|(i, &e)| (e, i)).collect();
    let wake_of: BTreeMap<Ev, Ev> = waits(ctp)
        .into_iter()
        .filter_map(|w| Some((w.wait, w.wake?)))
        .collect();
    let mut queues: BTreeMap<u32, Vec<Ev>> = BTreeMap::new();
    let mut out = Vec::new();
    for &e in prefix {
        let ev = ctp.event(e);
        let Some(cv) = ev.obj else { continue };
        match (is_wait(ev.kind), notify_all(ev.kind)) {
            (true, _) => queues.entry(cv).or_default().push(e),
            (_, Some(true)) => {
                queues.remove(&cv);
            }
            (_, Some(false)) => {
                let queue = queues.entry(cv).or_default();
                let deadline = |w: &Ev| {
                    let wake = wake_of.get(w).and_then(|x| position.get(x));
                    wake.copied().unwrap_or(usize::MAX)
                };
                let pick = (0..queue.len()).min_by_key(|&i| deadline(&queue[i]));
                if let Some(i) = pick {
                    if queue.len() > 1 {
                        out.push(i as u32);
                    }
                    queue.remove(i);
                }
            }
            _ => {}
        }
    }
    out
}
