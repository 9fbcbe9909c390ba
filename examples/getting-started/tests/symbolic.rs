//! Symbolic values: an input instead of a constant, a shared balance whose reads are recorded,
//! and the trace every engine reads.

use symx::sync::{Arc, Mutex};
use symx::trace::format::EventKind;
use symx::{Builder, Shared, Sym};

/// Two withdrawals of `amount` from a balance of 100, each checked against the balance under
/// the lock. Whatever the input and the interleaving, no money appears or disappears: both
/// withdrawals are made when both fit, one otherwise. (An earlier version asserted
/// `left + amount >= 100`, "at most one is refused", which fails for every amount up to 50:
/// `cargo symx test --predict` found it from one passing run, by solving for the input.)
/// `#[symx::instrument]` records the branches and assertions of the body (a `#[symx::test]`
/// body is instrumented without it).
#[symx::instrument]
fn withdrawals() {
    let amount: Sym<u32> = symx::any_named("amount"); // a symbolic input
    symx::assume(amount <= 100u32); // other values are discarded
    let account = Arc::new((Mutex::new(()), Shared::new(100u32)));
    let a = account.clone();
    let t = symx::thread::spawn(move || {
        let _g = a.0.lock().unwrap();
        let balance = a.1.get();
        if balance >= amount {
            // recorded: a branch on `read >= amount`
            a.1.set(balance - amount);
        }
    });
    {
        let _g = account.0.lock().unwrap();
        let balance = account.1.get();
        if balance >= amount {
            account.1.set(balance - amount);
        }
    }
    t.join().unwrap();
    let left = account.1.get();
    symx::assert!(left <= 100u32, "no money appears");
    let expected = if amount <= 50u32 {
        100u32 - amount - amount
    } else {
        100u32 - amount
    };
    symx::assert!(left == expected, "every withdrawal that fits is made");
}

#[symx::test]
fn withdrawals_never_overdraw() {
    withdrawals();
}

#[test]
fn the_trace_records_the_input_the_reads_and_the_branches() {
    let inputs = [("amount".to_string(), 60)].into_iter().collect();
    let mut branches = Vec::new();
    let report = Builder::new()
        .inputs(inputs)
        .explore_traces(withdrawals, |trace| {
            trace.check_consistency().unwrap();
            assert_eq!(trace.inputs[0].name, "amount");
            let kinds: Vec<_> = trace.events.iter().map(|e| e.kind).collect();
            branches.push(kinds.iter().filter(|k| **k == EventKind::Branch).count());
        });
    assert!(report.failure().is_none());
    // Two orders of the critical sections; in each, both threads branch on the balance and
    // main on the amount.
    assert_eq!(branches, [3, 3]);
}
