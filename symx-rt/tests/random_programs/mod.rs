//! Small random concurrent programs as data, their generator, their interpreter under symx,
//! and the canonical form of an execution's trace, for the differential test of the DPOR
//! against the unreduced DFS (`tests/dpor_vs_dfs.rs`).
//!
//! A [`Program`] is 2–3 threads spawned by main (one of them may spawn and join a further
//! thread), each a short list of [`Op`]s on up to two atomics, up to two mutexes (critical
//! sections that may nest) and an optional condvar with its `Mutex<bool>` flag. Programs are
//! generated from a seed by [`generate`], so every program is reproducible from its seed alone.
//!
//! Programs come in [`Family`]s that decide which failures are possible, so that the failure
//! kind the two strategies report can be compared: a program that may fail in two different
//! ways could legitimately be reported with either, depending on which execution comes first.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use symx::__private::ObservedStep;
use symx::sync::atomic::{AtomicI64, Ordering::SeqCst};
use symx::sync::{Condvar, Mutex};
use symx::thread;
use symx_test_programs::rng::SplitMix64;

/// Which failures a program may have; fixed before it is generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Atomics only, no failure possible: the case where the test's dependence relation is
    /// literally the DPOR's (loads commute, everything else on one atomic conflicts).
    AtomicsOnly,
    /// Locks nest only in index order and condvar waiters always have a signaller that never
    /// waits: no execution can fail, so every program compares complete state sets.
    NoFail,
    /// Like `NoFail`, plus assertions on atomics: the only possible failure is a panic.
    Asserting,
    /// Locks nest in any order, condvar ops may sit inside critical sections, and a waiter may
    /// check the flag outside the lock (lost wake-up): the only possible failure is a deadlock.
    Deadlocky,
    /// Like `NoFail`, plus bounded waits: `symx::assume` on a value just loaded, which blocks
    /// its thread for good when it does not hold (GenMC's `assume`); executions where one
    /// blocks are discarded, and no failure is possible.
    Awaiting,
    /// Like `AtomicsOnly`, plus yields and short spins (an atomic loaded until it holds a
    /// value, yielding between, at most twice): the scheduler's fairness rule makes a thread
    /// that yielded give way to the others until one of them changes something. Not in
    /// [`Family::ALL`]: compared by its own test.
    Yielding,
    /// Like `NoFail`, plus retries without yields (an atomic loaded until it holds a value, at
    /// most twice), and main touches no object before the threads start: each object is used
    /// first by whichever thread the schedule runs first, at an index that the retries and
    /// failed `try_lock`s shift. The reductions name objects by the event that uses them
    /// first, so this checks that names stay consistent from one branch to the next. Object
    /// ids differ between executions of one trace here, so traces are not compared by id (see
    /// `dpor_vs_dfs.rs`). Not in [`Family::ALL`].
    Untouched,
    /// Like `NoFail` without the condvar, plus `symx::sync::Arc`s: a thread reads an `Arc`'s
    /// count or drops its reference (each top-level thread holds one of every `Arc`, dropped at
    /// its end if not before), and main reads the counts after each join. Nested threads are
    /// more frequent: code after a join that waited belongs to no step, and what it changes
    /// (a count read, a reference dropped) is recorded on the step that woke the thread
    /// (`rt::op::Event::woke`), as is the drop of a thread's references when it ends right
    /// after such a join. Not in [`Family::ALL`].
    Woken,
    /// Like `Woken`, plus branches on a value just read ([`Op::Branch`]: a load's, a swap's, a
    /// `fetch_add`'s, whether a compare-exchange succeeded, or a lock's guarded value), whose
    /// arms drop references, read counts or store: the code after an operation changes other
    /// objects depending on what the operation returned, which a reversal that moves the
    /// operation may change. Not in [`Family::ALL`].
    Branching,
}

impl Family {
    pub const ALL: [Family; 5] = [
        Family::AtomicsOnly,
        Family::NoFail,
        Family::Asserting,
        Family::Deadlocky,
        Family::Awaiting,
    ];

    /// Whether its programs have `Arc`s (read after every join by main, held by every
    /// top-level thread): their changes are made by the code between two operations.
    pub fn has_arcs(self) -> bool {
        matches!(self, Family::Woken | Family::Branching)
    }
}

/// One operation on an atomic (all `SeqCst`); the value it returns is observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Load(usize),
    Store(usize, i64),
    FetchAdd(usize, i64),
    /// compare_exchange(expected, new)
    Cas(usize, i64, i64),
    Swap(usize, i64),
}

/// What an [`Op::Branch`] reads and branches on; the value read is observed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// An atomic operation's result as [`AtomicOp`]s observe it (a failed compare-exchange
    /// reads `100 + v`).
    Atomic(AtomicOp),
    /// `let mut g = mutexes[mutex].lock(); let v = *g; *g = v * 3 + add`: the arms run inside
    /// the critical section, which ends after them.
    Guard { mutex: usize, add: i64 },
}

/// One step of a thread's program. Every value a thread reads is appended to its
/// observations, which are part of the final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Atomic(AtomicOp),
    /// `let mut g = mutexes[mutex].lock(); *g = *g * 3 + add; body; drop(g)`: the mutex's
    /// value records the order of its critical sections.
    Locked {
        mutex: usize,
        add: i64,
        body: Vec<Op>,
    },
    /// As `Locked` when `try_lock` succeeds; otherwise the body is skipped.
    TryLocked {
        mutex: usize,
        add: i64,
        body: Vec<Op>,
    },
    /// Sets the flag under its mutex and notifies, inside the critical section or after it.
    Signal {
        all: bool,
        inside: bool,
    },
    /// `wait_while(guard, |flag| !*flag)`.
    WaitWhile,
    /// `if !*guard { guard = cv.wait(guard) }` under one critical section: correct, because
    /// spurious wake-ups are off.
    WaitIf,
    /// Reads the flag in one critical section and waits in a second one: a lost wake-up when
    /// the signal falls in between.
    WaitIfRacy,
    /// `assert_ne!(atomics[atomic].load(), value)`.
    Assert {
        atomic: usize,
        value: i64,
    },
    /// `let v = atomics[atomic].load(); symx::assume(v != value)`: the thread waits for good
    /// when the atomic holds `value`.
    Await {
        atomic: usize,
        value: i64,
    },
    /// `thread::yield_now()`.
    Yield,
    /// `for _ in 0..2 { if atomics[atomic].load() == value { break } thread::yield_now() }`.
    Spin {
        atomic: usize,
        value: i64,
    },
    /// `for _ in 0..2 { if atomics[atomic].load() == value { break } }`: no yield.
    Retry {
        atomic: usize,
        value: i64,
    },
    /// `Arc::strong_count(&arcs[arc])`: a read of the count (`Family::Woken`).
    Count {
        arc: usize,
    },
    /// Drops the thread's reference to `arcs[arc]`, if it still holds it (`Family::Woken`;
    /// a nested thread holds none).
    Release {
        arc: usize,
    },
    /// `if read == value { then } else { otherwise }` (`Family::Branching`): the arms are the
    /// code after the read's operation, up to their own first operation if any.
    Branch {
        read: Read,
        value: i64,
        then: Vec<Op>,
        otherwise: Vec<Op>,
    },
    /// Spawns a thread running `child`, runs `between`, joins the child.
    SpawnJoin {
        child: Vec<Op>,
        between: Vec<Op>,
    },
}

/// A whole program: what main creates, then the threads it spawns and joins.
#[derive(Clone, PartialEq, Eq)]
pub struct Program {
    pub family: Family,
    pub atomics: usize,
    pub mutexes: usize,
    pub condvar: bool,
    pub threads: Vec<Vec<Op>>,
}

impl fmt::Debug for Program {
    // One thread per line: programs are printed on failure and must be readable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Program {{ family: {:?}, atomics: {}, mutexes: {}, condvar: {},",
            self.family, self.atomics, self.mutexes, self.condvar
        )?;
        for (i, t) in self.threads.iter().enumerate() {
            writeln!(f, "  thread {}: {:?}", i + 1, t)?;
        }
        write!(f, "}}")
    }
}

/// What one complete execution ends with: read by main after every join.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FinalState {
    pub atomics: Vec<i64>,
    pub mutexes: Vec<i64>,
    pub flag: bool,
    /// Per spawned thread (a nested child's after its parent's own), the values it read.
    pub observations: Vec<Vec<i64>>,
    /// The counts of the `Arc`s (`Family::Woken`) main read after each join.
    pub counts: Vec<usize>,
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

/// What a top-level thread (with its child) may do with the condvar.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    None,
    /// Signals and never waits: guarantees progress of the waiters in the no-fail families.
    Signaller,
    /// Waits (only in the no-fail-safe ways) and may also signal.
    Waiter,
    /// Anything (`Deadlocky`).
    Any,
}

struct Gen<'a> {
    rng: &'a mut SplitMix64,
    family: Family,
    atomics: usize,
    mutexes: usize,
    condvar: bool,
    role: Role,
}

impl Gen<'_> {
    fn atomic_op(&mut self) -> AtomicOp {
        let a = self.rng.range(0, self.atomics - 1);
        match self.rng.range(0, 4) {
            0 => AtomicOp::Load(a),
            1 => AtomicOp::Store(a, self.rng.range_i64(1, 2)),
            2 => AtomicOp::FetchAdd(a, self.rng.range_i64(1, 2)),
            3 => AtomicOp::Cas(a, self.rng.range_i64(0, 2), self.rng.range_i64(1, 3)),
            _ => AtomicOp::Swap(a, self.rng.range_i64(1, 3)),
        }
    }

    /// A mutex this thread may block on while holding `held`, if any.
    fn lockable(&mut self, held: &[usize]) -> Option<usize> {
        let free: Vec<usize> = (0..self.mutexes).filter(|m| !held.contains(m)).collect();
        let candidates: Vec<usize> = if self.family == Family::Deadlocky {
            // Any order (lock-order inversions), and now and then a self-deadlock.
            if !held.is_empty() && self.rng.chance(1, 12) {
                held.to_vec()
            } else {
                free
            }
        } else {
            // One global lock order: only mutexes above every held one.
            let top = held.iter().max().map_or(0, |&m| m + 1);
            (top..self.mutexes).collect()
        };
        (!candidates.is_empty()).then(|| candidates[self.rng.range(0, candidates.len() - 1)])
    }

    fn condvar_op(&mut self, at_top: bool) -> Option<Op> {
        let signal = Op::Signal {
            all: self.rng.chance(1, 2),
            inside: self.rng.chance(1, 2),
        };
        match self.role {
            Role::None => None,
            Role::Signaller => Some(signal),
            Role::Waiter if !at_top => None,
            Role::Waiter => Some(match self.rng.range(0, 3) {
                0 => signal,
                1 => Op::WaitIf,
                _ => Op::WaitWhile,
            }),
            Role::Any => Some(match self.rng.range(0, 3) {
                0 => signal,
                1 => Op::WaitIf,
                2 => Op::WaitIfRacy,
                _ => Op::WaitWhile,
            }),
        }
    }

    /// One operation; `held` are the mutexes held around it (innermost last).
    fn op(&mut self, held: &[usize]) -> Op {
        let at_top = held.is_empty();
        loop {
            match self.rng.range(0, 11) {
                0..=4 => return Op::Atomic(self.atomic_op()),
                5..=7 if held.len() < 2 => {
                    if let Some(mutex) = self.lockable(held) {
                        return self.section(held, mutex, false);
                    }
                }
                8 if held.len() < 2 && self.mutexes > 0 => {
                    // try_lock never blocks, so any mutex will do, even a held one.
                    let mutex = self.rng.range(0, self.mutexes - 1);
                    return self.section(held, mutex, true);
                }
                9 | 10 if self.condvar => {
                    // Waiting inside another critical section can block the signaller.
                    let ok_here = at_top || self.family == Family::Deadlocky;
                    if let Some(op) = ok_here.then(|| self.condvar_op(at_top)).flatten() {
                        return op;
                    }
                }
                11 if self.family == Family::Asserting => {
                    return Op::Assert {
                        atomic: self.rng.range(0, self.atomics - 1),
                        value: self.rng.range_i64(1, 3),
                    }
                }
                11 if self.family == Family::Yielding => {
                    return match self.rng.range(0, 1) {
                        0 => Op::Yield,
                        _ => Op::Spin {
                            atomic: self.rng.range(0, self.atomics - 1),
                            value: self.rng.range_i64(1, 2),
                        },
                    };
                }
                11 if self.family == Family::Untouched => {
                    return Op::Retry {
                        atomic: self.rng.range(0, self.atomics - 1),
                        value: self.rng.range_i64(1, 2),
                    }
                }
                9 | 10 if self.family == Family::Branching => return self.branch(held),
                9..=11 if self.family.has_arcs() => {
                    let arc = self.rng.range(0, ARCS - 1);
                    return match self.rng.range(0, 1) {
                        0 => Op::Count { arc },
                        _ => Op::Release { arc },
                    };
                }
                11 if self.family == Family::Awaiting => {
                    return Op::Await {
                        atomic: self.rng.range(0, self.atomics - 1),
                        value: self.rng.range_i64(0, 2),
                    }
                }
                _ => {}
            }
        }
    }

    /// A branch on a value read (`Family::Branching`); `held` as for [`Gen::op`].
    fn branch(&mut self, held: &[usize]) -> Op {
        let guard = self.mutexes > 0 && held.len() < 2 && self.rng.chance(1, 4);
        let read = match guard.then(|| self.lockable(held)).flatten() {
            Some(mutex) => Read::Guard {
                mutex,
                add: self.rng.range_i64(1, 2),
            },
            // A store's result is its argument: nothing to branch on.
            None => match self.atomic_op() {
                AtomicOp::Store(a, _) => Read::Atomic(AtomicOp::Load(a)),
                op => Read::Atomic(op),
            },
        };
        let value = match read {
            // Whether it succeeded.
            Read::Atomic(AtomicOp::Cas(_, expected, _)) => expected,
            _ => self.rng.range_i64(0, 2),
        };
        let then = self.arm();
        let mut otherwise = self.arm();
        if then.is_empty() && otherwise.is_empty() {
            otherwise.push(self.arm_op());
        }
        Op::Branch {
            read,
            value,
            then,
            otherwise,
        }
    }

    /// An arm of a branch: up to two drops, count reads or atomic changes.
    fn arm(&mut self) -> Vec<Op> {
        let n = self.rng.range(0, 2);
        (0..n).map(|_| self.arm_op()).collect()
    }

    fn arm_op(&mut self) -> Op {
        let arc = self.rng.range(0, ARCS - 1);
        match self.rng.range(0, 9) {
            0..=3 => Op::Release { arc },
            4..=6 => Op::Count { arc },
            _ => {
                let a = self.rng.range(0, self.atomics - 1);
                match self.rng.range(0, 1) {
                    0 => Op::Atomic(AtomicOp::Store(a, self.rng.range_i64(1, 2))),
                    _ => Op::Atomic(AtomicOp::FetchAdd(a, self.rng.range_i64(1, 2))),
                }
            }
        }
    }

    fn section(&mut self, held: &[usize], mutex: usize, try_lock: bool) -> Op {
        let mut inner_held = held.to_vec();
        inner_held.push(mutex);
        let n = self.rng.range(0, 2);
        let body = (0..n).map(|_| self.op(&inner_held)).collect();
        let add = self.rng.range_i64(1, 2);
        if try_lock {
            Op::TryLocked { mutex, add, body }
        } else {
            Op::Locked { mutex, add, body }
        }
    }

    fn ops(&mut self, lo: usize, hi: usize) -> Vec<Op> {
        let n = self.rng.range(lo, hi);
        (0..n).map(|_| self.op(&[])).collect()
    }
}

/// The program for `seed`, with about at most `max_interleavings` interleavings of its
/// threads' steps (an upper bound, see [`interleavings_bound`]): the DFS must enumerate them
/// all, so this keeps the run time in check. Programs over the bound are redrawn from the
/// same generator, so the result is still a function of the seed.
pub fn generate(seed: u64, family: Family, max_interleavings: f64) -> Program {
    let mut rng = SplitMix64::new(seed);
    loop {
        let p = draw(&mut rng, family);
        if interleavings_bound(&p) <= max_interleavings {
            return p;
        }
    }
}

fn draw(rng: &mut SplitMix64, family: Family) -> Program {
    let atomics = rng.range(1, 2);
    let (mutexes, condvar) = match family {
        Family::AtomicsOnly => (0, false),
        // At most one mutex: a yield inside a critical section, no deadlock.
        Family::Yielding => (rng.range(0, 1), false),
        Family::Woken | Family::Branching => (rng.range(0, 1), false),
        _ => (rng.range(0, 2), rng.chance(2, 5)),
    };
    let n = rng.range(2, 3);
    let nests = if family.has_arcs() { (2, 3) } else { (1, 3) };
    let spawner = rng.chance(nests.0, nests.1).then(|| rng.range(0, n - 1));
    // Condvar roles: in the no-fail families one signaller that never waits, so every waiter
    // is eventually woken (the flag, once set, stays set).
    let signaller = rng.range(0, n - 1);
    let mut threads = Vec::new();
    for t in 0..n {
        let role = match (condvar, family) {
            (false, _) => Role::None,
            (true, Family::Deadlocky) => Role::Any,
            (true, _) if t == signaller => Role::Signaller,
            (true, _) => Role::Waiter,
        };
        let mut g = Gen {
            rng: &mut *rng,
            family,
            atomics,
            mutexes,
            condvar,
            role,
        };
        let mut ops = g.ops(1, 4);
        if role == Role::Signaller && !ops.iter().any(|op| matches!(op, Op::Signal { .. })) {
            let at = g.rng.range(0, ops.len());
            let signal = Op::Signal {
                all: g.rng.chance(1, 2),
                inside: g.rng.chance(1, 2),
            };
            ops.insert(at, signal);
        }
        if spawner == Some(t) {
            let child = g.ops(1, 2);
            let between = g.ops(0, 1);
            let at = g.rng.range(0, ops.len());
            ops.insert(at, Op::SpawnJoin { child, between });
        }
        threads.push(ops);
    }
    let mut p = Program {
        family,
        atomics,
        mutexes,
        condvar,
        threads,
    };
    // With two threads waiting, `notify_one` makes the runtime choose which one wakes, and the
    // two choices leave traces that differ only in who woke whom, which the observed steps do
    // not show. With one waiting thread there is no choice; otherwise notify everybody.
    if waiting_threads(&p) > 1 {
        for t in &mut p.threads {
            notify_all(t);
        }
    }
    p
}

fn waits(ops: &[Op]) -> bool {
    ops.iter().any(|op| match op {
        Op::WaitWhile | Op::WaitIf | Op::WaitIfRacy => true,
        Op::Locked { body, .. } | Op::TryLocked { body, .. } => waits(body),
        // The child is a thread of its own, counted separately.
        Op::SpawnJoin { between, .. } => waits(between),
        _ => false,
    })
}

fn children(ops: &[Op]) -> Vec<&[Op]> {
    let mut out = Vec::new();
    for op in ops {
        match op {
            Op::SpawnJoin { child, between } => {
                out.push(child.as_slice());
                out.extend(children(child));
                out.extend(children(between));
            }
            Op::Locked { body, .. } | Op::TryLocked { body, .. } => out.extend(children(body)),
            _ => {}
        }
    }
    out
}

/// Every model thread's own operations (a child's are not its parent's).
fn all_threads(p: &Program) -> Vec<&[Op]> {
    let mut out = Vec::new();
    for t in &p.threads {
        out.push(t.as_slice());
        out.extend(children(t));
    }
    out
}

fn waiting_threads(p: &Program) -> usize {
    all_threads(p).into_iter().filter(|t| waits(t)).count()
}

fn notify_all(ops: &mut [Op]) {
    for op in ops {
        match op {
            Op::Signal { all, .. } => *all = true,
            Op::Locked { body, .. } | Op::TryLocked { body, .. } => notify_all(body),
            Op::SpawnJoin { child, between } => {
                notify_all(child);
                notify_all(between);
            }
            _ => {}
        }
    }
}

/// The most visible steps one run of `ops` can take (a child's are not counted).
fn max_steps(ops: &[Op]) -> u32 {
    ops.iter()
        .map(|op| match op {
            Op::Atomic(_) | Op::Assert { .. } | Op::Await { .. } | Op::Yield => 1,
            // No step of its own: a change in the code after the last one.
            Op::Count { .. } | Op::Release { .. } => 0,
            // load, yield, load, yield
            Op::Spin { .. } => 4,
            Op::Retry { .. } => 2,
            Op::Locked { body, .. } => 2 + max_steps(body),
            Op::TryLocked { body, .. } => 2 + max_steps(body),
            // lock, unlock, notify
            Op::Signal { .. } => 3,
            // lock, wait, re-lock, unlock
            Op::WaitWhile | Op::WaitIf => 4,
            Op::WaitIfRacy => 6,
            Op::SpawnJoin { between, .. } => max_steps(between),
            Op::Branch {
                read,
                then,
                otherwise,
                ..
            } => {
                let read = if matches!(read, Read::Guard { .. }) {
                    2
                } else {
                    1
                };
                read + max_steps(then).max(max_steps(otherwise))
            }
        })
        .sum()
}

/// An upper bound on the number of interleavings: the multinomial coefficient of the threads'
/// maximal step counts (main's steps come before the spawns and after the joins).
pub fn interleavings_bound(p: &Program) -> f64 {
    let steps: Vec<u32> = all_threads(p).into_iter().map(max_steps).collect();
    let mut total = 0u32;
    let mut bound = 1f64;
    for s in steps {
        for k in 1..=s {
            total += 1;
            bound = bound * total as f64 / k as f64;
        }
    }
    bound
}

// ---------------------------------------------------------------------------------------------
// Interpretation under symx
// ---------------------------------------------------------------------------------------------

struct World {
    atomics: Vec<AtomicI64>,
    mutexes: Vec<Mutex<i64>>,
    flag: Mutex<bool>,
    cv: Condvar,
    /// Main's references to the `Arc`s of `Family::Woken` and `Family::Branching` (none in the
    /// other families).
    arcs: Vec<symx::sync::Arc<i64>>,
}

/// How many `Arc`s a program of `Family::Woken` or `Family::Branching` has.
const ARCS: usize = 2;

/// A thread's own references to the `Arc`s, each until the thread drops it.
type Mine = Vec<Option<symx::sync::Arc<i64>>>;

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

fn exec(w: &Arc<World>, ops: &[Op], seen: &mut Vec<i64>, mine: &mut Mine) {
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

fn atomic(w: &World, op: AtomicOp) -> i64 {
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

// ---------------------------------------------------------------------------------------------
// Canonical traces
// ---------------------------------------------------------------------------------------------

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
fn with_changes(trace: &[ObservedStep]) -> Vec<ObservedStep> {
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
fn canonical_under(trace: &[ObservedStep], fair: bool, changes: bool) -> Vec<ObservedStep> {
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
const FAIRNESS: u32 = u32::MAX;

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

// ---------------------------------------------------------------------------------------------
// Shrinking
// ---------------------------------------------------------------------------------------------

/// The smallest program reachable from `p` by removing threads and operations, unwrapping
/// critical sections and inlining nested threads, for which `fails` still holds. Greedy:
/// takes the first smaller variant that fails, until none does.
pub fn shrink(p: &Program, mut fails: impl FnMut(&Program) -> bool) -> Program {
    let mut best = p.clone();
    'outer: loop {
        for candidate in program_variants(&best) {
            if fails(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        return best;
    }
}

fn program_variants(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    if p.threads.len() > 1 {
        for t in 0..p.threads.len() {
            let mut q = p.clone();
            q.threads.remove(t);
            out.push(q);
        }
    }
    for t in 0..p.threads.len() {
        for ops in variants(&p.threads[t]) {
            let mut q = p.clone();
            q.threads[t] = ops;
            out.push(q);
        }
    }
    out
}

/// Every list one simplification away from `ops`.
fn variants(ops: &[Op]) -> Vec<Vec<Op>> {
    let mut out = Vec::new();
    let splice = |i: usize, with: Vec<Op>| {
        let mut v = ops[..i].to_vec();
        v.extend(with);
        v.extend_from_slice(&ops[i + 1..]);
        v
    };
    for (i, op) in ops.iter().enumerate() {
        out.push(splice(i, Vec::new()));
        match op {
            Op::Locked { body, .. } | Op::TryLocked { body, .. } => {
                out.push(splice(i, body.clone()));
                for b in variants(body) {
                    let mut smaller = op.clone();
                    if let Op::Locked { body, .. } | Op::TryLocked { body, .. } = &mut smaller {
                        *body = b;
                    }
                    out.push(splice(i, vec![smaller]));
                }
            }
            Op::Branch {
                read,
                value,
                then,
                otherwise,
            } => {
                // The read alone, without the branch.
                out.push(splice(i, vec![unbranched(*read)]));
                let branch = |then: Vec<Op>, otherwise: Vec<Op>| Op::Branch {
                    read: *read,
                    value: *value,
                    then,
                    otherwise,
                };
                for t in variants(then) {
                    out.push(splice(i, vec![branch(t, otherwise.clone())]));
                }
                for o in variants(otherwise) {
                    out.push(splice(i, vec![branch(then.clone(), o)]));
                }
            }
            Op::SpawnJoin { child, between } => {
                let mut inline = child.clone();
                inline.extend(between.iter().cloned());
                out.push(splice(i, inline));
                for c in variants(child) {
                    let between = between.clone();
                    out.push(splice(i, vec![Op::SpawnJoin { child: c, between }]));
                }
                for b in variants(between) {
                    let child = child.clone();
                    out.push(splice(i, vec![Op::SpawnJoin { child, between: b }]));
                }
            }
            _ => {}
        }
    }
    out
}

/// The operation a branch reads with, without the branch.
fn unbranched(read: Read) -> Op {
    match read {
        Read::Atomic(a) => Op::Atomic(a),
        Read::Guard { mutex, add } => Op::Locked {
            mutex,
            add,
            body: Vec::new(),
        },
    }
}
