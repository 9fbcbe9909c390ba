//! Three classic concurrency bugs, written as a user first writes them. The tests in
//! `tests/bugs.rs` run them under `#[symx::test]` (ignored by plain `cargo test`, expected to
//! fail under `cargo symx test`, see `Cargo.toml`), and `tests/kinds.rs` checks under plain
//! `cargo test` that each fails with the kind the configuration names.

use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::thread;

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

/// Every bug with its name, for the plain-`cargo test` check of the expected kinds.
pub const BUGS: &[(&str, fn())] = &[
    ("lost_update", lost_update),
    ("lock_order_deadlock", lock_order_deadlock),
    ("unsynchronised_cell", unsynchronised_cell),
];
