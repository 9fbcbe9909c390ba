//! Lock claims (the paper's double-locking check, §5.2, on user-annotated locks): a lock built
//! from atomics claims mutual exclusion through its annotations; the engine predicts, from a run
//! in which the lock was used one thread after the other, a schedule in which two threads
//! hold it at once, and the runtime's ownership check confirms it.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use symx::sync::atomic::AtomicI64;
use symx::{Builder, FailureKind, Shared};

use super::{claims_only, no_unconfirmed, observe, predict, Options};
use cargo_symx::engine::predict::Property;

/// A test-and-set lock without the atomic test-and-set: the flag is read, then written.
#[derive(Default)]
struct CheckThenSet {
    locked: AtomicI64,
}

impl CheckThenSet {
    #[symx::acquire]
    fn lock(&self) {
        while symx::branch(self.locked.load_sym(SeqCst).sym_ne(0)) {
            symx::hint::spin_loop();
        }
        self.locked.store_sym(1, SeqCst);
    }

    #[symx::release]
    fn unlock(&self) {
        self.locked.store_sym(0, SeqCst);
    }
}

/// The same lock done right: one swap takes it.
#[derive(Default)]
struct Swap {
    locked: AtomicI64,
}

impl Swap {
    #[symx::acquire]
    fn lock(&self) {
        while symx::branch(self.locked.swap_sym(1, SeqCst).sym_ne(0)) {
            symx::hint::spin_loop();
        }
    }

    #[symx::release]
    fn unlock(&self) {
        self.locked.store_sym(0, SeqCst);
    }
}

trait Lock: Default + Send + Sync + 'static {
    fn acquire(&self);
    fn release(&self);
}

impl Lock for CheckThenSet {
    fn acquire(&self) {
        self.lock()
    }
    fn release(&self) {
        self.unlock()
    }
}

impl Lock for Swap {
    fn acquire(&self) {
        self.lock()
    }
    fn release(&self) {
        self.unlock()
    }
}

/// Two threads increment a counter under the lock; main checks the total.
fn counter<L: Lock>() {
    let s = Arc::new((L::default(), Shared::new(0i64)));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let s = s.clone();
            symx::thread::spawn(move || {
                s.0.acquire();
                let v = s.1.get();
                s.1.set(v + 1);
                s.0.release();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    symx::assert!(s.1.get() == 2);
}

/// One thread after the other (load, store, acquire, get, set, release, store each): both may
/// read the flag before either sets it, and both return from `lock`.
#[test]
fn a_broken_annotated_lock_is_predicted_to_admit_two_holders() {
    let serial = [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2];
    let trace = observe(&serial, counter::<CheckThenSet>);
    let out = predict(&trace, &claims_only(), |g| {
        Builder::new().run_guided(g, counter::<CheckThenSet>)
    });
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 2);
    // One report for the pair of acquisition sites (both directions are the same site).
    assert_eq!(out.confirmed.len(), 1, "{out:#?}");
    let p = &out.confirmed[0];
    assert!(matches!(p.property, Property::LockClaim(_)));
    assert!(
        p.description.contains("mutual exclusion"),
        "{}",
        p.description
    );
    // Both read the flag free, then both set it.
    let run = Builder::new().run_guided(&p.witness.guide, counter::<CheckThenSet>);
    let failure = run.report.failure().expect("the replay fails");
    assert_eq!(failure.kind(), FailureKind::Misuse);
    assert!(failure.message().contains("mutual exclusion is broken"));
}

/// With the swap, the second thread's swap reads the flag set, or comes after the release.
#[test]
fn a_correct_annotated_lock_keeps_its_claim() {
    let serial = [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2];
    let trace = observe(&serial, counter::<Swap>);
    let out = predict(&trace, &claims_only(), |g| {
        Builder::new().run_guided(g, counter::<Swap>)
    });
    no_unconfirmed(&out);
    assert_eq!(out.candidates, 2);
    assert!(out.confirmed.is_empty(), "{out:#?}");
}

/// Other queries assume the claim: the lost update through the broken lock is not predicted
/// as an assertion failure (its replay would stop at the second holder first: the claim's
/// own query reports that).
#[test]
fn other_queries_assume_the_annotated_lock_excludes() {
    let serial = [1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2];
    let trace = observe(&serial, counter::<CheckThenSet>);
    let opts = Options {
        lock_claims: false,
        ..Options::default()
    };
    let out = predict(&trace, &opts, |g| {
        Builder::new().run_guided(g, counter::<CheckThenSet>)
    });
    no_unconfirmed(&out);
    assert!(out.confirmed.is_empty(), "{out:#?}");
    // The assertion, and main's read against each worker's write (ordered by the joins).
    assert_eq!(out.candidates, 3);
}
