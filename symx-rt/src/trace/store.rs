//! Writing traces to a directory (`SYMX_TRACE_DIR`): one JSON file per execution, the first
//! `limit` executions of a test and always the failing one, so a long exploration cannot fill
//! the disk.

use std::path::PathBuf;

use super::Trace;

/// Executions whose traces are kept per test unless `SYMX_TRACE_LIMIT` says otherwise.
pub const DEFAULT_TRACE_LIMIT: usize = 100;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TraceDir {
    pub dir: PathBuf,
    pub limit: usize,
}

impl TraceDir {
    /// The directory the environment asks for, if any.
    pub fn from_env() -> Option<TraceDir> {
        let dir = std::env::var_os("SYMX_TRACE_DIR").filter(|d| !d.is_empty())?;
        let limit = std::env::var("SYMX_TRACE_LIMIT")
            .ok()
            .and_then(|l| l.parse().ok())
            .unwrap_or(DEFAULT_TRACE_LIMIT);
        Some(TraceDir {
            dir: dir.into(),
            limit,
        })
    }

    /// Writes the trace of execution `n` (1-based) when it is within the bound or failed.
    /// A write error is reported once on stderr and does not stop the exploration.
    pub fn write(&self, n: u64, failed: bool, trace: &Trace) {
        if n as usize > self.limit && !failed {
            return;
        }
        let name = trace.test.as_deref().unwrap_or("model");
        let file: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let path = self.dir.join(format!("{file}-{n:06}.json"));
        let result = std::fs::create_dir_all(&self.dir)
            .and_then(|()| std::fs::write(&path, trace.to_json()));
        if let Err(e) = result {
            if n == 1 || failed {
                eprintln!("symx: cannot write the trace {}: {e}", path.display());
            }
        }
    }
}
