//! Condvars and barriers under their own semantics (`blocking`): hand-offs of independent
//! pairs may be reordered against each other (keeping the observed order of every blocking
//! event would hide these bugs), while what a wait or a barrier really orders stays ordered.

use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use symx::sync::atomic::AtomicI64;
use symx::sync::{Barrier, Condvar, Mutex};
use symx::{Builder, Shared};

use super::{assertions_only, no_unconfirmed, observe, predict};
use cargo_symx::engine::predict::Model;

/// A one-shot event: a flag under a mutex, and a condvar to wait for it.
struct Event {
    m: Mutex<()>,
    cv: Condvar,
    set: Shared<bool>,
}

/// A one-shot event: `signal` once, and `wait` returns once it was signalled.
trait OneShot: Default + Send + Sync + 'static {
    fn wait(&self);
    fn signal(&self);
}

impl Default for Event {
    fn default() -> Self {
        Event {
            m: Mutex::new(()),
            cv: Condvar::new(),
            set: Shared::new(false),
        }
    }
}

impl OneShot for Event {
    /// 3 steps when it has to wait once (lock, read, wait), then 3 more after the wake (lock,
    /// read, unlock).
    fn wait(&self) {
        let mut g = self.m.lock().unwrap();
        while !symx::branch(self.set.get()) {
            g = self.cv.wait(g).unwrap();
        }
    }
    /// 4 steps: lock, write, notify, unlock.
    fn signal(&self) {
        let _g = self.m.lock().unwrap();
        self.set.set(true);
        self.cv.notify_one();
    }
}

/// T1 writes x then waits for A, which T2 signals; T3 waits for B, which T4 signals, then
/// asserts it sees T1's write. Nothing orders the B hand-off after T1's write.
fn two_hand_offs<E: OneShot>() {
    let x = Arc::new(AtomicI64::new(0));
    let (a, b) = (Arc::new(E::default()), Arc::new(E::default()));
    let (x1, a1, a2, b2) = (x.clone(), a.clone(), a.clone(), b.clone());
    let t1 = symx::thread::spawn(move || {
        x1.store_sym(1, SeqCst);
        a1.wait();
    });
    let t2 = symx::thread::spawn(move || a2.signal());
    let t3 = symx::thread::spawn(move || {
        b.wait();
        symx::assert!(x.load_sym(SeqCst) == 1);
    });
    let t4 = symx::thread::spawn(move || b2.signal());
    for t in [t1, t2, t3, t4] {
        t.join().unwrap();
    }
}

/// Observed: the A hand-off (T1 waits, T2 signals, T1 wakes), then the B one. Predicted: the
/// B hand-off first, before T1's write, with T3 waiting, woken by T4's notify, and failing.
/// The steps of the one prediction confirmed from the run of `body` that does hand-off `a`
/// to completion, then hand-off `b`.
fn reordered_hand_offs(a: &[usize], b: &[usize], body: fn()) -> Vec<usize> {
    let observed: Vec<usize> = a.iter().chain(b).copied().collect();
    let trace = observe(&observed, body);
    let out = predict(&trace, &assertions_only(Model::Ctp), |g| {
        Builder::new().run_guided(g, body)
    });
    no_unconfirmed(&out);
    assert_eq!(out.confirmed.len(), 1, "{out:#?}");
    out.confirmed[0].witness.guide.steps.clone()
}

#[test]
fn independent_condvar_hand_offs_are_reordered() {
    let a_hand_off = [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1];
    let b_hand_off = [3, 3, 3, 4, 4, 4, 4, 3, 3, 3, 3];
    let steps = &reordered_hand_offs(&a_hand_off, &b_hand_off, two_hand_offs::<Event>);
    // T3 waits before T4 signals, and T1 has not written when T3 reads.
    assert_eq!(steps.iter().filter(|&&t| t == 1).count(), 0, "{steps:?}");
    let wait = steps.iter().position(|&t| t == 3).unwrap();
    let signal = steps.iter().position(|&t| t == 4).unwrap();
    assert!(wait < signal, "{steps:?}");
}

/// Barrier: T1 writes, then waits; T2 waits, then asserts it sees the write. Every order
/// keeps the write before T2's read (the generation opens only once T1 arrived).
fn barrier_publishes(write_after: bool) -> impl Fn() {
    move || {
        let x = Arc::new(AtomicI64::new(0));
        let b = Arc::new(Barrier::new(2));
        let (x1, b1) = (x.clone(), b.clone());
        let t1 = symx::thread::spawn(move || {
            if !write_after {
                x1.store_sym(1, SeqCst);
            }
            b1.wait();
            if write_after {
                x1.store_sym(1, SeqCst);
            }
        });
        let t2 = symx::thread::spawn(move || {
            b.wait();
            symx::assert!(x.load_sym(SeqCst) == 1);
        });
        t1.join().unwrap();
        t2.join().unwrap();
    }
}

#[test]
fn a_barrier_orders_what_comes_before_it() {
    let body = barrier_publishes(false);
    let trace = observe(&[1, 1, 2, 2], &body);
    let out = predict(&trace, &assertions_only(Model::Ctp), |g| {
        Builder::new().run_guided(g, &body)
    });
    no_unconfirmed(&out);
    assert!(out.confirmed.is_empty(), "{out:#?}");
    assert_eq!(out.solve_times.len(), 1);

    // Written after the barrier, the write races with the read: predicted.
    let body = barrier_publishes(true);
    let trace = observe(&[1, 2, 1, 2], &body);
    let out = predict(&trace, &assertions_only(Model::Ctp), |g| {
        Builder::new().run_guided(g, &body)
    });
    no_unconfirmed(&out);
    assert_eq!(out.confirmed.len(), 1, "{out:#?}");
}

/// T2 waits once, without a flag (the runtime has no spurious wake-ups unless asked): only
/// T1's notify, after its write, wakes it.
fn bare_wait() {
    let s = Arc::new((Mutex::new(()), Condvar::new(), AtomicI64::new(0)));
    let s1 = s.clone();
    let t2 = symx::thread::spawn(move || {
        let g = s.0.lock().unwrap();
        let _g = s.1.wait(g).unwrap();
        symx::assert!(s.2.load_sym(SeqCst) == 1);
    });
    let t1 = symx::thread::spawn(move || {
        s1.2.store_sym(1, SeqCst);
        let _g = s1.0.lock().unwrap();
        s1.1.notify_one();
    });
    t2.join().unwrap();
    t1.join().unwrap();
}

#[test]
fn a_wait_is_woken_only_by_a_later_notify() {
    let trace = observe(&[1, 1, 2, 2, 2, 2, 1, 1, 1], bare_wait);
    let out = predict(&trace, &assertions_only(Model::Ctp), |g| {
        Builder::new().run_guided(g, bare_wait)
    });
    no_unconfirmed(&out);
    assert!(out.confirmed.is_empty(), "{out:#?}");
    assert_eq!(out.solve_times.len(), 1);
}

/// T1 and T2 each wait for a token; T3 hands out two, one `notify_one` each, which wakes
/// either waiter (a choice of the runtime). T2 writes 2 once it has its token; T1 asserts it
/// has not happened yet.
fn two_waiters() {
    let s = Arc::new((
        Mutex::new(()),
        Condvar::new(),
        Shared::new(0i64),
        AtomicI64::new(0),
    ));
    let take = |s: &(Mutex<()>, Condvar, Shared<i64>, AtomicI64)| {
        let mut g = s.0.lock().unwrap();
        while symx::branch(s.2.get().sym_eq(0)) {
            g = s.1.wait(g).unwrap();
        }
        let t = s.2.get();
        s.2.set(t - 1);
    };
    let (s1, s2, s3) = (s.clone(), s.clone(), s.clone());
    let t1 = symx::thread::spawn(move || {
        take(&s1);
        symx::assert!(s1.3.load_sym(SeqCst) != 2);
    });
    let t2 = symx::thread::spawn(move || {
        take(&s2);
        s2.3.store_sym(2, SeqCst);
    });
    let t3 = symx::thread::spawn(move || {
        for _ in 0..2 {
            let _g = s3.0.lock().unwrap();
            let t = s3.2.get();
            s3.2.set(t + 1);
            s3.1.notify_one();
        }
    });
    for t in [t1, t2, t3] {
        t.join().unwrap();
    }
}

/// Observed: both wait, the first notify wakes T1 (the first waiter), which checks before T2
/// writes. Predicted: T2 writes before T1 checks. The witness carries which waiter the first
/// notify wakes (a choice of the runtime), and replays with it.
#[test]
fn a_notify_one_wakes_the_waiter_the_witness_needs() {
    let waits = [1, 1, 1, 2, 2, 2];
    let give = [3, 3, 3, 3, 3];
    let t1 = [1, 1, 1, 1, 1, 1];
    let t2 = [2, 2, 2, 2, 2, 2];
    let observed: Vec<usize> = [&waits[..], &give, &t1, &give, &t2].concat();
    let trace = observe(&observed, two_waiters);
    let out = predict(&trace, &assertions_only(Model::Ctp), |g| {
        Builder::new().run_guided(g, two_waiters)
    });
    no_unconfirmed(&out);
    assert_eq!(out.confirmed.len(), 1, "{out:#?}");
    // Either waiter may be the one the first notify wakes: the model may let T2 write between
    // the two notifies (the first wakes T2), or give both tokens before either waiter runs
    // (either first). A debug build's solver gave the first, a release build's the second.
    // Every witness has one choice, and T2's write before T1's check: T2's last step comes
    // before T1's.
    let guide = &out.confirmed[0].witness.guide;
    assert_eq!(guide.choices.len(), 1, "{guide:?}");
    let last = |t: usize| guide.steps.iter().rposition(|&s| s == t);
    assert!(
        matches!((last(2), last(1)), (Some(w), Some(c)) if w < c),
        "{guide:?}"
    );
}

/// A one-shot event built on `symx::wait_queue`, the way user primitives are: a flag, and
/// the wait queue at the flag's address.
#[derive(Default)]
struct QueueEvent {
    set: AtomicI64,
}

impl OneShot for QueueEvent {
    /// 2 steps when it has to wait once (load, wait), then 1 more after the wake (load).
    fn wait(&self) {
        while symx::branch(self.set.load_sym(SeqCst).sym_eq(0)) {
            symx::wait_queue::wait(self);
        }
    }
    /// 2 steps: store, notify.
    fn signal(&self) {
        self.set.store_sym(1, SeqCst);
        symx::wait_queue::notify_one(self);
    }
}

#[test]
fn independent_wait_queue_hand_offs_are_reordered() {
    let a_hand_off = [1, 1, 1, 2, 2, 1];
    let b_hand_off = [3, 3, 4, 4, 3, 3];
    let steps = &reordered_hand_offs(&a_hand_off, &b_hand_off, two_hand_offs::<QueueEvent>);
    assert!(!steps.contains(&1), "{steps:?}");
}

/// T1 and T2 each wait once (no flag); T3 notifies one, publishes x, notifies one again. Both
/// waiters read x only after their wake: for both to read 0, one notify would have to wake
/// both, which `notify_one` never does.
fn one_notify_wakes_one() {
    let s = Arc::new((Mutex::new(()), Condvar::new(), AtomicI64::new(0)));
    let seen = Arc::new([AtomicI64::new(0), AtomicI64::new(0)]);
    let waiters: Vec<_> = (0..2)
        .map(|i| {
            let (s, seen) = (s.clone(), seen.clone());
            symx::thread::spawn(move || {
                let g = s.0.lock().unwrap();
                drop(s.1.wait(g).unwrap());
                seen[i].store_sym(s.2.load_sym(SeqCst), SeqCst);
            })
        })
        .collect();
    let s3 = s.clone();
    let notifier = symx::thread::spawn(move || {
        drop(s3.0.lock().unwrap());
        s3.1.notify_one();
        s3.2.store_sym(1, SeqCst);
        drop(s3.0.lock().unwrap());
        s3.1.notify_one();
    });
    for w in waiters {
        w.join().unwrap();
    }
    notifier.join().unwrap();
    symx::assert!(seen[0].load_sym(SeqCst) + seen[1].load_sym(SeqCst) != 0);
}

#[test]
fn a_notify_one_never_wakes_two_waiters() {
    let waits = [1, 1, 2, 2];
    let notifies = [3, 3, 3, 3, 3, 3, 3];
    let wakes = [1, 1, 1, 1, 2, 2, 2, 2];
    let observed: Vec<usize> = [&waits[..], &notifies, &wakes].concat();
    let trace = observe(&observed, one_notify_wakes_one);
    let out = predict(&trace, &assertions_only(Model::Ctp), |g| {
        Builder::new().run_guided(g, one_notify_wakes_one)
    });
    no_unconfirmed(&out);
    assert!(out.confirmed.is_empty(), "{out:#?}");
    assert_eq!(out.solve_times.len(), 1);
}
