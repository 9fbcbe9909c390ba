//! The brute-force oracle (what the paper's Theorem 4.1 says the formula decides): enumerate every
//! interleaving of a CTP's events with the expression DAG interpreted concretely, under prefix
//! semantics. An event runs when it is its thread's next one, its spawn has run, its joined child
//! has finished, its lock is free and its guard holds; an assertion that evaluates to false is a
//! violation; two conflicting accesses that are both their thread's next event are a race. This
//! decides exactly what the encoding should (Theorem 4.1, prefix form), by a route that shares no
//! code with it. Thread-local code (branches, assertions) runs eagerly after the event before it,
//! as in the runtime, so the first failing assertion of an interleaving ends it. An atomicity
//! violation is a state in which a thread's next event is an access of its atomic region and
//! another thread's access to that object ran after an earlier access of the region. A thread that
//! waits on a condvar runs on only once a notify chose it (any one waiter for `notify_one`).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use symx::trace::format::{EventKind, Expr, SyncKind};

use crate::engine::predict::properties::atomicity;
use crate::solver::ctp::{Ctp, Ev};

/// What some interleaving of the CTP reaches.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Assertion events that can fail.
    pub assertions: BTreeSet<Ev>,
    /// Conflicting pairs that can be adjacent, `(first, second)` in trace order.
    pub races: BTreeSet<(Ev, Ev)>,
    /// Atomicity triplets `(t_c, t_r, t_c')`: `t_r` ran after `t_c` while `t_c'`, later in
    /// `t_c`'s atomic region, is its thread's next event, in an unserializable pattern.
    pub atomicity: BTreeSet<(Ev, Ev, Ev)>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    /// Per thread, how many of its events ran.
    pos: Vec<usize>,
    mem: BTreeMap<u32, u128>,
    /// Per lock, its holders and whether they hold it shared.
    holders: BTreeMap<u32, Vec<(usize, bool)>>,
    reads: BTreeMap<u32, u128>,
    /// `(c, r)`: access `r` ran after `c`, an access of another thread's atomic region to
    /// the same object.
    after: BTreeSet<(Ev, Ev)>,
    /// Threads waiting on a condvar or wait queue, and the object: they run on once a notify
    /// on it chose them.
    waiting: BTreeMap<usize, u32>,
}

/// Explores every interleaving; `initial` gives each object's value before any write.
pub fn explore(ctp: &Ctp, initial: &BTreeMap<u32, i128>) -> Found {
    let mem = ctp
        .initial
        .iter()
        .map(|(&o, &(ty, _))| (o, ty.from_i128(initial.get(&o).copied().unwrap_or(0))))
        .collect();
    let start = State {
        pos: vec![0; ctp.threads.len()],
        mem,
        holders: BTreeMap::new(),
        reads: BTreeMap::new(),
        after: BTreeSet::new(),
        waiting: BTreeMap::new(),
    };
    let regions = regions(ctp);
    let mut found = Found::default();
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        races_at(ctp, &s, &mut found);
        atomicity_at(ctp, &regions, &s, &mut found);
        for t in 0..ctp.threads.len() {
            for mut next in step(ctp, &s, t, &mut found) {
                note_after(ctp, &regions, &s, t, &mut next);
                stack.push(next);
            }
        }
    }
    found
}

fn next_event(ctp: &Ctp, s: &State, t: usize) -> Option<Ev> {
    let events = &ctp.threads[t];
    let e = *events.get(s.pos[t])?;
    // A thread's first event needs its spawn to have run.
    let started = ctp.spawned_at[t].is_none_or(|sp| ran(ctp, s, sp));
    started.then_some(e)
}

fn ran(ctp: &Ctp, s: &State, e: Ev) -> bool {
    s.pos[ctp.thread(e)] > ctp.event(e).index as usize
}

fn races_at(ctp: &Ctp, s: &State, found: &mut Found) {
    let next: Vec<Ev> = (0..ctp.threads.len())
        .filter_map(|t| next_event(ctp, s, t))
        .collect();
    for (i, &a) in next.iter().enumerate() {
        for &b in &next[i + 1..] {
            let ea = ctp.event(a);
            let eb = ctp.event(b);
            let same = ea.obj.is_some() && ea.obj == eb.obj;
            let racy = same
                && ctp.racy_object(ea.obj.unwrap())
                && ctp.accesses[&ea.obj.unwrap()].contains(&a)
                && ctp.accesses[&ea.obj.unwrap()].contains(&b);
            if racy && (writes(ea.kind) || writes(eb.kind)) {
                found.races.insert((a.min(b), a.max(b)));
            }
        }
    }
}

/// Per event, the `atomic_begin` of the outermost atomic region it lies in.
fn regions(ctp: &Ctp) -> Vec<Option<Ev>> {
    let mut out = vec![None; ctp.trace.events.len()];
    for events in &ctp.threads {
        let (mut depth, mut open) = (0, None);
        for &e in events {
            match ctp.event(e).kind {
                EventKind::AtomicBegin => {
                    depth += 1;
                    open = open.or(Some(e));
                }
                EventKind::AtomicEnd => {
                    depth -= 1;
                    if depth == 0 {
                        open = None;
                    }
                }
                _ => out[e] = open,
            }
        }
    }
    out
}

fn access(ctp: &Ctp, e: Ev) -> Option<(u32, atomicity::Access)> {
    let ev = ctp.event(e);
    let a = atomicity::Access {
        reads: ev.read.is_some(),
        writes: ev.write.is_some(),
    };
    ev.obj.filter(|_| a.reads || a.writes).map(|o| (o, a))
}

/// The event thread `t` just ran (in `s`, before `n`) comes after every access of another
/// thread's atomic region to its object that already ran.
fn note_after(ctp: &Ctp, regions: &[Option<Ev>], s: &State, t: usize, n: &mut State) {
    let r = ctp.threads[t][s.pos[t]];
    let Some((obj, _)) = access(ctp, r) else {
        return;
    };
    for &c in &ctp.accesses[&obj] {
        if regions[c].is_some() && ctp.thread(c) != t && ran(ctp, s, c) {
            n.after.insert((c, r));
        }
    }
}

/// Every thread whose next event `c2` is an access in an atomic region: a remote access
/// that ran after an earlier access `c` of the same region to the same object.
fn atomicity_at(ctp: &Ctp, regions: &[Option<Ev>], s: &State, found: &mut Found) {
    for t in 0..ctp.threads.len() {
        let Some(c2) = next_event(ctp, s, t) else {
            continue;
        };
        let Some((obj, a2)) = access(ctp, c2).filter(|_| regions[c2].is_some()) else {
            continue;
        };
        for &(c, r) in &s.after {
            let (Some((oc, ac)), Some((_, ar))) = (access(ctp, c), access(ctp, r)) else {
                continue;
            };
            if regions[c] == regions[c2] && oc == obj && atomicity::unserializable(ac, ar, a2) {
                found.atomicity.insert((c, r, c2));
            }
        }
    }
}

fn writes(kind: EventKind) -> bool {
    matches!(kind, EventKind::Store | EventKind::SharedWrite)
}

/// Runs thread `t`'s next event, if it can run: every state it can lead to (a `notify_one`
/// with several waiters wakes any one of them).
fn step(ctp: &Ctp, s: &State, t: usize, found: &mut Found) -> Vec<State> {
    if s.waiting.contains_key(&t) {
        return Vec::new();
    }
    let Some(n) = run(ctp, s, t, found) else {
        return Vec::new();
    };
    let ev = ctp.event(ctp.threads[t][s.pos[t]]);
    let Some(obj) = ev.obj else { return vec![n] };
    use EventKind::*;
    match ev.kind {
        CondvarWait | QueueWait => {
            let mut n = n;
            n.waiting.insert(t, obj);
            vec![n]
        }
        NotifyAll | QueueNotifyAll => {
            let mut n = n;
            n.waiting.retain(|_, &mut o| o != obj);
            vec![n]
        }
        NotifyOne | QueueNotify => {
            let waiters: Vec<usize> = (n.waiting.iter())
                .filter(|&(_, &o)| o == obj)
                .map(|(&w, _)| w)
                .collect();
            if waiters.is_empty() {
                return vec![n];
            }
            let wake = |w: &usize| {
                let mut m = n.clone();
                m.waiting.remove(w);
                m
            };
            waiters.iter().map(wake).collect()
        }
        _ => vec![n],
    }
}

/// Runs thread `t`'s next event, if it can run, blocking aside.
fn run(ctp: &Ctp, s: &State, t: usize, found: &mut Found) -> Option<State> {
    let e = next_event(ctp, s, t)?;
    let ev = ctp.event(e);
    let mut n = s.clone();
    if ev.kind == EventKind::Join {
        let child = ev.child.expect("a join names its child");
        if n.pos[child] < ctp.threads[child].len() {
            return None;
        }
    }
    for rec in &ev.sync {
        let holders = n.holders.entry(rec.obj).or_default();
        match rec.op {
            SyncKind::Acquire => {
                if holders.iter().any(|&(_, sh)| !(sh && rec.shared)) {
                    return None;
                }
                holders.push((t, rec.shared));
            }
            SyncKind::Release => {
                let i = holders.iter().position(|&(h, _)| h == t)?;
                holders.remove(i);
            }
            SyncKind::TryAcquireFailed if holders.is_empty() => return None,
            _ => {}
        }
    }
    if let (Some(r), Some(obj)) = (ev.read, ev.obj) {
        n.reads.insert(r.var, n.mem[&obj]);
    }
    let exprs = &ctp.trace.exprs;
    if let Some(g) = ev.guard {
        if eval(exprs, g, &n.reads) != 1 {
            return None;
        }
    }
    if let (Some(w), Some(obj)) = (ev.write, ev.obj) {
        n.mem.insert(obj, eval(exprs, w.expr, &n.reads));
    }
    if let Some(a) = &ev.assert {
        if eval(exprs, a.cond, &n.reads) != 1 {
            found.assertions.insert(e);
            return None;
        }
    }
    n.pos[t] += 1;
    run_local(ctp, &mut n, t, found).then_some(n)
}

/// Thread-local code runs on right after the event before it, with no scheduling step: a
/// failing assertion there ends the execution (false), a flipped branch stops the thread.
fn run_local(ctp: &Ctp, n: &mut State, t: usize, found: &mut Found) -> bool {
    let exprs = &ctp.trace.exprs;
    while let Some(&e) = ctp.threads[t].get(n.pos[t]) {
        let ev = ctp.event(e);
        if !ctp.eager(e) || ev.guard.is_some_and(|g| eval(exprs, g, &n.reads) != 1) {
            break;
        }
        if let Some(a) = &ev.assert {
            if eval(exprs, a.cond, &n.reads) != 1 {
                found.assertions.insert(e);
                return false;
            }
        }
        n.pos[t] += 1;
    }
    true
}

/// The value of node `id` (bit pattern of its type) under the read values: the runtime's
/// reference semantics. The differential programs take no inputs.
fn eval(exprs: &[Expr], id: u32, reads: &BTreeMap<u32, u128>) -> u128 {
    symx::trace::eval(exprs, id, |_| None, |var| reads.get(&var).copied())
        .unwrap_or_else(|e| panic!("expression {id} of a differential program: {e}"))
}
