//! `#[symx::fragment]` adds `resume_<name>`, which resumes the function at its
//! `symx::start_here!` with the captured values: the rest of the tail, or the rest of the
//! iteration and then the loop's remaining iterations and what follows the loop.

use symx::sync::{Arc, Mutex};

#[symx::fragment]
fn tail(x: u32) -> u32 {
    let y: u32 = x + 1;
    symx::start_here!(y);
    y * 2
}

#[test]
fn a_tail_resumes_with_its_captures() {
    assert_eq!(tail(4), 10);
    assert_eq!(resume_tail(7), 14);
}

#[symx::fragment]
fn sum_squares(n: u64) -> u64 {
    let mut acc: u64 = 0;
    for i in 0..n {
        let sq: u64 = i * i;
        symx::start_here!(i: u64, sq, acc, n);
        acc += sq;
        if acc > 1000 {
            break;
        }
    }
    acc + 1
}

#[test]
fn a_for_loop_resumes_mid_iteration_at_its_variable() {
    // At i = 3 of 0..5, after 0 + 1 + 4: the rest adds 9 and 16, then the tail adds 1.
    assert_eq!(resume_sum_squares(3, 9, 5, 5), sum_squares(5));
    // Captures are the state: another accumulator, another sq for this iteration only.
    assert_eq!(resume_sum_squares(3, 0, 100, 5), 100 + 16 + 1);
    // `break` leaves the loop and runs the tail.
    assert_eq!(resume_sum_squares(0, 0, 2000, 5), 2001);
}

#[symx::fragment]
fn odd_countdown(mut k: u32, mut log: Vec<u32>) -> Vec<u32> {
    while k > 0 {
        k -= 1;
        symx::start_here!(k, log);
        if k.is_multiple_of(2) {
            continue;
        }
        log.push(k);
    }
    log
}

#[test]
fn a_while_loop_resumes_and_continue_goes_to_the_next_iteration() {
    assert_eq!(odd_countdown(6, vec![]), [5, 3, 1]);
    assert_eq!(resume_odd_countdown(4, vec![99]), [99, 3, 1]);
    assert_eq!(resume_odd_countdown(5, vec![]), [5, 3, 1]);
}

#[symx::fragment]
fn worker(counter: Arc<Mutex<u32>>, rounds: u32) {
    for r in 0..rounds {
        symx::start_here!(r: u32, counter, rounds);
        *counter.lock().unwrap() += 1;
    }
}

/// Two workers of three rounds, from the start or resumed in the middle of their core loop
/// (at round 1).
fn two_workers(resumed: bool) -> symx::Report {
    symx::Builder::new().check(move || {
        let counter = Arc::new(Mutex::new(0u32));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let c = counter.clone();
                symx::thread::spawn(move || {
                    if resumed {
                        resume_worker(1, c, 3)
                    } else {
                        worker(c, 3)
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(*counter.lock().unwrap(), if resumed { 4 } else { 6 });
    })
}

#[test]
fn two_threads_resumed_in_their_core_loop() {
    let (start, middle) = (two_workers(false), two_workers(true));
    assert!(start.failure().is_none() && middle.failure().is_none());
    // The lock orders of two threads' critical sections: C(6, 3) from the start, C(4, 2)
    // from the middle.
    assert_eq!((start.executions(), middle.executions()), (20, 6));
}

/// A guard alive at the mark: the resumed fragment takes its lock again before the rest of
/// the iteration, so the read and the write of `*g` stay one critical section.
#[symx::fragment]
fn rounds_under_lock(total: Arc<Mutex<u32>>, rounds: u32) {
    for r in 0..rounds {
        let mut g = total.lock().unwrap();
        symx::start_here!(r: u32, total, rounds);
        let seen = *g;
        symx::thread::yield_now();
        *g = seen + 1;
    }
}

/// The same in a function's tail, with the guard handed through a condition variable's
/// wait before the mark (the wait gives back a guard of the same lock).
#[symx::fragment]
fn add_after_wait(total: Arc<Mutex<u32>>, ready: Arc<symx::sync::Condvar>) {
    let mut g = total.lock().unwrap();
    while *g == 0 {
        g = ready.wait(g).unwrap();
    }
    symx::start_here!(total: Arc<Mutex<u32>>, ready: Arc<symx::sync::Condvar>);
    let seen = *g;
    symx::thread::yield_now();
    *g = seen + 10;
}

#[test]
fn a_guard_alive_at_the_mark_is_taken_again_on_resume() {
    let report = symx::Builder::new().check(|| {
        let total = Arc::new(Mutex::new(1u32));
        let ready = Arc::new(symx::sync::Condvar::new());
        let (a, b, c) = (total.clone(), total.clone(), ready.clone());
        let t1 = symx::thread::spawn(move || resume_rounds_under_lock(1, a, 3));
        let t2 = symx::thread::spawn(move || resume_add_after_wait(b, c));
        resume_rounds_under_lock(2, total.clone(), 3);
        t1.join().unwrap();
        t2.join().unwrap();
        // 1 + two rounds + one round + 10: no update lost.
        assert_eq!(*total.lock().unwrap(), 14);
    });
    assert!(report.failure().is_none(), "{report:?}");
    // The orders of four critical sections in three threads, two of them the first
    // thread's in program order: 4! / 2 = 12.
    assert_eq!(report.executions(), 12);
}

#[test]
fn the_functions_with_guards_at_their_marks_run_as_written() {
    let report = symx::Builder::new().check(|| {
        let total = Arc::new(Mutex::new(1u32));
        rounds_under_lock(total.clone(), 2);
        add_after_wait(total.clone(), Arc::new(symx::sync::Condvar::new()));
        assert_eq!(*total.lock().unwrap(), 13);
    });
    assert!(report.failure().is_none(), "{report:?}");
}
