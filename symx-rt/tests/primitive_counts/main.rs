//! Acceptance: the optimal DPOR's dependence relation follows what each modelled primitive's
//! operations really commute with. For each program the number of executions is the number of
//! Mazurkiewicz traces theory gives, and the unreduced DFS (every interleaving) reaches exactly
//! the outcomes the DPOR reaches: the reduction drops no behaviour.
//!
//! This file holds the explorations every program's check shares (`dpor_count`: the DFS, the
//! optimal DPOR and the bounded reduction, with and without bounds) and `measure`, which prints
//! every program's counts. The programs and their tests, one module per primitive: `channels`,
//! `once`, `condvar`, `barriers`, `arcs`, `park`, and `spins` (threads that yield).

mod arcs;
mod barriers;
mod channels;
mod condvar;
mod once;
mod park;
mod spins;

use std::cell::RefCell;
use std::collections::BTreeSet;

use symx::__private::{explore_observed, ObservedStep};
use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use symx::sync::{mpsc, Arc, Barrier, Condvar, Mutex, Once, OnceLock};
use symx::{thread, Builder, Report, Strategy};

use arcs::*;
use barriers::*;
use channels::*;
use condvar::*;
use once::*;
use park::*;

thread_local! {
    static OUTCOME: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn record(outcome: String) {
    OUTCOME.with(|o| *o.borrow_mut() = Some(outcome));
}

fn take() -> Option<String> {
    OUTCOME.with(|o| o.borrow_mut().take())
}

/// Explores `body` completely with `builder` and returns the report and the outcomes reached.
fn explore(builder: Builder, body: fn()) -> (Report, BTreeSet<String>) {
    take();
    let mut outcomes = BTreeSet::new();
    let report = explore_observed(&builder.shallow_first(false), body, |_| {
        outcomes.extend(take());
    });
    assert!(report.failure().is_none() && report.complete(), "{report}");
    (report, outcomes)
}

/// The optimal DPOR's execution count on `body`, after checking that it reaches the outcomes
/// the DFS reaches, and so does the bounded reduction under a generous preemption bound and
/// under bounds 0 to 3 (against the DFS under the same bound).
fn dpor_count(body: fn()) -> u64 {
    let (dfs, want) = explore(Builder::new().strategy(Strategy::Dfs), body);
    let (dpor, got) = explore(Builder::new(), body);
    assert_eq!(got, want, "the DPOR's outcomes against the DFS's");
    let (bpor, bounded) = explore(Builder::new().preemption_bound(Some(10)), body);
    assert_eq!(
        bounded, want,
        "the bounded reduction's outcomes against the DFS's"
    );
    assert!(dpor.executions() <= dfs.executions());
    assert!(bpor.executions() <= dfs.executions());
    for bound in 0..=3 {
        let bounded = |s| Builder::new().strategy(s).preemption_bound(Some(bound));
        let (dfs, want) = explore(bounded(Strategy::Dfs), body);
        let (bpor, got) = explore(bounded(Strategy::Dpor), body);
        assert_eq!(
            got, want,
            "the bounded reduction's outcomes at bound {bound}"
        );
        assert!(bpor.executions() <= dfs.executions(), "bound {bound}");
    }
    dpor.executions()
}

/// Prints each program's counts: DFS, optimal DPOR, bounded reduction (bound 10), outcomes.
#[test]
#[ignore = "prints the counts for the documentation"]
fn measure() {
    for (name, body) in [
        ("commutative_senders", commutative_senders as fn()),
        (
            "two_senders_then_the_receiver",
            two_senders_then_the_receiver,
        ),
        ("a_try_recv_beside_two_sends", a_try_recv_beside_two_sends),
        ("the_receiver_sends_too", the_receiver_sends_too),
        (
            "a_receiver_dropped_while_two_send",
            a_receiver_dropped_while_two_send,
        ),
        (
            "receives_until_the_senders_are_gone",
            receives_until_the_senders_are_gone,
        ),
        ("a_bounded_channel_of_one", a_bounded_channel_of_one),
        ("a_rendezvous", a_rendezvous),
        ("a_receive_with_a_timeout", a_receive_with_a_timeout),
        (
            "a_receive_with_a_timeout_after_the_sender",
            a_receive_with_a_timeout_after_the_sender,
        ),
        ("once_lock_readers", once_lock_readers),
        ("call_once_by_three", call_once_by_three),
        (
            "notifies_of_a_condvar_nobody_waits_on",
            notifies_of_a_condvar_nobody_waits_on,
        ),
        (
            "notifies_with_and_without_a_waiter",
            notifies_with_and_without_a_waiter,
        ),
        ("one_barrier_generation", one_barrier_generation),
        ("two_barrier_generations", two_barrier_generations),
        ("a_barrier_leader_stores", a_barrier_leader_stores),
        (
            "an_arc_freed_by_either_thread",
            an_arc_freed_by_either_thread,
        ),
        (
            "an_arc_of_a_quiet_value_dropped_by_all",
            an_arc_of_a_quiet_value_dropped_by_all,
        ),
        (
            "an_arc_freed_before_a_first_step",
            an_arc_freed_before_a_first_step,
        ),
        ("an_arc_freed_after_a_wake_up", an_arc_freed_after_a_wake_up),
        ("a_count_read_beside_drops", a_count_read_beside_drops),
        (
            "counts_of_a_plain_value_read_beside_drops",
            counts_of_a_plain_value_read_beside_drops,
        ),
        (
            "an_arc_freed_by_a_named_thread",
            an_arc_freed_by_a_named_thread,
        ),
        ("two_unparks_and_a_park", two_unparks_and_a_park),
        (
            "two_unparks_of_a_thread_that_parks_once",
            two_unparks_of_a_thread_that_parks_once,
        ),
    ] {
        let count = |b: Builder| explore(b, body).0.executions();
        println!(
            "{name}: DFS {}, DPOR {}, bounded reduction {}, outcomes {}",
            count(Builder::new().strategy(Strategy::Dfs)),
            count(Builder::new()),
            count(Builder::new().preemption_bound(Some(10))),
            explore(Builder::new().strategy(Strategy::Dfs), body)
                .1
                .len()
        );
        println!(
            "  DFS {:?} DPOR {:?}",
            explore(Builder::new().strategy(Strategy::Dfs), body).1,
            explore(Builder::new(), body).1
        );
    }
}
