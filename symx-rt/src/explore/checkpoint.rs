//! Checkpoints: an exploration stopped before it finished (its time budget or execution bound
//! ran out, or Ctrl-C) leaves its state in a file, and a later exploration of the same test
//! asked to resume continues from it, running exactly the executions not run yet.
//!
//! Every strategy is stateless in the textbook sense between two executions except for what
//! its [`Chooser::save`] returns (the DPOR's stack of nodes with their sleep sets and wakeup
//! trees and its object names, the DFS's stack, a generator's state), so saving that state
//! after an execution ended and restoring it before the next one continues the very same
//! sequence of executions.
//!
//! A state file is only meaningful for the program and settings that wrote it. It carries a
//! format number, symx's version, the test's name, the settings that shape the exploration,
//! and the replay token of the last execution it ran; resuming checks all of them, replaying
//! that execution, and refuses with an error saying what differs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::builder::Builder;
use crate::rt::chooser::Chooser;
use crate::schedule::Schedule;

/// The state file's format; a file of another format is refused. Raise it whenever what a
/// strategy saves changes shape or meaning, so that an older file is refused by its number
/// rather than misread: 2 since a barrier arrival's event carries how many arrivals its
/// generation still needed (`Outcome::Arrived(n)`, `Access::CountDown(o, n)`); 3 since the
/// optimal DPOR's saved events carry their access to the fairness object (`Ev::fair`: yields,
/// the steps that let a yielded thread go, the steps that changed something); 4 since a
/// channel disconnect's event says which side it drops before it runs (`Access::SendersGone`
/// or `Access::ReceiverGone` for a pending disconnect and for one moved earlier, where format
/// 3 saved `Access::Other`), and the step before the last sender's drop carries
/// `Access::CountedSenders`; 5 since a `try_lock` that a reversal moves carries
/// `Access::Touches` in the optimal DPOR's wakeup sequences (its code may change anything
/// there; a format-4 file's sequences hold moved `try_lock`s without it); 6 since every
/// moved operation whose result may differ carries it (loads, read-modify-writes, locks,
/// receives...), and a wakeup tree's leaf no longer covers a longer sequence (a format-5
/// file's trees hold neither); 7 since the accesses to a condvar, a park token and a barrier
/// are `Access::Signal` and `Access::ObserveSignal`, which `Access::Touches` does not conflict
/// with (a format-6 file saved them as `Access::Other` and `Access::Observe`); 8 since an
/// event's object names are keyed by its thread's count of events at its source location too
/// (`events::EventKey::nth`, saved in each event as `Ev::nth`; a format-7 file's names are
/// keyed by the index and location alone). Not raised for `Access::ReleasedNoGlue` (session
/// 24): a format-8 file holds such a drop as `Access::Released`, which is dependent with every
/// drop compared across executions, as it was when the file was written.
pub(crate) const FORMAT: u32 = 8;

/// What a state file holds.
#[derive(Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    pub format: u32,
    pub symx: String,
    pub test: Option<String>,
    /// The settings that shape the tree of executions ([`shape`]).
    pub settings: String,
    /// Executions run before the checkpoint: the exploration's and the default's shallow
    /// passes', and how many of them were discarded.
    pub executions: u64,
    pub shallow: u64,
    pub discarded: u64,
    /// The replay token of the last execution run: the program must still run it alike.
    pub last: String,
    /// The strategy's state ([`Chooser::save`]).
    pub state: crate::json::Json,
}

/// Why a state file cannot be resumed from.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ResumeError {
    pub(crate) path: PathBuf,
    pub(crate) why: String,
}

impl std::fmt::Display for ResumeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot resume from the checkpoint {}: {}; delete it (or run without --resume) to \
             explore from the start",
            self.path.display(),
            self.why
        )
    }
}

impl std::error::Error for ResumeError {}

/// The settings that decide which executions an exploration runs, in the order it runs them
/// (not its budgets: a resumed exploration may get another). Whether the default's shallow
/// passes run (not under an execution bound) is not among them: a DPOR's state resumes with
/// or without passes beside it (see `shallow`), the other way round is refused by the DPOR.
pub(crate) fn shape(b: &Builder) -> String {
    format!(
        "strategy {:?}, preemption bound {:?}, max steps {}, spurious wake-ups {}, bounded \
         reduction {}, shard {:?}, inputs {:?}, input seed {}",
        b.strategy,
        b.preemption_bound,
        b.max_steps,
        b.spurious_wakeups,
        super::by_bpor(b),
        b.shard.map(|s| (s.index, s.count)),
        b.inputs.as_deref().map(|i| i.iter().collect::<Vec<_>>()),
        b.input_seed,
    )
}

/// Reads the checkpoint at `path` for the exploration `b` describes: `Ok(None)` when there is
/// none, an error when it belongs to another format, version, test or settings. The program
/// itself is checked by [`check_last`] once the caller can run it.
pub(crate) fn load(path: &Path, b: &Builder) -> Result<Option<Checkpoint>, ResumeError> {
    let refuse = |why: String| ResumeError {
        path: path.to_path_buf(),
        why,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refuse(format!("it cannot be read ({e})"))),
    };
    let c: Checkpoint = crate::json::from_str(&text)
        .map_err(|e| refuse(format!("it is not a symx checkpoint ({e})")))?;
    if c.format != FORMAT {
        return Err(refuse(format!(
            "it has format {}, this symx reads format {FORMAT}",
            c.format
        )));
    }
    if c.symx != env!("CARGO_PKG_VERSION") {
        return Err(refuse(format!(
            "it was written by symx {}, this is symx {}",
            c.symx,
            env!("CARGO_PKG_VERSION")
        )));
    }
    if c.test != b.test_name {
        return Err(refuse(format!(
            "it belongs to test {:?}, not {:?}",
            c.test, b.test_name
        )));
    }
    let now = shape(b);
    if c.settings != now {
        return Err(refuse(format!(
            "it was explored with other settings ({}; now {now})",
            c.settings
        )));
    }
    Ok(Some(c))
}

/// Checks that the program still runs the checkpoint's last execution as it ran then (the
/// same choices, steps and fingerprint), by replaying it; the strategy's saved state is only
/// valid for that program.
pub(crate) fn check_last(
    path: &Path,
    b: &Builder,
    c: &Checkpoint,
    body: &dyn Fn(),
) -> Result<(), ResumeError> {
    let refuse = |why: String| ResumeError {
        path: path.to_path_buf(),
        why,
    };
    let schedule: Schedule = c
        .last
        .parse()
        .map_err(|e| refuse(format!("its last execution's token is unreadable ({e})")))?;
    let quiet = b.clone().record_traces(false).trace_dir(None, 0);
    super::replay(&quiet, &schedule, body)
        .map(|_| ())
        .map_err(|e| refuse(format!("the program changed since it was written ({e})")))
}

/// Writes `c` to `path`, through a temporary file so that an interrupted write leaves the old
/// checkpoint (or none), never half of one.
pub(crate) fn write(path: &Path, c: &Checkpoint) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    let text = crate::json::to_string(c).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// Saves `strategy`'s state as a checkpoint with the counts and the last execution given.
pub(crate) fn save(
    b: &Builder,
    strategy: &dyn Chooser,
    counts: (u64, u64, u64),
    last: &Schedule,
) -> Option<Checkpoint> {
    let (executions, shallow, discarded) = counts;
    Some(Checkpoint {
        format: FORMAT,
        symx: env!("CARGO_PKG_VERSION").to_string(),
        test: b.test_name.clone(),
        settings: shape(b),
        executions,
        shallow,
        discarded,
        last: last.to_string(),
        state: strategy.save()?,
    })
}

/// A strategy's state as a checkpoint stores it.
pub(crate) fn state_of<T: Serialize>(strategy: &T) -> Option<crate::json::Json> {
    crate::json::to_value(strategy).ok()
}

/// The strategy a checkpoint stored.
pub(crate) fn from_state<T: serde::de::DeserializeOwned>(
    state: crate::json::Json,
) -> Result<T, String> {
    crate::json::from_value(state).map_err(|e| e.to_string())
}

/// Set when the process was asked to stop (Ctrl-C) while an exploration that checkpoints was
/// running: every such exploration stops after its current execution and saves its state.
/// Cleared when the last of them ends.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the running explorations were asked to stop.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Asks the running explorations that checkpoint to stop after their current execution, as
/// Ctrl-C does.
pub(crate) fn interrupt() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// How many explorations that checkpoint are running, and the SIGINT handler they replaced.
static CATCHING: std::sync::Mutex<(usize, usize)> = std::sync::Mutex::new((0, 0));

/// While it lives, Ctrl-C (SIGINT) stops the explorations that checkpoint after their current
/// execution instead of killing the process; the last one to end puts the previous handler
/// back.
pub(crate) struct CatchCtrlC(());

impl CatchCtrlC {
    pub fn new() -> CatchCtrlC {
        let mut catching = CATCHING.lock().unwrap_or_else(|e| e.into_inner());
        if catching.0 == 0 {
            catching.1 = set_sigint(on_sigint as extern "C" fn(i32) as usize);
        }
        catching.0 += 1;
        CatchCtrlC(())
    }
}

impl Drop for CatchCtrlC {
    fn drop(&mut self) {
        let mut catching = CATCHING.lock().unwrap_or_else(|e| e.into_inner());
        catching.0 -= 1;
        if catching.0 == 0 {
            set_sigint(catching.1);
            INTERRUPTED.store(false, Ordering::SeqCst);
        }
    }
}

extern "C" fn on_sigint(_: i32) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs `handler` for SIGINT and returns the one it replaces.
#[cfg(target_os = "linux")]
fn set_sigint(handler: usize) -> usize {
    // SAFETY: `handler` is the previous handler or `on_sigint`, which only stores to an atomic.
    unsafe { libc::signal(libc::SIGINT, handler as libc::sighandler_t) as usize }
}

#[cfg(not(target_os = "linux"))]
fn set_sigint(handler: usize) -> usize {
    handler // elsewhere Ctrl-C ends the process; `interrupt` still stops an exploration
}
