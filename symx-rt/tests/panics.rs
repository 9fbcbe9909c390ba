//! Acceptance: panics in model threads, in destructors and while locks are held end the
//! execution with one report; the OS thread stays usable for the next exploration.

mod common;

use common::assert_fails;
use symx::sync::{Arc, Mutex};
use symx::{thread, Builder, FailureKind};

struct Grumpy;

impl Drop for Grumpy {
    fn drop(&mut self) {
        panic!("Grumpy refuses to be dropped");
    }
}

fn panic_in_drop() {
    let t = thread::spawn(|| {
        let _g = Grumpy;
    });
    t.join().unwrap();
}

#[test]
fn a_panic_in_drop_is_one_clear_report() {
    let f = assert_fails(FailureKind::Panic, panic_in_drop);
    assert!(
        f.message()
            .contains("thread 1 panicked: Grumpy refuses to be dropped"),
        "{f}"
    );
}

fn panic_holding_a_lock() {
    let m = Arc::new(Mutex::new(0));
    let m2 = m.clone();
    let t = thread::spawn(move || {
        let _g = m2.lock().unwrap();
        panic!("gave up inside the critical section");
    });
    *m.lock().unwrap() += 1;
    t.join().unwrap();
}

#[test]
fn a_panic_while_holding_a_lock_is_a_panic_not_a_deadlock() {
    for _ in 0..3 {
        // Repeated on the same OS thread: unwinding must have been completed each time.
        let f = assert_fails(FailureKind::Panic, panic_holding_a_lock);
        assert!(
            f.message().contains("gave up inside the critical section"),
            "{f}"
        );
        assert!(!std::thread::panicking());
    }
    let ok = Builder::new().explore(|| {
        let m = Mutex::new(1);
        assert_eq!(*m.lock().unwrap(), 1);
    });
    assert!(ok.failure().is_none() && ok.complete());
}

#[test]
fn a_panic_in_the_main_thread_is_reported_like_any_other() {
    let f = assert_fails(FailureKind::Panic, || {
        let t = thread::spawn(|| {});
        t.join().unwrap();
        let one = std::hint::black_box(1);
        assert!(one + 1 == 3, "arithmetic is broken");
    });
    assert!(
        f.message()
            .starts_with("thread 0 (main) panicked: arithmetic is broken"),
        "{f}"
    );
    assert!(f.location().unwrap().file.ends_with("panics.rs"), "{f}");
}
