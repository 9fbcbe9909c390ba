//! Canonical traces: the form of an execution's observed steps under which two executions are
//! one Mazurkiewicz trace ([`canonical`] and its variants), and how to print them.

use super::*;

/// Whether two steps of an execution do not commute, by a relation at least as coarse as the
/// DPOR's (everything on one object except two loads, or two operations that only looked at
/// it, such as notifies that woke nobody), so that two executions with the same
/// canonical form are one Mazurkiewicz trace for the DPOR too.
///
/// The observed step does not show the mutex a condvar wait releases; that costs nothing,
/// because the order of a wait and another thread's use of that mutex is already fixed by the
/// order of the two threads' `lock`s of it, which is part of the relation.
pub fn dependent(a: &ObservedStep, b: &ObservedStep) -> bool {
    let looks = |s: &ObservedStep| s.op == "load" || s.op == "released" || s.only_looked;
    a.thread == b.thread || (a.obj.is_some() && a.obj == b.obj && !(looks(a) && looks(b)))
}

/// The lexicographically least linearisation (by thread id) of the trace's dependence partial
/// order: two executions are the same Mazurkiewicz trace exactly when their canonical forms
/// are equal.
///
/// The order is built from its covering edges only (a thread's previous step; on the step's
/// object the last step that did more than look, and, for one that does more, the looks since
/// that one), which have the same transitive closure as [`dependent`] and number at most
/// about twice the steps: the pairs of every dependent step took memory quadratic in the
/// length of the execution (gigabytes for the long executions that spurious wake-ups make).
///
/// The scheduler's fairness rule is modelled as the DPOR models it (its module doc): a thread
/// that yielded waits until another thread's step changes something, so a yield writes a
/// pseudo-object ([`FAIRNESS`]) that every step that changed something reads, the step that
/// let a thread go (`ObservedStep::let_go`) writes it too, and it comes before that thread's
/// next step. Without yields the object is only read, and orders nothing.
///
/// Changes made by code between two operations (`ObservedStep::touched`, `woke`) are left out:
/// see [`canonical_with_changes`].
pub fn canonical(trace: &[ObservedStep]) -> Vec<ObservedStep> {
    canonical_under(trace, true, false)
}

/// [`canonical`] with the changes made by code between two operations as steps of their own
/// ([`with_changes`]). Only for programs whose changed objects have the same id in every
/// execution (the runtime numbers an `Arc` at its first change, so `Family::Woken` reads each
/// one's count in main before any thread runs).
pub fn canonical_with_changes(trace: &[ObservedStep]) -> Vec<ObservedStep> {
    canonical_under(trace, true, true)
}

/// [`canonical`] without the fairness rule's object: the relation of the bounded reduction,
/// which leaves yields to its preemption points instead of modelling the rule.
pub fn canonical_ignoring_fairness(trace: &[ObservedStep]) -> Vec<ObservedStep> {
    canonical_under(trace, false, false)
}

/// The trace with every change made by code between two operations as a step of its own (see
/// [`canonical_under`]), each named by how it changed its object: `released` (an `Arc` reference
/// gone unseen, which commutes with its likes) or another `rt::op::Touch`'s name.
///
/// The runtime records a change once per step it is recorded on (`rt::op::Event::touched`,
/// `woke`), so a change a thread's code makes again before its next operation is recorded or
/// not depending on whether a step of another thread came between. It is left out here
/// whenever nothing of another thread's that conflicts with it came between, so that both
/// executions read the same.
pub(super) fn with_changes(trace: &[ObservedStep]) -> Vec<ObservedStep> {
    if trace
        .iter()
        .all(|s| s.touched.is_empty() && s.woke.is_empty())
    {
        return trace.to_vec();
    }
    let mut at = Vec::with_capacity(trace.len());
    let mut out: Vec<ObservedStep> = Vec::with_capacity(trace.len());
    // Per thread, where its code since its last operation made its changes (`out` positions).
    let mut since: HashMap<usize, Vec<usize>> = HashMap::new();
    for s in trace {
        at.push(out.len() as u32);
        since.remove(&s.thread);
        out.push(ObservedStep {
            touched: Vec::new(),
            woke: Vec::new(),
            ..s.clone()
        });
        for c in s.touched.iter().chain(&s.woke) {
            let unit = ObservedStep {
                thread: c.thread,
                op: c.how.to_string(),
                obj: Some(c.obj),
                only_looked: false,
                quiet: true,
                let_go: None,
                touched: Vec::new(),
                woke: Vec::new(),
            };
            let made = since.entry(c.thread).or_default();
            let again = made.iter().any(|&p| {
                out[p].op == unit.op
                    && out[p].obj == unit.obj
                    && !out[p + 1..]
                        .iter()
                        .any(|u| u.thread != c.thread && dependent(u, &unit))
            });
            if !again {
                made.push(out.len());
                out.push(unit);
            }
        }
    }
    for s in &mut out {
        s.let_go = s.let_go.map(|k| at[k as usize]);
    }
    out
}

/// [`canonical`], with the fairness rule's object if `fair`, and with `changes`, the changes
/// made by code between two operations.
///
/// Changes made by code between two operations are steps of their own, of the thread whose code
/// made them, where they ran ([`with_changes`]): a step's own right after it, and those of a
/// thread woken by a step (`ObservedStep::woke`) right after the waking step. So a change made
/// after a join compares equal whether the join waited (the change is then recorded on the
/// step that woke the thread) or not (on the thread's own last step): it comes after the
/// thread's last step and after the joined thread's steps either way. (A step and its own
/// changes stay next to each other in every execution, so splitting them orders nothing else.)
pub(super) fn canonical_under(
    trace: &[ObservedStep],
    fair: bool,
    changes: bool,
) -> Vec<ObservedStep> {
    let expanded = match changes {
        true => with_changes(trace),
        false => trace.to_vec(),
    };
    let trace = &expanded[..];
    let n = trace.len();
    let looks = |s: &ObservedStep| s.op == "load" || s.op == "released" || s.only_looked;
    let mut preds = vec![0usize; n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut edge = |i: usize, j: usize, preds: &mut Vec<usize>| {
        preds[j] += 1;
        succs[i].push(j);
    };
    let threads = trace.iter().map(|s| s.thread + 1).max().unwrap_or(0);
    let mut last_of_thread: Vec<Option<usize>> = vec![None; threads];
    // Per object: the last step that did more than look, and the looks since.
    let mut objects: HashMap<u32, (Option<usize>, Vec<usize>)> = HashMap::new();
    let wakers: std::collections::HashSet<usize> = trace
        .iter()
        .filter_map(|s| s.let_go.map(|k| k as usize))
        .collect();
    for (j, s) in trace.iter().enumerate() {
        if let Some(i) = last_of_thread[s.thread].replace(j) {
            edge(i, j, &mut preds);
        }
        // The step that let a thread that yielded run again comes before its next step.
        if let Some(k) = s.let_go.filter(|_| fair).map(|k| k as usize) {
            if trace[k].thread != s.thread {
                edge(k, j, &mut preds);
            }
        }
        // The scheduler's fairness rule, as an object (`FAIRNESS`): a yield writes it, a
        // step that changed something reads it.
        let fairness = if !fair {
            None
        } else if s.op == "yield" || wakers.contains(&j) {
            Some((FAIRNESS, false))
        } else {
            (!s.quiet).then_some((FAIRNESS, true))
        };
        let real = s.obj.map(|o| (o, looks(s)));
        for (o, looking) in real.into_iter().chain(fairness) {
            let (writer, readers) = objects.entry(o).or_default();
            // Same-thread pairs are ordered by the thread's chain already.
            let other = |i: usize| {
                trace[i].thread != s.thread && (o == FAIRNESS || dependent(&trace[i], s))
            };
            if let Some(w) = writer.filter(|&w| other(w)) {
                edge(w, j, &mut preds);
            }
            if looking {
                readers.push(j);
            } else {
                for r in readers.drain(..) {
                    if other(r) {
                        edge(r, j, &mut preds);
                    }
                }
                *writer = Some(j);
            }
        }
    }
    // Each thread's steps are a chain, so at most one ready step per thread (its next one):
    // taking the ready step of the least thread gives the least linearisation.
    let mut mine: Vec<std::collections::VecDeque<usize>> = vec![Default::default(); threads];
    for (k, s) in trace.iter().enumerate() {
        mine[s.thread].push_back(k);
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = (0..threads)
            .find(|&t| mine[t].front().is_some_and(|&k| preds[k] == 0))
            .expect("a partial order has a minimal element");
        let next = mine[t].pop_front().expect("found above");
        for &s in &succs[next] {
            preds[s] -= 1;
        }
        // Where the step that let it go stands differs between executions of one trace, and
        // so does the step a change is recorded on (its own, or the one that woke its thread).
        out.push(ObservedStep {
            let_go: None,
            touched: Vec::new(),
            woke: Vec::new(),
            ..trace[next].clone()
        });
    }
    out
}

/// The canonical form of the trace's steps other than its yields: the Mazurkiewicz trace of
/// what the threads did to memory, whatever the scheduler's fairness rule made them wait for.
///
/// Two executions can be different traces under [`canonical`] and yet this one trace: which
/// step let a thread that yielded run again (its `let_go`) is part of the former, and it can
/// be a step that changed nothing, when every other thread had given way too and a new round
/// started after whatever step came last. Thread 1 `[x.load()]` beside a thread spinning on
/// `x`: the load is the step that lets the spinner go when it runs after the spinner's
/// yield, and only the spinner's own yield is (a new round) when it runs first; nothing
/// either thread reads differs.
pub fn canonical_without_yields(trace: &[ObservedStep]) -> Vec<ObservedStep> {
    let real: Vec<ObservedStep> = trace.iter().filter(|s| s.op != "yield").cloned().collect();
    canonical_under(&real, false, false)
}

/// The pseudo-object of the scheduler's fairness rule in [`canonical`].
pub(super) const FAIRNESS: u32 = u32::MAX;

/// Renders a trace compactly: `thread:op@obj` per step.
pub fn show(trace: &[ObservedStep]) -> String {
    trace
        .iter()
        .map(|s| match s.obj {
            Some(o) => format!("{}:{}@{}", s.thread, s.op, o),
            None => format!("{}:{}", s.thread, s.op),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Counts how often each canonical form occurs.
pub fn tally(forms: &[Vec<ObservedStep>]) -> HashMap<&[ObservedStep], usize> {
    let mut m = HashMap::new();
    for f in forms {
        *m.entry(f.as_slice()).or_insert(0) += 1;
    }
    m
}
