//! A symx object that keeps its data from one execution to the next (a `static` lock, a lock
//! captured by the explored closure): the later execution does not start from the state the
//! first did, so it fails with kind `misuse` naming the object and where it was created.
//! Objects whose state the runtime restarts (atomics, data-less locks) stay legal in statics.

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::{Builder, FailureKind};

static TOTAL: Mutex<u32> = Mutex::new(0);

fn two_increments(total: &'static Mutex<u32>) {
    let t = symx::thread::spawn(move || *total.lock().unwrap() += 1);
    *total.lock().unwrap() += 1;
    t.join().unwrap();
    assert_eq!(*total.lock().unwrap(), 2);
}

#[test]
fn a_static_mutex_with_data_used_by_a_second_execution_is_misuse() {
    let report = Builder::new().explore(|| two_increments(&TOTAL));
    let f = report.failure().expect("a misuse");
    assert_eq!(f.kind(), FailureKind::Misuse, "{f}");
    assert!(
        f.message().starts_with("Mutex created at ")
            && f.message()
                .contains("survivors.rs:10:28 was used by an earlier execution"),
        "{}",
        f.message()
    );
    assert!(f.message().contains("survive"), "{}", f.message());
    let location = f.location().expect("the creation location");
    assert_eq!((location.line, location.column), (10, 28));
    assert!(f.details().iter().any(|d| d.contains("lazy_static!")));
    // The first execution ran clean; the second met the state the first left.
    assert_eq!(report.executions(), 2);
}

#[test]
fn a_lock_captured_from_outside_the_model_is_misuse_too() {
    let outside = Arc::new(Mutex::new(Vec::new()));
    let report = Builder::new().explore(move || {
        let v = outside.clone();
        let t = symx::thread::spawn(move || v.lock().unwrap().push(1));
        outside.lock().unwrap().push(2);
        t.join().unwrap();
    });
    let f = report.failure().expect("a misuse");
    assert_eq!(f.kind(), FailureKind::Misuse, "{f}");
    assert!(f.message().contains("survivors.rs:41:"), "{}", f.message());
}

static GATE: Mutex<()> = Mutex::new(());
static HITS: AtomicUsize = AtomicUsize::new(0);

#[test]
fn statics_whose_state_restarts_with_every_execution_are_legal() {
    let report = Builder::new().explore(|| {
        let t = symx::thread::spawn(|| {
            let _g = GATE.lock().unwrap();
            HITS.fetch_add(1, Ordering::SeqCst);
        });
        {
            let _g = GATE.lock().unwrap();
            HITS.fetch_add(1, Ordering::SeqCst);
        }
        t.join().unwrap();
        assert_eq!(HITS.load(Ordering::SeqCst), 2);
    });
    assert!(report.failure().is_none(), "{report}");
    assert!(report.executions() > 1);
}

#[test]
fn a_mutex_created_inside_the_model_is_fresh_in_every_execution() {
    let report = Builder::new().explore(|| {
        let total: &'static Mutex<u32> = Box::leak(Box::new(Mutex::new(0)));
        two_increments(total);
    });
    assert!(report.failure().is_none(), "{report}");
    assert!(report.executions() > 1);
}
