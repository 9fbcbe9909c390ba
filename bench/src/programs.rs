// The scenario programs, written once and included (`include!`) into each tool's module, not a
// module of their own. They name `Arc`, `Mutex`, `Condvar`, `AtomicUsize`, `Ordering`, `mpsc`
// and `thread` without a path: these resolve where the file is included, so
// `scenarios_loom.rs` gets the programs over `loom::sync`/`loom::thread`, `scenarios_shuttle.rs`
// over shuttle's, `scenarios_symx.rs` over symx's. Every tool thus runs literally the same
// source, so their figures compare on the same programs and machine.
//
// Why `include!` and not a `macro_rules!` stamping them out: every `#[track_caller]` location
// inside a macro's expansion is the line of the macro's invocation, so all the operations of
// all the programs would share one source location. symx's reductions tell operations apart
// across executions partly by their location (`explore::dpor::events::Names`); with one
// location for everything they merge objects and explore more (spsc-1 at bound 4: 2,016
// executions against 838 with each operation at its own line). An included file keeps its
// own lines, as a user's test does.
//
// Each program counts itself with `measure::count_execution()` on entry: the number of
// executions is the number of times the tool invoked the closure, counted outside any tool.

/// Runs one execution of `scenario`.
pub fn run_scenario(scenario: crate::scenarios::Scenario) {
    use crate::scenarios::Scenario;
    match scenario {
        Scenario::Counters { threads, ops } => counters(threads, ops),
        Scenario::MutexCounter => mutex_counter(),
        Scenario::Philosophers(n) => philosophers(n),
        Scenario::StoreBuffering => store_buffering(),
        Scenario::LostUpdate => lost_update(),
        Scenario::BoundedBuffer => bounded_buffer(),
        Scenario::ChannelPipeline => channel_pipeline(),
        Scenario::TreiberStack => treiber_stack(),
        Scenario::Spsc { capacity } => spsc(capacity),
    }
}

fn counters(threads: usize, ops: usize) {
    crate::measure::count_execution();
    let x = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let x = x.clone();
            thread::spawn(move || {
                for _ in 0..ops {
                    x.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(x.load(Ordering::SeqCst), threads * ops);
}

fn mutex_counter() {
    crate::measure::count_execution();
    let m = Arc::new(Mutex::new(0usize));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    *m.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*m.lock().unwrap(), 6);
}

fn philosophers(n: usize) {
    crate::measure::count_execution();
    let forks: Arc<Vec<Mutex<()>>> = Arc::new((0..n).map(|_| Mutex::new(())).collect());
    let dine = move |forks: &[Mutex<()>], i: usize| {
        let _left = forks[i].lock().unwrap();
        let _right = forks[(i + 1) % n].lock().unwrap();
    };
    // loom models at most 5 threads, the main thread included, so from 5 philosophers
    // on the main thread is the last philosopher instead of only waiting for them.
    let spawned = if n < 5 { n } else { n - 1 };
    let handles: Vec<_> = (0..spawned)
        .map(|i| {
            let forks = forks.clone();
            thread::spawn(move || dine(&forks, i))
        })
        .collect();
    if spawned < n {
        dine(&forks, n - 1);
    }
    for h in handles {
        h.join().unwrap();
    }
}

fn store_buffering() {
    crate::measure::count_execution();
    let x = Arc::new(AtomicUsize::new(0));
    let y = Arc::new(AtomicUsize::new(0));
    let t1 = {
        let (x, y) = (x.clone(), y.clone());
        thread::spawn(move || {
            x.store(1, Ordering::SeqCst);
            y.load(Ordering::SeqCst)
        })
    };
    let t2 = {
        let (x, y) = (x.clone(), y.clone());
        thread::spawn(move || {
            y.store(1, Ordering::SeqCst);
            x.load(Ordering::SeqCst)
        })
    };
    let r1 = t1.join().unwrap();
    let r2 = t2.join().unwrap();
    // In a single total order of SeqCst operations one store precedes both loads.
    assert!(r1 == 1 || r2 == 1, "both SeqCst loads read 0");
}

fn lost_update() {
    crate::measure::count_execution();
    let x = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let x = x.clone();
            thread::spawn(move || {
                let v = x.load(Ordering::SeqCst);
                x.store(v + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(x.load(Ordering::SeqCst), 2, "lost update");
}

/// `symx_test_programs::classic::bounded_buffer_with_if` (which symx-rt's tests run),
/// restated here over each tool's types.
fn bounded_buffer() {
    crate::measure::count_execution();
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

/// Producer → doubler → main over two channels, two messages. loom's channels do not
/// model disconnection, so every stage receives a known count instead of until the
/// senders are gone.
fn channel_pipeline() {
    crate::measure::count_execution();
    let (tx1, rx1) = mpsc::channel::<usize>();
    let (tx2, rx2) = mpsc::channel::<usize>();
    let producer = thread::spawn(move || {
        for i in 1..=2 {
            tx1.send(i).unwrap();
        }
    });
    let doubler = thread::spawn(move || {
        for _ in 0..2 {
            let v = rx1.recv().unwrap();
            tx2.send(v * 2).unwrap();
        }
    });
    let got = [rx2.recv().unwrap(), rx2.recv().unwrap()];
    assert_eq!(got, [2, 4], "the pipeline keeps order");
    producer.join().unwrap();
    doubler.join().unwrap();
}

/// A Treiber stack over an arena of nodes (indices 1 and 2; 0 is null): 2 threads each
/// push their own node with a compare-exchange loop, then pop one. Each node is pushed
/// once, so there is no ABA; every pop finds a node (its own push came first) and the
/// two pops take different nodes.
fn treiber_stack() {
    crate::measure::count_execution();
    let head = Arc::new(AtomicUsize::new(0));
    let next: Arc<Vec<AtomicUsize>> = Arc::new((0..3).map(|_| AtomicUsize::new(0)).collect());
    let handles: Vec<_> = (1..=2)
        .map(|node| {
            let (head, next) = (head.clone(), next.clone());
            thread::spawn(move || {
                loop {
                    let h = head.load(Ordering::SeqCst);
                    next[node].store(h, Ordering::SeqCst);
                    if head
                        .compare_exchange(h, node, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        break;
                    }
                }
                loop {
                    let h = head.load(Ordering::SeqCst);
                    assert_ne!(h, 0, "pop found the stack empty");
                    let n = next[h].load(Ordering::SeqCst);
                    if head
                        .compare_exchange(h, n, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        return h;
                    }
                }
            })
        })
        .collect();
    let popped: Vec<usize> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_ne!(popped[0], popped[1], "two pops took one node");
}

/// A single-producer single-consumer ring buffer of `capacity` slots: the producer
/// pushes 1, 2, 3 and the consumer pops three values, each spinning (with a yield) while
/// the buffer is full or empty. `head` and `tail` count pops and pushes.
fn spsc(capacity: usize) {
    crate::measure::count_execution();
    spsc_spins(capacity);
}

/// The queue of [`spsc`]; returns how often the producer and the consumer spun before each
/// value (the outcome `spin-outcomes` compares; two small vectors, the same cost for every
/// tool).
fn spsc_spins(capacity: usize) -> (Vec<usize>, Vec<usize>) {
    let slots: Arc<Vec<AtomicUsize>> =
        Arc::new((0..capacity).map(|_| AtomicUsize::new(0)).collect());
    let head = Arc::new(AtomicUsize::new(0));
    let tail = Arc::new(AtomicUsize::new(0));
    let producer = {
        let (slots, head, tail) = (slots.clone(), head.clone(), tail.clone());
        thread::spawn(move || {
            let mut spins = Vec::with_capacity(3);
            for v in 1..=3 {
                let t = tail.load(Ordering::SeqCst);
                let mut n = 0;
                while t - head.load(Ordering::SeqCst) == capacity {
                    n += 1;
                    thread::yield_now();
                }
                spins.push(n);
                slots[t % capacity].store(v, Ordering::SeqCst);
                tail.store(t + 1, Ordering::SeqCst);
            }
            spins
        })
    };
    let mut spins = Vec::with_capacity(3);
    for want in 1..=3 {
        let h = head.load(Ordering::SeqCst);
        let mut n = 0;
        while tail.load(Ordering::SeqCst) == h {
            n += 1;
            thread::yield_now();
        }
        spins.push(n);
        let v = slots[h % capacity].load(Ordering::SeqCst);
        assert_eq!(v, want, "the queue keeps order");
        head.store(h + 1, Ordering::SeqCst);
    }
    (producer.join().unwrap(), spins)
}
