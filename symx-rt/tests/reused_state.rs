//! The runtime keeps an execution's tables (threads, their clocks, objects, the wait queue,
//! the coroutines' slots) and reuses their storage for the next execution on the same OS
//! thread. Nothing of one execution may be seen by the next: an exploration that follows
//! others on one OS thread must be exactly the one a fresh OS thread runs, and a value a
//! thread-local, a static atomic or a clock held in one execution is gone in the next.

use std::cell::Cell;

use symx::cell::UnsafeCell;
use symx::sync::atomic::{fence, AtomicUsize, Ordering};
use symx::sync::{mpsc, Arc, Mutex};
use symx::{thread, Builder, Report};

/// Many threads, objects and synchronisations: large clocks and tables for later
/// executions to inherit the storage of.
fn warm_up() {
    let report = Builder::new().max_executions(Some(30)).explore(|| {
        let x = Arc::new(AtomicUsize::new(0));
        let m = Arc::new(Mutex::new(0));
        let (tx, rx) = mpsc::channel();
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (x, m, tx) = (x.clone(), m.clone(), tx.clone());
                thread::spawn(move || {
                    x.fetch_add(1, Ordering::SeqCst);
                    fence(Ordering::SeqCst);
                    *m.lock().unwrap() += i;
                    tx.send(i).unwrap();
                })
            })
            .collect();
        drop(tx);
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(rx.iter().count(), 4);
    });
    assert!(report.failure().is_none());
}

struct Mailbox {
    data: UnsafeCell<u32>,
    flag: AtomicUsize,
}

// SAFETY: the claim is false on purpose; symx checks the accesses and reports the race.
unsafe impl Sync for Mailbox {}

/// A write published by a relaxed increment, which orders nothing: reading the data after
/// seeing the flag is a data race. Clocks left over from an earlier execution (a fence clock
/// a relaxed write publishes, an object's clock) would claim an order and hide it.
fn racy_cell() {
    let mb = Arc::new(Mailbox {
        data: UnsafeCell::new(0),
        flag: AtomicUsize::new(0),
    });
    let m2 = mb.clone();
    let t = thread::spawn(move || {
        m2.data.with_mut(|p| unsafe { *p = 1 });
        m2.flag.fetch_add(1, Ordering::Relaxed);
    });
    if mb.flag.load(Ordering::Acquire) == 1 {
        mb.data.with(|p| unsafe { *p });
    }
    t.join().unwrap();
}

/// A lost update: found after a number of executions that the exploration's whole state
/// decides.
fn lost_update() {
    let x = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let x = x.clone();
            thread::spawn(move || {
                let v = x.load(Ordering::SeqCst);
                x.store(v + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(x.load(Ordering::SeqCst), 2, "an increment was lost");
}

static HITS: AtomicUsize = AtomicUsize::new(0);

symx::thread_local! {
    static MINE: Cell<u32> = const { Cell::new(0) };
}

/// Three threads counting on a static atomic and a thread-local each: every execution must
/// start from their initial values.
fn counters_and_locals() {
    assert_eq!(
        MINE.get(),
        0,
        "a thread-local kept an earlier execution's value"
    );
    MINE.set(7);
    let handles: Vec<_> = (0..3)
        .map(|_| {
            thread::spawn(|| {
                assert_eq!(MINE.get(), 0, "a thread-local kept another thread's value");
                MINE.set(MINE.get() + 1);
                HITS.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(HITS.load(Ordering::SeqCst), 3, "the static kept a value");
}

/// What an exploration's report says, in full enough to tell two explorations apart.
fn summary(report: &Report) -> (u64, Option<String>, Option<usize>) {
    let failure = report.failure();
    (
        report.executions(),
        failure.map(|f| format!("{}: {}", f.kind(), f.message())),
        failure.map(|f| f.steps().len()),
    )
}

fn explore_on_fresh_os_thread(warm: bool, body: fn()) -> (u64, Option<String>, Option<usize>) {
    std::thread::spawn(move || {
        if warm {
            warm_up();
        }
        summary(&Builder::new().explore(body))
    })
    .join()
    .expect("the exploring OS thread")
}

// One test: the programs share a static, which two explorations running at once on two OS
// threads (as parallel tests would) must not share.
#[test]
fn nothing_of_an_execution_is_seen_by_the_next_on_the_same_os_thread() {
    an_exploration_after_others_on_one_os_thread_is_the_one_a_fresh_thread_runs();
    each_execution_starts_from_fresh_locals_statics_and_clocks();
}

fn an_exploration_after_others_on_one_os_thread_is_the_one_a_fresh_thread_runs() {
    for (name, body) in [
        ("racy_cell", racy_cell as fn()),
        ("lost_update", lost_update),
        ("counters_and_locals", counters_and_locals),
    ] {
        let fresh = explore_on_fresh_os_thread(false, body);
        let warmed = explore_on_fresh_os_thread(true, body);
        assert_eq!(fresh, warmed, "{name}");
    }
}

fn each_execution_starts_from_fresh_locals_statics_and_clocks() {
    warm_up();
    let report = Builder::new().explore(counters_and_locals);
    assert!(report.failure().is_none(), "{:?}", report.failure());
    // Three threads' increments of one atomic: 3! orders, and nothing else to reorder.
    assert_eq!(report.executions(), 6);
    let race = Builder::new().explore(racy_cell);
    let failure = race.failure().expect("the race is found");
    assert_eq!(failure.kind(), symx::FailureKind::DataRace, "{failure}");
    assert_eq!(race.executions(), 2, "the race is in the second schedule");
}
