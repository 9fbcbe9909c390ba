//! `RwLock`: readers hold the lock together, a writer excludes them and orders its write; the
//! races and the self-deadlock of misuse; `try_read` and `try_write`; the lock outside a model.

use super::*;

fn two_readers() {
    let lock = Arc::new(RwLock::new(5));
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let lock = lock.clone();
            thread::spawn(move || assert_eq!(*lock.read().unwrap(), 5))
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
}

#[test]
fn rwlock_readers_hold_the_lock_together() {
    // Each reader: read-lock, unlock. A read-lock is enabled while another reader holds the
    // lock, so all 4!/(2!·2!) = 6 interleavings of the two pairs run (a Mutex gives 2).
    assert_eq!(passes(two_readers).executions(), 6);
}

/// A writer and a reader share a counter in an `UnsafeCell`; the lock orders the accesses.
struct Guarded {
    lock: RwLock<()>,
    value: Racy<u32>,
}

fn reader_and_writer(reader_locks: bool, writer_locks_exclusively: bool) {
    let g = Arc::new(Guarded {
        lock: RwLock::new(()),
        value: Racy::new(0),
    });
    let w = g.clone();
    let writer = thread::spawn(move || {
        if writer_locks_exclusively {
            let _guard = w.lock.write().unwrap();
            w.value.set(w.value.get() + 1);
        } else {
            let _guard = w.lock.read().unwrap();
            w.value.set(w.value.get() + 1);
        }
    });
    let r = g.clone();
    let reader = thread::spawn(move || {
        let _guard = reader_locks.then(|| r.lock.read().unwrap());
        let v = r.value.get();
        assert!(v <= 1);
    });
    writer.join().unwrap();
    reader.join().unwrap();
    assert_eq!(g.value.get(), 1);
}

#[test]
fn rwlock_excludes_the_writer_and_orders_its_write() {
    // Writer: lock, unlock; reader: read-lock, unlock. Whoever locks first excludes the other
    // until it unlocks, so only the order of the two critical sections is a choice: 2.
    let report = passes(|| reader_and_writer(true, true));
    assert_eq!(report.executions(), 2);
}

#[test]
fn rwlock_reader_without_the_lock_races_with_the_writer() {
    let f = fails(FailureKind::DataRace, || reader_and_writer(false, true));
    assert!(f.message().contains("data race"), "{f}");
}

#[test]
fn rwlock_writing_under_a_read_lock_races() {
    // Two "writers" that only read-lock are not excluded from each other.
    fails(FailureKind::DataRace, || {
        let g = Arc::new(Guarded {
            lock: RwLock::new(()),
            value: Racy::new(0),
        });
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let g = g.clone();
                thread::spawn(move || {
                    let _guard = g.lock.read().unwrap();
                    g.value.set(g.value.get() + 1);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
fn rwlock_write_while_holding_a_read_lock_is_a_self_deadlock() {
    let f = fails(FailureKind::Deadlock, || {
        let lock = RwLock::new(0);
        let _r = lock.read().unwrap();
        let _w = lock.write().unwrap();
    });
    assert!(f.message().contains("self-deadlock"), "{f}");
}

#[test]
fn rwlock_reading_twice_while_a_writer_waits_is_fine() {
    // No writer preference: the second read-lock is enabled while the writer waits.
    passes(|| {
        let lock = Arc::new(RwLock::new(0));
        let l = lock.clone();
        let writer = thread::spawn(move || *l.write().unwrap() += 1);
        let first = lock.read().unwrap();
        let second = lock.read().unwrap();
        assert_eq!(*first, *second);
        drop((first, second));
        writer.join().unwrap();
        assert_eq!(*lock.read().unwrap(), 1);
    });
}

#[test]
fn rwlock_try_write_fails_while_read_locked_and_try_read_succeeds() {
    passes(|| {
        let lock = Arc::new(RwLock::new(0));
        let l = lock.clone();
        let _held = lock.read().unwrap();
        thread::spawn(move || {
            assert!(l.try_write().is_err());
            assert_eq!(*l.try_read().unwrap(), 0);
        })
        .join()
        .unwrap();
    });
}

#[test]
fn rwlock_outside_a_model_works_sequentially_and_poisons() {
    let lock = RwLock::new(1);
    {
        let a = lock.read().unwrap();
        let b = lock.read().unwrap();
        assert_eq!(*a + *b, 2);
        assert!(lock.try_write().is_err());
    }
    *lock.write().unwrap() = 2;
    assert!(lock.try_read().is_ok());
    let lock = std::sync::Arc::new(lock);
    let l = lock.clone();
    let _ = std::panic::catch_unwind(move || {
        let _w = l.write().unwrap();
        panic!("poison it");
    });
    assert!(lock.is_poisoned());
    assert_eq!(*lock.read().unwrap_err().into_inner(), 2);
    let lock = std::sync::Arc::into_inner(lock).unwrap();
    assert_eq!(lock.into_inner().unwrap_err().into_inner(), 2);
}
