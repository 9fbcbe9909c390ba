//! The programs of Guo, Kusano, Wang, Yang, Gupta, "Assertion Guided Symbolic Execution of
//! Multithreaded Programs" (ESEC/FSE 2015), and the programs that pin the soundness pitfalls
//! of its algorithm, for the assertion-guided engine's tests and the bench.

use std::sync::Arc;

use symx::sync::atomic::Ordering::SeqCst;
use symx::sync::atomic::{AtomicI32, AtomicU32, AtomicU8};
use symx::{Shared, Sym};

/// Fig. 2 with `assume(x <= cutoff)` for the paper's `if (x > cutoff) return`: T1 writes 10
/// then 20, T2 reads `a` then `b`, and `check` judges `(a, b)` after both finished.
fn fig2(cutoff: i32, check: fn(Sym<i32>, Sym<i32>)) {
    let x = Arc::new(AtomicI32::new(0));
    let v: Sym<i32> = symx::any_named("V");
    symx::assume(v.sym_le(cutoff));
    x.store_sym(v, SeqCst);
    let x1 = x.clone();
    let t1 = symx::thread::spawn(move || {
        x1.store_sym(10i32, SeqCst);
        x1.store_sym(20i32, SeqCst);
    });
    let x2 = x.clone();
    let t2 = symx::thread::spawn(move || {
        let a = x2.load_sym(SeqCst);
        let b = x2.load_sym(SeqCst);
        (a, b)
    });
    t1.join().unwrap();
    let (a, b) = t2.join().unwrap();
    check(a, b);
}

#[symx::instrument]
fn a_le_b(a: Sym<i32>, b: Sym<i32>) {
    symx::assert!(a <= b, "a <= b");
}

/// Fig. 2: the assertion holds (`V <= 10`): six schedules, each ending in another state.
pub fn fig2_a_le_b() {
    fig2(10, a_le_b);
}

/// Fig. 2 with `V <= 11`: `V = 11` read first, then 10, fails `a <= b`.
pub fn fig2_x_gt_11() {
    fig2(11, a_le_b);
}

#[symx::instrument]
fn b_ge_10(_a: Sym<i32>, b: Sym<i32>) {
    symx::assert!(b >= 10i32, "b >= 10");
}

/// Fig. 2 with `assert(b >= 10)`: fails only when both reads come before both writes and
/// `V < 10`, the schedule the paper's §5.2 replay of pruned accesses is about. (In this search's
/// order of choices that schedule is explored before any state is pruned; [`replay_needed`]
/// is a program whose failure is found only through the replay.)
pub fn dpor_backtrack_after_prune() {
    fig2(10, b_ge_10);
}

/// The differential test's witness that the replay of pruned accesses is needed: main adds 1
/// to `a` and checks that `x * old` fits a `u8`; `T1` stores into `b` and adds 7 to `a`; `T2`
/// stores the input `x` (0 to 15) into `a`; then main looks at the low bits of both. The
/// product overflows for `x >= 13`, when main reads `x + 7`: after `T2`'s store and then
/// `T1`'s add. The pruned search reaches that schedule only through a reversal that a race
/// below a pruned state plants, which no explored execution shows.
pub fn replay_needed() {
    let x = symx::any_named::<u8>("x") & 15u8;
    let s = Arc::new([AtomicU8::new(0), AtomicU8::new(0)]);
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        s1[0].store_sym(11u8, SeqCst);
        s1[1].fetch_add_sym(7u8, SeqCst);
    });
    let s2 = s.clone();
    let t2 = symx::thread::spawn(move || s2[1].store_sym(x, SeqCst));
    let old = s[1].fetch_add_sym(1u8, SeqCst);
    product_fits(x, old);
    t1.join().unwrap();
    t2.join().unwrap();
    for a in s.iter() {
        low_bits(a.load_sym(SeqCst));
    }
}

#[symx::instrument]
fn product_fits(x: Sym<u8>, old: Sym<u8>) {
    let product = x.cast::<u16>().wrapping_mul(old.cast::<u16>());
    symx::assert!(product <= 255u16, "x * old fits a u8");
}

/// A branch on each of the value's three low bits: the final state as a function of the path.
fn low_bits(v: Sym<u8>) {
    for bit in 0..3 {
        symx::branch(((v >> bit) & 1u8).sym_eq(1u8));
    }
}

/// Fig. 3 with its `k` blocks run in sequence, as the paper's run list orders them: block `i`
/// is a writer `x_i = 10` and a reader `assert(x_i > 0)` racing, from `x_i = 1`; `2^k`
/// schedules, each ending in another state.
pub fn fig3(k: usize) {
    for _ in 0..k {
        let x = Arc::new(AtomicI32::new(1));
        let w = x.clone();
        let writer = symx::thread::spawn(move || w.store_sym(10i32, SeqCst));
        let r = x.clone();
        let reader = symx::thread::spawn(move || positive(r.load_sym(SeqCst)));
        writer.join().unwrap();
        reader.join().unwrap();
    }
}

#[symx::instrument]
fn positive(a: Sym<i32>) {
    symx::assert!(a > 0i32, "a > 0");
}

/// Fig. 4: two threads each take `x++` and `y++` (atomic) from symbolic `X` and `Y` and branch
/// on whether they saw 0. No assertion: 6 orders of the four increments times 3 feasible
/// outcomes of each counter's two branches.
pub fn fig4_gig() {
    let x = Arc::new(AtomicU32::new(0));
    let y = Arc::new(AtomicU32::new(0));
    x.store_sym(symx::any_named::<u32>("X"), SeqCst);
    y.store_sym(symx::any_named::<u32>("Y"), SeqCst);
    let (x1, y1) = (x.clone(), y.clone());
    let t1 = symx::thread::spawn(move || increments(&x1, &y1));
    let t2 = symx::thread::spawn(move || increments(&x, &y));
    t1.join().unwrap();
    t2.join().unwrap();
}

#[symx::instrument]
fn increments(x: &AtomicU32, y: &AtomicU32) {
    let a = x.fetch_add_sym(1u32, SeqCst);
    if a == 0u32 {
        std::hint::black_box(1);
    } else {
        std::hint::black_box(2);
    }
    let a = y.fetch_add_sym(1u32, SeqCst);
    if a == 0u32 {
        std::hint::black_box(3);
    } else {
        std::hint::black_box(4);
    }
}

/// The paper's §4 example of a weakest precondition: `res` grows by 1, 2, 3 under `a <= 0`,
/// `b <= 0`, `c <= 0`, one after the other.
#[symx::instrument]
pub fn wp_table() {
    let (a, b, c): (Sym<i32>, Sym<i32>, Sym<i32>) = (
        symx::any_named("a"),
        symx::any_named("b"),
        symx::any_named("c"),
    );
    let res = Shared::new(0i32);
    if a <= 0i32 {
        res.set(res.get().wrapping_add(1i32));
        if b <= 0i32 {
            res.set(res.get().wrapping_add(2i32));
            if c <= 0i32 {
                res.set(res.get().wrapping_add(3i32));
            }
        }
    }
}

/// T1 reads `y`, writes `z`, and fails if it read 1; T2 writes `y = 1`. A summary that took
/// the infeasible side of T1's condition as safe would cover the state where T2 wrote first.
pub fn prune_infeasible_branch() {
    let y = Arc::new(AtomicI32::new(0));
    let z = Arc::new(AtomicI32::new(0));
    let y1 = y.clone();
    let t1 = symx::thread::spawn(move || {
        let r = y1.load_sym(SeqCst);
        z.store_sym(1i32, SeqCst);
        at_most_zero(r);
    });
    let t2 = symx::thread::spawn(move || y.store_sym(1i32, SeqCst));
    t1.join().unwrap();
    t2.join().unwrap();
}

#[symx::instrument]
fn at_most_zero(r: Sym<i32>) {
    symx::assert!(r <= 0i32, "r <= 0");
}

/// The assertion `V == 1` fails in the first execution (`V = 0`); T1's read and T2's write
/// race, and the other order reaches the same state with `V = 0` again. A failing leaf that
/// counted as safe would prune it.
#[symx::instrument]
pub fn prune_abort_leaf() {
    let v: Sym<u8> = symx::any_named("V");
    symx::assume(v < 2u8);
    let x = Arc::new(AtomicU8::new(0));
    let x1 = x.clone();
    let t1 = symx::thread::spawn(move || {
        x1.load_sym(SeqCst);
    });
    let t2 = symx::thread::spawn(move || x.store_sym(0u8, SeqCst));
    t1.join().unwrap();
    t2.join().unwrap();
    is_one(v);
}

#[symx::instrument]
fn is_one(v: Sym<u8>) {
    symx::assert!(v == 1u8, "V == 1");
}

/// `assume(V > 5)`, which the first execution's input (`V = 0`) breaks, then
/// `assert(V != 7)`: the search must ask for inputs that keep the assumption, and a
/// discarded execution must not cover them.
pub fn assumption_broken_first() {
    let v: Sym<u8> = symx::any_named("V");
    symx::assume(v.sym_gt(5u8));
    symx::assert!(v.sym_ne(7u8), "V != 7");
}

/// A thread of [`reader_and_writers`].
#[derive(Clone, Copy)]
enum Role {
    /// Reads `u` (which nobody writes), then `w` and `c`, and fails on `w == 1 && c == 2`.
    Reader,
    /// Counts itself in `c`, then writes this to `w`.
    Writer(u8),
    /// Writes the value to the object of that index (`c`: 2, an unused one: 3).
    Bystander(usize, u8),
}

/// Four threads over `u`, `w`, `c` and a spare object, spawned in the order given.
#[symx::instrument]
fn reader_and_writers(roles: [Role; 4]) {
    let s = Arc::new([0u8; 4].map(AtomicU8::new)); // u, w, c, spare
    let threads: Vec<_> = (roles.into_iter())
        .map(|role| {
            let s = s.clone();
            symx::thread::spawn(move || match role {
                Role::Reader => {
                    s[0].load_sym(SeqCst);
                    let w = s[1].load_sym(SeqCst);
                    let c = s[2].load_sym(SeqCst);
                    symx::assert!(!(w == 1u8 && c == 2u8), "not (w == 1 and c == 2)");
                }
                Role::Writer(v) => {
                    s[2].fetch_add_sym(1u8, SeqCst);
                    s[1].store_sym(v, SeqCst);
                }
                Role::Bystander(o, v) => s[o].store_sym(v, SeqCst),
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// The sleep-set pitfall: `T` reads `u` (which nobody writes: independent of every other
/// step), then `w` and `c`, and fails when it sees `w == 1` and `c == 2`; `A` and `B` each
/// count themselves in `c` and write `w` (1 and 2), `C` resets `c` to 0. Once `T`'s first step
/// has been explored at a scheduling point it sleeps through the others' steps, so the states
/// where `A` and `B` are done and `T` and `C` have not started are reached with `T` asleep and,
/// in other orders, awake: a summary made where `T` slept says nothing of `T` going first,
/// and may not cover a visit where it is awake.
pub fn sleep_set_summary() {
    use Role::*;
    reader_and_writers([Reader, Writer(1), Writer(2), Bystander(2, 0)]);
}

/// The same threads spawned `B`, a bystander writing an object nobody else touches, `T`, `A`:
/// the replay of a cut subtree's accesses planted the accessing thread at each race instead of
/// one of the race's initials (source-DPOR's), and the pruned search ran 109 executions to
/// DPOR's 71.
pub fn replay_initials() {
    use Role::*;
    reader_and_writers([Writer(2), Bystander(3, 5), Reader, Writer(1)]);
}

/// Fig. 2 (`a <= b` holds) with a statistics counter: each of `T1`'s writes and `T2`'s reads
/// bumps `hits`, which nothing reads (`hits.fetch_add(1, SeqCst);` drops the old value, so
/// `#[symx::instrument]` marks it blind). The bumps race with each other, and DPOR reverses
/// every such race; the slice drops them, leaving Fig. 2's six schedules.
#[symx::instrument]
pub fn counted() {
    let x = Arc::new(AtomicI32::new(0));
    let hits = Arc::new(AtomicU32::new(0));
    let v: Sym<i32> = symx::any_named("V");
    symx::assume(v <= 10i32);
    x.store_sym(v, SeqCst);
    let (x1, hits1) = (x.clone(), hits.clone());
    let t1 = symx::thread::spawn(move || {
        x1.store_sym(10i32, SeqCst);
        hits1.fetch_add(1, SeqCst);
        x1.store_sym(20i32, SeqCst);
        hits1.fetch_add(1, SeqCst);
    });
    let (x2, hits2) = (x.clone(), hits.clone());
    let t2 = symx::thread::spawn(move || {
        let a = x2.load_sym(SeqCst);
        hits2.fetch_add(1, SeqCst);
        let b = x2.load_sym(SeqCst);
        hits2.fetch_add(1, SeqCst);
        (a, b)
    });
    t1.join().unwrap();
    let (a, b) = t2.join().unwrap();
    symx::assert!(a <= b, "a <= b");
}

/// Two threads store 1 and 2 into `last` without looking (blind stores); main reads it only
/// when the input `V` is 3, and asserts it is 2: it fails when `T1`'s store comes last. The
/// first execution (`V = 0`) uses `last` only blindly, so the slice takes its site; the
/// execution with `V = 3` reads it, which breaks the slice, and the search starts again
/// without it and finds the failure.
#[symx::instrument]
pub fn counted_then_read() {
    let last = Arc::new(AtomicU8::new(0));
    let v: Sym<u8> = symx::any_named("V");
    let threads: Vec<_> = [1u8, 2]
        .into_iter()
        .map(|k| {
            let last = last.clone();
            symx::thread::spawn(move || last.store(k, SeqCst))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    if v == 3u8 {
        let seen = last.load_sym(SeqCst);
        symx::assert!(seen == 2u8, "the last store was 2");
    }
}

/// A failed assumption ends the whole execution: `T1` waits for `a`, which nobody sets, and
/// gives up (a bounded wait: `assume(a != 0)`); `T2` takes a lock and then checks `x != 5`.
/// The failure needs `T2` to get past its lock before `T1` gives up, and no access of theirs
/// conflicts: the search must still run `T2` first.
#[symx::instrument]
pub fn discard_first() {
    let x = symx::any_named::<u8>("x") & 7u8;
    let a = Arc::new(AtomicU8::new(0));
    let m = Arc::new(symx::sync::Mutex::new(()));
    let t1 = symx::thread::spawn(move || {
        let v = a.load_sym(SeqCst);
        symx::assume(v != 0u8);
    });
    let t2 = symx::thread::spawn(move || {
        let _g = m.lock().unwrap();
        symx::assert!(x != 5u8, "x != 5");
    });
    t1.join().unwrap();
    t2.join().unwrap();
}
