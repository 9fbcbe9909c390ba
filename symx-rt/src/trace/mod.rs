//! Traces: the versioned record of one execution that every engine reads (`format`), how the
//! runtime assembles it (`build`), how it is read back with errors that say what is wrong,
//! and the consistency check that re-evaluates every recorded expression (`check`).

pub(crate) mod build;
mod check;
pub mod format;
mod store;

/// The reference semantics of trace expressions, which every engine must agree with.
pub use crate::sym::eval::{eval, eval_all, EvalError};
pub use format::{Trace, TRACE_FORMAT, TRACE_VERSION};
pub(crate) use store::TraceDir;

/// Why a trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TraceError {
    /// Not JSON, or JSON that is not a symx trace.
    NotATrace(String),
    /// Written by a newer symx (or an unknown format version).
    UnsupportedVersion {
        /// The trace's format version.
        found: u64,
        /// The newest format version this symx reads.
        supported: u32,
    },
    /// A symx trace whose content is damaged: the message names the field or record.
    Corrupt(String),
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::NotATrace(why) => write!(f, "not a symx trace: {why}"),
            TraceError::UnsupportedVersion { found, supported } => write!(
                f,
                "trace format version {found} is not supported: this symx reads version \
                 {supported}; use the symx that wrote it, or re-record the trace"
            ),
            TraceError::Corrupt(why) => write!(f, "corrupt symx trace: {why}"),
        }
    }
}

impl std::error::Error for TraceError {}

impl Trace {
    /// The trace as JSON.
    pub fn to_json(&self) -> String {
        crate::json::to_string_pretty(self).expect("a trace always serialises")
    }

    /// Reads a trace written by [`Trace::to_json`], checking its format, its version and that
    /// its records refer only to what exists (expressions, threads, objects, inputs).
    pub fn from_json(text: &str) -> Result<Trace, TraceError> {
        let value = crate::json::parse(text).map_err(|e| TraceError::NotATrace(e.to_string()))?;
        let format = value.get("format").and_then(|f| f.as_str());
        if format != Some(TRACE_FORMAT) {
            return Err(TraceError::NotATrace(format!(
                "the field `format` is {}, expected \"{TRACE_FORMAT}\"",
                format.map_or("missing".to_string(), |f| format!("\"{f}\""))
            )));
        }
        match value.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == TRACE_VERSION as u64 => {}
            Some(found) => {
                return Err(TraceError::UnsupportedVersion {
                    found,
                    supported: TRACE_VERSION,
                })
            }
            None => return Err(TraceError::Corrupt("the field `version` is missing".into())),
        }
        let trace: Trace =
            crate::json::from_value(value).map_err(|e| TraceError::Corrupt(e.to_string()))?;
        check::references(&trace).map_err(TraceError::Corrupt)?;
        Ok(trace)
    }

    /// Re-evaluates every expression under the recorded inputs and read values and checks
    /// that each written value, guard and assertion is what the execution observed.
    pub fn check_consistency(&self) -> Result<(), String> {
        check::references(self)?;
        check::values(self)
    }
}
