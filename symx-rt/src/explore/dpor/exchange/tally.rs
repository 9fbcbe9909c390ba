//! Where one explorer of a split exploration spent its time ([`Tally`]), and the measuring
//! aid that writes it out: `SYMX_SHARDS_STATS=FILE` appends one line per explorer when the
//! exploration is over (the split is fast only if no explorer waits long for work).

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where one explorer's time went: written, one line per explorer, to the file named by the
/// environment variable `SYMX_SHARDS_STATS` when the exploration is over (a measuring aid: the
/// split is fast only if no explorer waits long for work).
#[derive(Default)]
pub(crate) struct Tally {
    /// Wall time from the start to the end of the exploration, and in `wait` (idle).
    pub(super) started: Option<Instant>,
    pub(super) idle: Duration,
    /// Of the idle time, how long a gift claimed for this explorer was on its way.
    pub(super) coming: Duration,
    /// Idle time before the first work (an explorer but 0 starts idle).
    pub(super) first_work: Option<Duration>,
    pub(super) waits: u64,
    pub(crate) gifts_given: u64,
    pub(super) gifts_taken: u64,
    pub(super) sent: u64,
    pub(super) received: u64,
    /// Looks of this busy explorer that found a request but fewer than two items to give.
    pub(crate) refused: u64,
}

impl Tally {
    /// Appends this tally of explorer `index` of `count` (and its `executions`) to the
    /// `SYMX_SHARDS_STATS` file, if that is set.
    pub fn leave(&self, index: u32, count: u32, executions: u64) {
        let Some(file) = STATS.get_or_init(stats_file) else {
            return;
        };
        let wall = self.started.map_or(Duration::ZERO, |s| s.elapsed());
        let cpu = thread_cpu().map_or(-1.0, |c| c.as_secs_f64());
        let line = format!(
            "shard {} of {}: wall {:.3} s, cpu {cpu:.3} s, idle {:.3} s ({} waits, first work \
             after {:.3} s, gifts on their way {:.3} s), executions {executions}, gifts given {} \
             taken {}, messages sent {} received {}, requests refused {}\n",
            index,
            count,
            wall.as_secs_f64(),
            self.idle.as_secs_f64(),
            self.waits,
            self.first_work.unwrap_or_default().as_secs_f64(),
            self.coming.as_secs_f64(),
            self.gifts_given,
            self.gifts_taken,
            self.sent,
            self.received,
            self.refused,
        );
        use std::io::Write;
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        // Only a measuring aid: a file that cannot be written is left out.
        drop(appended);
    }
}

/// The file named by `SYMX_SHARDS_STATS`, if set (see [`Tally`]).
static STATS: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

fn stats_file() -> Option<PathBuf> {
    std::env::var_os("SYMX_SHARDS_STATS")
        .filter(|f| !f.is_empty())
        .map(PathBuf::from)
}

/// Whether a tally is wanted (`SYMX_SHARDS_STATS` is set): only then is the time a gift was
/// on its way measured.
pub(super) fn wanted() -> bool {
    STATS.get_or_init(stats_file).is_some()
}

/// This thread's processor time, where the system tells it.
fn thread_cpu() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec to write to.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
    }
    #[cfg(not(target_os = "linux"))]
    None
}
