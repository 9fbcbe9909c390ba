//! How the explorers of a split optimal-DPOR exploration (`split`) hand work to each other:
//! files in a directory they share (one worker process each, started by the driver with the
//! same directory).
//!
//! - `want-I`: explorer I is idle and asks for work (created by I, never removed while the
//!   exploration runs);
//! - a busy explorer takes the request by renaming `want-I` to `claim-I` (only one rename can
//!   succeed), writes the work to `work-I` (via a temporary file and a rename, so that it
//!   appears whole), then removes `claim-I`;
//! - I takes `work-I` and removes it; it is busy again;
//! - every explorer idle (a `want-` file for each, so no claim or work is in flight and nobody
//!   can give any more): the exploration is over;
//! - `stop`: an explorer ended early (a failure, a bound): the idle ones end too.
//!
//! Every step above happens under an exclusive lock of the file `lock`, so that "every
//! explorer is idle" is read from one consistent state: counted file by file without it, a
//! claim, a gift and the giver's going idle could happen between two looks, and an explorer
//! would end with work on its way to it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often a busy explorer looks for requests: often enough that an idle explorer waits
/// little, rarely enough that looking costs nothing measurable.
const LOOK_EVERY: Duration = Duration::from_millis(2);

/// How long an idle explorer sleeps between looks for work.
const POLL: Duration = Duration::from_micros(300);

/// One explorer's end of the exchange.
pub(crate) struct Exchange {
    dir: PathBuf,
    index: u32,
    count: u32,
    last_look: Instant,
    /// The exploration ended because every explorer was idle (no `stop` to leave behind).
    over: bool,
}

impl Exchange {
    pub fn new(dir: &Path, index: u32, count: u32) -> Exchange {
        // Created by the driver; a missing one (an explorer run by hand) is made here.
        let _ = std::fs::create_dir_all(dir);
        Exchange {
            dir: dir.to_path_buf(),
            index,
            count,
            last_look: Instant::now(),
            over: false,
        }
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    fn file(&self, name: &str, of: u32) -> PathBuf {
        self.dir.join(format!("{name}-{of}"))
    }

    /// Runs `f` while holding the exchange's lock.
    fn locked<T>(&self, f: impl FnOnce() -> T) -> T {
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"))
            .and_then(|file| file.lock().map(|()| file))
            .unwrap_or_else(|e| panic!("symx: cannot lock {:?}: {e}", self.dir));
        let out = f();
        drop(lock);
        out
    }

    /// An idle explorer whose request this one has taken, if it is time to look, `has_work`
    /// says there is work to give, and one waits. The caller must then [`give`](Self::give) it
    /// work.
    pub fn claim_request(&mut self, has_work: impl FnOnce() -> bool) -> Option<u32> {
        if self.last_look.elapsed() < LOOK_EVERY {
            return None;
        }
        self.last_look = Instant::now();
        if !has_work() {
            return None;
        }
        self.locked(|| {
            (0..self.count)
                .filter(|&i| i != self.index)
                .find(|&i| std::fs::rename(self.file("want", i), self.file("claim", i)).is_ok())
        })
    }

    /// Hands `work` to explorer `to`, whose request [`claim_request`](Self::claim_request)
    /// took.
    pub fn give(&mut self, to: u32, work: &str) {
        let tmp = self.file("partial", to);
        std::fs::write(&tmp, work)
            .unwrap_or_else(|e| panic!("symx: cannot hand work to shard {to}: {e}"));
        self.locked(|| {
            std::fs::rename(&tmp, self.file("work", to))
                .unwrap_or_else(|e| panic!("symx: cannot hand work to shard {to}: {e}"));
            let _ = std::fs::remove_file(self.file("claim", to));
        });
    }

    /// Waits until another explorer hands this one work (returned) or the exploration is over
    /// (`None`).
    pub fn wait_for_work(&mut self) -> Option<String> {
        let want = self.file("want", self.index);
        self.locked(|| std::fs::write(&want, b""))
            .unwrap_or_else(|e| panic!("symx: cannot ask for work in {:?}: {e}", self.dir));
        let work = self.file("work", self.index);
        loop {
            // Some(Some(work)), Some(None): over, None: wait on.
            let looked = self.locked(|| {
                if let Ok(text) = std::fs::read_to_string(&work) {
                    let _ = std::fs::remove_file(&work);
                    return Some(Some(text));
                }
                let idle = (0..self.count)
                    .filter(|&i| self.file("want", i).exists())
                    .count();
                let over = self.dir.join("stop").exists() || idle == self.count as usize;
                over.then_some(None)
            });
            match looked {
                Some(Some(text)) => return Some(text),
                Some(None) => {
                    self.over = true;
                    return None;
                }
                None => std::thread::sleep(POLL),
            }
        }
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        // Ended early (a failure, a bound): the idle explorers must not wait for this one.
        if !self.over {
            let _ = std::fs::write(self.dir.join("stop"), b"");
        }
    }
}
