//! The random programs of the symbolic differential test: the data ([`Program`]), their
//! generator ([`generate`], a function of the seed alone), and their interpreter under symx
//! ([`body`], in `interpretation.rs`), with the sinks through which an execution tells the
//! test what it did.
//!
//! A program draws 1–2 `u8` inputs of 3–4 bits (kept in range by `assume` or by a mask),
//! spawns 1–2 threads and runs its own operations beside them (at most 3 threads), joins
//! them, and observes its final state. The threads load, store and `fetch_add` two atomics,
//! lock two mutexes, each guarding one `Shared` cell, and choose an atomic, a mutex or a cell
//! by a fixed index or by a symbolic one (the low bit of a value); they branch on inputs and
//! on values read, assert conditions on them, and add or multiply `u8`s, which overflows for
//! some inputs. Every assertion and every arithmetic operation is a *site*, numbered.
//!
//! A site is *armed* (`symx::assert!`, a checked operator: a failing one ends the execution
//! as a panic) or *disarmed* (the same condition as a branch whose failing side records the
//! site in the execution's soft failures and goes on; arithmetic then wraps). The test
//! decides which sites are disarmed for each run of a program.
//!
//! The final state is observed through a branch on each low bit of every shared variable, so
//! that it is a function of the execution's path condition and schedule: two executions with
//! the same path and the same Mazurkiewicz trace end in the same observed state, which is
//! what the symbolic engine promises to cover.

use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use symx::__private::blind::{Blind, BlindAtomic as _};
use symx::sync::atomic::{AtomicU8, Ordering::SeqCst};
use symx::sync::Mutex;
use symx::{InputValues, Shared, Sym};
use symx_test_programs::rng::SplitMix64 as Rng;

mod interpretation;

pub use interpretation::{body, last_site, take_finals, take_soft_failures, FinalState};

/// Bounded draws from the shared generator.
trait Draw {
    /// Uniform in `0..n` (by remainder).
    fn below(&mut self, n: u64) -> u64;

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
}

impl Draw for Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Which failures a program can have, fixed before it is drawn: one kind at most, so that
/// which one an exploration meets first never decides what is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// No nested locking and every cell under its mutex: only armed sites can fail (panics).
    Panicky,
    /// Critical sections nest, on any mutex (a lock-order inversion, a relock): only
    /// deadlocks. Every site is disarmed.
    Deadlocky,
    /// Some cell access outside its mutex: only data races. Every site is disarmed.
    Racy,
    /// Like `Panicky`, plus bounded waits (`Await`: an atomic's value, assumed not to be a
    /// constant, so that executions where it is are discarded) and statistics counters
    /// bumped blindly (`Count`, marked as `#[symx::instrument]` marks a dropped result) and
    /// now and then read back (`Peek`). Only drawn by [`generate_in`].
    #[allow(dead_code)] // Only the assertion-guided differential test draws it.
    Awaiting,
}

#[derive(Clone, Debug)]
pub struct Input {
    pub name: String,
    pub bits: u32,
    /// `x & (2^bits - 1)` instead of `assume(x < 2^bits)`.
    pub masked: bool,
}

/// An operand: a register of the thread (its inputs first, then every value it read or
/// computed) or a constant.
#[derive(Clone, Copy, Debug)]
pub enum Val {
    Reg(usize),
    Const(u8),
}

/// Which of the two atomics, mutexes or cells: a fixed one, or the low bit of a value (a
/// symbolic index when the value is symbolic).
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    Fixed(usize),
    By(Val),
}

#[derive(Clone, Copy, Debug)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Gt,
}

#[derive(Clone, Copy, Debug)]
pub struct Cond {
    pub a: Val,
    pub cmp: Cmp,
    pub b: Val,
}

#[derive(Clone, Copy, Debug)]
pub enum Arith {
    Add,
    Mul,
}

#[derive(Clone, Debug)]
pub enum Op {
    /// Pushes the atomic's value.
    Load(Slot),
    Store(Slot, Val),
    /// Pushes the atomic's old value.
    FetchAdd(Slot, Val),
    /// A critical section of the mutex.
    Locked(Slot, Vec<Op>),
    /// Pushes the cell's value.
    Get(Slot),
    Set(Slot, Val),
    /// Registers pushed inside a branch are dropped after it.
    If(Cond, Vec<Op>, Vec<Op>),
    /// Site `.0`: the condition must hold.
    Assert(usize, Cond),
    /// Site `.0`: pushes `a op b`, which must not overflow.
    Arith(usize, Arith, Val, Val),
    /// Pushes the atomic's value and assumes it is not `.1` (a bounded wait that gave up).
    Await(Slot, u8),
    /// Adds 1 to the counter, dropping the old value (a blind step).
    Count(Slot),
    /// Pushes the counter's value.
    Peek(Slot),
}

#[derive(Clone)]
pub struct Program {
    pub family: Family,
    pub inputs: Vec<Input>,
    /// Main's own operations (run beside the others), then each spawned thread's.
    pub threads: Vec<Vec<Op>>,
    pub sites: usize,
}

impl fmt::Debug for Program {
    // One thread per line: programs are printed on failure and must be readable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Program {:?}, inputs {:?}", self.family, self.inputs)?;
        for (i, t) in self.threads.iter().enumerate() {
            writeln!(f, "  thread {i}: {t:?}")?;
        }
        Ok(())
    }
}

impl Program {
    /// Every input assignment in range.
    pub fn assignments(&self) -> Vec<InputValues> {
        let mut all = vec![InputValues::new()];
        for input in &self.inputs {
            all = (all.into_iter())
                .flat_map(|w| {
                    (0..1i128 << input.bits).map(move |v| {
                        let mut w = w.clone();
                        w.insert(input.name.clone(), v);
                        w
                    })
                })
                .collect();
        }
        all
    }

    /// The assignment in range that behaves as `w` does (a masked input is cut to its bits).
    pub fn in_range(&self, w: &InputValues) -> InputValues {
        (self.inputs.iter())
            .map(|i| {
                let v = w.get(&i.name).copied().unwrap_or(0);
                let v = if i.masked { v & ((1 << i.bits) - 1) } else { v };
                (i.name.clone(), v)
            })
            .collect()
    }

    /// Every site number.
    pub fn all_sites(&self) -> BTreeSet<usize> {
        (0..self.sites).collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

struct Gen<'r> {
    rng: &'r mut Rng,
    family: Family,
    sites: usize,
    /// Whether an overflow panics in this build (arithmetic sites are drawn only then).
    checked: bool,
}

impl Gen<'_> {
    fn val(&mut self, regs: usize) -> Val {
        if regs > 0 && self.rng.below(3) < 2 {
            Val::Reg(self.rng.below(regs as u64) as usize)
        } else {
            Val::Const(self.rng.below(16) as u8)
        }
    }

    fn slot(&mut self, regs: usize) -> Slot {
        if regs > 0 && self.rng.below(4) == 0 {
            Slot::By(Val::Reg(self.rng.below(regs as u64) as usize))
        } else {
            Slot::Fixed(self.rng.below(2) as usize)
        }
    }

    fn cond(&mut self, regs: usize) -> Cond {
        let cmp = self.rng.pick(&[Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Gt]);
        let a = self.val(regs);
        Cond {
            a,
            cmp,
            b: self.val(regs),
        }
    }

    fn site(&mut self) -> usize {
        self.sites += 1;
        self.sites - 1
    }

    /// `n` operations; `regs` registers exist before them, `held` mutexes are held (their
    /// slots). Returns the register count after them.
    fn ops(&mut self, n: u64, regs: &mut usize, held: &[Slot], depth: u32) -> Vec<Op> {
        (0..n).map(|_| self.op(regs, held, depth)).collect()
    }

    fn op(&mut self, regs: &mut usize, held: &[Slot], depth: u32) -> Op {
        if self.family == Family::Awaiting && self.rng.below(3) == 0 {
            let op = self.awaiting_op(*regs);
            *regs += matches!(op, Op::Await(..) | Op::Peek(_)) as usize;
            return op;
        }
        loop {
            let r = *regs;
            let op = match self.rng.below(10) {
                0 | 1 => Op::Load(self.slot(r)),
                2 => Op::Store(self.slot(r), self.val(r)),
                3 => Op::FetchAdd(self.slot(r), self.val(r)),
                4 if self.may_lock(held) => {
                    let slot = self.slot(r);
                    let mut inner = held.to_vec();
                    inner.push(slot);
                    let n = 1 + self.rng.below(2);
                    Op::Locked(slot, self.ops(n, regs, &inner, depth))
                }
                5 => match self.cell(held) {
                    Some(slot) if self.rng.below(2) == 0 => Op::Get(slot),
                    Some(slot) => Op::Set(slot, self.val(r)),
                    None => continue,
                },
                6 if depth < 2 => {
                    let cond = self.cond(r);
                    let (mut t, mut e) = (r, r);
                    let n = 1 + self.rng.below(2);
                    let then = self.ops(n, &mut t, held, depth + 1);
                    let n = self.rng.below(2);
                    Op::If(cond, then, self.ops(n, &mut e, held, depth + 1))
                }
                7 => Op::Assert(self.site(), self.cond(r)),
                8 | 9 if self.checked => {
                    let arith = self.rng.pick(&[Arith::Add, Arith::Mul]);
                    let a = self.val(r);
                    let b = match self.rng.below(2) {
                        0 => Val::Const(self.rng.pick(&[17, 40, 100, 200, 250])),
                        _ => self.val(r),
                    };
                    Op::Arith(self.site(), arith, a, b)
                }
                _ => continue,
            };
            *regs += matches!(
                op,
                Op::Load(_) | Op::FetchAdd(..) | Op::Get(_) | Op::Arith(..)
            ) as usize;
            return op;
        }
    }

    /// An operation only the awaiting family has.
    fn awaiting_op(&mut self, regs: usize) -> Op {
        let slot = self.slot(regs);
        match self.rng.below(8) {
            0..=2 => Op::Await(slot, self.rng.below(3) as u8),
            3..=5 => Op::Count(slot),
            _ => Op::Peek(slot),
        }
    }

    /// Plants the family's failure in two threads, often behind a branch on an input, so that
    /// it is possible in most programs and needs an input in many: a lock-order inversion or
    /// a relock (by a symbolic index), or two writes to a cell, one of them unprotected.
    /// The planted operations push no register, so the others' registers keep their numbers.
    fn plant(&mut self, threads: &mut [Vec<Op>], inputs: usize) {
        let n = threads.len() as u64;
        let a = self.rng.below(n) as usize;
        let b = (a + 1 + self.rng.below(n - 1) as usize) % n as usize;
        let slots = [
            Slot::Fixed(0),
            Slot::Fixed(1),
            Slot::By(Val::Reg(self.rng.below(inputs as u64) as usize)),
        ];
        for t in [a, b] {
            let op = match self.family {
                Family::Deadlocky => {
                    let (outer, inner) = (self.rng.pick(&slots), self.rng.pick(&slots));
                    Op::Locked(outer, vec![Op::Locked(inner, Vec::new())])
                }
                _ => {
                    let cell = Slot::Fixed(0);
                    let set = Op::Set(cell, self.val(inputs));
                    match self.rng.below(2) {
                        0 if t == a => set,
                        _ => Op::Locked(cell, vec![set]),
                    }
                }
            };
            let op = match self.rng.below(2) {
                0 => Op::If(self.cond(inputs), vec![op], Vec::new()),
                _ => op,
            };
            let at = self.rng.below(threads[t].len() as u64 + 1) as usize;
            threads[t].insert(at, op);
        }
    }

    /// Only deadlocky programs nest critical sections.
    fn may_lock(&self, held: &[Slot]) -> bool {
        match self.family {
            Family::Deadlocky => held.len() < 2,
            _ => held.is_empty(),
        }
    }

    /// The cell a `Get` or `Set` may use: the innermost held mutex's, or in a racy program
    /// now and then any cell, unprotected.
    fn cell(&mut self, held: &[Slot]) -> Option<Slot> {
        match (held.last(), self.family) {
            (Some(&slot), _) => Some(slot),
            (None, Family::Racy) if self.rng.below(2) == 0 => Some(Slot::Fixed(0)),
            _ => None,
        }
    }
}

/// The program for `seed`, redrawn from the same generator until at most `max_runs`
/// executions of its brute force (input assignments times an upper bound on interleavings)
/// are needed: the oracle runs them all.
pub fn generate(seed: u64, max_runs: f64, checked: bool) -> Program {
    let mut rng = Rng::new(seed);
    // Drawn first, so that the size bound does not favour the smaller families.
    let family = rng.pick(&[
        Family::Panicky,
        Family::Panicky,
        Family::Deadlocky,
        Family::Racy,
    ]);
    redraw(&mut rng, family, max_runs, checked)
}

/// The program of `family` for `seed`, as [`generate`] draws them.
#[allow(dead_code)] // Only the assertion-guided differential test draws by family.
pub fn generate_in(family: Family, seed: u64, max_runs: f64, checked: bool) -> Program {
    redraw(&mut Rng::new(seed), family, max_runs, checked)
}

fn redraw(rng: &mut Rng, family: Family, max_runs: f64, checked: bool) -> Program {
    loop {
        let p = draw(rng, family, checked);
        if p.assignments().len() as f64 * interleavings_bound(&p) <= max_runs {
            return p;
        }
    }
}

fn draw(rng: &mut Rng, family: Family, checked: bool) -> Program {
    let inputs: Vec<Input> = (0..1 + rng.below(2))
        .map(|i| Input {
            name: ["x", "y"][i as usize].to_string(),
            bits: 3 + rng.below(2) as u32,
            masked: rng.below(2) == 0,
        })
        .collect();
    let mut g = Gen {
        rng,
        family,
        sites: 0,
        checked,
    };
    let spawned = 1 + g.rng.below(2);
    let mut threads: Vec<Vec<Op>> = (0..=spawned)
        .map(|t| {
            let mut regs = inputs.len();
            let n = if t == 0 {
                g.rng.below(3)
            } else {
                1 + g.rng.below(3)
            };
            g.ops(n, &mut regs, &[], 0)
        })
        .collect();
    if matches!(family, Family::Deadlocky | Family::Racy) {
        g.plant(&mut threads, inputs.len());
    }
    Program {
        family,
        inputs,
        threads,
        sites: g.sites,
    }
}

/// The most visible steps one run of `ops` takes.
fn max_steps(ops: &[Op]) -> u32 {
    ops.iter()
        .map(|op| match op {
            Op::Load(_) | Op::Store(..) | Op::FetchAdd(..) | Op::Get(_) | Op::Set(..) => 1,
            Op::Await(..) | Op::Count(_) | Op::Peek(_) => 1,
            Op::Locked(_, body) => 2 + max_steps(body),
            Op::If(_, t, e) => max_steps(t).max(max_steps(e)),
            Op::Assert(..) | Op::Arith(..) => 0,
        })
        .sum()
}

/// An upper bound on the interleavings of the threads' steps: the multinomial coefficient
/// of their maximal step counts.
fn interleavings_bound(p: &Program) -> f64 {
    let mut total = 0u32;
    let mut bound = 1f64;
    for ops in &p.threads {
        for k in 1..=max_steps(ops) {
            total += 1;
            bound = bound * total as f64 / k as f64;
        }
    }
    bound
}

// ---------------------------------------------------------------------------------------------
// Interpretation under symx
// ---------------------------------------------------------------------------------------------
