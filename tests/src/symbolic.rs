//! Programs whose bugs need an input value and an interleaving at once, for the symbolic
//! engine's tests, its differential test and the bench: each draws symbolic inputs by name,
//! and each is instrumented (`#[symx::instrument]`) so its branches and assertions are
//! recorded.

use std::sync::Arc;

use symx::sync::atomic::Ordering::SeqCst;
use symx::sync::atomic::{AtomicU32, AtomicU8};
use symx::sync::Mutex;
use symx::{Shared, Sym};

/// Bergan's dissertation, Fig. 1.2 (an assertion): `X` has a symbolic value; T1 increments an
/// even `X` under the lock, T2 asserts `X` is odd under it. Fails only with `X` even and T2's
/// section first: 2 input classes, 2 section orders each, 1 failing (order, class).
#[symx::instrument]
pub fn even_odd() {
    let s = Arc::new((Mutex::new(()), Shared::new(0i64)));
    s.1.set(symx::any_named::<i64>("X"));
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        let _g = s1.0.lock().unwrap();
        let x = s1.1.get();
        if x % 2 == 0 {
            s1.1.set(x + 1);
        }
    });
    let s2 = s.clone();
    let t2 = symx::thread::spawn(move || {
        let _g = s2.0.lock().unwrap();
        let x = s2.1.get();
        symx::assert!(x % 2 != 0, "X is odd");
    });
    t1.join().unwrap();
    t2.join().unwrap();
}

/// Bergan's dissertation, Fig. 1.2 (an atomicity violation): T1 reads `X` in one section and
/// writes `X + 1` in another, T2 writes 42 in between. The final value is 42 or 43 unless T2's
/// section falls between T1's two and `X0` is neither 41 nor 42.
#[symx::instrument]
pub fn split_increment() {
    let s = Arc::new((Mutex::new(()), Shared::new(0i64)));
    let x0: Sym<i64> = symx::any_named("X0");
    symx::assume(x0 > -1000 && x0 < 1000);
    s.1.set(x0);
    let s1 = s.clone();
    let t1 = symx::thread::spawn(move || {
        let tmp = {
            let _g = s1.0.lock().unwrap();
            s1.1.get()
        };
        let _g = s1.0.lock().unwrap();
        s1.1.set(tmp + 1);
    });
    let s2 = s.clone();
    let t2 = symx::thread::spawn(move || {
        let _g = s2.0.lock().unwrap();
        s2.1.set(42i64);
    });
    t1.join().unwrap();
    t2.join().unwrap();
    let x = s.1.get();
    symx::assert!(x == 42 || x == 43, "one of the two atomic outcomes");
}

/// Fails only for `n == 37` and only when the three writers run 3, 2, 1 (each reading the
/// last one's write): a bug behind an input value and one interleaving at once.
#[symx::instrument]
pub fn thirty_seven() {
    let n: Sym<u32> = symx::any_named("n");
    let s = Arc::new(AtomicU32::new(0));
    let handles: Vec<_> = (1..=3u32)
        .map(|k| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let v = s.load_sym(SeqCst);
                s.store_sym(v * 10 + k, SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // Only the order 3, 2, 1, each thread reading the last one's write, gives 321.
    if n == 37u32 {
        symx::assert!(s.load_sym(SeqCst) != 321u32, "the order 3-2-1 with n = 37");
    }
}

/// Fails only when `x * 2654435761 == 0xDEADBEEF` (wrapping, one value in 2^32) and the
/// main thread reads after the writer.
#[symx::instrument]
pub fn hash_collision() {
    let x: Sym<u32> = symx::any_named("x");
    let s = Arc::new(AtomicU32::new(0));
    let s1 = s.clone();
    let t = symx::thread::spawn(move || s1.store_sym(x.wrapping_mul(2654435761), SeqCst));
    let seen = s.load_sym(SeqCst);
    t.join().unwrap();
    symx::assert!(
        seen != 0xDEAD_BEEFu32,
        "a 1-in-2^32 value, read before the join"
    );
}

/// Fails only behind `mode == 7`, a branch no run with default inputs takes, and then only
/// when the reader runs before the writer.
#[symx::instrument]
pub fn behind_a_branch() {
    let mode: Sym<u8> = symx::any_named("mode");
    let s = Arc::new(AtomicU8::new(0));
    if mode == 7u8 {
        let s1 = s.clone();
        let t = symx::thread::spawn(move || s1.store(1, SeqCst));
        let seen = s.load(SeqCst);
        t.join().unwrap();
        symx::assert!(seen == 0u8, "the reader runs before the writer");
    }
}

/// Correct for every input: a thread increments a counter under a lock, and so does the main
/// thread when `n > 100`; the total is one or two. Two input classes: `n <= 100` (one
/// execution) and `n > 100` (two orders of the sections).
#[symx::instrument]
pub fn guarded_increments() {
    let n: Sym<u8> = symx::any_named("n");
    let s = Arc::new((Mutex::new(()), Shared::new(0u32)));
    let s1 = s.clone();
    let t = symx::thread::spawn(move || {
        let _g = s1.0.lock().unwrap();
        let v = s1.1.get();
        s1.1.set(v + 1);
    });
    if n > 100u8 {
        let _g = s.0.lock().unwrap();
        let v = s.1.get();
        s.1.set(v + 1);
    }
    t.join().unwrap();
    let v = s.1.get();
    symx::assert!(v >= 1u32 && v <= 2u32, "one or two increments");
}

/// A compare-exchange whose expected value is an input `K`: it swaps a value another thread
/// wrote only when `K` is that value (42) and the write came first, and the program asserts it
/// only ever swaps the initial 0. Found only if the exchange's outcome is a branch on the read
/// (`compare_exchange_sym`): with the plain `compare_exchange` of `K`'s concrete value, nothing
/// relates `K` to the read.
pub fn cas_expecting_an_input() {
    cas_on_input(true);
}

/// [`cas_expecting_an_input`] with the plain `compare_exchange`.
pub fn plain_cas_expecting_an_input() {
    cas_on_input(false);
}

fn cas_on_input(symbolic: bool) {
    use symx::sync::atomic::{AtomicU8, Ordering::SeqCst};
    let a = Arc::new(AtomicU8::new(0));
    let a2 = a.clone();
    let writer = symx::thread::spawn(move || a2.store(42, SeqCst));
    let k = symx::any_named::<u8>("K");
    let swapped = if symbolic {
        a.compare_exchange_sym(k, 1u8, SeqCst, SeqCst)
    } else {
        let r = a.compare_exchange(k.peek(), 1, SeqCst, SeqCst);
        r.map(symx::Sym::from).map_err(symx::Sym::from)
    };
    if let Ok(old) = swapped {
        symx::assert!(old.peek() == 0, "swapped only the initial value");
    }
    writer.join().unwrap();
}
