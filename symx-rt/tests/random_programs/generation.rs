//! Generation: a [`Program`] of a [`Family`] from a seed ([`generate`]), and the bound on its
//! interleavings by which the differentials skip programs too large to enumerate.

use super::*;

/// What a top-level thread (with its child) may do with the condvar.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    None,
    /// Signals and never waits: guarantees progress of the waiters in the no-fail families.
    Signaller,
    /// Waits (only in the no-fail-safe ways) and may also signal.
    Waiter,
    /// Anything (`Deadlocky`).
    Any,
}

pub(super) struct Gen<'a> {
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

pub(super) fn draw(rng: &mut SplitMix64, family: Family) -> Program {
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

pub(super) fn waits(ops: &[Op]) -> bool {
    ops.iter().any(|op| match op {
        Op::WaitWhile | Op::WaitIf | Op::WaitIfRacy => true,
        Op::Locked { body, .. } | Op::TryLocked { body, .. } => waits(body),
        // The child is a thread of its own, counted separately.
        Op::SpawnJoin { between, .. } => waits(between),
        _ => false,
    })
}

pub(super) fn children(ops: &[Op]) -> Vec<&[Op]> {
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
pub(super) fn all_threads(p: &Program) -> Vec<&[Op]> {
    let mut out = Vec::new();
    for t in &p.threads {
        out.push(t.as_slice());
        out.extend(children(t));
    }
    out
}

pub(super) fn waiting_threads(p: &Program) -> usize {
    all_threads(p).into_iter().filter(|t| waits(t)).count()
}

pub(super) fn notify_all(ops: &mut [Op]) {
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
pub(super) fn max_steps(ops: &[Op]) -> u32 {
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
