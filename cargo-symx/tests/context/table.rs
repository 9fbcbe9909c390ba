//! The concurrency skeletons of the programs of Bergan's Table 2.1 (dissertation ch. 2;
//! OOPSLA 2014 Table 1), ported to declared contexts where two or more threads start in the
//! middle of their core loop, and explored in the four modes: paths completed in `full` are
//! never more than in either ablation, which are never more than in `naive`; reaching
//! definitions matter for the fork-join one, synchronization invariants for the task queue,
//! both for the barrier loops and the pipeline.
//!
//! The paper's residual infeasible paths in lu and streamcluster came from thread ids it could
//! not prove unique and from `pthread_join(t[i])` on ids it could not prove valid. Here a
//! thread's id is the concrete value its spawn passes and a join handle is typed: a branch on
//! the id has one side, a join has no error case, in every mode.

use symx::context::{self, Barriers, Cells, ContextMode, Locks};
use symx::Sym;

use super::explore;

/// The paths each mode explores to their end, in the order full, no-rd, no-si, naive (a
/// path a fact discards is not explored past it: the paper prunes it where the invariant
/// applies).
pub fn completed(body: fn()) -> [u64; 4] {
    ContextMode::ALL.map(|m| explore(m, body).completed)
}

/// blackscholes (PARSEC), fork-join: main splits the options into one chunk per worker
/// (`end = start + n / threads`, written before the spawn, so conflict-free) and each worker
/// prices its chunk. Context: both workers inside the pricing loop at an option `i` of their
/// chunk (the loop's range, kept in every mode), with `end` known only through reaching
/// definitions.
pub fn blackscholes() {
    let prices = Cells::known("prices", vec![0u8; 4]);
    let workers: Vec<_> = (0..2u32)
        .map(|t| {
            let start = 2 * t;
            let i: Sym<u32> = symx::any_named(&format!("i{t}"));
            symx::assume(i.sym_ge(start) & i.sym_lt(start + 2));
            let end: Sym<u32> = symx::any_named(&format!("end{t}"));
            symx::assume(end.sym_le(4u32));
            let fact = format!("end{t} == {} (reaching definitions)", start + 2);
            context::value_fact(&fact, end.sym_eq(start + 2));
            let prices = prices.clone();
            symx::thread::spawn(move || {
                let mut i = i;
                while symx::branch(i.sym_lt(end)) {
                    prices.set(Sym::constant(t as usize), 1u8);
                    i += 1u32;
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
}

/// pfscan (a parallel file scanner), task queue: workers take paths from one queue under its
/// lock. Context: worker 2 inside `dequeue` holding the queue lock, worker 1 about to take it;
/// the queue's length is unknown.
pub fn pfscan() {
    let q = Sym::constant(0usize);
    let locks = Locks::new("queue.lock", 1);
    let inside = Cells::known("in_dequeue", vec![0u8]);
    let len = Cells::<u8>::unknown("queue.len", 1);
    let held = locks.held(q);
    inside.set(q, 1u8);
    let (l1, in1, in2, len1, len2) = (
        locks.clone(),
        inside.clone(),
        inside.clone(),
        len.clone(),
        len.clone(),
    );
    let worker1 = symx::thread::spawn(move || {
        let guard = l1.lock(q);
        symx::assert!(in1.get(q).sym_eq(0u8), "two workers inside dequeue");
        if symx::branch(len1.get(q).sym_gt(0u8)) {
            len1.set(q, len1.get(q) - 1u8);
        }
        drop(guard);
    });
    let worker2 = symx::thread::spawn(move || {
        if symx::branch(len2.get(q).sym_gt(0u8)) {
            len2.set(q, len2.get(q) - 1u8);
        }
        in2.set(q, 0u8);
        drop(held);
    });
    worker1.join().unwrap();
    worker2.join().unwrap();
}

/// lu (SPLASH-2), barrier-synchronized loop: `for step in 0..z { work(id, step); b.wait(); }`
/// in two threads with `Barrier::new(2)` and `z` written before the spawn. Context: both
/// threads inside the loop, their `step` generalised; reaching definitions give `z`, barrier
/// matching `step1 == step2`, `Bcnts` the barrier's count. The thread with id 0 does the
/// pivot work: a branch on a concrete id.
pub fn lu() {
    let b = Barriers::new("b", 1);
    b.expect(Sym::constant(0), 2);
    let z: Sym<u32> = symx::any_named("z");
    symx::assume(z.sym_le(3u32));
    context::value_fact("z == 2 (reaching definitions)", z.sym_eq(2u32));
    let s1: Sym<u32> = symx::any_named("step1");
    let s2: Sym<u32> = symx::any_named("step2");
    symx::assume(s1.sym_lt(z) & s2.sym_lt(z));
    context::sync_fact("step1 == step2 (barrier matching)", s1.sym_eq(s2));
    let pivots = Cells::known("pivots", vec![0u8; 1]);
    let threads: Vec<_> = [s1, s2]
        .into_iter()
        .enumerate()
        .map(|(id, step)| {
            let (b, pivots) = (b.clone(), pivots.clone());
            symx::thread::spawn(move || {
                let mut step = step;
                loop {
                    if id == 0 {
                        pivots.set(Sym::constant(0), 1u8);
                    }
                    b.wait(Sym::constant(0));
                    step += 1u32;
                    if !symx::branch(step.sym_lt(z)) {
                        break;
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// streamcluster (PARSEC), barrier-synchronized loop in three threads, each given its id at
/// spawn: `loop { if pid == 0 { shuffle() } b.wait(); work(pid); b.wait(); }`. Context: the
/// three threads at the top of the loop body; the barrier expects 3 (`Bcnts`, created before
/// the context); one iteration each.
pub fn streamcluster() {
    let b = Barriers::new("b", 1);
    b.expect(Sym::constant(0), 3);
    let work = Cells::known("work", vec![0u8; 3]);
    let threads: Vec<_> = (0..3usize)
        .map(|pid| {
            let (b, work) = (b.clone(), work.clone());
            symx::thread::spawn(move || {
                if pid == 0 {
                    work.set(Sym::constant(0), 1u8);
                }
                b.wait(Sym::constant(0));
                work.set(Sym::constant(pid), 2u8);
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// dedup (PARSEC), pipeline: deduplicating workers pass the chunks they keep to a writer
/// through an output queue under its lock. Context: worker 1 inside `enqueue` holding the
/// output queue's lock, worker 2 with a chunk whose duplicate check is unknown, about to
/// enqueue on the queue it was given before the loop (reaching definitions: the output
/// queue); the queue's length is unknown. (The writer draining the queue is left out: it
/// multiplies every mode's paths alike.)
pub fn dedup() {
    let locks = Locks::new("queue.lock", 2);
    let inside = Cells::known("in_enqueue", vec![0u8; 2]);
    let len = Cells::<u8>::unknown("queue.len", 2);
    let out = Sym::constant(1usize);
    let held = locks.held(out);
    inside.set(out, 1u8);
    let q2 = context::identity("q2", 2);
    context::value_fact("q2 == out (reaching definitions)", q2.sym_eq(out));
    let enqueue = |len: &Cells<u8>, q: Sym<usize>| {
        if symx::branch(len.get(q).sym_lt(255u8)) {
            len.set(q, len.get(q) + 1u8);
        }
    };
    let l2 = locks.clone();
    let (in1, in2) = (inside.clone(), inside.clone());
    let (len1, len2) = (len.clone(), len.clone());
    let worker1 = symx::thread::spawn(move || {
        enqueue(&len1, out);
        in1.set(out, 0u8);
        drop(held);
    });
    let worker2 = symx::thread::spawn(move || {
        let duplicate: Sym<u8> = symx::any_named("duplicate");
        if !symx::branch(duplicate.sym_eq(1u8)) {
            let guard = l2.lock(q2);
            symx::assert!(in2.get(q2).sym_eq(0u8), "two workers inside enqueue");
            enqueue(&len2, q2);
            drop(guard);
        }
    });
    for t in [worker1, worker2] {
        t.join().unwrap();
    }
}

fn assert_ordered(name: &str, [full, no_rd, no_si, naive]: [u64; 4]) {
    assert!(
        full <= no_rd.min(no_si) && no_rd.max(no_si) <= naive,
        "{name}: full {full}, no-rd {no_rd}, no-si {no_si}, naive {naive}"
    );
}

#[test]
fn blackscholes_reaching_definitions_dominate() {
    let p = completed(blackscholes);
    assert_ordered("blackscholes", p);
    let [full, no_rd, no_si, naive] = p;
    assert_eq!((no_si, no_rd), (full, naive), "{p:?}");
    assert!(full < naive, "{p:?}");
}

#[test]
fn pfscan_synchronization_invariants_dominate() {
    let p = completed(pfscan);
    assert_ordered("pfscan", p);
    let [full, no_rd, no_si, naive] = p;
    assert_eq!((no_rd, no_si), (full, naive), "{p:?}");
    assert!(full < naive, "{p:?}");
    assert_eq!(explore(ContextMode::Full, pfscan).failures.len(), 0);
    assert!(explore(ContextMode::NoSi, pfscan).failures_of("panic") >= 1);
}

#[test]
fn lu_needs_both() {
    let p = completed(lu);
    assert_ordered("lu", p);
    let [full, no_rd, no_si, naive] = p;
    assert!(
        full < no_rd && full < no_si && no_rd.max(no_si) < naive,
        "{p:?}"
    );
    assert_eq!(explore(ContextMode::Full, lu).failures.len(), 0);
}

#[test]
fn streamcluster_has_one_vector_in_full_and_no_id_forks() {
    let p = completed(streamcluster);
    assert_ordered("streamcluster", p);
    let full = explore(ContextMode::Full, streamcluster);
    assert_eq!(full.failures.len(), 0, "{full:#?}");
    // The branch on the concrete id is not a decision: only the barrier's outcomes are.
    assert!(full.outcomes.keys().count() <= 2, "{:?}", full.outcomes);
}

/// Both matter: without reaching definitions worker 2 may enqueue on the other queue (more
/// paths), without synchronization invariants it may enter `enqueue` beside worker 1 (the
/// false positives).
#[test]
fn dedup_needs_both_and_the_invariants_remove_the_false_positives() {
    let p = completed(dedup);
    assert_ordered("dedup", p);
    let [full, no_rd, no_si, _] = p;
    assert!(full < no_rd.min(no_si), "{p:?}");
    assert_eq!(explore(ContextMode::Full, dedup).failures.len(), 0);
    assert_eq!(explore(ContextMode::NoRd, dedup).failures.len(), 0);
    assert!(explore(ContextMode::NoSi, dedup).failures_of("panic") >= 1);
    // Naive holds no-si's false positives and more: every state no-si allows, it allows.
    // (It once found none, when the solver's "incomplete" answers cut its sides.)
    let naive = explore(ContextMode::Naive, dedup).failures.len();
    let no_si = explore(ContextMode::NoSi, dedup).failures.len();
    assert!(naive >= no_si && no_si >= 1, "naive {naive}, no-si {no_si}");
}

/// The table `BENCHMARKS.md` gives: per program and mode, paths explored and completed,
/// failing paths, solver share and seconds (`cargo test -p cargo-symx --test context
/// table_2_1 -- --ignored --nocapture`; timings are of one run on a shared machine).
#[test]
#[ignore = "prints the Table 2.1 ports' numbers for BENCHMARKS.md"]
fn table_2_1() {
    let programs: [(&str, fn()); 5] = [
        ("blackscholes", blackscholes),
        ("pfscan", pfscan),
        ("lu", lu),
        ("streamcluster", streamcluster),
        ("dedup", dedup),
    ];
    println!("| program | mode | paths | completed | failing | solver | seconds |");
    println!("|---|---|---|---|---|---|---|");
    for (name, body) in programs {
        for mode in ContextMode::ALL {
            let out = explore(mode, body);
            println!(
                "| {name} | {mode} | {} | {} | {} | {:.0}% | {:.2} |",
                out.paths,
                out.completed,
                out.failures.len(),
                out.solver_share() * 100.0,
                out.search.seconds
            );
        }
    }
}
