//! `park` and `unpark`: unparks that find the thread running commute.

use super::*;

/// A thread parks once; two others unpark it, the first after storing a flag the parked
/// thread reads once it runs on.
pub(crate) fn two_unparks_of_a_thread_that_parks_once() {
    let flag = Arc::new(AtomicUsize::new(0));
    let f = flag.clone();
    let parked = thread::spawn(move || {
        thread::park();
        f.load(SeqCst)
    });
    let unparkers: Vec<_> = (0..2)
        .map(|i| {
            let (t, flag) = (parked.thread().clone(), flag.clone());
            thread::spawn(move || {
                if i == 0 {
                    flag.store(1, SeqCst);
                }
                t.unpark();
            })
        })
        .collect();
    for h in unparkers {
        h.join().unwrap();
    }
    record(format!("{}", parked.join().unwrap()));
}

/// A thread parks once; two others unpark it.
pub(crate) fn two_unparks_and_a_park() {
    let parked = thread::spawn(thread::park);
    let unparkers: Vec<_> = (0..2)
        .map(|_| {
            let t = parked.thread().clone();
            thread::spawn(move || t.unpark())
        })
        .collect();
    for h in unparkers {
        h.join().unwrap();
    }
    parked.join().unwrap();
    record("done".into());
}

#[test]
fn unparks_that_find_the_thread_running_commute() {
    // Three operations: the park and the two unparks, every order possible (DFS 6). Both
    // unparks before the park only set the token: one trace for their two orders. Every other
    // order is its own trace (an unpark after the park wakes the thread, the other comes
    // after that): 5 (was 6, each unpark conflicting with the other).
    assert_eq!(dpor_count(two_unparks_and_a_park), 5);
    dpor_count(two_unparks_of_a_thread_that_parks_once);
}
