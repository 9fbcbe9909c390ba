//! The partial-order side of the search: the steps of a trace with what each does to which
//! object, happens-before, races and their reversals, for source-DPOR with sleep sets
//! (Abdulla, Aronis, Jonsson, Sagonas, "Optimal Dynamic Partial Order Reduction", POPL 2014,
//! Algorithm 1) run by the driver over the traces of its own executions.
//!
//! Dependence: two accesses to one object conflict unless both read. A lock acquisition and a
//! release of the same lock do not conflict: the release orders the next acquisition (an edge
//! of happens-before that cannot be reversed), and two acquisitions race with each other
//! whatever is between them, since either could have come first. Spawn and join order their
//! threads' steps. Everything else on an object (condvars, channels, barriers) conflicts with
//! every access to it.

use symx::trace::format::EventKind;
use symx::trace::Trace;

/// What a step does to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Read,
    Write,
    Acquire,
    Release,
    Other,
}

/// One access: the object (its id in the trace) and what is done to it.
pub type Access = (u32, Class);

/// A visible step of the trace.
#[derive(Clone, Debug)]
pub struct Step {
    /// Its event's position in the trace.
    pub pos: usize,
    pub thread: usize,
    pub access: Vec<Access>,
}

fn class(kind: EventKind) -> Option<Class> {
    use EventKind::*;
    Some(match kind {
        Load | SharedRead => Class::Read,
        Store | Rmw | CompareExchange | SharedWrite => Class::Write,
        Lock | ReadLock => Class::Acquire,
        Unlock | ReadUnlock => Class::Release,
        Yield => return None,
        _ => Class::Other,
    })
}

/// The steps among the events before `upto`. A blind access to a sliced object (`sliced`, per
/// object id; see `slice.rs`) is no access: it commutes with everything an assertion sees.
pub fn steps(trace: &Trace, upto: usize, sliced: &[bool]) -> Vec<Step> {
    let mut out = Vec::new();
    for (pos, ev) in trace.events[..upto].iter().enumerate() {
        if ev.step.is_none() {
            continue;
        }
        let mut access = Vec::new();
        let hidden = ev.blind
            && ev
                .obj
                .is_some_and(|o| sliced.get(o as usize) == Some(&true));
        if let (Some(o), Some(c), false) = (ev.obj, class(ev.kind), hidden) {
            access.push((o, c));
        }
        if let Some(o2) = ev.obj2 {
            // The mutex a condvar wait releases (and takes again).
            access.push((o2, Class::Other));
        }
        out.push(Step {
            pos,
            thread: ev.thread,
            access,
        });
    }
    out
}

/// Whether two accesses conflict (their order can change what happens).
pub fn conflict(a: Access, b: Access) -> bool {
    use Class::*;
    a.0 == b.0
        && !matches!(
            (a.1, b.1),
            (Read, Read) | (Acquire, Release) | (Release, Acquire) | (Release, Release)
        )
}

/// Whether `a` then `b` is an ordering edge that cannot be reversed: a release and the next
/// acquisition of the lock.
fn orders(a: Access, b: Access) -> bool {
    a.0 == b.0 && a.1 == Class::Release && b.1 == Class::Acquire
}

fn any(a: &[Access], b: &[Access], rel: fn(Access, Access) -> bool) -> bool {
    a.iter().any(|&x| b.iter().any(|&y| rel(x, y)))
}

/// Whether `a`, recorded where only the objects `known` accepts had stable ids, is
/// independent of `b`: an object first used by `a` cannot be compared, so it counts as
/// conflicting.
pub fn independent(a: &[Access], known: &dyn Fn(u32) -> bool, b: &[Access]) -> bool {
    a.iter().all(|&x| known(x.0)) && !any(a, b, conflict)
}

/// Happens-before over the steps of one trace.
pub struct Hb {
    /// `before[j][i]`: step `i` happens before step `j`.
    pub before: Vec<Vec<bool>>,
    /// The races `(i, j)`: `i` before `j`, conflicting, and nothing else orders them.
    pub races: Vec<(usize, usize)>,
}

impl Hb {
    pub fn of(trace: &Trace, steps: &[Step]) -> Hb {
        let n = steps.len();
        let mut before = vec![vec![false; n]; n];
        let mut races = Vec::new();
        let spawn_pred = spawn_predecessors(trace, steps);
        let mut last_of: Vec<Option<usize>> = vec![None; trace.threads.len()];
        for j in 0..n {
            let t = steps[j].thread;
            let mut fixed: Vec<usize> = Vec::new();
            match last_of[t] {
                Some(p) => fixed.push(p),
                None => fixed.extend(spawn_pred[t]),
            }
            fixed.extend(joined_before(trace, steps, &last_of, j));
            let mut conflicting = Vec::new();
            for i in 0..j {
                if any(&steps[i].access, &steps[j].access, orders) {
                    fixed.push(i);
                } else if steps[i].thread != t && any(&steps[i].access, &steps[j].access, conflict)
                {
                    conflicting.push(i);
                }
            }
            let (earlier, rest) = before.split_at_mut(j);
            let row = &mut rest[0];
            for &p in fixed.iter().chain(&conflicting) {
                row[p] = true;
                for (k, &b) in earlier[p][..p].iter().enumerate() {
                    row[k] |= b;
                }
            }
            for &i in &conflicting {
                let other_path =
                    (fixed.iter().chain(&conflicting)).any(|&p| p != i && before[p][i]);
                if !fixed.contains(&i) && !other_path {
                    races.push((i, j));
                }
            }
            last_of[t] = Some(j);
        }
        // Acquisitions separated by a release: the later one races with the earlier one.
        for j in 0..n {
            for i in (0..j).rev() {
                let same_lock = steps[i].access.iter().any(|a| {
                    a.1 == Class::Acquire && steps[j].access.contains(&(a.0, Class::Acquire))
                });
                if same_lock {
                    if steps[i].thread != steps[j].thread && !races.contains(&(i, j)) {
                        races.push((i, j));
                    }
                    break;
                }
            }
        }
        Hb { before, races }
    }

    /// The threads that can start `notdep(i).j`: the steps after `i` that do not happen after
    /// it, then `j`, whose first steps have no predecessor among them (source-DPOR's
    /// initials), in order.
    pub fn initials(&self, steps: &[Step], i: usize, j: usize) -> Vec<usize> {
        let v: Vec<usize> = (i + 1..j)
            .filter(|&k| !self.before[k][i])
            .chain([j])
            .collect();
        let mut out = Vec::new();
        for (n, &u) in v.iter().enumerate() {
            let first = v[..n].iter().all(|&w| !self.before[u][w]);
            if first && !out.contains(&steps[u].thread) {
                out.push(steps[u].thread);
            }
        }
        out
    }
}

/// Per thread, the last step before its spawn that happens before it (its spawner's last
/// step before the spawn, or what happens before the spawner's own start).
fn spawn_predecessors(trace: &Trace, steps: &[Step]) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = vec![None; trace.threads.len()];
    for info in &trace.threads {
        let Some(at) = info.spawned_at else { continue };
        let parent = trace.events[at as usize].thread;
        let last = steps
            .iter()
            .rposition(|s| s.thread == parent && s.pos < at as usize);
        out[info.id] = last.or(out[parent]);
    }
    out
}

/// The last steps of the threads that step `j`'s thread joined since its previous step.
fn joined_before(trace: &Trace, steps: &[Step], last_of: &[Option<usize>], j: usize) -> Vec<usize> {
    let t = steps[j].thread;
    let from = last_of[t].map_or(0, |p| steps[p].pos + 1);
    trace.events[from..steps[j].pos]
        .iter()
        .filter(|ev| ev.thread == t && ev.kind == EventKind::Join)
        .filter_map(|ev| ev.child)
        .filter_map(|c| {
            steps[..j]
                .iter()
                .rposition(|s| s.thread == c && s.pos < steps[j].pos)
        })
        .collect()
}
