//! The busy-waiting protocols (Peterson, Dekker, the ticket lock, Szymanski, a read-write
//! lock, a circular buffer): each wait is bounded by [`SPIN`] looks, a longer one discarded.

use super::*;

/// How many times a busy-waiting thread looks before it gives up: a wait longer than this is
/// not explored (the execution is discarded by `symx::assume(false)`), which bounds the
/// otherwise infinite spinning of the mutual-exclusion protocols below and of the lock-free
/// structures' retries (`structures.rs`).
pub const SPIN: usize = 2;

/// Spins until `ready()` holds, at most [`SPIN`] looks; an execution that would wait longer
/// is discarded.
#[symx::instrument]
pub(super) fn spin_until(mut ready: impl FnMut() -> Sym<bool>) {
    for _ in 0..SPIN {
        if ready() {
            return;
        }
    }
    symx::assume(false);
}

/// The critical section of the protocols below: `x = me`, then assert it is still `me`.
#[symx::instrument]
fn critical(x: &AtomicI32, me: i32) {
    x.store_sym(me, SeqCst);
    symx::assert!(x.load_sym(SeqCst) == me, "mutual exclusion");
}

/// SV-COMP `pthread-atomic/peterson_true`: `flag[me] = 1; turn = other`, wait while the other
/// flag is up and it is the other's turn, then the critical section.
pub fn peterson() {
    peterson_giving_turn(true);
}

/// Peterson with the bug of setting `turn = me` instead of `other`: both can enter.
pub fn peterson_turn_to_self() {
    peterson_giving_turn(false);
}

/// Peterson's protocol; `to_other`: `turn = other` (the protocol) or `turn = me` (a bug).
#[symx::instrument]
fn peterson_giving_turn(to_other: bool) {
    let s = Arc::new([0; 4].map(AtomicI32::new)); // flag0, flag1, turn, x
    let threads: Vec<_> = (0..2)
        .map(|me: usize| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let other = 1 - me;
                s[me].store_sym(1i32, SeqCst);
                s[2].store_sym(if to_other { other } else { me } as i32, SeqCst);
                spin_until(|| {
                    let flag = s[other].load_sym(SeqCst);
                    let turn = s[2].load_sym(SeqCst);
                    flag.sym_eq(0i32) | turn.sym_eq(me as i32)
                });
                critical(&s[3], me as i32);
                s[me].store_sym(0i32, SeqCst);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// SV-COMP `pthread-atomic/dekker_true`: raise the flag; while the other's flag is up, if it
/// is the other's turn lower the flag, wait for the turn, raise it again; then the critical
/// section, hand the turn over, lower the flag. Each wait is bounded by [`SPIN`].
#[symx::instrument]
pub fn dekker() {
    let s = Arc::new([0; 4].map(AtomicI32::new)); // flag0, flag1, turn, x
    let threads: Vec<_> = (0..2)
        .map(|me: usize| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let other = 1 - me;
                s[me].store_sym(1i32, SeqCst);
                spin_until(|| {
                    if s[other].load_sym(SeqCst) == 0i32 {
                        return Sym::from(true);
                    }
                    if s[2].load_sym(SeqCst) != me as i32 {
                        s[me].store_sym(0i32, SeqCst);
                        spin_until(|| s[2].load_sym(SeqCst).sym_eq(me as i32));
                        s[me].store_sym(1i32, SeqCst);
                    }
                    Sym::from(false)
                });
                critical(&s[3], me as i32);
                s[2].store_sym(other as i32, SeqCst);
                s[me].store_sym(0i32, SeqCst);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// SV-COMP `pthread-ext/06_ticket_true` with two threads: take a ticket (`fetch_add`), wait
/// until it is served, `c += 1; assert(c == 1); c -= 1`, serve the next.
#[symx::instrument]
pub fn ticket() {
    let s = Arc::new([0; 3].map(AtomicI32::new)); // next_ticket, now_serving, c
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let mine = s[0].fetch_add_sym(1i32, SeqCst);
                spin_until(|| s[1].load_sym(SeqCst).sym_eq(mine));
                let c = s[2].fetch_add_sym(1i32, SeqCst).wrapping_add(1i32);
                symx::assert!(c == 1i32, "c == 1");
                s[2].fetch_sub_sym(1i32, SeqCst);
                s[1].fetch_add_sym(1i32, SeqCst);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// The concurrency benchmarks' `circular_buffer_bad`, two items in a two-slot log buffer: the
/// producer inserts its `i`-th item when it may send, the consumer removes one when it may
/// receive and asserts it is its `i`-th; but both count loop rounds, not items, so a consumer
/// round that found nothing to receive shifts its count.
#[symx::instrument]
pub fn circular_buffer() {
    // slot0, slot1, first, next, send, receive
    let s = Arc::new((Mutex::new(()), [0, 0, 0, 0, 1, 0].map(AtomicI32::new)));
    let s1 = s.clone();
    let producer = symx::thread::spawn(move || {
        let [slot0, slot1, _, next, send, receive] = &s1.1;
        for i in 0..2i32 {
            let _g = s1.0.lock().unwrap();
            if send.load_sym(SeqCst) == 1i32 {
                let at = next.load_sym(SeqCst);
                if at == 0i32 {
                    slot0.store_sym(i, SeqCst);
                } else {
                    slot1.store_sym(i, SeqCst);
                }
                next.store_sym(at.wrapping_add(1i32) % 2i32, SeqCst);
                send.store_sym(0i32, SeqCst);
                receive.store_sym(1i32, SeqCst);
            }
        }
    });
    let consumer = symx::thread::spawn(move || {
        let [slot0, slot1, first, _, send, receive] = &s.1;
        for i in 0..2i32 {
            let _g = s.0.lock().unwrap();
            if receive.load_sym(SeqCst) == 1i32 {
                let at = first.load_sym(SeqCst);
                let item = if at == 0i32 {
                    slot0.load_sym(SeqCst)
                } else {
                    slot1.load_sym(SeqCst)
                };
                first.store_sym(at.wrapping_add(1i32) % 2i32, SeqCst);
                symx::assert!(item == i, "removeLogElement() == i");
                receive.store_sym(0i32, SeqCst);
                send.store_sym(1i32, SeqCst);
            }
        }
    });
    producer.join().unwrap();
    consumer.join().unwrap();
}

/// SV-COMP `pthread-atomic/read_write_lock_true` with one writer and one reader: the lock is
/// `w` (a writer holds it) and `r` (readers hold it), taken in an atomic block (a mutex here)
/// that waits (bounded by [`SPIN`]) until it may; the writer sets `x = 3`, the reader reads `x`
/// twice and asserts both reads agree.
#[symx::instrument]
pub fn read_write_lock() {
    // w, r, x
    let s = Arc::new((Mutex::new(()), [0; 3].map(AtomicI32::new)));
    let s1 = s.clone();
    let writer = symx::thread::spawn(move || {
        let [w, r, x] = &s1.1;
        spin_until(|| {
            let _atomic = s1.0.lock().unwrap();
            let free = w.load_sym(SeqCst).sym_eq(0i32) & r.load_sym(SeqCst).sym_eq(0i32);
            if free {
                w.store_sym(1i32, SeqCst);
            }
            free
        });
        x.store_sym(3i32, SeqCst);
        w.store_sym(0i32, SeqCst);
    });
    let reader = symx::thread::spawn(move || {
        let [w, r, x] = &s.1;
        spin_until(|| {
            let _atomic = s.0.lock().unwrap();
            let free = w.load_sym(SeqCst).sym_eq(0i32);
            if free {
                r.fetch_add_sym(1i32, SeqCst);
            }
            free
        });
        let l = x.load_sym(SeqCst);
        let y = x.load_sym(SeqCst);
        symx::assert!(y == l, "y == l");
        r.fetch_sub_sym(1i32, SeqCst);
    });
    writer.join().unwrap();
    reader.join().unwrap();
}

/// SV-COMP `pthread-atomic/szymanski_true`, two threads: announce (`flag = 1`), wait while the
/// other is past the doorway (`>= 3`), enter the waiting room (`3`); if the other only
/// announced, step back (`2`) and wait until it has entered (`4`); then `4`, wait while the
/// other is anywhere from stepping back on (`>= 2`), the critical section, wait while the
/// other is stepping back or waiting (`2..=3`), and leave (`0`). Each wait is bounded by
/// [`SPIN`].
pub fn szymanski() {
    szymanski_protocol(true);
}

/// Szymanski without the wait before the critical section (`while other >= 2`): both can
/// enter.
pub fn szymanski_no_entry_wait() {
    szymanski_protocol(false);
}

/// Szymanski's protocol; `entry_wait`: whether a thread waits for the other to leave the
/// waiting room before the critical section.
#[symx::instrument]
fn szymanski_protocol(entry_wait: bool) {
    let s = Arc::new([0; 3].map(AtomicI32::new)); // flag0, flag1, x
    let threads: Vec<_> = (0..2)
        .map(|me: usize| {
            let s = s.clone();
            symx::thread::spawn(move || {
                let (mine, other) = (&s[me], &s[1 - me]);
                mine.store_sym(1i32, SeqCst);
                spin_until(|| other.load_sym(SeqCst).sym_lt(3i32));
                mine.store_sym(3i32, SeqCst);
                if other.load_sym(SeqCst) == 1i32 {
                    mine.store_sym(2i32, SeqCst);
                    spin_until(|| other.load_sym(SeqCst).sym_eq(4i32));
                }
                mine.store_sym(4i32, SeqCst);
                if entry_wait {
                    spin_until(|| other.load_sym(SeqCst).sym_lt(2i32));
                }
                critical(&s[2], me as i32);
                spin_until(|| {
                    let f = other.load_sym(SeqCst);
                    f.sym_lt(2i32) | f.sym_gt(3i32)
                });
                mine.store_sym(0i32, SeqCst);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}
