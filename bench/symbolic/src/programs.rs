//! The measured programs: bugs that need an input value and an interleaving at once, the same
//! programs as the symbolic engine's tests (`cargo-symx/tests/symbolic.rs`), and the catalogue
//! that says, per program, which input values fail (what the enumeration rows need).

use std::sync::Arc;

use symx::sync::atomic::Ordering::SeqCst;
use symx::sync::atomic::{AtomicU32, AtomicU8};
use symx::sync::Mutex;
use symx::{Shared, Sym};

/// Bergan's Fig. 1.2 assertion: fails only with X even and T2's section first.
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

/// Bergan's Fig. 1.2 atomicity violation: fails with T2's section between T1's two and X0
/// outside {41, 42}; inputs outside (-1000, 1000) are assumed away.
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

/// Fails only with n == 37 and the order 3, 2, 1 of three threads, each reading the last
/// one's write.
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
    if n == 37u32 {
        symx::assert!(s.load_sym(SeqCst) != 321u32, "the order 3-2-1 with n = 37");
    }
}

/// Fails only for the one x with x * 2654435761 == 0xDEADBEEF (mod 2^32), read before the
/// join: a 1-in-2^32 input and one of two orders.
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

/// Fails only with mode == 7 (no thread is spawned otherwise) and the writer first.
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

/// One program and what its bug needs of its single input.
pub struct Program {
    pub name: &'static str,
    pub body: fn(),
    /// The symbolic input's name.
    pub input: &'static str,
    /// The values the input ranges over, lowest first.
    pub domain: (i128, i128),
    /// The values the enumeration may skip: `assume` discards every other one at its first
    /// step, so an enumeration runs only these (`None`: the whole domain).
    pub assumed: Option<(i128, i128)>,
    /// Whether an input value lets some interleaving fail.
    pub fails_with: fn(i128) -> bool,
    /// How many values of the domain (or of `assumed`) fail, and the lowest one.
    pub failing: (u128, i128),
}

/// The x with x * 2654435761 == 0xDEADBEEF (mod 2^32): 2654435761 is odd, so the product is
/// a bijection and exactly one x fails.
pub fn collision_input() -> u32 {
    // The inverse of an odd number mod 2^32 by Newton's iteration (each step doubles the
    // correct low bits: 3, 6, 12, 24, 48).
    let a: u32 = 2654435761;
    let mut inv = a;
    for _ in 0..4 {
        inv = inv.wrapping_mul(2u32.wrapping_sub(a.wrapping_mul(inv)));
    }
    0xDEAD_BEEFu32.wrapping_mul(inv)
}

/// Every measured program.
pub fn all() -> Vec<Program> {
    vec![
        Program {
            name: "thirty_seven",
            body: thirty_seven,
            input: "n",
            domain: (0, u32::MAX as i128),
            assumed: None,
            fails_with: |n| n == 37,
            failing: (1, 37),
        },
        Program {
            name: "hash_collision",
            body: hash_collision,
            input: "x",
            domain: (0, u32::MAX as i128),
            assumed: None,
            fails_with: |x| x == collision_input() as i128,
            failing: (1, collision_input() as i128),
        },
        Program {
            name: "behind_a_branch",
            body: behind_a_branch,
            input: "mode",
            domain: (0, u8::MAX as i128),
            assumed: None,
            fails_with: |m| m == 7,
            failing: (1, 7),
        },
        Program {
            name: "even_odd",
            body: even_odd,
            input: "X",
            domain: (i64::MIN as i128, i64::MAX as i128),
            assumed: None,
            fails_with: |x| x % 2 == 0,
            failing: (1 << 63, i64::MIN as i128),
        },
        Program {
            name: "split_increment",
            body: split_increment,
            input: "X0",
            domain: (i64::MIN as i128, i64::MAX as i128),
            assumed: Some((-999, 999)),
            fails_with: |x| (-999..=999).contains(&x) && x != 41 && x != 42,
            failing: (1997, -999),
        },
    ]
}

/// The program called `name`.
pub fn named(name: &str) -> Option<Program> {
    all().into_iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_collision_input_collides() {
        assert_eq!(collision_input().wrapping_mul(2654435761), 0xDEAD_BEEF);
    }

    #[test]
    fn each_catalogue_entry_says_which_values_fail() {
        for p in all() {
            let (lo, hi) = p.assumed.unwrap_or(p.domain);
            assert!((p.fails_with)(p.failing.1), "{}", p.name);
            assert!(!(p.fails_with)(p.failing.1 - 1), "{}", p.name);
            if hi - lo < 1 << 16 {
                let count = (lo..=hi).filter(|&v| (p.fails_with)(v)).count();
                assert_eq!(count as u128, p.failing.0, "{}", p.name);
            }
        }
    }
}
