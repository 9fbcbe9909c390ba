//! Sanity checks of the harness itself: a harness that sees nothing would pass everything.

use super::*;

#[test]
fn canonical_forms_identify_commuting_steps_only() {
    let step = |thread, op: &str, obj| ObservedStep {
        thread,
        op: op.to_string(),
        obj: Some(obj),
        only_looked: false,
        quiet: false,
        let_go: None,
        touched: Vec::new(),
        woke: Vec::new(),
    };
    let a = vec![step(1, "store", 0), step(2, "store", 1)];
    let b = vec![step(2, "store", 1), step(1, "store", 0)];
    assert_eq!(canonical(&a), canonical(&b), "different objects commute");
    let c = vec![step(1, "load", 0), step(2, "load", 0)];
    let d = vec![step(2, "load", 0), step(1, "load", 0)];
    assert_eq!(canonical(&c), canonical(&d), "two loads commute");
    let e = vec![step(1, "load", 0), step(2, "store", 0)];
    let f = vec![step(2, "store", 0), step(1, "load", 0)];
    assert_ne!(canonical(&e), canonical(&f), "a load and a store do not");
    let g = vec![step(1, "unlock", 0), step(2, "lock", 0)];
    let h = vec![step(2, "lock", 0), step(1, "unlock", 0)];
    assert_ne!(canonical(&g), canonical(&h), "nor an unlock and a lock");
    let looked = |thread| ObservedStep {
        only_looked: true,
        ..step(thread, "notify_one", 0)
    };
    let i = vec![looked(1), looked(2)];
    let j = vec![looked(2), looked(1)];
    assert_eq!(
        canonical(&i),
        canonical(&j),
        "two notifies that woke nobody commute"
    );
    let k = vec![looked(1), step(2, "notify_one", 0)];
    let l = vec![step(2, "notify_one", 0), looked(1)];
    assert_ne!(
        canonical(&k),
        canonical(&l),
        "but not with one that woke a waiter"
    );
    let yielded = ObservedStep {
        op: "yield".to_string(),
        obj: None,
        quiet: true,
        ..step(1, "", 0)
    };
    let m = vec![yielded.clone(), step(2, "store", 0)];
    let n = vec![step(2, "store", 0), yielded];
    assert_ne!(
        canonical(&m),
        canonical(&n),
        "a yield and another thread's change do not commute under the fairness rule"
    );
    assert_eq!(
        canonical_ignoring_fairness(&m),
        canonical_ignoring_fairness(&n),
        "they do in memory"
    );
    assert_eq!(canonical_without_yields(&m), canonical_without_yields(&n));
}

#[test]
fn harness_sees_every_dfs_execution_and_final_state() {
    // Two threads storing different values to one atomic: 2 executions, 2 final values.
    let p = Program {
        family: Family::AtomicsOnly,
        atomics: 1,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(AtomicOp::Store(0, 1))],
            vec![Op::Atomic(AtomicOp::Store(0, 2))],
        ],
    };
    let r = explore(&|| run(&p), &take_final, Strategy::Dfs);
    assert_eq!(r.report.executions(), 2);
    let finals: BTreeSet<i64> = r
        .executions
        .iter()
        .map(|(_, s)| s.as_ref().expect("complete").atomics[0])
        .collect();
    assert_eq!(finals, BTreeSet::from([1, 2]));
    assert!(compare(&p, &mut Stats::default()).is_empty());
}

#[test]
fn harness_reports_a_failure_and_its_kind() {
    let p = Program {
        family: Family::Asserting,
        atomics: 1,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(AtomicOp::Store(0, 1))],
            vec![Op::Assert {
                atomic: 0,
                value: 1,
            }],
        ],
    };
    let mut stats = Stats::default();
    assert!(compare(&p, &mut stats).is_empty());
    assert_eq!(stats.failing, 1);
    let deadlock = Program {
        family: Family::NoFail,
        threads: vec![vec![Op::WaitWhile]],
        condvar: true,
        ..p
    };
    let problems = compare(&deadlock, &mut Stats::default());
    assert!(problems.iter().any(|pr| pr.kind == Kind::ImpossibleFailure));
}

/// The `Awaiting` family exercises what it is for: in the DFS of its programs some
/// executions end with a thread blocked by its `assume` (no final state) and others do not.
#[test]
fn awaiting_programs_both_block_and_complete() {
    let (mut mixed, mut blocked) = (0, 0);
    for seed in 0..40 {
        let p = generate(seed, Family::Awaiting, 2_000.0);
        let dfs = explore(&|| run(&p), &take_final, Strategy::Dfs);
        let ended = dfs.executions.iter().filter(|(_, s)| s.is_some()).count();
        blocked += dfs.executions.len() - ended;
        mixed += usize::from(ended > 0 && ended < dfs.executions.len());
    }
    assert!(
        mixed >= 5 && blocked > 0,
        "mixed {mixed}, blocked {blocked}"
    );
}

#[test]
fn generated_programs_are_a_function_of_the_seed() {
    for family in Family::ALL {
        let p = generate(7, family, 2_000.0);
        assert_eq!(p, generate(7, family, 2_000.0));
    }
}
