//! A thread symx did not spawn (`std::thread::spawn` inside a model) touching an object the
//! model uses: the model cannot schedule it, so the execution fails with kind `misuse` naming
//! the object, the access's location and the fix, instead of passing.

use symx::sync::atomic::{AtomicU32, Ordering};
use symx::sync::{Arc, Mutex};
use symx::{Builder, FailureKind};

#[test]
fn a_std_thread_using_a_model_atomic_is_misuse() {
    let report = Builder::new().explore(|| {
        let n = Arc::new(AtomicU32::new(0));
        n.store(1, Ordering::SeqCst);
        let n2 = n.clone();
        std::thread::spawn(move || n2.fetch_add(1, Ordering::SeqCst))
            .join()
            .unwrap();
        let _ = n.load(Ordering::SeqCst);
    });
    let f = report.failure().expect("a misuse");
    assert_eq!(f.kind(), FailureKind::Misuse, "{f}");
    assert!(
        f.message()
            .starts_with("AtomicU32 of the model used by a thread symx did not spawn"),
        "{}",
        f.message()
    );
    assert!(
        f.message().contains("foreign_threads.rs:15:"),
        "{}",
        f.message()
    );
    assert!(f
        .details()
        .iter()
        .any(|d| d.contains("symx::thread::spawn")));
    assert_eq!(report.executions(), 1);
}

#[test]
fn a_std_thread_locking_a_model_mutex_is_misuse_and_model_threads_are_not() {
    let report = Builder::new().explore(|| {
        let m = Arc::new(Mutex::new(0));
        *m.lock().unwrap() += 1;
        let m2 = m.clone();
        std::thread::spawn(move || *m2.lock().unwrap() += 1)
            .join()
            .unwrap();
    });
    assert_eq!(
        report.failure().map(|f| f.kind()),
        Some(FailureKind::Misuse)
    );

    let report = Builder::new().explore(|| {
        let m = Arc::new(Mutex::new(0));
        *m.lock().unwrap() += 1;
        let m2 = m.clone();
        symx::thread::spawn(move || *m2.lock().unwrap() += 1)
            .join()
            .unwrap();
    });
    assert!(report.failure().is_none());
    assert!(report.complete());
}

#[test]
fn objects_outside_any_model_are_plain_on_every_thread() {
    let n = std::sync::Arc::new(AtomicU32::new(0));
    let n2 = n.clone();
    std::thread::spawn(move || n2.fetch_add(1, Ordering::SeqCst))
        .join()
        .unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 1);
}
