//! The concurrency skeletons of the programs of Bergan's Table 2.1 (dissertation ch. 2; OOPSLA
//! 2014 Table 1) written whole, from the program's start, each with a `symx::checkpoint!("core")`
//! where its worker threads are in the middle of their core loop, and a bug seeded in that
//! loop: at the last item one worker handles, an input value of 42 panics with `seeded bug`.
//!
//! Each worker handles `items` items; every item draws an input and branches on it, so the
//! path count from the start grows with the items before the checkpoint, which a recorded
//! context runs once. The checkpoint is at the top of each worker's last item. Last,
//! [`two_phases`]: no input, only locks, for counting the schedules after a context.

use std::collections::VecDeque;

use symx::sync::mpsc;
use symx::sync::{Arc, Barrier, Condvar, Mutex};
use symx::{thread, Sym};

/// One item's work: draw its input, branch on it, and fail on the seeded value at the last.
fn work(name: String, last: bool, hits: &Mutex<u32>) {
    let v: Sym<u32> = symx::any_named(&name);
    if symx::branch(v.sym_gt(50u32)) {
        *hits.lock().unwrap() += 1;
    }
    if last && symx::branch(v.sym_eq(42u32)) {
        panic!("seeded bug at {name}");
    }
}

/// blackscholes (PARSEC), fork-join: main splits the options among two workers, each prices
/// its chunk.
pub fn blackscholes(items: u32) {
    let hits = Arc::new(Mutex::new(0u32));
    let workers: Vec<_> = (0..2u32)
        .map(|t| {
            let hits = hits.clone();
            thread::spawn(move || {
                for k in 0..items {
                    if k + 1 == items {
                        symx::checkpoint!("core");
                    }
                    work(format!("option{t}.{k}"), k + 1 == items, &hits);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

/// pfscan (a parallel file scanner), task queue: main enqueues the files under the queue's
/// lock and signals a condition variable; two workers take files until the queue is closed.
pub fn pfscan(items: u32) {
    let queue = Arc::new((Mutex::new((VecDeque::new(), false)), Condvar::new()));
    let hits = Arc::new(Mutex::new(0u32));
    let workers: Vec<_> = (0..2u32)
        .map(|t| {
            let (queue, hits) = (queue.clone(), hits.clone());
            thread::spawn(move || {
                let mut taken = 0;
                loop {
                    if taken + 1 == items {
                        symx::checkpoint!("core");
                    }
                    let (lock, cv) = &*queue;
                    let mut q = lock.lock().unwrap();
                    while q.0.is_empty() && !q.1 {
                        q = cv.wait(q).unwrap();
                    }
                    let Some(file) = q.0.pop_front() else { break };
                    drop(q);
                    taken += 1;
                    work(format!("file{file}"), taken == items && t == 1, &hits);
                }
            })
        })
        .collect();
    let (lock, cv) = &*queue;
    for file in 0..2 * items {
        lock.lock().unwrap().0.push_back(file);
        cv.notify_one();
    }
    lock.lock().unwrap().1 = true;
    cv.notify_all();
    for w in workers {
        w.join().unwrap();
    }
}

/// lu (SPLASH-2), barrier-synchronized loop: two threads factor a block each per step and
/// meet at a barrier.
pub fn lu(items: u32) {
    barrier_loop(2, items)
}

/// streamcluster (PARSEC), barrier-synchronized loop in three threads, each given its id at
/// spawn; thread 0 shuffles before the barrier.
pub fn streamcluster(items: u32) {
    barrier_loop(3, items)
}

fn barrier_loop(threads: u32, items: u32) {
    let b = Arc::new(Barrier::new(threads as usize));
    let hits = Arc::new(Mutex::new(0u32));
    let ts: Vec<_> = (0..threads)
        .map(|id| {
            let (b, hits) = (b.clone(), hits.clone());
            thread::spawn(move || {
                for step in 0..items {
                    if step + 1 == items {
                        symx::checkpoint!("core");
                    }
                    let last = step + 1 == items && id == 0;
                    work(format!("block{id}.{step}"), last, &hits);
                    b.wait();
                }
            })
        })
        .collect();
    for t in ts {
        t.join().unwrap();
    }
}

/// dedup (PARSEC), pipeline: a reader sends chunks down a channel, two deduplicating workers
/// share its receiving end and send what they keep to a writer.
pub fn dedup(items: u32) {
    let (chunks, from_reader) = mpsc::channel::<u32>();
    let (kept, to_writer) = mpsc::channel::<u32>();
    let from_reader = Arc::new(Mutex::new(from_reader));
    let hits = Arc::new(Mutex::new(0u32));
    let workers: Vec<_> = (0..2u32)
        .map(|t| {
            let (rx, tx, hits) = (from_reader.clone(), kept.clone(), hits.clone());
            thread::spawn(move || {
                let mut taken = 0;
                loop {
                    if taken + 1 == items {
                        symx::checkpoint!("core");
                    }
                    let Ok(chunk) = rx.lock().unwrap().recv() else {
                        break;
                    };
                    taken += 1;
                    work(format!("chunk{chunk}"), taken == items && t == 1, &hits);
                    tx.send(chunk).unwrap();
                }
            })
        })
        .collect();
    drop(kept);
    let writer = thread::spawn(move || to_writer.iter().count());
    for chunk in 0..2 * items {
        chunks.send(chunk).unwrap();
    }
    drop(chunks);
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(writer.join().unwrap() as u32, 2 * items);
}

/// A program of this module: it runs with `items` items per worker.
pub type Program = fn(u32);

/// Every program, by the name the tables use.
pub fn all() -> [(&'static str, Program); 5] {
    [
        ("blackscholes", blackscholes),
        ("pfscan", pfscan),
        ("lu", lu),
        ("streamcluster", streamcluster),
        ("dedup", dedup),
    ]
}

/// Two workers each take a lock twice before their checkpoint and once after it: C(6, 3) = 20
/// orders of the six critical sections from the start, 2 from the context (the last two).
/// No input: a context with synchronization state only.
pub fn two_phases() {
    let m = Arc::new(Mutex::new(0u32));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    *m.lock().unwrap() += 1;
                }
                symx::checkpoint!("core");
                *m.lock().unwrap() += 1;
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(*m.lock().unwrap(), 6);
}
