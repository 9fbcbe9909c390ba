//! The paper's global symbolic wait queue: one FIFO of (queue name, thread) for every waiter
//! of every context object, where a queue name is an object class (a pool), the queue's
//! purpose (a lock's, a condvar's, a barrier's) and a symbolic identity in the class. Names of
//! different classes or purposes never match (the "pruned by type" of the paper); names of
//! one class match when their identities are equal, which the solver decides.
//!
//! `notify_one(p)` has the outcomes "wake waiter i" under `p_1 != p ∧ … ∧ p_(i-1) != p ∧
//! p_i == p` and "wake nobody" under every `p_i != p` (at most `|WQ| + 1`); initial waiters
//! of unknown order come first, ordered by symbolic timestamps `x_i < 0` (waiter i is woken
//! under `p_i == p ∧ ⋀_k (p_k == p ⇒ x_i < x_k)`), so their order is the solver's, not a fork
//! per permutation. `notify_all(p)` has one outcome per subset of the waiters. The run takes
//! the outcome its concrete values satisfy and records the others' conditions.

use std::cell::RefCell;
use std::panic::Location;

use crate::rt::{self, ObjId, Wait};
use crate::sym::record;
use crate::sym::Sym;

/// What a queue is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    Lock,
    Condvar,
    Barrier,
    Join,
    RwLock,
}

/// A queue's name: the class (the pool's object), the purpose, the identity in the class.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Name {
    pub class: ObjId,
    pub purpose: Purpose,
    pub id: Sym<usize>,
}

impl Name {
    fn same_queue_kind(&self, other: &Name) -> bool {
        self.class == other.class && self.purpose == other.purpose
    }
}

/// One waiter.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    thread: usize,
    name: Name,
    /// An initial waiter's symbolic timestamp (`< 0`); `None` for waits during exploration.
    stamp: Option<Sym<i64>>,
}

/// The queue of the current execution (model threads are coroutines on one OS thread).
#[derive(Default)]
struct Queue {
    generation: u32,
    waiters: Vec<Waiter>,
}

thread_local! {
    static QUEUE: RefCell<Queue> = RefCell::new(Queue::default());
}

fn with_queue<R>(f: impl FnOnce(&mut Vec<Waiter>) -> R) -> R {
    let generation = rt::with(|e| e.objects.generation).unwrap_or(0);
    QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        if q.generation != generation {
            q.generation = generation;
            q.waiters.clear();
        }
        f(&mut q.waiters)
    })
}

/// The runtime's wait key of a context waiter: one per thread, in a range no object's
/// address reaches (the runtime's own thread keys are at the very top).
fn wait_key(thread: usize) -> usize {
    usize::MAX / 2 + thread
}

/// Appends `thread` to the queue under `name` without blocking it (an initial waiter put
/// there when the context is set up, or the current thread just before it blocks).
pub(crate) fn enqueue(thread: usize, name: Name, stamp: Option<Sym<i64>>) {
    with_queue(|w| {
        w.push(Waiter {
            thread,
            name,
            stamp,
        })
    });
}

/// The timestamps of the initial waiters queued so far.
pub(crate) fn initial_stamps() -> Vec<Sym<i64>> {
    with_queue(|w| w.iter().filter_map(|x| x.stamp).collect())
}

/// The runtime's wait entry of a context waiter.
pub(crate) fn wait_entry(
    thread: usize,
    obj: ObjId,
    what: &'static str,
    location: &'static Location<'static>,
) -> Wait {
    Wait {
        key: wait_key(thread),
        obj,
        wake: None,
        spurious: false,
        timeout: false,
        location,
        what,
    }
}

/// Blocks the current thread on `name` until a notify wakes it.
pub(crate) fn wait(name: Name, what: &'static str, location: &'static Location<'static>) {
    let Some(me) = rt::current_thread() else {
        panic!("symx::context objects are used inside a symx model only");
    };
    enqueue(me, name, None);
    rt::wait(wait_entry(me, name.class, what, location));
}

/// The waiters that may be on `name`'s queue, in FIFO order with initial waiters first.
fn candidates(name: &Name) -> Vec<Waiter> {
    with_queue(|w| {
        let mut c: Vec<Waiter> = w
            .iter()
            .filter(|x| x.name.same_queue_kind(name))
            .copied()
            .collect();
        c.sort_by_key(|x| x.stamp.is_none());
        c
    })
}

/// Wakes one waiter of `name`'s queue, if any: the outcome the concrete values take, recorded
/// with the others' conditions. Returns the woken thread.
pub(crate) fn notify_one(name: Name, location: &'static Location<'static>) -> Option<usize> {
    let c = candidates(&name);
    let p = name.id;
    let matches: Vec<Sym<bool>> = c.iter().map(|w| w.name.id.sym_eq(p)).collect();
    let initial: Vec<usize> = (0..c.len()).filter(|&i| c[i].stamp.is_some()).collect();
    let mut outcomes: Vec<(Sym<bool>, Option<usize>)> = Vec::new();
    for &i in &initial {
        let xi = c[i].stamp.expect("an initial waiter");
        let mut cond = matches[i];
        for &k in initial.iter().filter(|&&k| k != i) {
            let xk = c[k].stamp.expect("an initial waiter");
            cond &= !matches[k] | xi.sym_lt(xk);
        }
        outcomes.push((cond, Some(i)));
    }
    let mut none_before = initial
        .iter()
        .fold(Sym::constant(true), |acc, &k| acc & !matches[k]);
    for i in (0..c.len()).filter(|&i| c[i].stamp.is_none()) {
        outcomes.push((none_before & matches[i], Some(i)));
        none_before &= !matches[i];
    }
    outcomes.push((none_before, None));
    let woken = decide(outcomes, |o| describe(o.map(|i| c[i].thread)), location);
    woken.map(|i| {
        wake(c[i].thread);
        c[i].thread
    })
}

/// Wakes every waiter of `name`'s queue whose identity is `name`'s: one outcome per subset of
/// the candidates. Returns the woken threads.
pub(crate) fn notify_all(name: Name, location: &'static Location<'static>) -> Vec<usize> {
    let c = candidates(&name);
    assert!(
        c.len() <= 16,
        "symx::context: notify_all over more than 16 possible waiters"
    );
    let matches: Vec<Sym<bool>> = c.iter().map(|w| w.name.id.sym_eq(name.id)).collect();
    let outcomes: Vec<(Sym<bool>, u32)> = (0..1u32 << c.len())
        .map(|set| {
            let cond = (0..c.len()).fold(Sym::constant(true), |acc, i| {
                acc & if set & (1 << i) != 0 {
                    matches[i]
                } else {
                    !matches[i]
                }
            });
            (cond, set)
        })
        .collect();
    let set = decide(
        outcomes,
        |set| {
            let woken: Vec<String> = (0..c.len())
                .filter(|i| set & (1 << i) != 0)
                .map(|i| c[i].thread.to_string())
                .collect();
            format!("wake {{{}}}", woken.join(", "))
        },
        location,
    );
    let woken: Vec<usize> = (0..c.len())
        .filter(|i| set & (1 << i) != 0)
        .map(|i| c[i].thread)
        .collect();
    for &t in &woken {
        wake(t);
    }
    woken
}

/// Number of waiters on queues of `name`'s kind whose identity may be / must be `name`'s:
/// the bounds `L ≤ |queue| ≤ H` of the paper's queue-size invariant, judged syntactically
/// (must: the same identity expression or equal constants; may: any of the class).
pub(crate) fn bounds(name: &Name) -> (usize, usize) {
    let c = candidates(name);
    let must = c
        .iter()
        .filter(|w| {
            let (a, b) = (w.name.id, name.id);
            (!a.is_symbolic() && !b.is_symbolic() && a.peek() == b.peek()) || a.same_expr(&b)
        })
        .count();
    (must, c.len())
}

/// Takes the outcome whose condition holds in this run and records the others' conditions
/// (outcomes whose condition is constantly false are no outcomes). Returns its value.
pub(crate) fn decide<T: Copy>(
    outcomes: Vec<(Sym<bool>, T)>,
    describe: impl Fn(T) -> String,
    location: &'static Location<'static>,
) -> T {
    let live: Vec<(Sym<bool>, T)> = outcomes
        .into_iter()
        .filter(|(c, _)| c.is_symbolic() || c.peek())
        .collect();
    let taken = live
        .iter()
        .position(|(c, _)| c.peek())
        .expect("exactly one outcome holds");
    let others: Vec<Sym<bool>> = (live.iter().enumerate())
        .filter(|&(i, _)| i != taken)
        .map(|(_, (c, _))| *c)
        .collect();
    let (cond, value) = live[taken];
    if !others.is_empty() {
        record::choice(cond, describe(value), &others, location);
    }
    value
}

fn describe(woken: Option<usize>) -> String {
    match woken {
        Some(t) => format!("wake thread {t}"),
        None => "wake nobody".to_string(),
    }
}

/// Takes `thread` out of the queue and lets it run on.
fn wake(thread: usize) {
    with_queue(|w| w.retain(|x| x.thread != thread));
    rt::with(|e| rt::switch::wake(e, thread));
}
