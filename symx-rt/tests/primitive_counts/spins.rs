//! Threads that spin, yielding, until another sets a flag: the fairness rule's programs,
//! checked against the DFS's outcomes only.

use super::*;

/// A thread that spins on a flag, yielding, until another sets it; `x` is stored before the
/// flag and read after the spin; a third thread, if `bystander`, stores to an atomic of its
/// own (a step that lets a thread that yielded run again).
fn spin_on_a_flag(bystander: bool) {
    let flag = Arc::new(AtomicUsize::new(0));
    let x = Arc::new(AtomicUsize::new(0));
    let other = Arc::new(AtomicUsize::new(0));
    flag.load(SeqCst);
    x.load(SeqCst);
    other.load(SeqCst);
    let spinner = {
        let (flag, x) = (flag.clone(), x.clone());
        thread::spawn(move || {
            let spins = spin_until_set(&flag);
            (spins, x.load(SeqCst))
        })
    };
    let setter = thread::spawn(move || {
        x.store(1, SeqCst);
        flag.store(1, SeqCst);
    });
    let third = bystander.then(|| thread::spawn(move || other.store(1, SeqCst)));
    setter.join().unwrap();
    if let Some(t) = third {
        t.join().unwrap();
    }
    record(format!("{:?}", spinner.join().unwrap()));
}

/// Two threads each set their flag and spin, yielding, until the other's is set.
fn a_handshake() {
    let a = Arc::new(AtomicUsize::new(0));
    let b = Arc::new(AtomicUsize::new(0));
    a.load(SeqCst);
    b.load(SeqCst);
    let t = {
        let (a, b) = (a.clone(), b.clone());
        thread::spawn(move || {
            a.store(1, SeqCst);
            spin_until_set(&b)
        })
    };
    b.store(1, SeqCst);
    let spins = spin_until_set(&a);
    record(format!("{spins} {}", t.join().unwrap()));
}

/// Spins, yielding, until `flag` is set; returns how many times it yielded.
fn spin_until_set(flag: &AtomicUsize) -> usize {
    let mut spins = 0;
    while flag.load(SeqCst) == 0 {
        thread::yield_now();
        spins += 1;
    }
    spins
}

/// A thread yields, then reads `x`; another stores to `y`, a third to `x`: the read sees the
/// store or not (2 traces), and the yield lets the others go first either way.
fn a_yield_before_a_read() {
    let x = Arc::new(AtomicUsize::new(0));
    let y = Arc::new(AtomicUsize::new(0));
    x.load(SeqCst);
    y.load(SeqCst);
    let reader = {
        let x = x.clone();
        thread::spawn(move || {
            thread::yield_now();
            x.load(SeqCst)
        })
    };
    let t2 = thread::spawn(move || y.store(1, SeqCst));
    let t3 = thread::spawn(move || x.store(1, SeqCst));
    t2.join().unwrap();
    t3.join().unwrap();
    record(format!("{}", reader.join().unwrap()));
}

#[test]
fn spinning_threads_lose_no_outcome() {
    // Checked against the DFS's outcomes only: the fairness rule (a thread that yielded gives
    // way until another changes something) makes the optimal DPOR run some traces twice here
    // (a_handshake: 6 executions for its 3 traces), and on larger programs miss traces, see
    // `dpor_vs_dfs::dpor_agrees_with_dfs_on_programs_that_yield`.
    for body in [
        (|| spin_on_a_flag(false)) as fn(),
        || spin_on_a_flag(true),
        a_handshake,
        a_yield_before_a_read,
    ] {
        dpor_count(body);
    }
}
