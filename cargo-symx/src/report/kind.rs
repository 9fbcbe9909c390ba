//! The kinds of finding a report can show, with their stable names (reports, `expect`
//! tables): the runtime's failure kinds ([`symx::FailureKind`]) and the ones only the driver
//! sees ([`DriverKind`]). One list, so the configuration, the run loop and the formats cannot
//! disagree.

use symx::FailureKind;

/// What the driver reports that no single execution of the runtime does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriverKind {
    /// The test process died (abort, signal, `exit`) in the middle of the test.
    Crash,
    /// The test process was still running at its deadline.
    Timeout,
    /// A model thread ran for seconds without reaching a scheduling point (the watchdog).
    Stuck,
    /// An ordinary `#[test]` failed (libtest said so).
    TestFailed,
    /// A predicted interleaving ran a region meant to be atomic unserializably (the run
    /// itself does not fail).
    AtomicityViolation,
    /// The test could not be run at all (the worker protocol failed).
    Error,
}

impl DriverKind {
    /// Every kind, in the order of the enum.
    pub const ALL: [DriverKind; 6] = [
        DriverKind::Crash,
        DriverKind::Timeout,
        DriverKind::Stuck,
        DriverKind::TestFailed,
        DriverKind::AtomicityViolation,
        DriverKind::Error,
    ];

    /// The kind's stable name in every report.
    pub fn name(self) -> &'static str {
        match self {
            DriverKind::Crash => "crash",
            DriverKind::Timeout => "timeout",
            DriverKind::Stuck => "stuck",
            DriverKind::TestFailed => "test-failed",
            DriverKind::AtomicityViolation => "atomicity-violation",
            DriverKind::Error => "error",
        }
    }
}

/// The kinds a known bug can be expected to fail with (`expect` in the configuration): every
/// runtime kind, and the driver's kinds a bug can show as.
pub fn expectable() -> Vec<&'static str> {
    let driver = [
        DriverKind::AtomicityViolation,
        DriverKind::Crash,
        DriverKind::Timeout,
        DriverKind::Stuck,
    ];
    FailureKind::ALL
        .iter()
        .map(|k| k.name())
        .chain(driver.iter().map(|k| k.name()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expectable_kinds_keep_their_names_and_order() {
        assert_eq!(
            expectable(),
            [
                "panic",
                "deadlock",
                "data-race",
                "step-limit",
                "misuse",
                "leak",
                "stack-overflow",
                "atomicity-violation",
                "crash",
                "timeout",
                "stuck"
            ]
        );
    }
}
