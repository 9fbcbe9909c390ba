//! The programs that synchronize by locks and joins alone: SV-COMP's `pthread` and
//! `pthread-atomic` programs without busy waiting, and the concurrency benchmarks' `account`
//! and `bluetooth_driver`.

use super::*;

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
