//! The lock-free data structures: a Treiber stack, a bounded queue and Michael and Scott's
//! queue.

use super::busy_waiting::spin_until;
use super::*;

/// The end of a Treiber stack's list.
const NIL: usize = 2;

/// A Treiber stack (the lock-free stack of nbds-like suites), two threads each pushing its own
/// node and then popping one: push links the node to the head read and swings `head` to it by
/// compare-exchange, pop swings `head` from the top to its successor; a failed exchange
/// retries (at most [`SPIN`] times). No node is reused, so there is no ABA: no pop finds the
/// stack empty (each thread pushed before it pops) and the two pops take both values once.
#[symx::instrument]
pub fn treiber_stack() {
    // next[0..2], head; value[0..2], popped sum
    let s = Arc::new((
        [NIL, NIL, NIL].map(AtomicUsize::new),
        [0; 3].map(AtomicI32::new),
    ));
    let threads: Vec<_> = (0..2)
        .map(|me: usize| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let ([next @ .., head], [value @ .., sum]) = (&s.0, &s.1);
                value[me].store_sym(10i32 + me as i32, SeqCst);
                spin_until(|| {
                    let top = head.load_sym(SeqCst);
                    next[me].store_sym(top, SeqCst);
                    Sym::from(head.compare_exchange_sym(top, me, SeqCst, SeqCst).is_ok())
                });
                spin_until(|| {
                    let top = head.load_sym(SeqCst);
                    symx::assert!(top != NIL, "the stack is not empty");
                    let below = next[top].load_sym(SeqCst);
                    let popped = head
                        .compare_exchange_sym(top, below, SeqCst, SeqCst)
                        .is_ok();
                    if popped {
                        sum.fetch_add_sym(value[top].load_sym(SeqCst), SeqCst);
                    }
                    Sym::from(popped)
                });
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    symx::assert!(s.1[2].load_sym(SeqCst) == 21i32, "each value popped once");
}

/// The queue of `queue_false`, `SIZE` = [`QUEUE`], with the flags and the inputs kept.
struct Queue {
    m: Mutex<()>,
    element: [AtomicI32; QUEUE],
    head: AtomicI32,
    tail: AtomicI32,
    amount: AtomicI32,
    enqueue_flag: AtomicI32,
    dequeue_flag: AtomicI32,
    stored: [AtomicI32; QUEUE],
}

const QUEUE: usize = 3;

/// `slots[at]`, chosen by branches on `at` (the last slot for anything past it).
#[symx::instrument]
fn slot(slots: &[AtomicI32], at: Sym<i32>) -> &AtomicI32 {
    let mut k = 0;
    while k + 1 < slots.len() && at != k as i32 {
        k += 1;
    }
    &slots[k]
}

/// The index after `at`: the next one, or 1 past `SIZE` (as the original wraps).
#[symx::instrument]
fn moved_on(at: Sym<i32>) -> Sym<i32> {
    if at == QUEUE as i32 {
        Sym::from(1i32)
    } else {
        at.wrapping_add(1i32)
    }
}

/// The original's `enqueue`: store at `tail`, count it, move `tail` on (to 1 past `SIZE`).
#[symx::instrument]
fn enqueue(q: &Queue, x: Sym<i32>) {
    let tail = q.tail.load_sym(SeqCst);
    slot(&q.element, tail).store_sym(x, SeqCst);
    q.amount.fetch_add_sym(1i32, SeqCst);
    q.tail.store_sym(moved_on(tail), SeqCst);
}

/// The original's `dequeue`: load at `head`, count it out, move `head` on.
#[symx::instrument]
fn dequeue(q: &Queue) -> Sym<i32> {
    let head = q.head.load_sym(SeqCst);
    let x = slot(&q.element, head).load_sym(SeqCst);
    q.amount.fetch_sub_sym(1i32, SeqCst);
    q.head.store_sym(moved_on(head), SeqCst);
    x
}

/// SV-COMP `pthread/queue_false` with `SIZE` = 3: the enqueuer, under the mutex, enqueues an
/// input and checks the queue is not empty, then in each of its rounds where it may
/// (`enqueue_flag`) enqueues one more, keeping each in `stored`; the dequeuer, in each of its
/// rounds where it may (`dequeue_flag`), dequeues one and checks it as the original does,
/// `!dequeue() == stored[i]` (C's `!` binds first: `(x == 0) == stored[i]` is the error).
/// Its `i` counts rounds, not items: after a round that found nothing it compares an item
/// with a later item's input, and fails when, say, the first is 0 and the second 1.
#[symx::instrument]
pub fn queue() {
    let q = Arc::new(Queue {
        m: Mutex::new(()),
        element: [0; QUEUE].map(AtomicI32::new),
        head: AtomicI32::new(0),
        tail: AtomicI32::new(0),
        amount: AtomicI32::new(0),
        enqueue_flag: AtomicI32::new(1),
        dequeue_flag: AtomicI32::new(0),
        stored: [0; QUEUE].map(AtomicI32::new),
    });
    let q1 = q.clone();
    let enqueuer = symx::thread::spawn(move || {
        {
            let _g = q1.m.lock().unwrap();
            let value: Sym<i32> = symx::any_named("value0");
            enqueue(&q1, value);
            q1.stored[0].store_sym(value, SeqCst);
            let (head, tail) = (q1.head.load_sym(SeqCst), q1.tail.load_sym(SeqCst));
            symx::assert!(head != tail, "the queue is not empty");
        }
        for i in 1..QUEUE {
            let _g = q1.m.lock().unwrap();
            if q1.enqueue_flag.load_sym(SeqCst) == 1i32 {
                let value: Sym<i32> = symx::any_named(&format!("value{i}"));
                enqueue(&q1, value);
                q1.stored[i].store_sym(value, SeqCst);
                q1.enqueue_flag.store_sym(0i32, SeqCst);
                q1.dequeue_flag.store_sym(1i32, SeqCst);
            }
        }
    });
    let dequeuer = symx::thread::spawn(move || {
        for i in 0..QUEUE {
            let _g = q.m.lock().unwrap();
            if q.dequeue_flag.load_sym(SeqCst) == 1i32 {
                let x = dequeue(&q);
                let want = q.stored[i].load_sym(SeqCst);
                let not_x = x.sym_eq(0i32);
                let error = (not_x & want.sym_eq(1i32)) | (!not_x & want.sym_eq(0i32));
                symx::assert!(!error, "!(!dequeue() == stored[i])");
                q.dequeue_flag.store_sym(0i32, SeqCst);
                q.enqueue_flag.store_sym(1i32, SeqCst);
            }
        }
    });
    enqueuer.join().unwrap();
    dequeuer.join().unwrap();
}

/// The end of a Michael–Scott queue's list (nodes: 0 the dummy, 1 and 2 the threads').
const MS_NIL: usize = 3;

/// A Michael–Scott queue (Michael and Scott, PODC 1996; the lock-free queue of nbds-like
/// suites), two threads each enqueueing its own node and then dequeueing one. Enqueue links
/// the node after the last one by compare-exchange on its `next` and swings `tail` to it (or
/// helps a lagging `tail` on); dequeue swings `head` from the dummy to its successor, whose
/// value it takes, helping `tail` on when it lags. Each retry loop looks at most [`SPIN`]
/// times. No node is reused: no dequeue finds the queue empty (each thread enqueued before it
/// dequeues) and the two dequeues take both values once.
#[symx::instrument]
pub fn michael_scott_queue() {
    // next[0..3], head, tail; value[0..3], dequeued sum
    let s = Arc::new((
        [MS_NIL, MS_NIL, MS_NIL, 0, 0].map(AtomicUsize::new),
        [0; 4].map(AtomicI32::new),
    ));
    let threads: Vec<_> = (1..3)
        .map(|node: usize| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let ([next @ .., head, tail], [value @ .., sum]) = (&s.0, &s.1);
                value[node].store_sym(9i32 + node as i32, SeqCst);
                spin_until(|| {
                    let last = tail.load_sym(SeqCst);
                    let after = next[last].load_sym(SeqCst);
                    if last == tail.load_sym(SeqCst) {
                        if after == MS_NIL {
                            let linked =
                                next[last].compare_exchange_sym(MS_NIL, node, SeqCst, SeqCst);
                            if linked.is_ok() {
                                let _ = tail.compare_exchange_sym(last, node, SeqCst, SeqCst);
                                return Sym::from(true);
                            }
                        } else {
                            let _ = tail.compare_exchange_sym(last, after, SeqCst, SeqCst);
                        }
                    }
                    Sym::from(false)
                });
                spin_until(|| {
                    let first = head.load_sym(SeqCst);
                    let last = tail.load_sym(SeqCst);
                    let after = next[first].load_sym(SeqCst);
                    if first == head.load_sym(SeqCst) {
                        if first == last {
                            symx::assert!(after != MS_NIL, "the queue is not empty");
                            let _ = tail.compare_exchange_sym(last, after, SeqCst, SeqCst);
                        } else {
                            let v = value[after].load_sym(SeqCst);
                            if head
                                .compare_exchange_sym(first, after, SeqCst, SeqCst)
                                .is_ok()
                            {
                                sum.fetch_add_sym(v, SeqCst);
                                return Sym::from(true);
                            }
                        }
                    }
                    Sym::from(false)
                });
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    symx::assert!(s.1[3].load_sym(SeqCst) == 21i32, "each value dequeued once");
}
