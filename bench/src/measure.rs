//! Measuring one run, the same way for every tool, and reporting it from the child process to
//! the parent as one line of text.
//!
//! - Executions are counted by the programs themselves (`count_execution` on entry to the model
//!   closure), with a `std` atomic that no tool models, as in the baselines.
//! - Wall time is taken inside the child, from just before the tool's entry point until it
//!   returns; for loom and shuttle a found bug is timed when its first panic is raised (the
//!   panic hook below), so unwinding and report printing are not counted. symx returns found
//!   bugs in its report, so its time runs until `explore` returns.
//! - symx keeps working after it found a bug (it searches for a schedule with fewer
//!   preemptions to report). Its detection is timed at the entry of the first execution after
//!   the failing one, from a ring of recent entry times; the extra executions and their time
//!   are reported separately as post-detection work.
//! - loom aborts the whole process on some failures (a deadlock with `loom::sync::Arc`s alive
//!   panics again in a destructor), so the hook prints its finding at once: the parent can still
//!   read it from a child that died.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static EXECUTIONS: AtomicU64 = AtomicU64::new(0);
static START: OnceLock<Instant> = OnceLock::new();
static FIRST_FAILURE: Mutex<Option<(Bug, f64)>> = Mutex::new(None);

/// Entry times (ns since `start`) of the most recent executions, when recording is on. Large
/// enough for symx's post-detection search (at most 20,000 executions plus replays).
const RING: usize = 1 << 16;
static RECORD_ENTRIES: AtomicBool = AtomicBool::new(false);
static ENTRY_NANOS: [AtomicU64; RING] = [const { AtomicU64::new(0) }; RING];

/// Called by every program on entry: one more execution.
pub fn count_execution() {
    let n = EXECUTIONS.fetch_add(1, Ordering::Relaxed);
    if RECORD_ENTRIES.load(Ordering::Relaxed) {
        let nanos = START.get().map_or(0, |s| s.elapsed().as_nanos() as u64);
        ENTRY_NANOS[n as usize % RING].store(nanos, Ordering::Relaxed);
    }
}

/// Keep entry times from now on (costs one clock read per execution).
pub fn record_entries() {
    RECORD_ENTRIES.store(true, Ordering::Relaxed);
}

/// Seconds from `start` to the entry of execution `index` (1-based), if still in the ring.
pub fn entry_secs(index: u64) -> Option<f64> {
    let total = executions();
    if index == 0 || index > total || total - index >= RING as u64 {
        return None;
    }
    let nanos = ENTRY_NANOS[(index - 1) as usize % RING].load(Ordering::Relaxed);
    Some(nanos as f64 / 1e9)
}

pub fn executions() -> u64 {
    EXECUTIONS.load(Ordering::Relaxed)
}

/// Starts a new count (the pct-rate child runs many explorations in one process).
pub fn reset_executions() {
    EXECUTIONS.store(0, Ordering::Relaxed);
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The tool explored its whole (bounded) space.
    Exhausted,
    /// A sampling tool ran all its iterations.
    Iterations,
    /// The time limit stopped the tool before it was done.
    TimeLimit,
    /// The tool reported a bug and stopped.
    Bug,
}

impl End {
    fn as_str(self) -> &'static str {
        match self {
            End::Exhausted => "exhausted",
            End::Iterations => "iterations",
            End::TimeLimit => "time-limit",
            End::Bug => "bug",
        }
    }

    fn parse(s: &str) -> Option<End> {
        [End::Exhausted, End::Iterations, End::TimeLimit, End::Bug]
            .into_iter()
            .find(|e| e.as_str() == s)
    }
}

/// A reported bug: in which execution (1-based) and a one-line description.
#[derive(Clone, Debug, PartialEq)]
pub struct Bug {
    pub at: u64,
    pub what: String,
}

/// What one run measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Executions until the tool stopped, or until (and including) the one that found the bug.
    pub executions: u64,
    /// Seconds to the end, or to the detection of the bug.
    pub secs: f64,
    pub end: End,
    pub bug: Option<Bug>,
    /// Work after detection before the tool returned (symx's search for a simpler schedule).
    pub post: PostDetection,
}

/// Executions and seconds a tool spent after it had found the bug.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PostDetection {
    pub executions: u64,
    pub secs: f64,
}

impl Outcome {
    /// The `RESULT ...` line the child prints; `what` comes last since it may contain spaces.
    pub fn to_line(&self) -> String {
        let (at, what) = match &self.bug {
            Some(b) => (b.at.to_string(), b.what.as_str()),
            None => ("-".to_string(), ""),
        };
        format!(
            "RESULT executions={} secs={:.9} end={} post_executions={} post_secs={:.9} bug_at={} what={}",
            self.executions,
            self.secs,
            self.end.as_str(),
            self.post.executions,
            self.post.secs,
            at,
            what
        )
    }

    /// Reads the child's output: its `RESULT` line, or failing that the `FIRSTFAIL` line of a
    /// child that aborted after the panic hook reported a bug.
    pub fn from_output(stdout: &str) -> Option<Outcome> {
        let result = stdout.lines().find_map(|l| l.strip_prefix("RESULT "));
        if let Some(rest) = result {
            let fields = Fields::new(rest);
            let bug = match fields.get("bug_at")? {
                "-" => None,
                at => Some(Bug {
                    at: at.parse().ok()?,
                    what: fields.get("what").unwrap_or("").to_string(),
                }),
            };
            return Some(Outcome {
                executions: fields.get("executions")?.parse().ok()?,
                secs: fields.get("secs")?.parse().ok()?,
                end: End::parse(fields.get("end")?)?,
                bug,
                post: PostDetection {
                    executions: fields.get("post_executions")?.parse().ok()?,
                    secs: fields.get("post_secs")?.parse().ok()?,
                },
            });
        }
        let rest = stdout.lines().find_map(|l| l.strip_prefix("FIRSTFAIL "))?;
        let fields = Fields::new(rest);
        let executions: u64 = fields.get("executions")?.parse().ok()?;
        Some(Outcome {
            executions,
            secs: fields.get("secs")?.parse().ok()?,
            end: End::Bug,
            bug: Some(Bug {
                at: executions,
                what: fields.get("what").unwrap_or("").to_string(),
            }),
            post: PostDetection::default(),
        })
    }
}

/// `key=value` fields of a result line, where the last key (`what=`) takes the rest.
struct Fields<'a>(&'a str);

impl<'a> Fields<'a> {
    fn new(line: &'a str) -> Self {
        Fields(line)
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        let pat = format!("{key}=");
        let start = self
            .0
            .match_indices(&pat)
            .find(|(i, _)| *i == 0 || self.0.as_bytes()[i - 1] == b' ')?
            .0
            + pat.len();
        let rest = &self.0[start..];
        if key == "what" {
            return Some(rest);
        }
        Some(rest.split(' ').next().unwrap_or(""))
    }
}

/// Starts the clock and, for loom and shuttle, the hook that times the first panic.
/// Returns the start instant.
pub fn start(with_failure_hook: bool) -> Instant {
    let start = *START.get_or_init(Instant::now);
    if with_failure_hook {
        // Replaces the default hook, which would print every panic of the model to stderr.
        std::panic::set_hook(Box::new(|info| {
            let mut first = FIRST_FAILURE.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_some() {
                return;
            }
            let secs = START.get().map_or(0.0, |s| s.elapsed().as_secs_f64());
            let payload = info.payload();
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_string());
            let bug = Bug {
                at: executions(),
                what: one_line(&msg),
            };
            println!(
                "FIRSTFAIL executions={} secs={secs:.9} what={}",
                bug.at, bug.what
            );
            let _ = std::io::stdout().flush();
            *first = Some((bug, secs));
        }));
    }
    start
}

/// The bug the panic hook saw first, with the seconds from `start` to it.
pub fn first_failure() -> Option<(Bug, f64)> {
    FIRST_FAILURE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

/// The outcome of a loom or shuttle run, from what the hook saw and how the tool returned.
pub fn outcome_from_hook(start: Instant, end_if_no_bug: End) -> Outcome {
    match first_failure() {
        Some((bug, secs)) => Outcome {
            executions: bug.at,
            secs,
            end: End::Bug,
            bug: Some(bug),
            post: PostDetection::default(),
        },
        None => Outcome {
            executions: executions(),
            secs: start.elapsed().as_secs_f64(),
            end: end_if_no_bug,
            bug: None,
            post: PostDetection::default(),
        },
    }
}

/// A message squeezed onto one short line for the table.
pub fn one_line(msg: &str) -> String {
    let flat = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 48 {
        format!("{}…", flat.chars().take(47).collect::<String>())
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_line_round_trips() {
        let o = Outcome {
            executions: 1662,
            secs: 0.1546,
            end: End::Bug,
            bug: Some(Bug {
                at: 1662,
                what: "deadlock; threads = [a b]".to_string(),
            }),
            post: PostDetection {
                executions: 26,
                secs: 0.0003,
            },
        };
        assert_eq!(Outcome::from_output(&o.to_line()), Some(o));
    }

    #[test]
    fn an_aborted_child_is_read_from_its_first_failure() {
        let out = "FIRSTFAIL executions=71 secs=0.004400000 what=deadlock; x\n";
        let o = Outcome::from_output(out).unwrap();
        assert_eq!((o.executions, o.end), (71, End::Bug));
        assert_eq!(o.bug.unwrap().what, "deadlock; x");
    }
}
