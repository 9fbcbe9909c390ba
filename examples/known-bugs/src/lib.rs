//! Classic concurrency bugs, written as a user first writes them, and one that needs an input
//! as well as an interleaving. The tests in `tests/bugs.rs` run them under `#[symx::test]`
//! (ignored by plain `cargo test`, expected to fail under `cargo symx test`, see `Cargo.toml`),
//! and `tests/kinds.rs` checks under plain `cargo test` that each fails with the kind the
//! configuration names.

use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::thread;
use symx::{Shared, Sym};

/// Two threads increment with a load then a store: one update can be lost.
pub fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let m = n.clone();
    let increment = |c: &AtomicUsize| c.store(c.load(Ordering::SeqCst) + 1, Ordering::SeqCst);
    let t = thread::spawn(move || increment(&m));
    increment(&n);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
}

/// Two threads take two locks in opposite orders.
pub fn lock_order_deadlock() {
    let a = Arc::new(Mutex::new(()));
    let b = Arc::new(Mutex::new(()));
    let (a2, b2) = (a.clone(), b.clone());
    let t = thread::spawn(move || {
        let _b = b2.lock().unwrap();
        let _a = a2.lock().unwrap();
    });
    {
        let _a = a.lock().unwrap();
        let _b = b.lock().unwrap();
    }
    t.join().unwrap();
}

struct Cell(UnsafeCell<u64>);
// SAFETY: it is not; that is the bug symx reports.
unsafe impl Sync for Cell {}

/// Two threads write a cell without synchronisation.
pub fn unsynchronised_cell() {
    let c = Arc::new(Cell(UnsafeCell::new(0)));
    let c2 = c.clone();
    // SAFETY: the pointer is valid; the race is the point of the example.
    let t = thread::spawn(move || c2.0.with_mut(|p| unsafe { *p += 1 }));
    c.0.with_mut(|p| unsafe { *p += 1 });
    t.join().unwrap();
}

/// Two withdrawals of `amount` from a balance of 100 that check the balance in one critical
/// section and take the money in another: between the two, the other withdrawal can take its
/// share. Both fit only when `amount <= 50`, so the balance is overdrawn only for larger
/// amounts, and only when both check before either withdraws. Plain `cargo test` runs it at
/// `amount = 0` and passes; `cargo symx test` solves for an amount.
#[symx::instrument]
pub fn check_then_withdraw() {
    let amount: Sym<i64> = symx::any_named("amount");
    symx::assume(amount >= 0i64 && amount <= 100i64);
    let account = Arc::new((Mutex::new(()), Shared::new(100i64)));
    let a = account.clone();
    let t = thread::spawn(move || withdraw(&a, amount));
    withdraw(&account, amount);
    t.join().unwrap();
    symx::assert!(account.1.get() >= 0i64, "the balance is never overdrawn");
}

#[symx::instrument]
fn withdraw(account: &(Mutex<()>, Shared<i64>), amount: Sym<i64>) {
    let fits = {
        let _g = account.0.lock().unwrap();
        account.1.get() >= amount
    };
    if fits {
        let _g = account.0.lock().unwrap();
        let balance = account.1.get();
        account.1.set(balance - amount);
    }
}

/// A bug that fails only for some inputs: its name, its body, and inputs under which it fails
/// (at the default inputs, all zero, it passes).
pub struct InputBug {
    /// The test's name (the key of its `expect` entry).
    pub name: &'static str,
    /// The program.
    pub body: fn(),
    /// Input values, by name, under which it fails.
    pub failing_inputs: &'static [(&'static str, i128)],
}

/// The bugs that need an input.
pub const INPUT_BUGS: &[InputBug] = &[InputBug {
    name: "check_then_withdraw",
    body: check_then_withdraw,
    failing_inputs: &[("amount", 60)],
}];

/// Every bug with its name, for the plain-`cargo test` check of the expected kinds.
pub const BUGS: &[(&str, fn())] = &[
    ("lost_update", lost_update),
    ("lock_order_deadlock", lock_order_deadlock),
    ("unsynchronised_cell", unsynchronised_cell),
];
