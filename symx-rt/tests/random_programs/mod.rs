//! Small random concurrent programs as data, their generator, their interpreter under symx,
//! and the canonical form of an execution's trace, for the differential test of the DPOR
//! against the unreduced DFS (`tests/dpor_vs_dfs/`).
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

mod generation;
mod interpretation;
mod shrinking;
mod traces;

// Each test uses a part of these (dpor_shards shrinks nothing).
#[allow(unused_imports)]
pub use generation::*;
#[allow(unused_imports)]
pub use interpretation::*;
#[allow(unused_imports)]
pub use shrinking::*;
#[allow(unused_imports)]
pub use traces::*;

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
    /// `dpor_vs_dfs/differential.rs`). Not in [`Family::ALL`].
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
