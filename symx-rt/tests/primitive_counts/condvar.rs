//! Condvars: notifies that wake nobody commute; notifies beside a waiter.

use super::*;

/// Two threads notify a condvar nobody waits on, a third waits for a flag under its mutex.
pub(crate) fn notifies_with_and_without_a_waiter() {
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let notifiers: Vec<_> = (0..2)
        .map(|i| {
            let pair = pair.clone();
            thread::spawn(move || {
                if i == 0 {
                    *pair.0.lock().unwrap() = true;
                }
                pair.1.notify_one();
            })
        })
        .collect();
    let mut ready = pair.0.lock().unwrap();
    while !*ready {
        ready = pair.1.wait(ready).unwrap();
    }
    drop(ready);
    for h in notifiers {
        h.join().unwrap();
    }
    record("done".into());
}

pub(crate) fn notifies_of_a_condvar_nobody_waits_on() {
    let cv = Arc::new(Condvar::new());
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let cv = cv.clone();
            thread::spawn(move || {
                if i == 0 {
                    cv.notify_all()
                } else {
                    cv.notify_one()
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    record("done".into());
}

#[test]
fn notifies_that_wake_nobody_commute() {
    // Three notifies of a condvar nobody waits on: one execution (was 3! = 6).
    assert_eq!(dpor_count(notifies_of_a_condvar_nobody_waits_on), 1);
    dpor_count(notifies_with_and_without_a_waiter);
}
