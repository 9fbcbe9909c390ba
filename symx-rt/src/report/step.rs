//! One step of an interleaving ([`Step`]) and the place in the source it was called from
//! ([`SourceLocation`]): what the runtime records for every step and failure, below the
//! [`Report`](crate::Report) that carries them to the caller.

use std::fmt;
use std::panic::Location;

/// A place in the source: `file:line:column`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The source file, as `file!()` names it.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

impl From<&Location<'_>> for SourceLocation {
    fn from(l: &Location<'_>) -> Self {
        SourceLocation {
            file: l.file().to_string(),
            line: l.line(),
            column: l.column(),
        }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// One numbered step of an interleaving.
#[derive(Clone, Debug)]
pub struct Step {
    /// The step's number in the interleaving, from 1.
    pub index: usize,
    /// The thread that took it (execution-local id: 0 is the test's main thread).
    pub thread: usize,
    /// The thread as reports show it: its id and, if it has one, its name.
    pub thread_label: String,
    /// What the thread did (`lock`, `load`, `spawn`, ...).
    pub operation: String,
    /// The memory ordering of an atomic operation (`Relaxed`, `Release`, ...): what
    /// happens-before, and so the data-race check, takes from it.
    pub order: Option<String>,
    /// The object it did it to, when there is one (`Mutex#1`).
    pub object: Option<String>,
    /// The value read or written, when there is one; empty otherwise.
    pub value: String,
    /// Where in the source the step's operation was called.
    pub location: SourceLocation,
    /// Non-zero on a summary row: this many identical steps (from `index` on) are left out.
    pub omitted: u64,
}

impl Step {
    /// The operation with its ordering, as reports show it: `load(Relaxed)`, `lock`.
    pub fn what(&self) -> String {
        match &self.order {
            Some(o) => format!("{}({o})", self.operation),
            None => self.operation.clone(),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.omitted > 0 {
            return write!(
                f,
                "      … {} more steps: {} repeating {}{}  at {}",
                self.omitted,
                self.thread_label,
                self.what(),
                self.object
                    .as_ref()
                    .map(|o| format!(" {o}"))
                    .unwrap_or_default(),
                self.location
            );
        }
        write!(
            f,
            "{:>4}. {:<18} {}",
            self.index,
            self.thread_label,
            self.what()
        )?;
        if let Some(o) = &self.object {
            write!(f, " {o}")?;
        }
        if !self.value.is_empty() {
            write!(f, " = {}", self.value)?;
        }
        write!(f, "  at {}", self.location)
    }
}
