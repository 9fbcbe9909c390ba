//! `OnceLock` and `Once`: reads of a complete once commute; `call_once` by three threads.

use super::*;

/// Three threads each read a `OnceLock` the main thread set before spawning them, then one
/// of them sets a second one that the others read.
pub(crate) fn once_lock_readers() {
    let a = Arc::new(OnceLock::new());
    let b = Arc::new(OnceLock::new());
    a.set(1).unwrap();
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let (a, b) = (a.clone(), b.clone());
            thread::spawn(move || {
                let x = *a.get().unwrap();
                if i == 0 {
                    b.set(x).unwrap();
                    None
                } else {
                    Some(b.get().is_some())
                }
            })
        })
        .collect();
    let seen: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    record(format!("{seen:?}"));
}

/// `call_once` by three threads: one runs the initialiser, the others find it complete or
/// wait for it.
pub(crate) fn call_once_by_three() {
    let once = Arc::new(Once::new());
    let ran = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let (once, ran) = (once.clone(), ran.clone());
            thread::spawn(move || once.call_once(|| ran.store(i + 1, SeqCst)))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    record(format!("{}", ran.load(SeqCst)));
}

#[test]
fn reads_of_a_complete_once_commute() {
    // Every `get` of `a` commutes with the others; each of the two readers of `b` reads it
    // before or after the set: 2 x 2 traces (was 36; every interleaving is 90). The DPOR runs
    // 5: the threads' exits drop their `Arc`s, and drops compared across executions (a sleeping
    // thread's, a wakeup sequence's) conflict, since where they ran says nothing about whether
    // they leave a reference where the comparison puts them; one trace runs twice.
    assert_eq!(dpor_count(once_lock_readers), 5);
    dpor_count(call_once_by_three);
}
