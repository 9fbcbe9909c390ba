//! # Getting started with symx
//!
//! The first example to read. It holds two small pieces of concurrent code, each in a buggy
//! and a fixed version, and `tests/` shows how symx finds the bugs and proves the fixes:
//!
//! - [`Counter`]: [`Counter::increment_racy`] reads and writes back in two steps, so two
//!   threads can both read the old value and one increment is lost;
//!   [`Counter::increment`] does it in one atomic `fetch_add`.
//! - [`transfer`] between two [`Account`]s locks the source, then the destination: two
//!   transfers in opposite directions can each hold one lock and wait forever for the other
//!   (a lock-order deadlock). [`transfer_ordered`] takes the two locks in one global order,
//!   so no cycle of waiting threads can form.
//!
//! The code is written against `symx::sync` and `symx::thread`, which have the same names and
//! signatures as `std::sync` and `std::thread`. Inside a symx test every operation on them is
//! a point where symx may switch threads, and symx runs the test once for every distinct
//! interleaving of those points. (A real crate would switch between `std` and `symx` with a
//! `cfg`; this example uses `symx` directly to stay short.)
//!
//! See `README.md` next to this crate for the walk-through, and run the tests with
//!
//! ```sh
//! cargo test -p getting-started
//! ```

use symx::sync::atomic::{AtomicU64, Ordering};
use symx::sync::Mutex;

/// A counter shared between threads.
#[derive(Debug, Default)]
pub struct Counter {
    value: AtomicU64,
}

impl Counter {
    /// A counter at zero.
    pub const fn new() -> Self {
        Counter {
            value: AtomicU64::new(0),
        }
    }

    /// **Buggy**: a load, then a store of the loaded value plus one. Each step is atomic, the
    /// pair is not: another thread can store between them, and its increment is overwritten.
    pub fn increment_racy(&self) {
        let current = self.value.load(Ordering::SeqCst);
        self.value.store(current + 1, Ordering::SeqCst);
    }

    /// **Fixed**: one atomic read-modify-write, so no other thread can come in between.
    /// (`Relaxed` would do for a plain counter; `SeqCst` keeps the example about atomicity.)
    pub fn increment(&self) {
        self.value.fetch_add(1, Ordering::SeqCst);
    }

    /// The current count.
    pub fn get(&self) -> u64 {
        self.value.load(Ordering::SeqCst)
    }
}

/// A bank account: a balance behind its own lock, and a number that is unique among
/// accounts and fixes the order in which [`transfer_ordered`] locks them.
#[derive(Debug)]
pub struct Account {
    id: u32,
    balance: Mutex<i64>,
}

impl Account {
    /// An account with a unique `id` and an opening balance.
    pub fn new(id: u32, balance: i64) -> Self {
        Account {
            id,
            balance: Mutex::new(balance),
        }
    }

    /// The current balance (taking the account's lock).
    pub fn balance(&self) -> i64 {
        *self.balance.lock().unwrap()
    }
}

/// **Buggy**: moves `amount` from `from` to `to`, holding both locks so that no one sees the
/// money in neither account or in both.
///
/// It locks `from` first. If one thread runs `transfer(a, b)` while another runs
/// `transfer(b, a)`, each can take its first lock and then wait for the lock the other holds:
/// neither can ever continue.
pub fn transfer(from: &Account, to: &Account, amount: i64) {
    let mut source = from.balance.lock().unwrap();
    let mut destination = to.balance.lock().unwrap();
    *source -= amount;
    *destination += amount;
}

/// **Fixed**: the same transfer, but the two locks are always taken in the order of the
/// accounts' ids, whichever way the money moves. A thread then only ever waits for a lock
/// with a higher id than every lock it holds, so no cycle of waiting threads can form.
pub fn transfer_ordered(from: &Account, to: &Account, amount: i64) {
    assert_ne!(from.id, to.id, "a transfer needs two different accounts");
    let (first, second) = if from.id < to.id {
        (from, to)
    } else {
        (to, from)
    };
    let mut first_balance = first.balance.lock().unwrap();
    let mut second_balance = second.balance.lock().unwrap();
    // Lock order and money direction are independent: find which guard is the source.
    let (source, destination) = if first.id == from.id {
        (&mut *first_balance, &mut *second_balance)
    } else {
        (&mut *second_balance, &mut *first_balance)
    };
    *source -= amount;
    *destination += amount;
}
