//! `Once` and `OnceLock`: the initialiser runs once per execution and publishes what it wrote
//! (a static one starts every execution afresh), `set` lets exactly one value in, `get`
//! synchronises with the initialiser; the race of a state read without `call_once`; both
//! outside a model.

use super::*;

struct Init {
    once: Once,
    runs: AtomicUsize,
    value: Racy<u32>,
}

#[test]
fn once_runs_its_initialiser_once_and_publishes_it() {
    // Each thread: call_once (1 step), the initialiser's fetch_add (1 step, winner only), then
    // a load (1 step). Say A's call_once is first and A runs the initialiser:
    //  - A's fetch_add next: B's call_once then comes before A's load (2 orders of the two
    //    loads) or after it (1): 3;
    //  - B's call_once next: B waits (no step) until A's fetch_add completes the Once, then
    //    both loads remain in 2 orders: 2.
    // 5 with A first, 5 with B first: 10.
    let report = passes(|| {
        let init = Arc::new(Init {
            once: Once::new(),
            runs: AtomicUsize::new(0),
            value: Racy::new(0),
        });
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let init = init.clone();
                thread::spawn(move || {
                    init.once.call_once(|| {
                        init.value.set(42);
                        init.runs.fetch_add(1, Ordering::SeqCst);
                    });
                    // The initialiser's write happens before every return of call_once.
                    assert_eq!(init.value.get(), 42);
                    assert_eq!(init.runs.load(Ordering::SeqCst), 1);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
    assert_eq!(report.executions(), 10);
}

#[test]
fn once_state_read_without_call_once_races() {
    fails(FailureKind::DataRace, || {
        let init = Arc::new(Init {
            once: Once::new(),
            runs: AtomicUsize::new(0),
            value: Racy::new(0),
        });
        let i = init.clone();
        let t = thread::spawn(move || i.once.call_once(|| i.value.set(1)));
        if !init.once.is_completed() {
            // Not complete: reading now is unsynchronised with the initialiser.
            init.value.get();
        }
        t.join().unwrap();
    });
}

static ONCE: Once = Once::new();
static ONCE_RUNS: StdAtomicUsize = StdAtomicUsize::new(0);

#[test]
fn a_static_once_starts_every_execution_afresh() {
    fn count_run() {
        ONCE_RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    let report = passes(|| {
        let t = thread::spawn(|| ONCE.call_once(count_run));
        ONCE.call_once(count_run);
        t.join().unwrap();
        assert!(ONCE.is_completed());
    });
    // Two calls, one step each: 2 orders. An initialiser runs in each execution, which it
    // would not if the static stayed complete after the first.
    assert_eq!(report.executions(), 2);
    // `passes` explores with DFS and then with DPOR (also 2: the calls conflict): 4 runs.
    assert_eq!(ONCE_RUNS.load(std::sync::atomic::Ordering::SeqCst), 4);
}

static CELL: OnceLock<u32> = OnceLock::new();

#[test]
fn oncelock_get_or_init_initialises_once_per_execution() {
    // Each thread: get_or_init (1 step) and, for the winner, its initialiser's fetch_add
    // (1 step). A first: A's fetch_add before or after B's call (B waits if after): 2; B first:
    // 2. Total 4. `CELL` is a static: it must be empty again in every execution.
    let report = passes(|| {
        let inits = Arc::new(AtomicUsize::new(0));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let inits = inits.clone();
                thread::spawn(move || {
                    let v = CELL.get_or_init(|| {
                        inits.fetch_add(1, Ordering::SeqCst);
                        7
                    });
                    assert_eq!(*v, 7);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(inits.load(Ordering::SeqCst), 1);
        assert_eq!(CELL.get(), Some(&7));
    });
    assert_eq!(report.executions(), 4);
}

#[test]
fn oncelock_set_lets_exactly_one_value_in() {
    // Two `set`s, one step each: 2 executions, each won by a different thread.
    let report = passes(|| {
        let cell = Arc::new(OnceLock::new());
        let c = cell.clone();
        let t = thread::spawn(move || c.set(1).is_ok());
        let mine = cell.set(2).is_ok();
        let theirs = t.join().unwrap();
        assert!(mine != theirs);
        assert_eq!(*cell.get().unwrap(), if mine { 2 } else { 1 });
    });
    assert_eq!(report.executions(), 2);
}

#[test]
fn oncelock_get_synchronises_with_the_initialiser() {
    passes(|| {
        let shared = Arc::new((OnceLock::new(), Racy::new(0u32)));
        let s = shared.clone();
        let t = thread::spawn(move || {
            s.1.set(9);
            s.0.set(()).unwrap();
        });
        if shared.0.get().is_some() {
            assert_eq!(shared.1.get(), 9);
        }
        t.join().unwrap();
    });
}

#[test]
fn once_and_oncelock_outside_a_model() {
    let once = Once::new();
    let mut runs = 0;
    once.call_once(|| runs += 1);
    once.call_once(|| runs += 1);
    assert_eq!(runs, 1);
    assert!(once.is_completed());

    let mut cell = OnceLock::new();
    assert_eq!(cell.get(), None);
    assert_eq!(*cell.get_or_init(|| 3), 3);
    assert_eq!(cell.set(4), Err(4));
    *cell.get_mut().unwrap() += 1;
    assert_eq!(format!("{cell:?}"), "OnceLock(4)");
    assert_eq!(cell.take(), Some(4));
    assert_eq!(format!("{cell:?}"), "OnceLock(<uninit>)");
    assert_eq!(OnceLock::from(5).into_inner(), Some(5));
}
