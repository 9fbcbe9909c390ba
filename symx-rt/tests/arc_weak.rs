//! `symx::sync::Arc` and `Weak` as std's, with reference counts the model keeps: `into_raw` /
//! `from_raw` round trips, a `from_raw` after the last reference is a reported use-after-free
//! (not undefined behaviour in the checker), an `Arc` still alive at the end of an execution is
//! failure kind `leak` with the location of its `Arc::new`, and `Builder::leak_check(false)`
//! switches that off.

mod common;

use common::{assert_fails, assert_fails_with, assert_passes};
use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use symx::sync::{Arc, Weak};
use symx::{thread, Builder, FailureKind};

#[test]
fn into_raw_and_from_raw_round_trip_across_threads() {
    assert_passes(|| {
        let a = Arc::new(AtomicUsize::new(1));
        let raw = Arc::into_raw(a.clone()) as usize;
        let t = thread::spawn(move || {
            let b = unsafe { Arc::from_raw(raw as *const AtomicUsize) };
            b.fetch_add(1, SeqCst);
        });
        t.join().unwrap();
        assert_eq!(a.load(SeqCst), 2);
        assert_eq!(Arc::strong_count(&a), 1);
        unsafe {
            Arc::increment_strong_count(Arc::as_ptr(&a));
            assert_eq!(Arc::strong_count(&a), 2);
            Arc::decrement_strong_count(Arc::as_ptr(&a));
        }
        assert_eq!(Arc::try_unwrap(a).map(|v| v.into_inner()).ok(), Some(2));
    });
}

#[test]
fn from_raw_after_the_last_reference_is_a_use_after_free() {
    let failure = assert_fails(FailureKind::Panic, || {
        let a = Arc::new(5u32);
        let raw = Arc::into_raw(a.clone());
        drop(a);
        unsafe { Arc::decrement_strong_count(raw) };
        let again = unsafe { Arc::from_raw(raw) };
        drop(again);
    });
    assert!(failure.message().contains("use after free"), "{failure}");
    assert!(failure.message().contains("Arc<u32>"), "{failure}");
}

#[test]
fn a_forgotten_arc_is_a_leak_with_its_location() {
    let failure = assert_fails(FailureKind::Leak, || {
        let a = Arc::new(3u8);
        let b = a.clone();
        std::mem::forget(b);
    });
    assert!(failure.message().contains("Arc<u8>"), "{failure}");
    assert!(failure.message().contains("arc_weak.rs"), "{failure}");
    assert!(
        failure.message().contains("1 strong reference"),
        "{failure}"
    );
}

#[test]
fn the_leak_check_can_be_switched_off() {
    let report = Builder::new()
        .leak_check(false)
        .explore(|| std::mem::forget(Arc::new(1)));
    assert!(report.failure().is_none(), "{report}");
}

#[test]
fn a_leak_only_some_interleavings_show_is_found() {
    assert_fails_with(Builder::new(), FailureKind::Leak, || {
        let flag = Arc::new(AtomicUsize::new(0));
        let f = flag.clone();
        let t = thread::spawn(move || f.store(1, SeqCst));
        if flag.load(SeqCst) == 0 {
            std::mem::forget(flag.clone());
        }
        t.join().unwrap();
    });
}

#[test]
fn weak_upgrades_while_alive_and_not_after() {
    assert_passes(|| {
        let a = Arc::new(String::from("x"));
        let w: Weak<String> = Arc::downgrade(&a);
        assert_eq!(w.upgrade().as_deref().map(String::as_str), Some("x"));
        assert_eq!(Arc::weak_count(&a), 1);
        drop(a);
        assert!(w.upgrade().is_none());
        let raw = w.into_raw();
        let w = unsafe { Weak::from_raw(raw) };
        assert_eq!(w.strong_count(), 0);
    });
}

#[test]
fn new_cyclic_make_mut_and_unsized_values_work_as_std() {
    assert_passes(|| {
        struct Node {
            me: Weak<Node>,
        }
        let n = Arc::new_cyclic(|me| Node { me: me.clone() });
        assert!(Arc::ptr_eq(&n.me.upgrade().unwrap(), &n));
        let mut a = Arc::new(1);
        let b = a.clone();
        *Arc::make_mut(&mut a) += 1;
        assert_eq!((*a, *b), (2, 1));
        let s: Arc<str> = Arc::from("abc");
        let v: Arc<[u8]> = vec![1, 2].into();
        let d: Arc<dyn std::fmt::Debug + Send + Sync> = Arc::from_std(std::sync::Arc::new(4));
        assert_eq!(
            (&*s, v.len(), format!("{d:?}")),
            ("abc", 2, "4".to_string())
        );
        let p = Arc::pin(5);
        assert_eq!(*p, 5);
        assert_eq!(Arc::unwrap_or_clone(Arc::new(9)), 9);
        assert_eq!(Arc::into_inner(b), Some(1));
    });
}

/// A cell shared by hand: only the `Arc`'s counts order its accesses.
struct Shared(symx::cell::UnsafeCell<i32>);

// SAFETY: the test is about whether the model sees the accesses as ordered.
unsafe impl Sync for Shared {}

#[test]
fn the_last_drop_acquires_what_other_owners_released() {
    assert_passes(|| {
        let cell = Arc::new(Shared(symx::cell::UnsafeCell::new(0)));
        let c = cell.clone();
        let t = thread::spawn(move || {
            c.0.with_mut(|p| unsafe { *p = 1 });
            drop(c);
        });
        t.join().unwrap();
        if let Some(cell) = Arc::into_inner(cell) {
            assert_eq!(cell.0.into_inner(), 1);
        }
    });
}
