//! Interpretation under symx: one execution of a [`Program`] ([`run`]), which creates its
//! objects, runs its threads' operations on symx's primitives and records the final state.

use super::*;

pub(super) struct World {
    atomics: Vec<AtomicI64>,
    mutexes: Vec<Mutex<i64>>,
    flag: Mutex<bool>,
    cv: Condvar,
    /// Main's references to the `Arc`s of `Family::Woken` and `Family::Branching` (none in the
    /// other families).
    arcs: Vec<symx::sync::Arc<i64>>,
}

/// How many `Arc`s a program of `Family::Woken` or `Family::Branching` has.
pub(super) const ARCS: usize = 2;

/// A thread's own references to the `Arc`s, each until the thread drops it.
pub(super) type Mine = Vec<Option<symx::sync::Arc<i64>>>;

thread_local! {
    // The final state of the execution that just ran. Model threads are coroutines on the
    // test's own OS thread, so a thread-local is visible to both sides.
    static FINAL: RefCell<Option<FinalState>> = const { RefCell::new(None) };
}

/// Takes the final state the last execution recorded (`None`: it did not get to the end).
pub fn take_final() -> Option<FinalState> {
    FINAL.with(|f| f.borrow_mut().take())
}

thread_local! {
    /// Whether [`run`] has main run the first thread's operations itself, after spawning the
    /// others (set by a test for its thread): main's first run then races with the threads.
    pub static MAIN_WORKS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The body of one execution of `p`: main creates and touches every object, spawns the
/// threads, joins them and records the final state.
pub fn run(p: &Program) {
    let w = Arc::new(World {
        atomics: (0..p.atomics).map(|_| AtomicI64::new(0)).collect(),
        mutexes: (0..p.mutexes).map(|_| Mutex::new(0)).collect(),
        flag: Mutex::new(false),
        cv: Condvar::new(),
        arcs: (0..if p.family.has_arcs() { ARCS } else { 0 })
            .map(|i| symx::sync::Arc::new(i as i64))
            .collect(),
    });
    // The runtime numbers objects by first use; touching them all here, in a fixed order and
    // before any thread exists, gives every object the same id in every execution, so that
    // traces of different executions can be compared by object id.
    let touch = p.family != Family::Untouched;
    for a in w.atomics.iter().filter(|_| touch) {
        a.load(SeqCst);
    }
    for m in w.mutexes.iter().filter(|_| touch) {
        drop(m.lock().unwrap());
    }
    if p.condvar && touch {
        drop(w.flag.lock().unwrap());
        w.cv.notify_all();
    }
    for a in &w.arcs {
        symx::sync::Arc::strong_count(a);
    }
    // With `MAIN_WORKS` set, main runs the first thread's operations itself, after spawning
    // the others: its first run then races with threads already running.
    let works = MAIN_WORKS.with(|m| m.get()) && !p.threads.is_empty();
    let spawned = &p.threads[usize::from(works)..];
    // All spawns happen in one invisible step of main, so thread ids do not depend on the
    // schedule.
    let handles: Vec<_> = spawned
        .iter()
        .map(|ops| {
            let (w, ops) = (w.clone(), ops.clone());
            // Cloned here, in main's code before any thread runs: a clone is no event.
            let mut mine: Mine = w.arcs.iter().map(|a| Some(a.clone())).collect();
            thread::spawn(move || {
                let mut seen = Vec::new();
                exec(&w, &ops, &mut seen, &mut mine);
                seen
            })
        })
        .collect();
    let mut counts = Vec::new();
    let mut own = Vec::new();
    if works {
        let mut mine: Mine = w.arcs.iter().map(|a| Some(a.clone())).collect();
        exec(&w, &p.threads[0], &mut own, &mut mine);
    }
    let observations = std::iter::once(own)
        .filter(|_| works)
        .chain(handles.into_iter().map(|h| {
            let seen = h.join().unwrap();
            // Right after a join that waited: code of no step of main's.
            counts.extend(w.arcs.iter().map(symx::sync::Arc::strong_count));
            seen
        }))
        .collect();
    let state = FinalState {
        atomics: w.atomics.iter().map(|a| a.load(SeqCst)).collect(),
        mutexes: w.mutexes.iter().map(|m| *m.lock().unwrap()).collect(),
        flag: p.condvar && *w.flag.lock().unwrap(),
        observations,
        counts,
    };
    FINAL.with(|f| *f.borrow_mut() = Some(state));
}

pub(super) fn exec(w: &Arc<World>, ops: &[Op], seen: &mut Vec<i64>, mine: &mut Mine) {
    for op in ops {
        match *op {
            Op::Atomic(a) => seen.push(atomic(w, a)),
            Op::Locked {
                mutex,
                add,
                ref body,
            } => {
                let mut g = w.mutexes[mutex].lock().unwrap();
                seen.push(*g);
                *g = *g * 3 + add;
                exec(w, body, seen, mine);
                drop(g);
            }
            Op::TryLocked {
                mutex,
                add,
                ref body,
            } => match w.mutexes[mutex].try_lock() {
                Ok(mut g) => {
                    seen.push(*g);
                    *g = *g * 3 + add;
                    exec(w, body, seen, mine);
                    drop(g);
                }
                Err(_) => seen.push(-1),
            },
            Op::Signal { all, inside } => {
                let mut g = w.flag.lock().unwrap();
                *g = true;
                let notify = || {
                    if all {
                        w.cv.notify_all()
                    } else {
                        w.cv.notify_one()
                    }
                };
                if inside {
                    notify();
                    drop(g);
                } else {
                    drop(g);
                    notify();
                }
            }
            Op::WaitWhile => {
                let g = w.flag.lock().unwrap();
                drop(w.cv.wait_while(g, |set| !*set).unwrap());
            }
            Op::WaitIf => {
                let mut g = w.flag.lock().unwrap();
                if !*g {
                    g = w.cv.wait(g).unwrap();
                }
                seen.push(*g as i64);
            }
            Op::WaitIfRacy => {
                let set = *w.flag.lock().unwrap();
                if !set {
                    let g = w.flag.lock().unwrap();
                    drop(w.cv.wait(g).unwrap());
                }
            }
            Op::Assert { atomic, value } => {
                let v = w.atomics[atomic].load(SeqCst);
                assert_ne!(v, value, "atomic {atomic} holds {value}");
            }
            Op::Yield => thread::yield_now(),
            Op::Spin { atomic, value } | Op::Retry { atomic, value } => {
                for _ in 0..2 {
                    let v = w.atomics[atomic].load(SeqCst);
                    seen.push(v);
                    if v == value {
                        break;
                    }
                    if matches!(op, Op::Spin { .. }) {
                        thread::yield_now();
                    }
                }
            }
            Op::Count { arc } => {
                seen.push(symx::sync::Arc::strong_count(&w.arcs[arc]) as i64);
            }
            Op::Release { arc } => drop(mine.get_mut(arc).and_then(Option::take)),
            Op::Await { atomic, value } => {
                let v = w.atomics[atomic].load(SeqCst);
                seen.push(v);
                symx::assume(v != value);
            }
            Op::Branch {
                read,
                value,
                ref then,
                ref otherwise,
            } => {
                let arm = |v: i64| if v == value { then } else { otherwise };
                match read {
                    Read::Atomic(a) => {
                        let v = atomic(w, a);
                        seen.push(v);
                        exec(w, arm(v), seen, mine);
                    }
                    Read::Guard { mutex, add } => {
                        let mut g = w.mutexes[mutex].lock().unwrap();
                        let v = *g;
                        seen.push(v);
                        *g = v * 3 + add;
                        exec(w, arm(v), seen, mine);
                        drop(g);
                    }
                }
            }
            Op::SpawnJoin {
                ref child,
                ref between,
            } => {
                let (w2, child) = (w.clone(), child.clone());
                let h = thread::spawn(move || {
                    let mut seen = Vec::new();
                    exec(&w2, &child, &mut seen, &mut Vec::new());
                    seen
                });
                exec(w, between, seen, mine);
                seen.extend(h.join().unwrap());
            }
        }
    }
}

pub(super) fn atomic(w: &World, op: AtomicOp) -> i64 {
    match op {
        AtomicOp::Load(a) => w.atomics[a].load(SeqCst),
        AtomicOp::Store(a, v) => {
            w.atomics[a].store(v, SeqCst);
            v
        }
        AtomicOp::FetchAdd(a, v) => w.atomics[a].fetch_add(v, SeqCst),
        AtomicOp::Cas(a, expected, new) => {
            match w.atomics[a].compare_exchange(expected, new, SeqCst, SeqCst) {
                Ok(v) => v,
                // Distinguishes a failure from a success that read the same value.
                Err(v) => 100 + v,
            }
        }
        AtomicOp::Swap(a, v) => w.atomics[a].swap(v, SeqCst),
    }
}
