//! Classic concurrency bugs, each as a small program that fails in some interleavings and
//! passes in others: lost updates (a read and a write of a counter that another thread's
//! increment can come between), a read-modify-write split over two critical sections, and a
//! bounded buffer whose consumers wait with `if`.

use std::sync::atomic::Ordering::SeqCst;

use symx::sync::atomic::{AtomicI64, AtomicUsize};
use symx::sync::{Arc, Condvar, Mutex};
use symx::thread;
use symx::Shared;

/// The main thread and one spawned thread each increment a counter as a load then a store;
/// it panics ("lost update") when both load before either stores.
pub fn lost_update() {
    let c = Arc::new(AtomicUsize::new(0));
    let c2 = c.clone();
    let t = thread::spawn(move || {
        let v = c2.load(SeqCst);
        c2.store(v + 1, SeqCst);
    });
    let v = c.load(SeqCst);
    c.store(v + 1, SeqCst);
    t.join().unwrap();
    assert_eq!(c.load(SeqCst), 2, "lost update");
}

/// Two spawned workers each increment a counter as a load then a store, and the main thread
/// checks the total; it panics ("an increment was lost") when both load before either stores.
pub fn lost_update_of_two_workers() {
    let counter = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let c = counter.clone();
            thread::spawn(move || {
                let v = c.load(SeqCst);
                c.store(v + 1, SeqCst);
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(counter.load(SeqCst), 2, "an increment was lost");
}

/// [`lost_update_of_two_workers`] with symbolic loads and stores and a recorded assertion
/// (`symx::assert!`): its trace keeps what the counter's value depends on, so the predictive
/// engine can find the lost update from a serial run.
pub fn lost_update_symbolic() {
    let c = Arc::new(AtomicI64::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                let v = c.load_sym(SeqCst);
                c.store_sym(v + 1, SeqCst);
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    symx::assert!(c.load_sym(SeqCst) == 2);
}

/// [`lost_update_symbolic`]'s increments under a mutex, on a `Shared`: no interleaving loses
/// one, and the predictive engine finds nothing to predict.
pub fn locked_update() {
    let c = Arc::new(Shared::new(0i64));
    let l = Arc::new(Mutex::new(()));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (c, l) = (c.clone(), l.clone());
            thread::spawn(move || {
                let _g = l.lock().unwrap();
                let v = c.get();
                c.set(v + 1);
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    symx::assert!(c.get() == 2);
}

/// T1 reads and writes a shared value inside a region marked atomic (`symx::atomic_region`),
/// each access in its own critical section unless `merged`; T2 writes the value under the same
/// lock. Two critical sections do not make an atomic region: T2's section fits between them.
pub fn split_sections(merged: bool) -> impl Fn() {
    move || {
        let s = Arc::new((Mutex::new(()), Shared::new(0i64)));
        let s1 = s.clone();
        let t1 = thread::spawn(move || {
            symx::atomic_region(|| {
                if merged {
                    let _g = s1.0.lock().unwrap();
                    let r = s1.1.get();
                    s1.1.set(r + 1);
                } else {
                    let r = {
                        let _g = s1.0.lock().unwrap();
                        s1.1.get()
                    };
                    let _g = s1.0.lock().unwrap();
                    s1.1.set(r + 1);
                }
            })
        });
        let t2 = thread::spawn(move || {
            let _g = s.0.lock().unwrap();
            s.1.set(5);
        });
        t1.join().unwrap();
        t2.join().unwrap();
    }
}

/// A one-slot buffer, two consumers, one producer of two items; consumers test "empty" with
/// `if` instead of `while`, so a consumer woken after another took the item finds nothing
/// and panics ("woken consumer found the buffer empty").
pub fn bounded_buffer_with_if() {
    let shared = Arc::new((Mutex::new(Vec::<u32>::new()), Condvar::new()));
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let s = shared.clone();
            thread::spawn(move || {
                let (m, cv) = &*s;
                let mut buf = m.lock().unwrap();
                if buf.is_empty() {
                    buf = cv.wait(buf).unwrap();
                }
                let item = buf.pop().expect("woken consumer found the buffer empty");
                cv.notify_all();
                item
            })
        })
        .collect();
    let s = shared.clone();
    let producer = thread::spawn(move || {
        let (m, cv) = &*s;
        for item in 0..2 {
            let mut buf = m.lock().unwrap();
            while !buf.is_empty() {
                buf = cv.wait(buf).unwrap();
            }
            buf.push(item);
            cv.notify_all();
        }
    });
    producer.join().unwrap();
    for c in consumers {
        c.join().unwrap();
    }
}
