//! Differential testing against brute force: random small programs
//! (up to 3 worker threads of up to 4 operations on two shared variables and one mutex, with
//! branches, assertions, in half the workers a span of ops marked as an atomic region, and in
//! a third of the programs a condvar hand-off between workers),
//! one random observed schedule each; the assertion failures, races and atomicity violations
//! the engine predicts from the trace must be exactly those the oracle finds by enumerating
//! the trace's interleavings, and every prediction must replay and show the same violation in
//! the runtime.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use symx::sync::atomic::AtomicI64;
use symx::sync::{Condvar, Mutex};
use symx::{Builder, Guide, Shared, Sym};

use super::oracle;
use crate::engine::predict::{confirm, predictions, Options, Property, Replayed};
use crate::solver::ctp::Ctp;

/// A tiny deterministic generator (xorshift64*), so that a failing case is reproducible from
/// its number.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) % n
    }
}

#[derive(Clone, Copy, Debug)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Gt,
}

/// A condition on a register of the thread (a value it read).
#[derive(Clone, Copy, Debug)]
struct Cond {
    reg: usize,
    cmp: Cmp,
    k: i64,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Load(usize),
    /// Store `reg + k` (or `k` without a register).
    Store(usize, Option<usize>, i64),
    /// `fetch_add` on the atomic.
    FetchAdd(i64),
    Lock,
    Unlock,
    /// Go on only if the condition holds; otherwise the thread ends here.
    Branch(Cond),
    Assert(Cond),
    /// Under the mutex, wait on the condvar until the flag is set.
    Await,
    /// Under the mutex, wait on the condvar once, whatever the flag (only a notify wakes it).
    AwaitOnce,
    /// Under the mutex, set the flag and notify the condvar (every waiter when `true`).
    Signal(bool),
}

#[derive(Clone, Debug)]
struct Program {
    /// Variable 0 is a `Shared` (races are checked on it), variable 1 an atomic.
    workers: Vec<Vec<Op>>,
    /// Per worker, the ops `a..b` it runs as a `symx::atomic_region` (atomicity checks).
    regions: Vec<Option<(usize, usize)>>,
    /// What main does after joining every worker.
    main_tail: Vec<Op>,
}

fn generate(rng: &mut Rng) -> Program {
    let n = 1 + rng.below(3) as usize;
    let workers: Vec<Vec<Op>> = (0..n)
        .map(|_| {
            let len = 1 + rng.below(4);
            thread_ops(rng, len)
        })
        .collect();
    // Main reads what the workers left and asserts on it (the lost-update shape).
    let main_tail = match rng.below(3) {
        0 => Vec::new(),
        1 => vec![Op::Load(1), Op::Assert(cond(rng, 1))],
        _ => vec![Op::Lock, Op::Load(0), Op::Unlock, Op::Assert(cond(rng, 1))],
    };
    let regions = workers
        .iter()
        .map(|ops| {
            let a = rng.below(ops.len() as u64) as usize;
            let b = a + 1 + rng.below((ops.len() - a) as u64) as usize;
            (rng.below(2) == 0).then_some((a, b))
        })
        .collect();
    let mut p = Program {
        workers,
        regions,
        main_tail,
    };
    if n >= 2 && rng.below(3) == 0 {
        hand_off(rng, &mut p);
    }
    p
}

/// A condvar hand-off between two workers (a third one waits too, now and then): one sets the
/// flag and notifies, the others wait for it, each at a point where it holds no lock.
fn hand_off(rng: &mut Rng, p: &mut Program) {
    let n = p.workers.len();
    let signaller = rng.below(n as u64) as usize;
    let all = rng.below(2) == 0;
    insert_unit(rng, p, signaller, Op::Signal(all));
    let waiter = (signaller + 1 + rng.below(n as u64 - 1) as usize) % n;
    let wait = |rng: &mut Rng| [Op::Await, Op::AwaitOnce][rng.below(2) as usize];
    let op = wait(rng);
    insert_unit(rng, p, waiter, op);
    if n == 3 && rng.below(4) == 0 {
        let op = wait(rng);
        insert_unit(rng, p, 3 - signaller - waiter, op);
    }
}

/// Inserts `op` into worker `w` between two units (never inside a critical section),
/// keeping its atomic region around the same ops.
fn insert_unit(rng: &mut Rng, p: &mut Program, w: usize, op: Op) {
    let ops = &mut p.workers[w];
    let mut depth = 0i32;
    let mut free = vec![0];
    for (i, o) in ops.iter().enumerate() {
        depth += matches!(o, Op::Lock) as i32 - matches!(o, Op::Unlock) as i32;
        if depth == 0 {
            free.push(i + 1);
        }
    }
    let at = free[rng.below(free.len() as u64) as usize];
    ops.insert(at, op);
    if let Some((a, b)) = &mut p.regions[w] {
        *a += (at < *a) as usize;
        *b += (at < *b) as usize;
    }
}

/// `len` units: atomic accesses, critical sections on `x`, rarely an unprotected access to
/// `x` (most of those race in the observed run already), branches and assertions.
fn thread_ops(rng: &mut Rng, len: u64) -> Vec<Op> {
    let mut ops = Vec::new();
    let mut regs = 0;
    for _ in 0..len {
        let k = rng.below(3) as i64;
        let reg = |rng: &mut Rng, regs: usize| (regs > 0).then(|| rng.below(regs as u64) as usize);
        match rng.below(8) {
            0 | 1 => ops.push(Op::Load(1)),
            2 => ops.push(Op::Store(1, reg(rng, regs), k)),
            3 => ops.push(Op::FetchAdd(1 + k)),
            4 => {
                ops.push(Op::Lock);
                ops.push(Op::Load(0));
                regs += 1;
                if rng.below(2) == 0 {
                    ops.push(Op::Store(0, Some(regs - 1), 1));
                }
                ops.push(Op::Unlock);
                continue;
            }
            5 if rng.below(4) == 0 => ops.push(Op::Store(0, None, k)),
            6 if regs > 0 => ops.push(Op::Branch(cond(rng, regs))),
            7 if regs > 0 => ops.push(Op::Assert(cond(rng, regs))),
            _ => ops.push(Op::Load(1)),
        }
        regs += matches!(ops.last(), Some(Op::Load(_) | Op::FetchAdd(_))) as usize;
    }
    ops
}

fn cond(rng: &mut Rng, regs: usize) -> Cond {
    let cmp = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Gt][rng.below(4) as usize];
    Cond {
        reg: rng.below(regs as u64) as usize,
        cmp,
        k: rng.below(3) as i64,
    }
}

struct Vars {
    x: Shared<i64>,
    y: AtomicI64,
    l: Mutex<()>,
    cv: Condvar,
    /// The hand-off's flag, under `l`.
    flag: Shared<i64>,
}

/// One thread's state while it runs its ops.
struct Thread<'v> {
    vars: &'v Vars,
    regs: Vec<Sym<i64>>,
    guard: Option<symx::sync::MutexGuard<'v, ()>>,
}

/// Runs `ops` as one thread of the program, ops `region` inside an atomic region.
fn run_ops(vars: &Vars, ops: &[Op], region: Option<(usize, usize)>) {
    let mut t = Thread {
        vars,
        regs: Vec::new(),
        guard: None,
    };
    let (a, b) = region.unwrap_or((ops.len(), ops.len()));
    let _ = t.run(&ops[..a]) && symx::atomic_region(|| t.run(&ops[a..b])) && t.run(&ops[b..]);
}

impl Thread<'_> {
    /// Runs `ops`; false once a branch stops the thread.
    fn run(&mut self, ops: &[Op]) -> bool {
        let (vars, regs) = (self.vars, &mut self.regs);
        for &op in ops {
            match op {
                Op::Load(0) => regs.push(vars.x.get()),
                Op::Load(_) => regs.push(vars.y.load_sym(SeqCst)),
                Op::Store(var, reg, k) => {
                    let v = match reg {
                        Some(r) => regs[r] + k,
                        None => Sym::constant(k),
                    };
                    if var == 0 {
                        vars.x.set(v)
                    } else {
                        vars.y.store_sym(v, SeqCst)
                    }
                }
                Op::FetchAdd(k) => regs.push(vars.y.fetch_add_sym(k, SeqCst)),
                Op::Lock => self.guard = Some(vars.l.lock().unwrap()),
                Op::Unlock => self.guard = None,
                Op::Branch(c) => {
                    if !symx::branch(condition(regs, c)) {
                        return false;
                    }
                }
                Op::Assert(c) => symx::assert!(condition(regs, c)),
                Op::Await => {
                    let mut g = vars.l.lock().unwrap();
                    while symx::branch(vars.flag.get().sym_eq(0)) {
                        g = vars.cv.wait(g).unwrap();
                    }
                }
                Op::AwaitOnce => {
                    let g = vars.l.lock().unwrap();
                    drop(vars.cv.wait(g).unwrap());
                }
                Op::Signal(all) => {
                    let _g = vars.l.lock().unwrap();
                    vars.flag.set(Sym::constant(1));
                    if all {
                        vars.cv.notify_all();
                    } else {
                        vars.cv.notify_one();
                    }
                }
            }
        }
        true
    }
}

fn condition(regs: &[Sym<i64>], c: Cond) -> Sym<bool> {
    let r = regs[c.reg];
    match c.cmp {
        Cmp::Eq => r.sym_eq(c.k),
        Cmp::Ne => r.sym_ne(c.k),
        Cmp::Lt => r.sym_lt(c.k),
        Cmp::Gt => r.sym_gt(c.k),
    }
}

fn body(p: &Program) -> impl Fn() + '_ {
    move || {
        let vars = Arc::new(Vars {
            x: Shared::new(0),
            y: AtomicI64::new(0),
            l: Mutex::new(()),
            cv: Condvar::new(),
            flag: Shared::new(0),
        });
        let handles: Vec<_> = p
            .workers
            .iter()
            .zip(&p.regions)
            .map(|(ops, &region)| {
                let (vars, ops) = (vars.clone(), ops.clone());
                symx::thread::spawn(move || run_ops(&vars, &ops, region))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        run_ops(&vars, &p.main_tail, None);
    }
}

/// Case counts of one run, for the summary line.
#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    skipped: usize,
    assertion_violations: usize,
    races: usize,
    atomicity_violations: usize,
    /// Cases whose observed run waited on the condvar.
    waits: usize,
    replays: usize,
    replays_racing_first: usize,
    replays_failing_off_the_trace: usize,
}

/// One case: a random program and schedule whose observed run passes.
fn case(seed: u64, bound: Option<u32>, tally: &mut Tally) {
    // A random program whose observed run fails (an assertion, or a race on x) has nothing
    // to predict: draw again, a bounded number of times.
    for attempt in 0..8 {
        let mut rng = Rng::new(seed * 8 + attempt);
        let p = generate(&mut rng);
        let steps: Vec<usize> = (0..12)
            .map(|_| 1 + rng.below(p.workers.len() as u64) as usize)
            .collect();
        let guide = Guide {
            steps,
            ..Guide::default()
        };
        let observed = Builder::new().run_guided(&guide, body(&p));
        if observed.report.failure().is_none() {
            return compare(seed, &p, observed.trace, bound, tally);
        }
        tally.skipped += 1;
    }
}

/// Predict from the observed trace, enumerate, compare, replay every prediction.
fn compare(
    seed: u64,
    p: &Program,
    trace: symx::trace::Trace,
    bound: Option<u32>,
    tally: &mut Tally,
) {
    let f = body(p);
    let waited =
        (trace.events.iter()).any(|e| e.kind == symx::trace::format::EventKind::CondvarWait);
    tally.waits += waited as usize;
    let ctp = Ctp::new(&trace);
    // Every variable starts at 0; tell the engine, as the oracle knows it too.
    let initial: BTreeMap<u32, i128> = ctp.initial.keys().map(|&o| (o, 0)).collect();
    let found = oracle::explore(&ctp, &initial);
    let opts = Options {
        initial: initial.clone(),
        bound,
        ..Options::default()
    };
    let predicted = predictions(&trace, &opts);
    let mut asserts = std::collections::BTreeSet::new();
    let mut races = std::collections::BTreeSet::new();
    let mut atomicity = std::collections::BTreeSet::new();
    for pr in &predicted {
        match pr.property {
            Property::Assertion(a) => asserts.insert(a.event),
            Property::DataRace(r) => races.insert((r.first, r.second)),
            Property::Deadlock(_) => unreachable!("the programs have one lock"),
            Property::LockClaim(_) => unreachable!("the programs annotate no lock"),
            Property::Atomicity(a) => atomicity.insert((a.first, a.remote, a.second)),
        };
        let run = Replayed::from(Builder::new().run_guided(&pr.witness.guide, &f));
        tally.replays += 1;
        if let Err(why) = confirm::check(&ctp, &pr.property, &run) {
            // The runtime ends a run at the first unordered pair of conflicting accesses to x:
            // a witness whose prefix holds one replays as that race (a real one, which the
            // race queries find too) before it reaches its assertion.
            let raced = run.kind() == Some("data-race");
            if raced && !found.races.is_empty() {
                tally.replays_racing_first += 1;
                continue;
            }
            // A thread whose branch the witness flipped runs code the trace does not have, at
            // once; when that code fails, the replay shows that failure instead.
            if confirm::failed_off_the_trace(&ctp, &run) {
                tally.replays_failing_off_the_trace += 1;
                continue;
            }
            panic!(
                "case {seed}: {} does not replay: {why}\n{p:#?}",
                pr.description
            );
        }
    }
    assert_eq!(asserts, found.assertions, "case {seed}: assertions\n{p:#?}");
    assert_eq!(races, found.races, "case {seed}: races\n{p:#?}");
    assert_eq!(atomicity, found.atomicity, "case {seed}: atomicity\n{p:#?}");
    tally.cases += 1;
    tally.atomicity_violations += atomicity.len();
    tally.assertion_violations += asserts.len();
    tally.races += races.len();
}

/// `SYMX_DIFF_CASES` cases (or `default`), from case `SYMX_DIFF_FROM` (default 0), so that a
/// failing case can be run alone.
fn cases(default: u64) -> std::ops::Range<u64> {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    let from = var("SYMX_DIFF_FROM").unwrap_or(0);
    from..from + var("SYMX_DIFF_CASES").unwrap_or(default)
}

fn run(seeds: std::ops::Range<u64>, bound: Option<u32>) {
    let mut tally = Tally::default();
    let n = seeds.end - seeds.start;
    for seed in seeds {
        case(seed, bound, &mut tally);
    }
    eprintln!("{bound:?}: {tally:?}");
    // The generator must exercise both properties, not only agree on "nothing".
    assert!(tally.cases >= n as usize * 9 / 10, "{tally:?}");
    assert!(
        tally.assertion_violations > 0
            && tally.races > 0
            && tally.atomicity_violations > 0
            && tally.waits > 0,
        "{tally:?}"
    );
}

/// Unbounded: the linear read-from encoding. `SYMX_DIFF_CASES` raises the count.
#[test]
fn predictions_equal_brute_force_and_every_one_replays() {
    run(cases(1000), None);
}

/// A bound above any level count these programs need: the quadratic pi-functions of the
/// bounded mode must give exactly the same answers.
#[test]
fn bounded_encoding_with_a_loose_bound_equals_brute_force_too() {
    let all = cases(1000);
    run(all.start..all.start + (all.end - all.start) / 2, Some(64));
}
