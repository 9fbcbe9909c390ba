//! loom's `model` and `model::Builder`: the public fields and the `LOOM_*` environment variables
//! loom reads, mapped onto [`crate::Builder`]. A setting with no symx equivalent is accepted and
//! named once in the output, so that a CI script's bounds never silently mean something else.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// loom's defaults, which say "not set" for the fields that are not `Option`s.
const DEFAULT_MAX_THREADS: usize = 5;
const DEFAULT_MAX_BRANCHES: usize = 1_000;
const DEFAULT_CHECKPOINT_INTERVAL: usize = 20_000;

/// loom's model configuration. Each field is mapped onto symx's [`crate::Builder`] by
/// [`Builder::check`]:
///
/// | field (variable) | in symx |
/// |---|---|
/// | `preemption_bound` (`LOOM_MAX_PREEMPTIONS`) | `preemption_bound` |
/// | `max_permutations` (`LOOM_MAX_PERMUTATIONS`) | `max_executions` |
/// | `max_duration` (`LOOM_MAX_DURATION`, seconds) | `time_budget` |
/// | `max_branches` (`LOOM_MAX_BRANCHES`) | `max_steps`, when not loom's default 1 000 (a symx step is one visible operation, close to a loom branch; symx's own default is 100 000) |
/// | `location` (`LOOM_LOCATION`) | always on: every symx step carries its location |
/// | `max_threads` | none: symx has no thread limit |
/// | `checkpoint_file`, `checkpoint_interval` (`LOOM_CHECKPOINT_FILE`, `LOOM_CHECKPOINT_INTERVAL`) | none: a failure's replay token reproduces it instead |
/// | `expect_explicit_explore` | none: symx explores every execution (see [`crate::loom::explore()`]) |
/// | `log` (`LOOM_LOG`) | none: a failure prints its interleaving |
///
/// The fields without an equivalent are accepted, and named once in the output when set.
#[derive(Debug)]
#[non_exhaustive]
pub struct Builder {
    /// Most threads per execution (loom's limit; symx has none).
    pub max_threads: usize,
    /// Most branches per execution (symx: steps per execution).
    pub max_branches: usize,
    /// Most executions to explore.
    pub max_permutations: Option<usize>,
    /// Most time to spend exploring.
    pub max_duration: Option<Duration>,
    /// Most preemptions per execution.
    pub preemption_bound: Option<usize>,
    /// loom's checkpoint file (no symx equivalent).
    pub checkpoint_file: Option<PathBuf>,
    /// How often loom writes its checkpoint (no symx equivalent).
    pub checkpoint_interval: usize,
    /// loom waits for `explore()` before exploring (symx explores everything).
    pub expect_explicit_explore: bool,
    /// loom records locations only when asked (symx always does).
    pub location: bool,
    /// loom's execution log (no symx equivalent).
    pub log: bool,
}

/// Reads loom's environment variable `name`, parsed; panics on a value that does not parse, as
/// loom does.
fn var<T: std::str::FromStr>(name: &str) -> Option<T> {
    let value = std::env::var(name).ok()?;
    Some(
        value
            .parse()
            .unwrap_or_else(|_| panic!("invalid value for `{name}`: {value:?}")),
    )
}

impl Builder {
    /// loom's defaults, overridden by loom's environment variables as loom reads them.
    pub fn new() -> Builder {
        Builder {
            max_threads: DEFAULT_MAX_THREADS,
            max_branches: var("LOOM_MAX_BRANCHES").unwrap_or(DEFAULT_MAX_BRANCHES),
            max_permutations: var("LOOM_MAX_PERMUTATIONS"),
            max_duration: var("LOOM_MAX_DURATION").map(Duration::from_secs),
            preemption_bound: var("LOOM_MAX_PREEMPTIONS"),
            checkpoint_file: var("LOOM_CHECKPOINT_FILE"),
            checkpoint_interval: var("LOOM_CHECKPOINT_INTERVAL")
                .unwrap_or(DEFAULT_CHECKPOINT_INTERVAL),
            expect_explicit_explore: false,
            location: std::env::var("LOOM_LOCATION").is_ok(),
            log: std::env::var("LOOM_LOG").is_ok(),
        }
    }

    /// Sets the checkpoint file (accepted; symx has no checkpoint file).
    pub fn checkpoint_file(&mut self, file: &str) -> &mut Self {
        self.checkpoint_file = Some(file.into());
        self
    }

    /// The symx settings these fields map onto, naming once each field that has none.
    pub fn to_symx(&self) -> crate::Builder {
        self.name_unmapped();
        let mut b = crate::Builder::new()
            .preemption_bound(self.preemption_bound.map(|n| n as u32))
            .max_executions(self.max_permutations.map(|n| n as u64))
            .time_budget(self.max_duration);
        if self.max_branches != DEFAULT_MAX_BRANCHES {
            b = b.max_steps(self.max_branches as u64);
        }
        b
    }

    fn name_unmapped(&self) {
        let unmapped = [
            (
                self.max_threads != DEFAULT_MAX_THREADS,
                0,
                "max_threads",
                "symx has no thread limit",
            ),
            (
                self.checkpoint_file.is_some(),
                1,
                "checkpoint_file (LOOM_CHECKPOINT_FILE)",
                "a failure's replay token reproduces it instead",
            ),
            (
                self.checkpoint_interval != DEFAULT_CHECKPOINT_INTERVAL,
                2,
                "checkpoint_interval (LOOM_CHECKPOINT_INTERVAL)",
                "symx writes no checkpoint",
            ),
            (
                self.expect_explicit_explore,
                3,
                "expect_explicit_explore",
                "symx explores every execution",
            ),
            (
                self.log,
                4,
                "log (LOOM_LOG)",
                "a failure prints its interleaving",
            ),
        ];
        for (set, bit, name, why) in unmapped {
            if set {
                name_once(
                    bit,
                    &format!("loom's `{name}` has no symx equivalent and is ignored: {why}"),
                );
            }
        }
    }

    /// Explores every interleaving of `f` within the bounds, and panics with the report if a
    /// bug is found (a leak included: an `Arc`, a `Track` or an `alloc` block still alive).
    #[track_caller]
    pub fn check<F>(&self, f: F)
    where
        F: Fn() + Sync + Send + 'static,
    {
        self.to_symx().check(f);
    }
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

/// Says `what` on stderr the first time the setting numbered `bit` is seen in this process.
pub(crate) fn name_once(bit: u32, what: &str) {
    static SAID: AtomicU32 = AtomicU32::new(0);
    if SAID.fetch_or(1 << bit, Ordering::Relaxed) & (1 << bit) == 0 {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "symx: {what}");
    }
}

/// Explores every interleaving of `f` with [`Builder::new`]'s settings (loom's defaults and
/// `LOOM_*` variables), and panics with the report if a bug is found.
#[track_caller]
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    Builder::new().check(f)
}
