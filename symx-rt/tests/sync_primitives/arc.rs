//! `Arc`: the last drop acquires every earlier one (without the modelled `Arc` the destructor's
//! read races), `try_unwrap` synchronises with the dropped clones; the API outside a model.

use super::*;

/// A value whose destructor reads what another thread wrote.
struct ReadsOnDrop(Racy<u32>);

impl Drop for ReadsOnDrop {
    fn drop(&mut self) {
        assert_eq!(self.0.get(), 1);
    }
}

/// The thread writes, drops its clone; main drops the other. `Relaxed` flag traffic gives
/// the interleavings without any happens-before of its own.
macro_rules! drop_after_write {
    ($arc:ident) => {{
        let a = $arc::new(ReadsOnDrop(Racy::new(0)));
        let flag = $arc::new(AtomicBool::new(false));
        let (b, f) = (a.clone(), flag.clone());
        let t = thread::spawn(move || {
            b.0.set(1);
            f.store(true, Ordering::Relaxed);
            drop(b);
        });
        // If the load sees the store, the thread's clone is gone and this drop is the last:
        // the destructor reads here. Otherwise it runs in the thread, after its own write.
        let _ = flag.load(Ordering::Relaxed);
        drop(a);
        t.join().unwrap();
    }};
}

#[test]
fn last_arc_drop_acquires_every_earlier_drop() {
    // Thread: store; main: load. 2 orders; when the load sees the store, main drops the last
    // reference and the destructor's read is ordered after the thread's write by the Arc.
    let report = passes(|| drop_after_write!(Arc));
    assert_eq!(report.executions(), 2);
}

#[test]
fn without_the_modelled_arc_the_destructor_read_would_race() {
    // The same program with std's Arc (not modelled): nothing orders the write before the
    // destructor, which is what the modelled Arc's release/acquire pair fixes.
    use std::sync::Arc as StdArc;
    fails(FailureKind::DataRace, || drop_after_write!(StdArc));
}

#[test]
fn try_unwrap_synchronises_with_the_dropped_clones() {
    passes(|| {
        let a = Arc::new(Racy::new(0));
        let b = a.clone();
        let t = thread::spawn(move || {
            b.set(1);
            drop(b);
        });
        let mut a = a;
        // strong_count is no synchronisation; the successful try_unwrap is.
        while Arc::strong_count(&a) > 1 {
            thread::yield_now();
        }
        a = match Arc::try_unwrap(a) {
            Ok(v) => {
                assert_eq!(v.get(), 1);
                Arc::new(v)
            }
            Err(_) => unreachable!("the only strong reference"),
        };
        assert_eq!(Arc::strong_count(&a), 1);
        t.join().unwrap();
    });
}

#[test]
fn arc_api_outside_a_model() {
    let a = Arc::new(5);
    let b = Arc::clone(&a);
    assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a)), (2, 0));
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(Arc::as_ptr(&a), &*b as *const i32);
    let w: Weak<i32> = Arc::downgrade(&a);
    assert_eq!(Arc::weak_count(&a), 1);
    assert_eq!(w.upgrade().as_deref(), Some(&5));
    let b = Arc::try_unwrap(b).unwrap_err();
    assert_eq!(Arc::into_inner(b), None);
    let mut a = a;
    // Only a Weak shares it: make_mut moves the value out and the Weak dangles.
    *Arc::make_mut(&mut a) += 1;
    assert!(w.upgrade().is_none());
    assert_eq!(*a, 6);
    let c = a.clone();
    *Arc::make_mut(&mut a) += 1; // shared: cloned
    assert_eq!((*a, *c), (7, 6));
    assert!(Arc::get_mut(&mut a).is_some());
    assert_eq!(Arc::into_inner(a), Some(7));
    assert_eq!(Arc::try_unwrap(c), Ok(6));
    assert_eq!(format!("{} {:?}", Arc::new(1), Arc::<u8>::default()), "1 0");
    assert_eq!(Arc::from(3), Arc::new(3));
    assert!(Weak::<u8>::new().upgrade().is_none());
}
