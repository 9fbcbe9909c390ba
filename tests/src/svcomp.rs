//! The SV-COMP pthread programs and concurrency benchmarks of Table 2 of Guo, Kusano, Wang,
//! Yang, Gupta, "Assertion Guided Symbolic Execution of Multithreaded Programs" (ESEC/FSE
//! 2015), in Rust, small: loop bounds and thread counts are cut so that both the plain and the
//! pruned search finish in CI, which is a different size from the paper's (its variants are
//! not published). Each keeps its benchmark's verdict: a `false`/`bad` program has a reachable
//! assertion failure, a `true` program none.
//!
//! Globals are atomics or `Shared` values read and written with the `*_sym` operations (every
//! value a thread reads is a read of the trace, every condition on it a recorded guard: what
//! assertion-guided pruning needs to see), a C mutex is a `symx::sync::Mutex<()>` beside them,
//! and every assertion is `symx::assert!`.

use std::sync::Arc;

use symx::sync::atomic::Ordering::SeqCst;
use symx::sync::atomic::{AtomicI32, AtomicUsize};
use symx::sync::Mutex;
use symx::{Shared, Sym};

/// A program of the table and what it must do.
pub struct Program {
    /// The benchmark's name in SV-COMP or the concurrency-benchmark suite.
    pub name: &'static str,
    /// The test body.
    pub body: fn(),
    /// Whether an assertion can fail.
    pub fails: bool,
    /// The paper's Table 2 row (its name there) and its runs for Cloud9, +DPOR and
    /// +DPOR+AG (`None`: timed out).
    pub paper: (&'static str, [Option<u32>; 3]),
}

/// Every ported program.
pub fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "fib_bench_false",
            body: fib_bench,
            fails: true,
            paper: ("fibbenchfalse1", [Some(924), Some(48), Some(15)]),
        },
        Program {
            name: "lazy01_false",
            body: lazy01,
            fails: true,
            paper: ("lazy01false", [Some(11), Some(3), Some(3)]),
        },
        Program {
            name: "reorder_2_false",
            body: reorder_2,
            fails: true,
            paper: ("reorder2false2a", [Some(23), Some(14), Some(14)]),
        },
        Program {
            name: "sigma_false",
            body: sigma,
            fails: true,
            paper: ("sigmafalse2", [Some(180), Some(50), Some(2)]),
        },
        Program {
            name: "singleton_false",
            body: singleton,
            fails: true,
            paper: ("singletonfalse", [Some(60), Some(24), Some(19)]),
        },
        Program {
            name: "stack_false",
            body: stack,
            fails: true,
            paper: ("stackfalse", [Some(527), Some(236), Some(49)]),
        },
        Program {
            name: "stateful01_true",
            body: stateful01,
            fails: false,
            paper: ("stateful01true", [Some(6), Some(6), Some(5)]),
        },
        Program {
            name: "twostage_3_false",
            body: twostage_3,
            fails: true,
            paper: ("twostage3false", [Some(4862), Some(88), Some(34)]),
        },
        Program {
            name: "time_var_mutex_true",
            body: time_var_mutex,
            fails: false,
            paper: ("timevarmutextrue", [Some(41), Some(4), Some(2)]),
        },
        Program {
            name: "peterson_true",
            body: peterson,
            fails: false,
            paper: ("petersontrue1", [None, Some(1052), Some(64)]),
        },
        Program {
            name: "dekker_true",
            body: dekker,
            fails: false,
            paper: ("dekkertrue", [None, Some(280), Some(6)]),
        },
        Program {
            name: "ticket_true",
            body: ticket,
            fails: false,
            paper: ("tickettrue", [Some(1062), Some(274), Some(44)]),
        },
        Program {
            name: "read_write_lock_true",
            body: read_write_lock,
            fails: false,
            paper: ("readwritelktrue1", [Some(24), Some(4), Some(4)]),
        },
        Program {
            name: "circular_buffer_bad",
            body: circular_buffer,
            fails: true,
            paper: ("circularbufbad1", [Some(118), Some(118), Some(58)]),
        },
        Program {
            name: "szymanski_true",
            body: szymanski,
            fails: false,
            paper: ("szymanskitrue", [None, None, Some(6)]),
        },
        Program {
            name: "treiber_stack_true",
            body: treiber_stack,
            fails: false,
            paper: ("nbds-list (stand-in)", [None, Some(10274), Some(1)]),
        },
        Program {
            name: "queue_false",
            body: queue,
            fails: true,
            paper: ("queuefalse", [Some(252), Some(252), Some(26)]),
        },
        Program {
            name: "account_bad",
            body: account,
            fails: true,
            paper: ("accountbad", [Some(8), Some(8), Some(8)]),
        },
        Program {
            name: "bluetooth_driver_bad",
            body: bluetooth,
            fails: true,
            paper: ("bluetoothbad", [None, Some(1789), Some(95)]),
        },
    ]
}

/// The programs too large for CI (DPOR alone runs thousands of executions): BENCHMARKS.md's
/// table only.
pub fn large() -> Vec<Program> {
    vec![Program {
        name: "michael_scott_queue_true",
        body: michael_scott_queue,
        fails: false,
        paper: ("nbds-hash (stand-in)", [None, None, Some(2283)]),
    }]
}

/// The busy-waiting protocols with a seeded bug, each failing "mutual exclusion": a bounded
/// wait that gives up discards its execution (one thread blocks, the other runs on), and the
/// search must still reach the schedule where both threads are in the critical section.
pub fn mutants() -> Vec<Program> {
    vec![
        Program {
            name: "peterson_turn_to_self",
            body: peterson_turn_to_self,
            fails: true,
            paper: ("petersontrue1 (mutant)", [None, None, None]),
        },
        Program {
            name: "szymanski_no_entry_wait",
            body: szymanski_no_entry_wait,
            fails: true,
            paper: ("szymanskitrue (mutant)", [None, None, None]),
        },
    ]
}

/// Two locks and the counter each protects.
type TwoCounters = (Mutex<()>, Mutex<()>, AtomicI32, AtomicI32);

/// The lock, the balance, and whether the deposit and the withdrawal are done.
type Account = (Mutex<()>, AtomicI32, AtomicI32, AtomicI32);

fn shared_i32(v: i32) -> Arc<AtomicI32> {
    Arc::new(AtomicI32::new(v))
}

/// SV-COMP `pthread/fib_bench_false`, 2 rounds: `i += j` in one thread, `j += i` in the
/// other, each a read, a read and a write; `i` or `j` reaches 8 only when the rounds strictly
/// alternate.
#[symx::instrument]
pub fn fib_bench() {
    const ROUNDS: usize = 3;
    const LIMIT: i32 = 21;
    let (i, j) = (shared_i32(1), shared_i32(1));
    let (i1, j1) = (i.clone(), j.clone());
    let t1 = symx::thread::spawn(move || {
        for _ in 0..ROUNDS {
            let add = j1.load_sym(SeqCst);
            i1.store_sym(i1.load_sym(SeqCst).wrapping_add(add), SeqCst);
        }
    });
    let (i2, j2) = (i.clone(), j.clone());
    let t2 = symx::thread::spawn(move || {
        for _ in 0..ROUNDS {
            let add = i2.load_sym(SeqCst);
            j2.store_sym(j2.load_sym(SeqCst).wrapping_add(add), SeqCst);
        }
    });
    t1.join().unwrap();
    t2.join().unwrap();
    let (i, j) = (i.load_sym(SeqCst), j.load_sym(SeqCst));
    symx::assert!(i < LIMIT && j < LIMIT, "i < 8 && j < 8");
}

/// SV-COMP `pthread/lazy01_false`: `data += 1` and `data += 2` under a mutex, and a third
/// thread that fails when it sees `data >= 3`.
#[symx::instrument]
pub fn lazy01() {
    let s = Arc::new((Mutex::new(()), Shared::new(0i32)));
    let add = |s: Arc<(Mutex<()>, Shared<i32>)>, n: i32| {
        symx::thread::spawn(move || {
            let _g = s.0.lock().unwrap();
            s.1.set(s.1.get().wrapping_add(n));
        })
    };
    let t1 = add(s.clone(), 1);
    let t2 = add(s.clone(), 2);
    let s3 = s.clone();
    let t3 = symx::thread::spawn(move || {
        let _g = s3.0.lock().unwrap();
        let data = s3.1.get();
        symx::assert!(data < 3i32, "data < 3");
    });
    t1.join().unwrap();
    t2.join().unwrap();
    t3.join().unwrap();
}

/// SV-COMP `pthread/reorder_2_false` with two setters and two checkers: a setter writes
/// `a = 1; b = -1`, a checker reads both and asserts it saw neither or both.
#[symx::instrument]
pub fn reorder_2() {
    let (a, b) = (shared_i32(0), shared_i32(0));
    let mut threads = Vec::new();
    for _ in 0..2 {
        let (a1, b1) = (a.clone(), b.clone());
        threads.push(symx::thread::spawn(move || {
            a1.store_sym(1i32, SeqCst);
            b1.store_sym(-1i32, SeqCst);
        }));
    }
    for _ in 0..2 {
        let (a1, b1) = (a.clone(), b.clone());
        threads.push(symx::thread::spawn(move || {
            let (x, y) = (a1.load_sym(SeqCst), b1.load_sym(SeqCst));
            let none = x == 0i32 && y == 0i32;
            let both = x == 1i32 && y == -1i32;
            symx::assert!(none || both, "both writes seen or none");
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
}

/// SV-COMP `pthread/sigma_false` with SIGMA = 3: the main thread spawns each writer and then
/// moves `array_index` on; a writer sets `array[array_index]`. When both writers read the
/// same index, the sum of the array is short.
#[symx::instrument]
pub fn sigma() {
    let index = shared_i32(0);
    let slots = Arc::new([0; 4].map(AtomicI32::new));
    let mut writers = Vec::new();
    for _ in 0..3 {
        let (i, slots) = (index.clone(), slots.clone());
        writers.push(symx::thread::spawn(move || {
            let at = i.load_sym(SeqCst);
            if at == 0i32 {
                slots[0].store_sym(1i32, SeqCst);
            } else if at == 1i32 {
                slots[1].store_sym(1i32, SeqCst);
            } else if at == 2i32 {
                slots[2].store_sym(1i32, SeqCst);
            } else {
                slots[3].store_sym(1i32, SeqCst);
            }
        }));
        index.fetch_add_sym(1i32, SeqCst);
    }
    for w in writers {
        w.join().unwrap();
    }
    let sum = slots[0]
        .load_sym(SeqCst)
        .wrapping_add(slots[1].load_sym(SeqCst))
        .wrapping_add(slots[2].load_sym(SeqCst))
        .wrapping_add(slots[3].load_sym(SeqCst));
    symx::assert!(sum == 3i32, "sum == SIGMA");
}

/// SV-COMP `pthread/singleton_false`: one thread allocates `v` (joined before the others
/// start), then two threads write `'X'` and one writes `'Y'`; the main thread asserts it reads
/// `'X'`, which fails when the `'Y'` writer comes last.
#[symx::instrument]
pub fn singleton() {
    let v = shared_i32(0);
    let v0 = v.clone();
    symx::thread::spawn(move || v0.store_sym(i32::from(b'-'), SeqCst))
        .join()
        .unwrap();
    let writers: Vec<_> = [b'X', b'X', b'Y']
        .into_iter()
        .map(|c| {
            let v = v.clone();
            symx::thread::spawn(move || v.store_sym(i32::from(c), SeqCst))
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let got = v.load_sym(SeqCst);
    symx::assert!(got == i32::from(b'X'), "v[0] == 'X'");
}

/// SV-COMP `pthread/stack_false`, 2 pushes and 2 pops: the popper pops whenever a push has
/// ever happened (`flag`), not whenever the stack is non-empty, and underflows after push,
/// pop, pop.
#[symx::instrument]
pub fn stack() {
    let s = Arc::new((Mutex::new(()), shared_i32(0), shared_i32(0)));
    let s1 = s.clone();
    let pusher = symx::thread::spawn(move || {
        for _ in 0..2 {
            let _g = s1.0.lock().unwrap();
            let top = s1.1.load_sym(SeqCst);
            symx::assert!(top < 5i32, "no overflow");
            s1.1.store_sym(top.wrapping_add(1i32), SeqCst);
            s1.2.store_sym(1i32, SeqCst);
        }
    });
    let popper = symx::thread::spawn(move || {
        for _ in 0..2 {
            let _g = s.0.lock().unwrap();
            if s.2.load_sym(SeqCst) == 1i32 {
                let top = s.1.load_sym(SeqCst);
                symx::assert!(top > 0i32, "no underflow");
                s.1.store_sym(top.wrapping_sub(1i32), SeqCst);
            }
        }
    });
    pusher.join().unwrap();
    popper.join().unwrap();
}

/// SV-COMP `pthread/stateful01_true`: two threads update `data1` and `data2` under two
/// mutexes (`+1, +1` and `+5, -6` from 10, 10); `data1` ends at 16 whatever the order, so the
/// error (`data1 != 16 && data2 != 5`) cannot happen.
#[symx::instrument]
pub fn stateful01() {
    let s: Arc<TwoCounters> = Arc::new((
        Mutex::new(()),
        Mutex::new(()),
        AtomicI32::new(10),
        AtomicI32::new(10),
    ));
    let update = |s: Arc<TwoCounters>, d1, d2| {
        symx::thread::spawn(move || {
            {
                let _g = s.0.lock().unwrap();
                s.2.store_sym(s.2.load_sym(SeqCst).wrapping_add(d1), SeqCst);
            }
            let _g = s.1.lock().unwrap();
            s.3.store_sym(s.3.load_sym(SeqCst).wrapping_add(d2), SeqCst);
        })
    };
    let t1 = update(s.clone(), 1i32, 1i32);
    let t2 = update(s.clone(), 5i32, -6i32);
    t1.join().unwrap();
    t2.join().unwrap();
    let (d1, d2) = (s.2.load_sym(SeqCst), s.3.load_sym(SeqCst));
    symx::assert!(d1 == 16i32 || d2 == 5i32, "not (data1 != 16 && data2 != 5)");
}

/// SV-COMP `pthread/twostage_3_false`, two writers and one reader: a writer sets `data1 = 1`
/// in one section and `data2 = data1 + 1` in another; the reader, once `data1` is set, asserts
/// `data2 == data1 + 1`, which fails between a writer's two sections.
#[symx::instrument]
pub fn twostage_3() {
    let s = Arc::new((Mutex::new(()), Mutex::new(()), shared_i32(0), shared_i32(0)));
    let mut threads = Vec::new();
    for _ in 0..2 {
        let s = s.clone();
        threads.push(symx::thread::spawn(move || {
            {
                let _g = s.0.lock().unwrap();
                s.2.store_sym(1i32, SeqCst);
            }
            let _g = s.1.lock().unwrap();
            s.3.store_sym(s.2.load_sym(SeqCst).wrapping_add(1i32), SeqCst);
        }));
    }
    threads.push(symx::thread::spawn(move || {
        let t1 = {
            let _g = s.0.lock().unwrap();
            s.2.load_sym(SeqCst)
        };
        if t1 != 0i32 {
            let _g = s.1.lock().unwrap();
            let t2 = s.3.load_sym(SeqCst);
            symx::assert!(t2 == t1.wrapping_add(1i32), "data2 == data1 + 1");
        }
    }));
    for t in threads {
        t.join().unwrap();
    }
}

/// SV-COMP `pthread-atomic/time_var_mutex_true`: the allocator takes `m_inode`, marks the
/// block busy under `m_busy` when `inode == busy`, sets `block = 1` and asserts it; the
/// de-allocator, under `m_busy`, clears `block` and asserts it when nothing is busy. The
/// de-allocator's section either ends before the allocator marks busy or sees busy set.
#[symx::instrument]
pub fn time_var_mutex() {
    let s = Arc::new((
        Mutex::new(()),
        Mutex::new(()),
        [shared_i32(0), shared_i32(0), shared_i32(0)],
    ));
    let s1 = s.clone();
    let allocator = symx::thread::spawn(move || {
        let [inode, busy, block] = &s1.2;
        let _g = s1.0.lock().unwrap();
        if inode.load_sym(SeqCst) == busy.load_sym(SeqCst) {
            let _b = s1.1.lock().unwrap();
            busy.store_sym(1i32, SeqCst);
        }
        inode.store_sym(1i32, SeqCst);
        block.store_sym(1i32, SeqCst);
        symx::assert!(block.load_sym(SeqCst) == 1i32, "block == 1");
    });
    let deallocator = symx::thread::spawn(move || {
        let [_, busy, block] = &s.2;
        let _b = s.1.lock().unwrap();
        if busy.load_sym(SeqCst) == 0i32 {
            block.store_sym(0i32, SeqCst);
            symx::assert!(block.load_sym(SeqCst) == 0i32, "block == 0");
        }
    });
    allocator.join().unwrap();
    deallocator.join().unwrap();
}

/// The concurrency benchmarks' `account_bad`: the balance starts at input `x`, one thread
/// deposits `y`, one withdraws `z` (under a mutex), and the checker, once both are done,
/// asserts `balance == (x - y) - z`, the wrong formula: it fails for every `y != 0`.
#[symx::instrument]
pub fn account() {
    let (x, y, z): (Sym<i32>, Sym<i32>, Sym<i32>) = (
        symx::any_named("x"),
        symx::any_named("y"),
        symx::any_named("z"),
    );
    let s: Arc<Account> = Arc::new((
        Mutex::new(()),
        AtomicI32::new(0),
        AtomicI32::new(0),
        AtomicI32::new(0),
    ));
    s.1.store_sym(x, SeqCst);
    let change = |s: Arc<Account>, by: Sym<i32>, deposit: bool| {
        symx::thread::spawn(move || {
            let _g = s.0.lock().unwrap();
            let b = s.1.load_sym(SeqCst);
            let (new, done) = if deposit {
                (b.wrapping_add(by), &s.2)
            } else {
                (b.wrapping_sub(by), &s.3)
            };
            s.1.store_sym(new, SeqCst);
            done.store_sym(1i32, SeqCst);
        })
    };
    let deposit = change(s.clone(), y, true);
    let withdraw = change(s.clone(), z, false);
    let checker = symx::thread::spawn(move || {
        let _g = s.0.lock().unwrap();
        if s.2.load_sym(SeqCst) == 1i32 && s.3.load_sym(SeqCst) == 1i32 {
            let balance = s.1.load_sym(SeqCst);
            symx::assert!(
                balance == x.wrapping_sub(y).wrapping_sub(z),
                "balance == (x - y) - z"
            );
        }
    });
    deposit.join().unwrap();
    withdraw.join().unwrap();
    checker.join().unwrap();
}

/// The concurrency benchmarks' `bluetooth_driver_bad`: `add` counts itself in (`pendingIo`)
/// unless the driver is stopping, then asserts it has not stopped; `stop` sets the stopping
/// flag, counts its own reference out and marks the driver stopped when the count reaches 0.
/// The bug: `stop` runs whole between `add`'s flag check and its increment.
#[symx::instrument]
pub fn bluetooth() {
    // pending_io, stopping_flag, stopping_event, stopped
    let d = Arc::new([shared_i32(1), shared_i32(0), shared_i32(0), shared_i32(0)]);
    let dec = |d: &[Arc<AtomicI32>; 4]| {
        let left = d[0].fetch_sub_sym(1i32, SeqCst).wrapping_sub(1i32);
        if left == 0i32 {
            d[2].store_sym(1i32, SeqCst);
        }
    };
    let d1 = d.clone();
    let add = symx::thread::spawn(move || {
        if d1[1].load_sym(SeqCst) == 0i32 {
            d1[0].fetch_add_sym(1i32, SeqCst);
            symx::assert!(d1[3].load_sym(SeqCst) == 0i32, "not stopped");
            dec(&d1);
        }
    });
    let stop = symx::thread::spawn(move || {
        d[1].store_sym(1i32, SeqCst);
        dec(&d);
        if d[2].load_sym(SeqCst) == 1i32 {
            d[3].store_sym(1i32, SeqCst);
        }
    });
    add.join().unwrap();
    stop.join().unwrap();
}

/// How many times a busy-waiting thread looks before it gives up: a wait longer than this is
/// not explored (the execution is discarded by `symx::assume(false)`), which bounds the
/// otherwise infinite spinning of the mutual-exclusion protocols below.
pub const SPIN: usize = 2;

/// Spins until `ready()` holds, at most [`SPIN`] looks; an execution that would wait longer
/// is discarded.
#[symx::instrument]
fn spin_until(mut ready: impl FnMut() -> Sym<bool>) {
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
