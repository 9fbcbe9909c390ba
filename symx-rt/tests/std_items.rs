//! The std items a loom user's code reaches for: `thread_local!` (one value per model thread and
//! per execution, dropped at thread exit), `LazyLock` (once per execution), `compare_and_swap`,
//! `fetch_not`, `unsync_load`, `with_mut`, `Condvar::wait_timeout`/`wait_timeout_while` and
//! `thread::park_timeout` (a timeout is a wake-up the explorer chooses).

mod common;

use std::cell::{Cell, RefCell};
use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::Mutex as StdMutex;
use std::time::Duration;

use common::{assert_fails, assert_passes};
use symx::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::*};
use symx::sync::{Arc, Condvar, LazyLock, Mutex};
use symx::{thread, Builder, FailureKind};

symx::thread_local! {
    static COUNT: Cell<u32> = Cell::new(0);
    static LOG: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

#[test]
fn each_model_thread_and_each_execution_has_its_own_thread_local() {
    let report = assert_passes(|| {
        COUNT.set(COUNT.get() + 1);
        let t = thread::spawn(|| {
            COUNT.set(COUNT.get() + 10);
            COUNT.get()
        });
        assert_eq!(t.join().unwrap(), 10);
        assert_eq!(
            COUNT.get(),
            1,
            "no other execution's or thread's value leaks in"
        );
        LOG.with_borrow_mut(|l| l.push(1));
        assert_eq!(LOG.take(), vec![1]);
    });
    assert_eq!(report.executions(), 1);
}

static DROPS: StdAtomicUsize = StdAtomicUsize::new(0);

struct CountsDrops;

impl Drop for CountsDrops {
    fn drop(&mut self) {
        DROPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

symx::thread_local! {
    static DROPPED: CountsDrops = CountsDrops;
}

#[test]
fn thread_locals_are_dropped_when_their_thread_ends() {
    let before = DROPS.load(std::sync::atomic::Ordering::SeqCst);
    symx::model(|| {
        thread::spawn(|| DROPPED.with(|_| ())).join().unwrap();
        assert_eq!(DROPS.load(std::sync::atomic::Ordering::SeqCst), before + 1);
        DROPPED.with(|_| ());
    });
    // The main thread's value went when the main thread ended.
    assert_eq!(DROPS.load(std::sync::atomic::Ordering::SeqCst), before + 2);
}

static INITS: StdAtomicUsize = StdAtomicUsize::new(0);
static LAZY: LazyLock<AtomicUsize> = LazyLock::new(|| {
    INITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    AtomicUsize::new(5)
});

#[test]
fn a_lazy_lock_is_initialised_once_per_execution() {
    let start = INITS.load(std::sync::atomic::Ordering::SeqCst);
    let report = assert_passes(|| {
        let t = thread::spawn(|| LAZY.fetch_add(1, SeqCst));
        let mine = LAZY.fetch_add(1, SeqCst);
        let theirs = t.join().unwrap();
        assert_eq!(
            mine + theirs,
            5 + 6,
            "one value, initialised once, in every execution"
        );
    });
    let inits = INITS.load(std::sync::atomic::Ordering::SeqCst) - start;
    assert_eq!(inits as u64, report.executions());
}

static ARC_IN_STATIC: LazyLock<Arc<u32>> = LazyLock::new(|| Arc::new(7));

#[test]
fn an_arc_in_a_lazy_static_is_not_a_leak() {
    assert_passes(|| assert_eq!(**ARC_IN_STATIC, 7));
}

#[test]
fn compare_and_swap_returns_the_previous_value_and_fetch_not_flips() {
    assert_passes(|| {
        let a = AtomicUsize::new(1);
        assert_eq!(a.compare_and_swap(0, 5, SeqCst), 1);
        assert_eq!(a.compare_and_swap(1, 5, SeqCst), 1);
        assert_eq!(a.load(SeqCst), 5);
        let b = AtomicBool::new(false);
        assert!(!b.fetch_not(SeqCst));
        assert!(b.load(SeqCst));
        assert!(b.compare_and_swap(true, false, AcqRel));
        let mut p = AtomicPtr::new(std::ptr::null_mut::<u8>());
        p.with_mut(|p| assert!(p.is_null()));
        let mut n = AtomicUsize::new(3);
        assert_eq!(n.with_mut(|v| std::mem::replace(v, 4)), 3);
        assert_eq!(unsafe { n.unsync_load() }, 4);
        symx::sync::atomic::compiler_fence(SeqCst);
    });
}

#[test]
fn an_unsync_load_racing_with_a_store_is_a_data_race() {
    let failure = assert_fails(FailureKind::DataRace, || {
        let a = Arc::new(AtomicUsize::new(0));
        let b = a.clone();
        let t = thread::spawn(move || unsafe { b.unsync_load() });
        a.store(1, Relaxed);
        t.join().unwrap();
    });
    assert!(failure.message().contains("AtomicUsize"), "{failure}");
}

#[test]
fn an_unsync_load_after_join_is_not_a_race() {
    assert_passes(|| {
        let a = Arc::new(AtomicUsize::new(0));
        let b = a.clone();
        thread::spawn(move || b.store(1, Relaxed)).join().unwrap();
        assert_eq!(unsafe { a.unsync_load() }, 1);
    });
}

/// A waiter with a timeout and nobody to notify it: without timeouts this deadlocks; with
/// them, the explorer lets the wait time out.
#[test]
fn a_condvar_wait_can_time_out_and_both_outcomes_are_explored() {
    static SEEN: StdMutex<Vec<bool>> = StdMutex::new(Vec::new());
    let report = assert_passes(|| {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let p = pair.clone();
        let t = thread::spawn(move || {
            *p.0.lock().unwrap() = true;
            p.1.notify_one();
        });
        let guard = pair.0.lock().unwrap();
        let (guard, result) = pair
            .1
            .wait_timeout_while(guard, Duration::from_millis(10), |ready| !*ready)
            .unwrap();
        assert_eq!(result.timed_out(), !*guard);
        SEEN.lock().unwrap().push(result.timed_out());
        drop(guard);
        t.join().unwrap();
    });
    let seen = SEEN.lock().unwrap();
    assert!(seen.contains(&true) && seen.contains(&false), "{seen:?}");
    assert!(report.executions() >= 2);
}

#[test]
fn a_park_timeout_returns_without_an_unpark() {
    assert_passes(|| thread::park_timeout(Duration::from_millis(1)));
    let failure = assert_fails(FailureKind::Deadlock, || thread::park());
    assert!(
        failure.message().contains("no thread can make progress"),
        "{failure}"
    );
}

#[test]
fn a_timed_wait_that_is_never_notified_still_passes_within_bounds() {
    let report = Builder::new().explore(|| {
        let m = Mutex::new(());
        let c = Condvar::new();
        let (_g, r) = c
            .wait_timeout(m.lock().unwrap(), Duration::from_secs(1))
            .unwrap();
        assert!(r.timed_out());
    });
    assert!(report.failure().is_none(), "{report}");
}
