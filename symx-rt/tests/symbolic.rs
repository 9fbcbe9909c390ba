//! Symbolic values and the traces they leave: inputs and their assignment, assumptions,
//! recorded branches, reads as read variables, escapes as guards, and the consistency of
//! every recorded expression with what the execution observed.

mod common;

use std::collections::BTreeMap;

use common::overflow_checks;

use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::trace::format::{EventKind, Verdict};
use symx::trace::Trace;
use symx::{Builder, Guide, Shared, Sym};

fn traces_of(b: Builder, f: impl Fn()) -> (symx::Report, Vec<Trace>) {
    let mut traces = Vec::new();
    let report = b.explore_traces(f, |t| traces.push(t.clone()));
    for t in &traces {
        t.check_consistency()
            .unwrap_or_else(|e| panic!("{e}\n{}", t.to_json()));
    }
    (report, traces)
}

fn kinds(t: &Trace, thread: usize) -> Vec<EventKind> {
    t.events
        .iter()
        .filter(|e| e.thread == thread)
        .map(|e| e.kind)
        .collect()
}

#[test]
fn inputs_take_the_assigned_values_and_default_to_zero() {
    let seen = std::sync::Mutex::new(Vec::new());
    let inputs = BTreeMap::from([("m".to_string(), -5i128)]);
    Builder::new().inputs(inputs).explore(|| {
        let n: Sym<u32> = symx::any();
        let m = symx::any_named::<i64>("m");
        seen.lock().unwrap().push((n.peek(), m.peek()));
    });
    assert_eq!(*seen.lock().unwrap(), vec![(0, -5)]);
}

#[test]
fn an_input_seed_gives_stable_values() {
    let run = |seed| {
        let seen = std::sync::Mutex::new(0u64);
        Builder::new().input_seed(seed).explore(|| {
            *seen.lock().unwrap() = symx::any::<u64>().peek();
        });
        seen.into_inner().unwrap()
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
    assert_eq!(run(0), 0);
}

#[test]
fn assume_discards_executions_without_failing() {
    let inputs = BTreeMap::from([("x".to_string(), 12i128)]);
    let report = Builder::new().inputs(inputs).explore(|| {
        let x = symx::any_named::<u8>("x");
        symx::assume(x.sym_lt(10u8));
        panic!("not reached: the assumption does not hold");
    });
    assert!(report.failure().is_none());
    assert_eq!((report.executions(), report.discarded()), (1, 1));
}

#[test]
fn branches_on_symbolic_conditions_are_recorded_as_taken() {
    let inputs = BTreeMap::from([("n".to_string(), 7i128)]);
    let (_, traces) = traces_of(Builder::new().inputs(inputs), || {
        let n = symx::any_named::<i32>("n");
        if symx::branch((n * 2).sym_gt(10)) {
            let _ = symx::branch(n.sym_eq(3));
        }
        assert!(symx::branch(true)); // plain conditions record nothing
    });
    let t = &traces[0];
    use EventKind::*;
    // `n * 2` cannot overflow? Asked where overflow panics (debug builds); else it wraps.
    let check = overflow_checks().then_some(Check);
    let want = [Input].into_iter().chain(check);
    let want: Vec<_> = want.chain([Branch, Branch, Exit]).collect();
    assert_eq!(kinds(t, 0), want);
    assert_eq!(t.inputs[0].value, 7);
}

#[test]
fn shared_reads_are_read_variables_and_writes_carry_expressions() {
    let (report, traces) = traces_of(Builder::new(), || {
        let x = Arc::new((Mutex::new(()), Shared::new(0i64)));
        let x2 = x.clone();
        let t = symx::thread::spawn(move || {
            let _g = x2.0.lock().unwrap();
            let v = x2.1.get();
            x2.1.set(v + 1);
        });
        let _g = x.0.lock().unwrap();
        let v = x.1.get();
        x.1.set(v * 3);
        drop(_g);
        t.join().unwrap();
    });
    assert!(report.failure().is_none());
    // Two critical sections: two orders.
    assert_eq!(traces.len(), 2);
    for t in &traces {
        let reads: Vec<_> = t.events.iter().filter_map(|e| e.read).collect();
        assert_eq!(
            reads.len(),
            2,
            "two reads, each its own read variable: {}",
            t.to_json()
        );
        assert_ne!(reads[0].var, reads[1].var);
        for w in t.events.iter().filter_map(|e| e.write) {
            let expr = t.exprs[w.expr as usize];
            assert!(
                matches!(expr, symx::trace::format::Expr::Binary { .. }),
                "a write computed from a read is an expression over it, not a constant: {expr:?}"
            );
        }
        assert!(
            t.events.iter().all(|e| e.guard.is_none()),
            "nothing escaped"
        );
    }
}

#[test]
fn plain_value_atomic_reads_are_pinned() {
    let (_, traces) = traces_of(Builder::new(), || {
        let a = AtomicUsize::new(4);
        let v = a.load(Ordering::SeqCst);
        a.store(v + 1, Ordering::SeqCst);
    });
    let t = &traces[0];
    let load = t.events.iter().find(|e| e.kind == EventKind::Load).unwrap();
    assert_eq!(load.read.map(|r| r.value), Some(4));
    assert!(
        load.guard.is_some(),
        "the plain value escaped: read == 4 is its guard"
    );
    let store = t
        .events
        .iter()
        .find(|e| e.kind == EventKind::Store)
        .unwrap();
    let w = store.write.unwrap();
    assert_eq!(w.value, 5);
    assert!(matches!(
        t.exprs[w.expr as usize],
        symx::trace::format::Expr::Const { value: 5, .. }
    ));
}

#[test]
fn escapes_record_guards() {
    let (_, traces) = traces_of(Builder::new(), || {
        let n = symx::any::<usize>();
        let table: &[i32] = &[10, 20, 30];
        let _ = table[n]; // symbolic index: an element choice, not a pin
        let _: usize = n.concrete();
        let _ = n == 0usize; // std comparison: the outcome escapes
    });
    let count = |kind| traces[0].events.iter().filter(|e| e.kind == kind).count();
    assert_eq!(count(EventKind::Pin), 2);
    assert_eq!(count(EventKind::Element), 1);
}

#[test]
fn recorded_assertions_carry_their_condition() {
    let (report, traces) = traces_of(Builder::new(), || {
        let x = Shared::new(3u8);
        let v = x.get();
        symx::assert!(v != 7, "v must not be 7");
        symx::assert!(v == 4u8, "v is {}", v.peek());
    });
    let failure = report.failure().expect("the second assertion fails");
    assert!(
        failure.message().contains("v is 3"),
        "{}",
        failure.message()
    );
    let t = traces.last().unwrap();
    let asserts: Vec<_> = t.events.iter().filter_map(|e| e.assert.clone()).collect();
    assert_eq!(asserts.len(), 2);
    assert!(asserts[0].holds && !asserts[1].holds);
    assert!(matches!(&t.verdict, Verdict::Fail { kind, .. } if kind == "panic"));
}

#[test]
fn mutex_events_carry_lock_annotations_and_spawn_join_edges() {
    let (_, traces) = traces_of(Builder::new().max_executions(Some(1)), || {
        let m = Arc::new(Mutex::new(0));
        let m2 = m.clone();
        let t = symx::thread::spawn(move || *m2.lock().unwrap() += 1);
        *m.lock().unwrap() += 1;
        t.join().unwrap();
    });
    let t = &traces[0];
    assert_eq!(t.threads.len(), 2);
    assert!(t.threads[1].spawned_at.is_some());
    assert_eq!(t.threads[1].joined_at.len(), 1);
    let syncs: Vec<_> = t.events.iter().flat_map(|e| e.sync.iter()).collect();
    assert_eq!(
        syncs.len(),
        4,
        "two acquisitions and two releases: {syncs:?}"
    );
}

#[test]
fn traces_round_trip_through_json() {
    let (_, traces) = traces_of(Builder::new(), || {
        let x = Shared::new(1u16);
        let n = symx::any::<u16>();
        x.set(x.get() + n);
    });
    for t in traces {
        let json = t.to_json();
        let back = Trace::from_json(&json).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.to_json(), json);
    }
}

#[test]
fn bad_trace_files_are_rejected_with_the_reason() {
    let (_, traces) = traces_of(Builder::new(), || {
        let x = Shared::new(1u16);
        x.set(x.get() + 1);
    });
    let json = traces[0].to_json();
    let err = |text: &str| Trace::from_json(text).unwrap_err().to_string();

    assert!(err("{ not json").contains("not a symx trace"));
    assert!(err(r#"{"format": "other"}"#).contains("`format` is \"other\""));
    let newer = json.replace("\"version\": 1", "\"version\": 2");
    assert!(
        err(&newer).contains("version 2 is not supported"),
        "{}",
        err(&newer)
    );
    let unknown = json.replace("\"memory_model\"", "\"colour\": 1, \"memory_model\"");
    assert!(
        err(&unknown).contains("unknown field `colour`"),
        "{}",
        err(&unknown)
    );
    let dangling = json.replace("\"thread\": 0", "\"thread\": 9");
    assert!(
        err(&dangling).contains("names thread 9"),
        "{}",
        err(&dangling)
    );
}

#[test]
fn inconsistent_values_are_caught_by_the_check() {
    let (_, traces) = traces_of(Builder::new(), || {
        let x = Shared::new(1u16);
        x.set(x.get() + 1);
    });
    let mut t = traces[0].clone();
    let w = t.events.iter_mut().find_map(|e| e.write.as_mut()).unwrap();
    w.value += 1;
    let why = t.check_consistency().unwrap_err();
    assert!(
        why.contains("wrote 3 but its expression evaluates to 2"),
        "{why}"
    );
}

#[test]
fn a_guided_run_follows_the_given_steps_and_inputs() {
    let body = || {
        let x = Arc::new((Mutex::new(()), Shared::new(0u32)));
        let x2 = x.clone();
        let t = symx::thread::spawn(move || {
            let _g = x2.0.lock().unwrap();
            x2.1.set(symx::any_named::<u32>("k"))
        });
        {
            let _g = x.0.lock().unwrap();
            x.1.set(1);
        }
        t.join().unwrap();
        symx::assert!(x.1.get() == 1u32, "the main thread's write is last");
    };
    // Thread 0 locks, writes and unlocks first, then thread 1 writes k = 5: the assertion
    // fails.
    let guide = Guide {
        steps: vec![0, 0, 0, 1, 1, 1],
        choices: vec![],
        inputs: BTreeMap::from([("k".to_string(), 5)]),
    };
    let run = Builder::new().run_guided(&guide, body);
    assert_eq!(run.divergence, None);
    assert!(run.report.failure().is_some());
    run.trace.check_consistency().unwrap();
    let writes: Vec<_> = run
        .trace
        .events
        .iter()
        .filter(|e| e.kind == EventKind::SharedWrite)
        .map(|e| (e.thread, e.write.unwrap().value))
        .collect();
    assert_eq!(writes, [(0, 1), (1, 5)]);
    // The other order passes, and the token of the failing run replays it.
    let other = Builder::new().run_guided(
        &Guide {
            steps: vec![1, 1, 1],
            ..guide.clone()
        },
        body,
    );
    assert!(other.report.failure().is_none());
    let token: symx::Schedule = run.trace.schedule.as_deref().unwrap().parse().unwrap();
    let replayed = Builder::new()
        .inputs(guide.inputs.clone())
        .replay(&token, body);
    assert!(replayed.failure().is_some());
}

#[test]
fn a_guide_the_program_cannot_follow_is_reported() {
    let guide = Guide {
        steps: vec![3],
        ..Guide::default()
    };
    let run = Builder::new().run_guided(&guide, || {
        let x = Shared::new(0u8);
        x.set(1);
    });
    assert!(run.divergence.unwrap().contains("thread 3"));
}

#[test]
fn a_trace_directory_keeps_a_bounded_number_of_files_and_the_failing_one() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("traces");
    // 3 threads x 1 fetch_add: 6 executions under DFS, the last one fails on purpose.
    let runs = std::sync::atomic::AtomicUsize::new(0);
    let report = Builder::new()
        .strategy(symx::Strategy::Dfs)
        .name("traces::bounded")
        .trace_dir(Some(dir.clone()), 2)
        .explore(|| {
            let n = runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let c = Arc::new(AtomicUsize::new(0));
            let hs: Vec<_> = (0..2)
                .map(|_| {
                    let c = c.clone();
                    symx::thread::spawn(move || c.fetch_add(1, Ordering::SeqCst))
                })
                .collect();
            c.fetch_add(1, Ordering::SeqCst);
            hs.into_iter().for_each(|h| drop(h.join()));
            assert!(n < 5, "the sixth execution fails");
        });
    assert_eq!(report.executions(), 6);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "traces__bounded-000001.json",
            "traces__bounded-000002.json",
            "traces__bounded-000006.json"
        ]
    );
    let last = Trace::from_json(&std::fs::read_to_string(dir.join(&files[2])).unwrap()).unwrap();
    assert!(matches!(last.verdict, Verdict::Fail { .. }));
    last.check_consistency().unwrap();
}

/// Two threads each add one to a `Shared` under a lock: while one holds it the other cannot
/// take a step, so the only choice is who locks first — 2 executions under DPOR and under
/// plain DFS alike, and nothing fails. Without the lock, both report the data race.
#[test]
fn shared_variables_are_explored_and_race_checked_like_memory() {
    let locked = || {
        let x = Arc::new((Mutex::new(()), Shared::new(0u8)));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let x = x.clone();
                symx::thread::spawn(move || {
                    let _g = x.0.lock().unwrap();
                    x.1.set(x.1.get() + 1);
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().unwrap());
        symx::assert!(x.1.get() == 2u8, "both increments count");
    };
    let dpor = Builder::new().explore(locked);
    let dfs = Builder::new().strategy(symx::Strategy::Dfs).explore(locked);
    assert!(dpor.failure().is_none() && dfs.failure().is_none());
    assert_eq!(dpor.executions(), 2);
    assert_eq!(dfs.executions(), 2);

    let unlocked = || {
        let x = Arc::new(Shared::new(0u8));
        let x2 = x.clone();
        let t = symx::thread::spawn(move || x2.set(x2.get() + 1));
        x.set(x.get() + 1);
        t.join().unwrap();
    };
    for strategy in [symx::Strategy::Dpor, symx::Strategy::Dfs] {
        let report = Builder::new().strategy(strategy).explore(unlocked);
        let kind = report.failure().map(|f| f.kind());
        assert_eq!(kind, Some(symx::FailureKind::DataRace), "{strategy:?}");
    }
}

/// 128-bit values survive JSON, also inside the worker protocol's tagged messages.
#[test]
fn values_beyond_64_bits_round_trip() {
    use symx::__worker::protocol::Message;
    let inputs = BTreeMap::from([
        ("big".to_string(), (u128::MAX - 1) as i128),
        ("neg".to_string(), i128::MIN + 3),
    ]);
    let (_, traces) = traces_of(Builder::new().inputs(inputs), || {
        let big = symx::any_named::<u128>("big");
        let neg = symx::any_named::<i128>("neg");
        let s = Shared::new(0u128);
        s.set(big + 1);
        let t = Shared::new(0i128);
        t.set(neg - 1);
    });
    let t = &traces[0];
    let writes: Vec<i128> = t
        .events
        .iter()
        .filter_map(|e| e.write.map(|w| w.value))
        .collect();
    assert_eq!(writes, [u128::MAX as i128, i128::MIN + 2]);
    assert_eq!(&Trace::from_json(&t.to_json()).unwrap(), t);
    let message = Message::Trace {
        execution: 1,
        trace: Box::new(t.clone()),
    };
    let back: Message = serde_json::from_str(&serde_json::to_string(&message).unwrap()).unwrap();
    assert!(matches!(back, Message::Trace { trace, .. } if *trace == *t));
}

/// `UnsafeCell` accesses are not scheduling points, but traces carry them: they are what a
/// predictive engine pairs into data races.
#[test]
fn unsafe_cell_accesses_are_in_the_trace() {
    struct Cell(symx::cell::UnsafeCell<u32>);
    // SAFETY: the test orders the two accesses with a join.
    unsafe impl Sync for Cell {}
    let (report, traces) = traces_of(Builder::new(), || {
        let cell = Arc::new(Cell(symx::cell::UnsafeCell::new(0u32)));
        let c2 = cell.clone();
        let t = symx::thread::spawn(move || c2.0.with_mut(|p| unsafe { *p += 1 }));
        t.join().unwrap();
        cell.0.with(|p| unsafe { assert_eq!(*p, 1) });
    });
    assert!(report.failure().is_none());
    let t = &traces[0];
    let cells: Vec<_> = t
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::CellRead | EventKind::CellWrite))
        .map(|e| (e.thread, e.kind, e.obj.is_some(), e.step))
        .collect();
    assert_eq!(
        cells,
        [
            (1, EventKind::CellWrite, true, None),
            (0, EventKind::CellRead, true, None)
        ]
    );
}

/// `atomic_region` marks where a region meant to be atomic begins and ends, around its events.
#[test]
fn atomic_regions_are_marked_in_the_trace() {
    let (_, traces) = traces_of(Builder::new(), || {
        let x = Shared::new(0u8);
        let v = symx::atomic_region(|| {
            let v = x.get();
            x.set(v + 1);
            v
        });
        assert_eq!(v.peek(), 0);
    });
    let kinds = kinds(&traces[0], 0);
    use EventKind::*;
    // `v + 1` records its overflow check where overflow panics (debug builds).
    let check = overflow_checks().then_some(Check);
    let want = [AtomicBegin, SharedRead].into_iter().chain(check);
    let want: Vec<_> = want.chain([SharedWrite, AtomicEnd, Exit]).collect();
    assert_eq!(kinds, want);
}

/// A failure that needs particular input values carries them in its token: replaying it with
/// a builder that knows nothing of the inputs reproduces it.
#[test]
fn replay_tokens_carry_the_input_values() {
    let body = || {
        let k = symx::any_named::<u32>("k");
        let n = symx::any::<i8>();
        symx::assert!(k != 42 || n != -3, "the bad pair");
    };
    let inputs = BTreeMap::from([("k".to_string(), 42), ("t0#0".to_string(), -3)]);
    let report = Builder::new().inputs(inputs).explore(body);
    let failure = report.failure().expect("the bad pair fails");
    let token = failure.schedule().to_string();
    assert!(token.starts_with("symx3-"), "{token}");
    let schedule: symx::Schedule = token.parse().unwrap();
    assert_eq!(
        schedule.inputs(),
        [("k".to_string(), 42), ("t0#0".to_string(), -3)]
    );
    let replayed = Builder::new().input_seed(9).replay(&schedule, body);
    assert!(
        replayed.failure().is_some(),
        "the token's inputs, not the builder's"
    );
    // Without inputs the token is of the same format, with no inputs.
    let plain = Builder::new().explore(|| symx::assert!(false, "always"));
    let schedule = plain.failure().unwrap().schedule().clone();
    assert!(schedule.to_string().starts_with("symx3-"));
    assert!(schedule.inputs().is_empty());
}
