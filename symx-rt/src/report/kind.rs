//! A failure's kind ([`FailureKind`]) with its stable name: the word the runtime reports a
//! bug in, below the [`Report`](crate::Report) that carries it to the caller.

use std::fmt;

/// What kind of bug an execution exhibited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// A thread panicked (failed assertions included).
    Panic,
    /// No thread can make progress while some have not finished.
    Deadlock,
    /// Two conflicting `UnsafeCell` accesses unordered by happens-before.
    DataRace,
    /// An execution exceeded the step bound: a livelock or an unbounded spin.
    StepLimit,
    /// A synchronization annotation's contract was broken: a lock released by a thread that
    /// does not hold it, two holders at once, a thread leaving a barrier early.
    Misuse,
    /// A tracked allocation (a `symx::sync::Arc`, a `Track`ed value, a block from
    /// `symx::loom::alloc::alloc`) was still alive when every thread had finished
    /// (`Builder::leak_check`).
    Leak,
    /// A model thread ran past the end of its stack.
    StackOverflow,
}

impl FailureKind {
    /// Every kind, in the order of the enum.
    pub const ALL: [FailureKind; 7] = [
        FailureKind::Panic,
        FailureKind::Deadlock,
        FailureKind::DataRace,
        FailureKind::StepLimit,
        FailureKind::Misuse,
        FailureKind::Leak,
        FailureKind::StackOverflow,
    ];

    /// The kind's stable name in every machine-readable output (`cargo symx`'s reports, the
    /// worker protocol, traces) and in `expect` tables: `panic`, `deadlock`, `data-race`,
    /// `step-limit`, `misuse`, `leak`, `stack-overflow`.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Deadlock => "deadlock",
            FailureKind::DataRace => "data-race",
            FailureKind::StepLimit => "step-limit",
            FailureKind::Misuse => "misuse",
            FailureKind::Leak => "leak",
            FailureKind::StackOverflow => "stack-overflow",
        }
    }
}

impl std::str::FromStr for FailureKind {
    type Err = crate::names::UnknownName;

    /// The kind named `s` (see [`FailureKind::name`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::parse(&Self::ALL, Self::name, "failure kind", s)
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FailureKind::Panic => "panic",
            FailureKind::Deadlock => "deadlock",
            FailureKind::DataRace => "data race",
            FailureKind::StepLimit => "step limit exceeded",
            FailureKind::Misuse => "synchronization misuse",
            FailureKind::Leak => "leak",
            FailureKind::StackOverflow => "stack overflow",
        })
    }
}
