//! Spin loops and channels: the single-producer single-consumer queue of the bench (spinning
//! on full and empty), the channel pipeline, and the traces and spin outcomes the reduction
//! runs for them against the DFS, the optimal DPOR and the yield rule.

use super::*;

/// A single-producer single-consumer ring buffer of `capacity` slots (the bench's): the
/// producer pushes `items` values and the consumer pops them, each spinning with a yield
/// while the buffer is full or empty. The random programs never yield; a switch away from a
/// thread that yielded is free, like one away from a thread that blocked.
fn spsc(capacity: usize, items: usize) {
    use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use symx::thread;
    let slots: symx::sync::Arc<Vec<AtomicUsize>> =
        symx::sync::Arc::new((0..capacity).map(|_| AtomicUsize::new(0)).collect());
    let head = symx::sync::Arc::new(AtomicUsize::new(0));
    let tail = symx::sync::Arc::new(AtomicUsize::new(0));
    // Objects are numbered by first use: touch them in a fixed order first.
    for a in slots.iter().chain([&*head, &*tail]) {
        a.load(SeqCst);
    }
    let producer = {
        let (slots, head, tail) = (slots.clone(), head.clone(), tail.clone());
        thread::spawn(move || {
            for v in 1..=items {
                let t = tail.load(SeqCst);
                while t - head.load(SeqCst) == capacity {
                    thread::yield_now();
                }
                slots[t % capacity].store(v, SeqCst);
                tail.store(t + 1, SeqCst);
            }
        })
    };
    for want in 1..=items {
        let h = head.load(SeqCst);
        while tail.load(SeqCst) == h {
            thread::yield_now();
        }
        assert_eq!(slots[h % capacity].load(SeqCst), want);
        head.store(h + 1, SeqCst);
    }
    producer.join().unwrap();
}

/// The distinct traces of the SPSC queue under `strategy` and `bound`, and the executions.
fn spsc_traces(
    capacity: usize,
    items: usize,
    strategy: Strategy,
    bound: u32,
) -> (HashSet<Vec<ObservedStep>>, u64) {
    traces_of(|| spsc(capacity, items), strategy, bound)
}

/// Spin loops with yields under a bound: the reduction runs every trace the DFS runs, in
/// exactly these many executions (DFS traces, DFS executions, reduction executions). Without
/// the points for a race the bound or a yield keeps from reversing where it is (at every
/// earlier step where the racing thread can run) it misses 1, 2, 1 and 16 of these traces; the
/// points inside a run are asked only where its thread holds a lock (at every step of the run
/// it ran 40, 123, 105 and 438 executions). Since the reduction models the scheduler's fairness
/// rule (session 12, which the programs of [`programs_that_yield`] needed), a yield also races
/// with the steps that let its thread go: 54, 151, 127 and 701 executions with the points at
/// earlier steps kept; asked only in executions where something can block (nothing does here),
/// 34, 87, 74 and 330 (34, 110, 89 and 378 before the model).
#[test]
fn spin_loops_run_every_trace_under_a_bound() {
    let rows = [
        ((1, 2, 2), (15, 80, 34)),
        ((1, 3, 2), (36, 194, 87)),
        ((2, 3, 2), (39, 179, 74)),
        ((1, 3, 3), (88, 1356, 330)),
    ];
    for ((capacity, items, bound), want) in rows {
        let (dfs, dfs_runs) = spsc_traces(capacity, items, Strategy::Dfs, bound);
        let (bpor, bpor_runs) = spsc_traces(capacity, items, Strategy::Dpor, bound);
        let at = format!("capacity {capacity}, {items} items, bound {bound}");
        assert_eq!(dfs.difference(&bpor).count(), 0, "missed traces: {at}");
        assert_eq!((dfs.len(), dfs_runs, bpor_runs), want, "{at}");
    }
}

/// The optimal DPOR (no bound) on the queue runs each of its traces once, under the relation
/// that models the scheduler's yield rule (`random_programs::canonical`), and every trace of the
/// steps other than yields: (executions, traces, traces of the steps other than yields) for
/// capacity 1 and one or two items; with one item, the same traces of the steps other than
/// yields as every interleaving (55 executions).
/// - A step that turned out quiet (a load) lets no thread that yielded go, so a yield asleep at
///   a node stays asleep past it. Before (until session 14) every step after a first yield
///   counted as one that may: the consumer's yield, asleep where the producer's loads came
///   first, woke at the first of them and ran again (9 and 378 executions).
/// - A yield's race with the change that let its thread go needs no branch where only the
///   yielding thread runs after that change (`reversals::yield_then_solo`): the consumer's
///   yields against the producer's last store (6 and 192 executions before).
#[test]
fn the_optimal_dpor_runs_each_trace_of_the_queue_once() {
    use random_programs::{canonical as with_yield_rule, canonical_without_yields};
    let explore = |strategy: Strategy, items: usize| {
        let builder = Builder::new().strategy(strategy);
        let (mut traces, mut memory, mut runs) = (HashSet::new(), HashSet::new(), 0);
        let report = explore_observed(
            &builder,
            || spsc(1, items),
            |steps| {
                runs += 1;
                traces.insert(with_yield_rule(steps));
                memory.insert(canonical_without_yields(steps));
            },
        );
        assert!(report.complete() && report.failure().is_none());
        (runs, traces.len(), memory)
    };
    for (items, want) in [(1, (4, 4, 3)), (2, (128, 128, 29))] {
        let (runs, traces, memory) = explore(Strategy::Dpor, items);
        assert_eq!((runs, traces, memory.len()), want, "{items} items");
    }
    let (dfs_runs, _, dfs) = explore(Strategy::Dfs, 1);
    assert_eq!(dfs_runs, 55);
    assert_eq!(dfs, explore(Strategy::Dpor, 1).2);
}

/// Where the queue's executions under a bound go (capacity 1, 3 items, bounds 1, 2, 4):
/// (executions, traces under the relation that models the yield rule, traces of the steps
/// other than yields). The reduction runs each trace of its relation once; what it runs over
/// the traces of the memory steps (which here are the spin-count outcomes, the bench's
/// `spin-outcomes`) is the yield rule's: where a yield falls against the other thread's stores
/// (a write of the fairness object against its reads) decides whether the yielding thread may
/// run before the next store, so each such order is a trace of its own. Loom reaches 10 / 43 /
/// 160 outcomes in 12 / 71 / 745 executions. A narrower rule (a yield let go only by a change
/// of an object read since the thread's last yield) moved none of the first two rows and took
/// 12 memory traces off the last (843 / 843 / 141); docs/bounded-por.md, session 18.
#[test]
fn the_queue_runs_one_execution_per_trace_of_the_yield_rule() {
    for (bound, want) in [(1, (14, 14, 9)), (2, (87, 87, 36)), (4, (879, 879, 153))] {
        let got = yield_rule_traces(|| spsc(1, 3), bound, |steps| steps.to_vec());
        assert_eq!(got, want, "bound {bound}");
    }
}

/// The bounded reduction's executions of `body` at `bound`, its distinct traces under the
/// relation that models the yield rule, and those of the steps other than yields, each
/// execution's steps taken through `named` first.
fn yield_rule_traces(
    body: impl Fn(),
    bound: u32,
    named: impl Fn(&[ObservedStep]) -> Vec<ObservedStep>,
) -> (u64, usize, usize) {
    use random_programs::{canonical as with_yield_rule, canonical_without_yields};
    let builder = Builder::new()
        .strategy(Strategy::Dpor)
        .preemption_bound(Some(bound))
        .max_executions(Some(MAX_EXECUTIONS));
    let (mut traces, mut memory, mut runs) = (HashSet::new(), HashSet::new(), 0);
    let report = explore_observed(&builder, body, |steps| {
        runs += 1;
        let steps = named(steps);
        traces.insert(with_yield_rule(&steps));
        memory.insert(canonical_without_yields(&steps));
    });
    assert!(report.complete() && report.failure().is_none());
    (runs, traces.len(), memory.len())
}

/// The bench's channel pipeline: a producer sends 1 and 2, a doubler forwards them doubled,
/// main receives both, then joins the two.
fn pipeline() {
    use symx::sync::mpsc;
    use symx::thread;
    let (tx1, rx1) = mpsc::channel::<usize>();
    let (tx2, rx2) = mpsc::channel::<usize>();
    let producer = thread::spawn(move || {
        for i in 1..=2 {
            tx1.send(i).unwrap();
        }
    });
    let doubler = thread::spawn(move || {
        for _ in 0..2 {
            let v = rx1.recv().unwrap();
            tx2.send(v * 2).unwrap();
        }
    });
    let got = [rx2.recv().unwrap(), rx2.recv().unwrap()];
    assert_eq!(got, [2, 4]);
    producer.join().unwrap();
    doubler.join().unwrap();
}

/// Main drops its receiver after joining the doubler, which has then dropped the last sender:
/// when both joins find their thread finished, the drop is part of main's last receive's step
/// (no step comes between). It comes after the doubler's end, unlike the receive: races
/// apart from it (`Event::joined`), it no longer makes the receive race with the doubler's
/// sends and sender drop. (DFS executions, reduction executions) at bounds 1, 2 and 4; before,
/// the reduction ran 3, 10 and 10, then 2, 5 and 5 until the producer's pending disconnect said
/// which side it drops (see `a_pending_disconnect_says_which_side_it_drops`; the unbounded
/// optimal DPOR runs 2), and 4, 8 and 3 since a step that waited asks for its thread at the step
/// it waited for (`look::Look::blocked_earlier`, which channel programs whose only schedule
/// within the bound blocks earlier need), and 4, 5 and 3 since a race whose thread the bound
/// keeps from running where it is asks for it at fewer earlier steps (session 14,
/// `look::Look::race`). The traces are not compared: `canonical` takes every two steps on one
/// channel as dependent, coarser than the reductions' channels (`bounded_channels.rs` compares
/// outcomes instead).
#[test]
fn a_drop_after_joins_races_apart_from_its_step() {
    for (bound, want) in [(1, (9, 4)), (2, (44, 5)), (4, (192, 3))] {
        let (_, dfs) = traces_of(pipeline, Strategy::Dfs, bound);
        let (_, bpor) = traces_of(pipeline, Strategy::Dpor, bound);
        assert_eq!((dfs, bpor), want, "bound {bound}");
    }
}

/// A producer sends 1, 2 and 3 and drops its sender; main receives the three and drops the
/// receiver before it joins: two traces (which side goes first decides whether main's drop is
/// a disconnect the producer could see). While the producer's drop is pending (in the
/// execution where main's receiver goes first), it is known to be the last sender's
/// (`OpKind::SendersGone`), which commutes with every receive that took a message; when it was
/// a disconnect of either side, conflicting with everything on the channel, it raced with
/// main's receives too, and a fourth execution ran it before the second: 4 executions at
/// bounds 2 and 4, now 3 (bounds 0 and 1: 1 and 2, before too). The third runs the producer's
/// drop before main's last receive step, whose code reads whether the sender is gone (a real
/// race), and reaches the first execution's trace again: the producer's drop, which could wake
/// a receiver waiting, stays awake there under the bound (`puts_to_sleep`). At bound 1, 4
/// executions since a step that waited asks for its thread at the step it waited for (2 before).
#[test]
fn a_pending_disconnect_says_which_side_it_drops() {
    fn program() {
        use symx::sync::mpsc;
        let (tx, rx) = mpsc::channel::<usize>();
        let producer = symx::thread::spawn(move || {
            for i in 1..=3 {
                tx.send(i).unwrap();
            }
        });
        for i in 1..=3 {
            assert_eq!(rx.recv().unwrap(), i);
        }
        drop(rx);
        producer.join().unwrap();
    }
    for (bound, want) in [(0, 1), (1, 4), (2, 3), (4, 3)] {
        let (_, bpor) = traces_of(program, Strategy::Dpor, bound);
        assert_eq!(bpor, want, "bound {bound}");
    }
}

thread_local! {
    static SPINS: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The SPSC queue as the bench writes it (objects used first wherever the schedule has them),
/// recording how often each thread spun before each value as the execution's outcome.
fn spsc_counting_spins(capacity: usize, items: usize) {
    use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    use symx::thread;
    let slots: symx::sync::Arc<Vec<AtomicUsize>> =
        symx::sync::Arc::new((0..capacity).map(|_| AtomicUsize::new(0)).collect());
    let head = symx::sync::Arc::new(AtomicUsize::new(0));
    let tail = symx::sync::Arc::new(AtomicUsize::new(0));
    let producer = {
        let (slots, head, tail) = (slots.clone(), head.clone(), tail.clone());
        thread::spawn(move || {
            let mut spins = Vec::new();
            for v in 1..=items {
                let t = tail.load(SeqCst);
                let mut n = 0;
                while t - head.load(SeqCst) == capacity {
                    n += 1;
                    thread::yield_now();
                }
                spins.push(n);
                slots[t % capacity].store(v, SeqCst);
                tail.store(t + 1, SeqCst);
            }
            spins
        })
    };
    let mut spins = Vec::new();
    for want in 1..=items {
        let h = head.load(SeqCst);
        let mut n = 0;
        while tail.load(SeqCst) == h {
            n += 1;
            thread::yield_now();
        }
        spins.push(n);
        assert_eq!(slots[h % capacity].load(SeqCst), want);
        head.store(h + 1, SeqCst);
    }
    let theirs = producer.join().unwrap();
    SPINS.with(|o| *o.borrow_mut() = Some(format!("{theirs:?} {spins:?}")));
}

/// Every outcome (spin counts) the bounded DFS reaches on [`spsc_counting_spins`], and the
/// executions, under `strategy` and `bound`.
fn spin_outcomes(
    capacity: usize,
    items: usize,
    strategy: Strategy,
    bound: u32,
) -> (HashSet<String>, u64) {
    let builder = Builder::new()
        .strategy(strategy)
        .preemption_bound(Some(bound))
        .max_executions(Some(MAX_EXECUTIONS));
    let mut outcomes = HashSet::new();
    let report = explore_observed(
        &builder,
        || spsc_counting_spins(capacity, items),
        |_| outcomes.extend(SPINS.with(|o| o.borrow_mut().take())),
    );
    assert!(report.complete() && report.failure().is_none());
    (outcomes, report.executions())
}

/// Before its first step the main thread is the one running, so a switch away from it there,
/// while it can take that step, is a preemption (CHESS's definition, and loom's); until
/// session 12 the scheduler counted none before the first step. `spawn(store x); load x` at
/// bound 0 is one execution (main's load first), at bound 1 two, for the DFS and the reduction.
///
/// The queue as the bench writes it (whose producer or consumer may step first), by its
/// spin-count outcomes, at bounds 0 to 3: the reduction reaches every outcome of the DFS. With
/// the free first step, a branch taken there had to keep its thread awake (moving it to the
/// front of a later branch added a preemption that branch did not pay): putting it to sleep
/// missed 1 of 15 outcomes at bound 1 and 5 of 50 at bound 2 (capacity 1, three values), 2 of
/// 11 and 4 of 24 with capacity 2. Now the main thread's branch at the first step sleeps like
/// any branch that continues the running thread. (DFS outcomes, DFS executions, reduction
/// executions; until session 20 the reduction's were 15 / 96 / 364 at capacity 1 and 15 / 80
/// at capacity 2, see
/// [`the_bench_queue_runs_one_execution_per_trace_of_the_yield_rule`].)
#[test]
fn a_switch_away_from_main_before_its_first_step_is_a_preemption() {
    use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let store_and_load = || {
        let x = symx::sync::Arc::new(AtomicUsize::new(0));
        let y = x.clone();
        symx::thread::spawn(move || y.store(1, SeqCst));
        x.load(SeqCst);
    };
    for (bound, want) in [(0, 1), (1, 2)] {
        let dfs = traces_of(store_and_load, Strategy::Dfs, bound);
        let bpor = traces_of(store_and_load, Strategy::Dpor, bound);
        assert_eq!(
            (dfs.0.len(), dfs.1, bpor.1),
            (want, want as u64, want as u64),
            "bound {bound}"
        );
    }
    for ((capacity, items, bound), want) in [
        ((1, 3, 0), (1, 1, 1)),
        ((1, 3, 1), (9, 19, 14)),
        ((1, 3, 2), (36, 194, 87)),
        ((1, 3, 3), (88, 1_356, 330)),
        ((2, 3, 1), (7, 20, 14)),
        ((2, 3, 2), (20, 179, 74)),
    ] {
        let (dfs, dfs_runs) = spin_outcomes(capacity, items, Strategy::Dfs, bound);
        let (bpor, bpor_runs) = spin_outcomes(capacity, items, Strategy::Dpor, bound);
        let at = format!("capacity {capacity}, {items} items, bound {bound}");
        assert_eq!(dfs.difference(&bpor).count(), 0, "missed outcomes: {at}");
        assert_eq!((dfs.len(), dfs_runs, bpor_runs), want, "{at}");
    }
}

/// The queue as the bench writes it (its main is the consumer, and objects are named by first
/// use) runs one execution per trace of the relation that models the yield rule, as the
/// test's queue does ([`the_queue_runs_one_execution_per_trace_of_the_yield_rule`]): capacity
/// 1, three values, bounds 1, 2, 4 (executions, those traces, traces of the steps other than
/// yields, which are the spin-count outcomes; the bounded DFS covers the same traces in 19 /
/// 194 / 7,250 executions). Until session 20 it ran 15 / 96 / 957: a race in main's first run
/// (the consumer's yield against the producer's slot store) also asked for the producer at the
/// run's start, step 0, Coons's conservative point; but no switch starts that run (before the
/// first step main counts as the one running), so running the producer there preempts main as
/// running it at the race does, and saves no preemption for later (`look::Look::race`).
#[test]
fn the_bench_queue_runs_one_execution_per_trace_of_the_yield_rule() {
    for (bound, want) in [(1, (14, 14, 9)), (2, (87, 87, 36)), (4, (879, 879, 153))] {
        let got = yield_rule_traces(|| spsc_counting_spins(1, 3), bound, by_first_use);
        assert_eq!(got, want, "bound {bound}");
    }
}

/// The bench's queue with two slots (spsc-2: capacity 2, three values, main the consumer,
/// objects named by first use) runs one execution per trace of the yield rule's relation too
/// (executions, those traces, traces of the steps other than yields), the same traces as the
/// bounded DFS's 20 / 179 / 5,495 executions. Its slot store and load are each one source line
/// for both slots, so until the event key held the thread's count of events at a location
/// (session 23, `events::names`) an earlier spin's shift of a thread's event indices joined
/// the two slots' names, and the reduction ran 582 executions at bound 4 for these 528 traces.
#[test]
fn the_bench_queue_of_two_slots_runs_one_execution_per_trace_of_the_yield_rule() {
    for (bound, want) in [(1, (14, 14, 10)), (2, (74, 74, 39)), (4, (528, 528, 164))] {
        let got = yield_rule_traces(|| spsc_counting_spins(2, 3), bound, by_first_use);
        assert_eq!(got, want, "bound {bound}");
    }
}
