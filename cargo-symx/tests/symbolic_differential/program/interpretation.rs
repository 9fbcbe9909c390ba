//! The interpreter of a [`Program`] under symx ([`body`]) and the sinks through which an
//! execution tells the test what it did: the final states, the soft failures, the last
//! armed site reached.

use super::*;

/// What an execution that got to the end observed: every shared variable's value (atomics,
/// then cells) and the sites whose disarmed condition failed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FinalState {
    pub values: Vec<u8>,
    pub soft: BTreeSet<usize>,
}

thread_local! {
    // Model threads are coroutines on the test's own OS thread: these are shared by every
    // thread of an execution and by the test that reads them afterwards.
    static FINALS: RefCell<BTreeSet<FinalState>> = const { RefCell::new(BTreeSet::new()) };
    static SOFT: RefCell<BTreeSet<usize>> = const { RefCell::new(BTreeSet::new()) };
    static EVER_SOFT: RefCell<BTreeSet<usize>> = const { RefCell::new(BTreeSet::new()) };
    static LAST_SITE: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The final states recorded since the last call.
pub fn take_finals() -> BTreeSet<FinalState> {
    FINALS.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// The sites whose disarmed condition failed in some execution since the last call,
/// whether or not the execution got to its end.
pub fn take_soft_failures() -> BTreeSet<usize> {
    EVER_SOFT.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// The armed site the last execution reached last: the failing one when it panicked (a
/// site's condition is evaluated with no scheduling point between it and the panic).
pub fn last_site() -> Option<usize> {
    LAST_SITE.with(|s| s.take())
}

struct World {
    atomics: [AtomicU8; 2],
    locks: [Mutex<()>; 2],
    cells: [Shared<u8>; 2],
    /// Not observed at the end: a counter nothing peeks at is the slice's.
    counters: [AtomicU8; 2],
}

/// The body of one execution of `p` with the sites in `disarmed` disarmed.
pub fn body(p: &Arc<Program>, disarmed: &Arc<BTreeSet<usize>>) -> impl Fn() + 'static {
    let (p, disarmed) = (p.clone(), disarmed.clone());
    move || run(&p, &disarmed)
}

fn run(p: &Arc<Program>, disarmed: &Arc<BTreeSet<usize>>) {
    SOFT.with(|s| s.borrow_mut().clear());
    let inputs: Vec<Sym<u8>> = p.inputs.iter().map(draw_input).collect();
    let w = Arc::new(World {
        atomics: [AtomicU8::new(0), AtomicU8::new(0)],
        locks: [Mutex::new(()), Mutex::new(())],
        cells: [Shared::new(0), Shared::new(0)],
        counters: [AtomicU8::new(0), AtomicU8::new(0)],
    });
    let handles: Vec<_> = (1..p.threads.len())
        .map(|t| {
            let (p, w, disarmed, inputs) = (p.clone(), w.clone(), disarmed.clone(), inputs.clone());
            symx::thread::spawn(move || Thread::new(&w, &disarmed, inputs).run(&p.threads[t]))
        })
        .collect();
    Thread::new(&w, disarmed, inputs).run(&p.threads[0]);
    for h in handles {
        h.join().unwrap();
    }
    let shared =
        (w.atomics.iter().map(|a| a.load_sym(SeqCst))).chain(w.cells.iter().map(|c| c.get()));
    let values = shared.map(observe).collect();
    let soft = SOFT.with(|s| s.borrow().clone());
    FINALS.with(|f| f.borrow_mut().insert(FinalState { values, soft }));
}

fn draw_input(input: &Input) -> Sym<u8> {
    let x: Sym<u8> = symx::any_named(&input.name);
    let bound = 1u8 << input.bits;
    if input.masked {
        x & (bound - 1)
    } else {
        symx::assume(x.sym_lt(bound));
        x
    }
}

/// The value's low bits, made a function of the path by a branch on each of them. (Every
/// bit would do as well; the high ones are mostly zero whatever the inputs, and each costs
/// the engine a query per path that cannot flip it.)
fn observe(v: Sym<u8>) -> u8 {
    for bit in 0..OBSERVED_BITS {
        symx::branch(((v >> bit) & 1u8).sym_eq(1u8));
    }
    v.peek() & ((1 << OBSERVED_BITS) - 1)
}

const OBSERVED_BITS: u32 = 3;

/// One thread's state while it runs its operations.
struct Thread<'w> {
    w: &'w World,
    disarmed: &'w BTreeSet<usize>,
    regs: Vec<Sym<u8>>,
}

impl<'w> Thread<'w> {
    fn new(w: &'w World, disarmed: &'w BTreeSet<usize>, regs: Vec<Sym<u8>>) -> Self {
        Thread { w, disarmed, regs }
    }

    fn run(&mut self, ops: &[Op]) {
        for op in ops {
            self.op(op);
        }
    }

    fn op(&mut self, op: &Op) {
        let w = self.w;
        match op {
            Op::Load(s) => {
                let v = pick(&w.atomics, self.slot(*s)).load_sym(SeqCst);
                self.regs.push(v);
            }
            Op::Store(s, v) => pick(&w.atomics, self.slot(*s)).store_sym(self.val(*v), SeqCst),
            Op::FetchAdd(s, v) => {
                let old = pick(&w.atomics, self.slot(*s)).fetch_add_sym(self.val(*v), SeqCst);
                self.regs.push(old);
            }
            Op::Locked(s, body) => {
                let _g = pick(&w.locks, self.slot(*s)).lock().unwrap();
                self.run(body);
            }
            Op::Get(s) => {
                let v = pick(&w.cells, self.slot(*s)).get();
                self.regs.push(v);
            }
            Op::Set(s, v) => pick(&w.cells, self.slot(*s)).set(self.val(*v)),
            Op::If(c, then, otherwise) => {
                let regs = self.regs.len();
                if symx::branch(self.cond(*c)) {
                    self.run(then);
                } else {
                    self.run(otherwise);
                }
                self.regs.truncate(regs);
            }
            Op::Assert(site, c) => {
                let holds = self.cond(*c);
                if self.disarmed.contains(site) {
                    soft_check(*site, holds);
                } else {
                    LAST_SITE.with(|s| s.set(Some(*site)));
                    symx::assert!(holds, "site {site}");
                }
            }
            Op::Arith(site, arith, a, b) => {
                let (a, b) = (self.val(*a), self.val(*b));
                let v = if self.disarmed.contains(site) {
                    soft_check(*site, fits(*arith, a, b));
                    match arith {
                        Arith::Add => a.wrapping_add(b),
                        Arith::Mul => a.wrapping_mul(b),
                    }
                } else {
                    LAST_SITE.with(|s| s.set(Some(*site)));
                    match arith {
                        Arith::Add => a + b,
                        Arith::Mul => a * b,
                    }
                };
                self.regs.push(v);
            }
            Op::Await(s, c) => {
                let v = pick(&w.atomics, self.slot(*s)).load_sym(SeqCst);
                self.regs.push(v);
                symx::assume(v.sym_ne(*c));
            }
            Op::Count(s) => {
                let counter = pick(&w.counters, self.slot(*s));
                Blind(counter).__symx_blind();
                counter.fetch_add(1, SeqCst);
            }
            Op::Peek(s) => {
                let v = pick(&w.counters, self.slot(*s)).load_sym(SeqCst);
                self.regs.push(v);
            }
        }
    }

    fn val(&self, v: Val) -> Sym<u8> {
        match v {
            Val::Reg(r) => self.regs[r],
            Val::Const(c) => Sym::constant(c),
        }
    }

    fn slot(&self, s: Slot) -> Index {
        match s {
            Slot::Fixed(i) => Index::Fixed(i),
            Slot::By(v) => Index::By((self.val(v) & 1u8).cast::<usize>()),
        }
    }

    fn cond(&self, c: Cond) -> Sym<bool> {
        let (a, b) = (self.val(c.a), self.val(c.b));
        match c.cmp {
            Cmp::Eq => a.sym_eq(b),
            Cmp::Ne => a.sym_ne(b),
            Cmp::Lt => a.sym_lt(b),
            Cmp::Gt => a.sym_gt(b),
        }
    }
}

enum Index {
    Fixed(usize),
    By(Sym<usize>),
}

fn pick<T>(of: &[T; 2], at: Index) -> &T {
    match at {
        Index::Fixed(i) => &of[i],
        Index::By(i) => &of[i],
    }
}

/// A disarmed site: its failing side is a branch that records it and goes on.
fn soft_check(site: usize, holds: Sym<bool>) {
    if !symx::branch(holds) {
        SOFT.with(|s| s.borrow_mut().insert(site));
        EVER_SOFT.with(|s| s.borrow_mut().insert(site));
    }
}

/// `a op b` does not overflow a `u8`, computed in `u16` without a check of its own.
fn fits(arith: Arith, a: Sym<u8>, b: Sym<u8>) -> Sym<bool> {
    let (a, b) = (a.cast::<u16>(), b.cast::<u16>());
    let wide = match arith {
        Arith::Add => a.wrapping_add(b),
        Arith::Mul => a.wrapping_mul(b),
    };
    wide.sym_le(255u16)
}
