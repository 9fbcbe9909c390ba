//! The properties a query asks about (`PHI_PRP`, seed-predictive.md §3.8 in prefix form) and
//! their candidates in a CTP: every recorded assertion, every conflicting pair of accesses
//! to a `Shared` or `UnsafeCell` by different threads, and every pair of acquisitions that
//! could wait for each other (two locks taken in opposite orders).

use std::fmt;

use symx::trace::format::EventKind;
use z3::ast::Bool;

use super::atomicity;
use super::deadlock::{self, Cycle};
use super::encode::Encoding;
use super::lock_claims;
use super::must_hb::MustHb;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::dag;

/// One property query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// The assertion recorded at `event` fails where the prefix reaches it.
    Assertion { event: Ev },
    /// `first` and `second` (different threads, same object, at least one write) are both the
    /// next event of their thread after some feasible prefix: they can be adjacent.
    DataRace { first: Ev, second: Ev, obj: u32 },
    /// A cyclic wait on locks: each thread of the cycle holds a lock and waits for the next
    /// one's (`deadlock`).
    Deadlock { cycle: Cycle },
    /// `remote` (another thread's access to `obj`) runs between `first` and `second`, two
    /// accesses to `obj` inside one region marked atomic, in an unserializable pattern
    /// (`atomicity`).
    Atomicity {
        first: Ev,
        remote: Ev,
        second: Ev,
        obj: u32,
    },
    /// `second` (an acquisition of the user-annotated `lock`) returns while `first`'s thread
    /// holds it: the lock's claimed mutual exclusion breaks (`lock_claims`).
    LockClaim { first: Ev, second: Ev, lock: u32 },
}

impl Property {
    /// The event after which a witness prefix can stop (later events do not matter): an
    /// assertion fails right after its fire point.
    pub fn last_event(&self, ctp: &Ctp) -> Option<Ev> {
        match *self {
            Property::Assertion { event } => ctp.fire_point[event],
            Property::DataRace { .. }
            | Property::Deadlock { .. }
            | Property::Atomicity { .. }
            | Property::LockClaim { .. } => None,
        }
    }
}

/// Every assertion that held in the observed run (a failing one is already a found bug).
pub fn assertions(ctp: &Ctp) -> Vec<Property> {
    ctp.trace
        .events
        .iter()
        .enumerate()
        .filter(|(_, ev)| ev.assert.as_ref().is_some_and(|a| a.holds))
        .map(|(event, _)| Property::Assertion { event })
        .collect()
}

/// Conflicting pairs on racy objects (read-read pairs are not races: Gap E), less the pairs
/// a common lock protects (the lockset filter: both threads inside sections of one lock is
/// infeasible, so the query would be UNSAT anyway).
pub fn races(ctp: &Ctp) -> Vec<Property> {
    let mut out = Vec::new();
    for (&obj, accesses) in &ctp.accesses {
        if !ctp.racy_object(obj) {
            continue;
        }
        let locksets: Vec<Vec<u32>> = accesses.iter().map(|&e| lockset(ctp, e)).collect();
        for (i, &a) in accesses.iter().enumerate() {
            for (j, &b) in accesses.iter().enumerate().skip(i + 1) {
                let conflict = writes(ctp, a) || writes(ctp, b);
                let guarded = locksets[i].iter().any(|l| locksets[j].contains(l));
                if conflict && !guarded && ctp.thread(a) != ctp.thread(b) {
                    out.push(Property::DataRace {
                        first: a,
                        second: b,
                        obj,
                    });
                }
            }
        }
    }
    out
}

/// Atomicity triplets that survive the static filters (`atomicity::candidates`).
pub fn atomicity(ctp: &Ctp, mhb: &MustHb) -> Vec<Property> {
    atomicity::candidates(ctp, mhb)
        .0
        .into_iter()
        .map(|[first, remote, second, obj]| Property::Atomicity {
            first,
            remote,
            second,
            obj: obj as u32,
        })
        .collect()
}

/// Pairs of acquisitions that may break an annotated lock's mutual exclusion.
pub fn lock_claims(ctp: &Ctp, mhb: &MustHb) -> Vec<Property> {
    lock_claims::candidates(ctp, mhb)
        .into_iter()
        .map(|(first, second, lock)| Property::LockClaim {
            first,
            second,
            lock,
        })
        .collect()
}

/// Cyclic waits of up to `deadlock::MAX_CYCLE` threads.
pub fn deadlocks(ctp: &Ctp) -> Vec<Property> {
    deadlock::cycles(ctp)
        .into_iter()
        .map(|cycle| Property::Deadlock { cycle })
        .collect()
}

/// The locks held exclusively at `e` by its own thread.
fn lockset(ctp: &Ctp, e: Ev) -> Vec<u32> {
    ctp.sections
        .iter()
        .filter(|(_, ss)| ss.iter().any(|s| !s.shared && ctp.holds(s, e)))
        .map(|(&l, _)| l)
        .collect()
}

fn writes(ctp: &Ctp, e: Ev) -> bool {
    let ev = ctp.event(e);
    ev.write.is_some()
        || matches!(
            ev.kind,
            EventKind::Store | EventKind::SharedWrite | EventKind::CellWrite
        )
}

/// `PHI_PRP` of a property over an encoding, in prefix form: the thread reaches the
/// assertion and it is false there (so it is not executed); both racing accesses are their
/// thread's next event. Either way no other assertion may fail first, since the real run
/// would stop at that one.
pub fn formula(enc: &Encoding, p: &Property) -> Bool {
    let violation = match *p {
        // An assertion may fail only where no other one failed first (below, per pair).
        Property::Assertion { event } => return assertion_fails(enc, event),
        Property::DataRace { first, second, .. } => {
            Bool::and(&[at_the_edge(enc, first), at_the_edge(enc, second)])
        }
        Property::Deadlock { ref cycle } => deadlock::formula(enc, cycle),
        Property::LockClaim {
            first,
            second,
            lock,
        } => lock_claims::formula(enc, first, second, lock),
        Property::Atomicity {
            first,
            remote,
            second,
            ..
        } => atomicity::formula(enc, [first, remote, second]),
    };
    let mut conj = vec![violation];
    conj.extend(no_assertion_fails(enc));
    Bool::and(&conj)
}

/// The assertion at `event` is reached and false, and no assertion of another thread failed
/// before it.
fn assertion_fails(enc: &Encoding, event: Ev) -> Bool {
    let mut conj = vec![enc.reached(event), fails(enc, event)];
    for &other in &enc.ctp.asserts {
        if enc.ctp.thread(other) != enc.ctp.thread(event) {
            let first = fires_before(enc, event, other);
            conj.push(Bool::and(&[enc.reached(other), fails(enc, other)]).implies(first));
        }
    }
    Bool::and(&conj)
}

/// The access `e` is at the edge of its thread's prefix, where nothing of its thread can have
/// ordered it against another thread's: a scheduled access is the thread's next step (the
/// paper's "simultaneously enabled"); an access that is no step (an `UnsafeCell`'s) ran and
/// its thread's next step did not, since it runs as soon as its thread gets there, possibly
/// before the thread's first step.
fn at_the_edge(enc: &Encoding, e: Ev) -> Bool {
    if !enc.ctp.eager(e) {
        return Bool::and(&[enc.reached(e), enc.exec[e].not()]);
    }
    let next = enc.ctp.later(e).iter().find(|&&n| !enc.ctp.eager(n));
    match next {
        Some(&n) => Bool::and(&[enc.exec[e].clone(), enc.exec[n].not()]),
        None => enc.exec[e].clone(),
    }
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

/// Assertion `a`'s thread-local code runs before `b`'s: their fire points are ordered.
fn fires_before(enc: &Encoding, a: Ev, b: Ev) -> Bool {
    match (enc.ctp.fire_point[a], enc.ctp.fire_point[b]) {
        (Some(fa), Some(fb)) => enc.hb(fa, fb),
        // Code before a thread's first step runs whenever the thread is first scheduled:
        // no order is known, so it must not fail.
        _ => Bool::from_bool(false),
    }
}

/// A readable name of the property, for reports and test failures.
pub struct Describe<'a, 'c, 't>(pub &'a Ctp<'t>, pub &'c Property);

impl fmt::Display for Describe<'_, '_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |e: Ev| {
            let ev = self.0.event(e);
            match &ev.location {
                Some(l) => format!("thread {} at {}:{}:{}", ev.thread, l.file, l.line, l.column),
                None => format!("thread {} event {}", ev.thread, ev.index),
            }
        };
        match *self.1 {
            Property::Assertion { event } => {
                let text = &self.0.event(event).assert.as_ref().expect("assert").text;
                write!(f, "assertion `{text}` fails ({})", at(event))
            }
            Property::Deadlock { ref cycle } => {
                let waits: Vec<String> = cycle.waits().iter().map(|w| at(w.acquire)).collect();
                write!(f, "deadlock: {} wait for each other", waits.join(" and "))
            }
            Property::DataRace { first, second, obj } => write!(
                f,
                "data race on object {obj}: {} and {}",
                at(first),
                at(second)
            ),
            Property::LockClaim {
                first,
                second,
                lock,
            } => write!(
                f,
                "mutual exclusion of {} broken: {} acquires it while {} holds it",
                self.0.trace.objects[lock as usize].type_name,
                at(second),
                at(first)
            ),
            Property::Atomicity {
                first,
                remote,
                second,
                obj,
            } => write!(
                f,
                "atomicity violation ({}) on object {obj}: {} runs between {} and {}, which \
                 the atomic region means to keep together",
                atomicity::pattern(self.0, [first, remote, second]),
                at(remote),
                at(first),
                at(second)
            ),
        }
    }
}
