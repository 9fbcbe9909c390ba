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

mod busy_waiting;
mod pthread;
mod structures;

pub use busy_waiting::*;
pub use pthread::*;
pub use structures::*;

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
