//! The smallest generated programs with yields that disagreed: the fairness rule's object (see
//! `dpor_agrees_with_dfs_on_programs_that_yield`).

use super::*;

/// The smallest program on which the optimal DPOR missed a final state before it modelled the
/// fairness rule (see `dpor_agrees_with_dfs_on_programs_that_yield`).
#[test]
fn a_yield_that_a_later_change_lets_go() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Yielding,
        atomics: 1,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::SpawnJoin {
                child: vec![Op::Yield, Op::Atomic(Store(0, 1))],
                between: vec![],
            }],
            vec![Op::Atomic(Swap(0, 2)), Op::Atomic(Load(0))],
        ],
    };
    assert_agrees(&p);
}

/// The smallest program on which the DPOR with the fairness object still missed final states:
/// thread 2 reading 1 while thread 3's compare-exchange, after its yield, saw 1. A leaf of a
/// wakeup tree was taken to stand for a sequence with the yield (`wakeup::leaf_covers`).
#[test]
fn a_yield_between_a_load_and_a_change() {
    use random_programs::AtomicOp::*;
    let p = Program {
        family: Family::Yielding,
        atomics: 1,
        mutexes: 0,
        condvar: false,
        threads: vec![
            vec![Op::Atomic(Store(0, 1)), Op::Atomic(Store(0, 2))],
            vec![Op::Atomic(Load(0))],
            vec![Op::Atomic(Load(0)), Op::Yield, Op::Atomic(Cas(0, 0, 1))],
        ],
    };
    assert_agrees(&p);
}

/// Threads that each lock, yield and unlock: the orders of the critical sections are the
/// traces. With the fairness object alone the DPOR ran one order 4 times (of 6, and of 12
/// with a second section in thread 1): the yield, before the next acquisition in
/// happens-before, hid the race of the two acquisitions.
#[test]
fn yields_inside_critical_sections() {
    let l = |add| Op::Locked {
        mutex: 0,
        add,
        body: vec![Op::Yield],
    };
    for threads in [
        vec![vec![l(1)], vec![l(2)], vec![l(3)]],
        vec![vec![l(1), l(4)], vec![l(2)], vec![l(3)]],
    ] {
        let p = Program {
            family: Family::Yielding,
            atomics: 1,
            mutexes: 1,
            condvar: false,
            threads,
        };
        assert_agrees(&p);
    }
}
