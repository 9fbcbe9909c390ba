//! How the explorers of a split optimal-DPOR exploration (`split`) hand work to each other:
//! files in a directory they share (one worker process each, started by the driver with the
//! same directory).
//!
//! - `busy-I`: explorer I has work (explorer 0 from the start, with `begun`; the others from
//!   when they take work or messages until they wait again);
//! - `want-I`: explorer I is idle and asks for work (created by I when it waits, unless work
//!   claimed for it is still on its way, see below; removed by I when it takes work or
//!   messages);
//! - a busy explorer takes the request by renaming `want-I` to `claim-I` (only one rename can
//!   succeed), writes the work to `work-I` (via a temporary file and a rename, so that it
//!   appears whole), then removes `claim-I`;
//! - I takes `work-I` and removes it; it is busy again;
//! - `msg-TO-FROM-N`: the Nth message from FROM to TO (reversals to plant at TO's nodes,
//!   `split`), numbered from 0 per pair, so that TO knows the name of the next one from each
//!   explorer and finds it with one look at the file; a waiting explorer that takes messages
//!   removes its `want-` file in the same step (it is busy until it waits again);
//! - explorer 0 has begun, no explorer is busy and nothing is on its way (no `claim-`,
//!   `work-` or `msg-` file): nobody can give any more or send anything, the exploration is
//!   over (`over`). Explorers that have not started do not count: one that starts after the
//!   end (its worker process waited for a free `--jobs` slot) finds `over` and ends at once;
//! - `stop`: an explorer ended early (a failure, a bound): the idle ones end too;
//! - `traces-I`: left by explorer I when the exploration is over, a hash of each of its
//!   executions' traces (8 bytes each), from which the driver counts the traces run twice.
//!
//! At most one of `want-I`, `claim-I` and `work-I` exists at a time, so a gift is never renamed
//! over one that I has not taken yet. The danger: I waits (`want-I`), a giver claims the
//! request, and before the work arrives messages wake I (it takes them and is busy); I then
//! waits again. Had it asked again, a giver (the same one, or a third explorer) could claim
//! the new request and rename its gift onto `work-I` before I took the first: the first
//! gift's items are shadows in their giver (`split`), explored by nobody, and their traces were
//! missing from the union (about one `dpor_shards` run in ten looking between every two
//! executions, each time with such a rename; with three explorers the two givers' temporary
//! `partial-I` files also collided). So an explorer asks only when no `claim-I` or `work-I`
//! is there; otherwise it waits for that work without asking.
//!
//! Every step above happens under an exclusive lock of the file `lock`, so that "no explorer
//! is busy" is read from one consistent state: looked at file by file without it, a claim, a
//! gift and the giver's going idle could happen between two looks, and an explorer would end
//! with work on its way to it. A look that changes nothing needs no lock: a busy explorer
//! first checks, without it, whether a request or a message is there at all (most looks find
//! none, and the lock, a directory listing and a failed rename per look were a large share of
//! a split run's system time); an idle one takes the lock only when a file it looked at says
//! that something happened, or that the exploration may be over.
//!
//! Measuring aids (environment variables, read by the runtime): `SYMX_SHARDS_STATS=FILE`
//! appends, per explorer at the end, where its time went ([`Tally`]: idle time, waits, gifts,
//! messages, processor time); `SYMX_SHARDS_TUNE` replaces the intervals below and the deal's
//! head start (`tune`), to tune them on a quiet machine.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

mod tally;

pub(crate) use tally::Tally;

/// How often a busy explorer looks for requests (microseconds): often enough that an idle
/// explorer waits little, rarely enough that looking costs nothing measurable. A look that
/// finds nothing costs two `stat`s (a message? a request?), a few microseconds, so 0.5 ms
/// costs under 1 % of a busy explorer's time, while an idle one waits half the interval per
/// gift on average (two shards of the 4 × 3 counters exchange 30–90 gifts in about 2.3 s of
/// processor time each: at 2 ms that was about 1–4 % of it, waiting for the giver to look). Tests
/// set it to 0 (look between every two executions) to split as often as possible.
static LOOK_EVERY_US: AtomicU64 = AtomicU64::new(500);

/// Sets how often busy explorers look for requests (see `LOOK_EVERY_US`).
pub(crate) fn look_every(interval: Duration) {
    LOOK_EVERY_US.store(interval.as_micros() as u64, Relaxed);
}

/// A test's seed for random delays at the exchange's steps (0: none, the default), so that a
/// rare order of gifts and messages between explorers shows in a few runs rather than in
/// hundreds (see `Exchange::shake`).
static JITTER: AtomicU64 = AtomicU64::new(0);

/// Sets the seed of the random delays (see `JITTER`); each exchange made after it draws its
/// own sequence from it.
pub(crate) fn jitter(seed: u64) {
    JITTER.store(seed, Relaxed);
}

/// How long an idle explorer sleeps between looks for work: at first briefly (work usually
/// comes within a busy explorer's look interval), then longer, so that a long wait costs
/// little processor time (an idle explorer's look is heavier: it may list the directory).
static POLL_FIRST_US: AtomicU64 = AtomicU64::new(100);
static POLL_MAX_US: AtomicU64 = AtomicU64::new(1_000);

/// A measuring aid: `SYMX_SHARDS_TUNE="LOOK_US POLL_FIRST_US POLL_MAX_US [HEAD_START_PERCENT]"`
/// replaces the look interval, the idle poll's first and longest sleep, and the giver's head
/// start in the deal (`split::HEAD_START`; read once, by the first exchange).
fn tune() {
    static READ: std::sync::Once = std::sync::Once::new();
    READ.call_once(|| {
        let Ok(spec) = std::env::var("SYMX_SHARDS_TUNE") else {
            return;
        };
        let us: Vec<u64> = spec
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        if let [look, first, max, ..] = us[..] {
            LOOK_EVERY_US.store(look, Relaxed);
            POLL_FIRST_US.store(first, Relaxed);
            POLL_MAX_US.store(max, Relaxed);
        }
        if let Some(&percent) = us.get(3) {
            super::split::head_start(percent);
        }
    });
}

/// One explorer's end of the exchange.
pub(crate) struct Exchange {
    dir: PathBuf,
    index: u32,
    count: u32,
    last_look: Instant,
    /// The exploration ended because every explorer was idle (no `stop` to leave behind).
    over: bool,
    /// Messages sent to each explorer so far (numbers the next one).
    sent: Vec<u64>,
    /// Messages taken from each explorer so far (the number of the next one).
    taken: Vec<u64>,
    /// The state of the random delays' generator (0: no delays, see `JITTER`).
    shaker: u64,
    /// Where this explorer's time went, for `SYMX_SHARDS_STATS` (see [`Tally`]).
    pub tally: Tally,
}

impl Exchange {
    pub fn new(dir: &Path, index: u32, count: u32) -> Exchange {
        // Created by the driver; a missing one (an explorer run by hand) is made here.
        let _ = std::fs::create_dir_all(dir);
        tune();
        let exchange = Exchange {
            dir: dir.to_path_buf(),
            index,
            count,
            last_look: Instant::now(),
            over: false,
            sent: vec![0; count as usize],
            taken: vec![0; count as usize],
            shaker: shaker_seed(index),
            tally: Tally {
                started: Some(Instant::now()),
                ..Tally::default()
            },
        };
        if index == 0 {
            // Explorer 0 starts the exploration: busy until it first waits.
            exchange.locked(|| {
                std::fs::write(exchange.file("busy", 0), b"")
                    .and_then(|()| std::fs::write(exchange.dir.join("begun"), b""))
                    .unwrap_or_else(|e| panic!("symx: cannot start in {dir:?}: {e}"))
            });
        }
        exchange
    }

    pub fn index(&self) -> u32 {
        self.index
    }

    fn file(&self, name: &str, of: u32) -> PathBuf {
        self.dir.join(format!("{name}-{of}"))
    }

    /// The exchange's lock, held until the file returned is dropped.
    fn lock(&self) -> std::fs::File {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("lock"))
            .and_then(|file| file.lock().map(|()| file))
            .unwrap_or_else(|e| panic!("symx: cannot lock {:?}: {e}", self.dir))
    }

    /// Runs `f` while holding the exchange's lock.
    fn locked<T>(&self, f: impl FnOnce() -> T) -> T {
        let lock = self.lock();
        let out = f();
        drop(lock);
        out
    }

    /// Under a test's `JITTER`: sometimes sleeps a little, sometimes yields, at random, and
    /// says whether a random choice came out true (half the time); without it, nothing.
    fn shake(&mut self) -> bool {
        if self.shaker == 0 {
            return false;
        }
        // xorshift64
        let mut x = self.shaker;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.shaker = x;
        match x % 8 {
            0 | 1 => std::thread::sleep(Duration::from_micros(x >> 8 & 511)),
            2 | 3 => std::thread::yield_now(),
            _ => {}
        }
        x >> 20 & 1 == 1
    }

    /// Whether it is time for a busy explorer to look at the exchange (requests, messages).
    pub fn due(&mut self) -> bool {
        if self.shaker != 0 {
            // Looks at random executions, so that gifts and messages fall anywhere.
            return self.shake();
        }
        if self.last_look.elapsed() < Duration::from_micros(LOOK_EVERY_US.load(Relaxed)) {
            return false;
        }
        self.last_look = Instant::now();
        true
    }

    /// Counts, when measuring (`SYMX_SHARDS_STATS`), a look that had fewer than two items to
    /// give while an explorer asked.
    pub fn refuse(&mut self) {
        if tally::wanted()
            && (0..self.count).any(|i| i != self.index && self.file("want", i).exists())
        {
            self.tally.refused += 1;
        }
    }

    /// An idle explorer whose request this one has taken, if one waits. The caller must then
    /// [`give`](Self::give) it work.
    pub fn claim_request(&mut self) -> Option<u32> {
        let others = (0..self.count).filter(|&i| i != self.index);
        let asking: Vec<u32> = others.filter(|&i| self.file("want", i).exists()).collect();
        if asking.is_empty() {
            return None;
        }
        self.shake();
        self.locked(|| {
            (asking.into_iter())
                .find(|&i| std::fs::rename(self.file("want", i), self.file("claim", i)).is_ok())
        })
    }

    /// Hands `work` to explorer `to`, whose request [`claim_request`](Self::claim_request)
    /// took.
    pub fn give(&mut self, to: u32, work: &str) {
        let tmp = self.file("partial", to);
        std::fs::write(&tmp, work)
            .unwrap_or_else(|e| panic!("symx: cannot hand work to shard {to}: {e}"));
        self.shake();
        self.locked(|| {
            debug_assert!(
                !self.file("work", to).exists(),
                "a gift to shard {to} over one it has not taken (see the module doc)"
            );
            std::fs::rename(&tmp, self.file("work", to))
                .unwrap_or_else(|e| panic!("symx: cannot hand work to shard {to}: {e}"));
            let _ = std::fs::remove_file(self.file("claim", to));
        });
    }

    /// Sends `text` to explorer `to` (it reads it with [`receive`](Self::receive)).
    pub fn send(&mut self, to: u32, text: &str) {
        let tmp = self.file("partial-msg", self.index);
        let name = message(to, self.index, self.sent[to as usize]);
        self.sent[to as usize] += 1;
        self.tally.sent += 1;
        std::fs::write(&tmp, text)
            .unwrap_or_else(|e| panic!("symx: cannot send to shard {to}: {e}"));
        self.shake();
        self.locked(|| std::fs::rename(&tmp, self.dir.join(name)))
            .unwrap_or_else(|e| panic!("symx: cannot send to shard {to}: {e}"));
    }

    /// The messages sent to this explorer since it last looked (taken out of the exchange).
    pub fn receive(&mut self) -> Vec<String> {
        if !self.has_messages() {
            return Vec::new();
        }
        self.shake();
        let lock = self.lock();
        let messages = self.take_messages();
        drop(lock);
        self.tally.received += messages.len() as u64;
        messages
    }

    /// The path of the next message from explorer `from` to this one.
    fn next_message(&self, from: u32) -> PathBuf {
        let n = self.taken[from as usize];
        self.dir.join(message(self.index, from, n))
    }

    /// Whether a message to this explorer is there (a look without the lock: messages are only
    /// ever added by others, and taken by this explorer).
    fn has_messages(&self) -> bool {
        (0..self.count).any(|from| from != self.index && self.next_message(from).exists())
    }

    /// Takes this explorer's messages, in the order each explorer sent them; the caller holds
    /// the lock.
    fn take_messages(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for from in (0..self.count).filter(|&f| f != self.index) {
            loop {
                let path = self.next_message(from);
                let Ok(text) = std::fs::read_to_string(&path) else {
                    break;
                };
                let _ = std::fs::remove_file(&path);
                self.taken[from as usize] += 1;
                out.push(text);
            }
        }
        out
    }

    /// Explorer 0 has begun, no explorer is busy, and nothing is on its way to any: no claimed
    /// request, work or message (one that woke on messages may ask again before work claimed
    /// for it arrives). The caller holds the lock.
    fn nobody_busy(&self) -> bool {
        if !self.dir.join("begun").exists() {
            return false;
        }
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return false;
        };
        !entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .any(|name| {
                ["busy-", "claim-", "work-"]
                    .iter()
                    .any(|p| name.starts_with(p))
                    || message_to(&name).is_some()
            })
    }

    /// Waits until another explorer hands this one work or sends it messages, or the
    /// exploration is over. A waiting explorer is idle: it takes part in the test "nobody busy
    /// and nothing on its way", which ends the exploration.
    pub fn wait(&mut self) -> Wake {
        let start = Instant::now();
        let wake = self.wait_untimed();
        let idle = start.elapsed();
        let tally = &mut self.tally;
        tally.idle += idle;
        tally.waits += 1;
        match &wake {
            Wake::Work(_) => {
                tally.gifts_taken += 1;
                tally.first_work.get_or_insert(tally.idle);
            }
            Wake::Messages(m) => tally.received += m.len() as u64,
            Wake::Over => {}
        }
        wake
    }

    fn wait_untimed(&mut self) -> Wake {
        self.ask();
        let (want, busy) = (self.file("want", self.index), self.file("busy", self.index));
        let mut poll = Duration::from_micros(POLL_FIRST_US.load(Relaxed));
        let poll_max = Duration::from_micros(POLL_MAX_US.load(Relaxed));
        loop {
            self.shake();
            if !self.anything_new() {
                let claimed = tally::wanted() && self.file("claim", self.index).exists();
                let before = Instant::now();
                std::thread::sleep(poll);
                if claimed {
                    self.tally.coming += before.elapsed();
                }
                poll = (poll * 2).min(poll_max);
                continue;
            }
            let lock = self.lock();
            let looked = self.look(&want, &busy);
            drop(lock);
            match looked {
                Some(Wake::Over) => {
                    self.over = true;
                    return Wake::Over;
                }
                Some(wake) => return wake,
                None => std::thread::sleep(poll),
            }
        }
    }

    /// Goes idle (`busy-I` goes) and asks for work (`want-I`), unless work claimed for this
    /// explorer is still on its way (`claim-I` or `work-I`): see the module doc.
    fn ask(&self) {
        let (want, busy) = (self.file("want", self.index), self.file("busy", self.index));
        self.locked(|| {
            let _ = std::fs::remove_file(&busy);
            let coming = ["claim", "work"]
                .iter()
                .any(|f| self.file(f, self.index).exists());
            match coming {
                true => Ok(()),
                false => std::fs::write(&want, b""),
            }
        })
        .unwrap_or_else(|e| panic!("symx: cannot ask for work in {:?}: {e}", self.dir));
    }

    /// Whether a waiting explorer should look under the lock: work or a message is there, or
    /// the exploration may be over. Looked at without the lock, so only a hint; but a state in
    /// which the exploration is over never changes, so this sees it sooner or later.
    fn anything_new(&self) -> bool {
        self.file("work", self.index).exists()
            || self.has_messages()
            || ["stop", "over"].iter().any(|f| self.dir.join(f).exists())
            || self.nobody_busy()
    }

    /// One look of a waiting explorer, under the lock: the work or messages it takes (busy
    /// again with either: the request goes, since a giver may have taken it already and a
    /// request made again since must not outlive this look), `Over`, or `None`: still idle.
    fn look(&mut self, want: &Path, busy: &Path) -> Option<Wake> {
        let work = self.file("work", self.index);
        let wake = match std::fs::read_to_string(&work) {
            Ok(text) => {
                let _ = std::fs::remove_file(&work);
                Wake::Work(text)
            }
            Err(_) => {
                let messages = self.take_messages();
                if messages.is_empty() {
                    let over = ["stop", "over"].iter().any(|f| self.dir.join(f).exists())
                        || self.nobody_busy();
                    if over {
                        let _ = std::fs::write(self.dir.join("over"), b"");
                    }
                    return over.then_some(Wake::Over);
                }
                Wake::Messages(messages)
            }
        };
        let _ = std::fs::remove_file(want);
        std::fs::write(busy, b"")
            .unwrap_or_else(|e| panic!("symx: cannot take work in {:?}: {e}", self.dir));
        Some(wake)
    }
}

impl Exchange {
    /// Appends this explorer's [`Tally`] (and its `executions`) to the `SYMX_SHARDS_STATS` file,
    /// if that is set.
    pub fn leave_tally(&self, executions: u64) {
        self.tally.leave(self.index, self.count, executions);
    }

    /// Leaves the hashes of the traces this explorer ran in `traces-I` (8 bytes each, little
    /// endian), for the driver to count the traces two explorers ran (see `Peers::traces`).
    pub fn leave_traces(&self, hashes: &[u64]) {
        let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_le_bytes()).collect();
        let tmp = self.file("partial-traces", self.index);
        // Only a count in the report depends on it: a file that cannot be written is left out.
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, self.file("traces", self.index));
        }
    }
}

/// The first state of an exchange's random delays: 0 (none) unless a test set `JITTER`, else
/// drawn from it, the explorer's index and a count of the exchanges made, so that explorers and
/// explorations differ.
fn shaker_seed(index: u32) -> u64 {
    static MADE: AtomicU64 = AtomicU64::new(0);
    let seed = JITTER.load(Relaxed);
    if seed == 0 {
        return 0;
    }
    let n = MADE.fetch_add(1, Relaxed);
    let mixed = (seed ^ u64::from(index) << 32 ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_mul(0xbf58_476d_1ce4_e5b9);
    mixed.max(1)
}

/// What woke a waiting explorer.
pub(crate) enum Wake {
    /// Work handed to it.
    Work(String),
    /// Messages sent to it.
    Messages(Vec<String>),
    /// The exploration is over.
    Over,
}

/// The name of the `n`th message from explorer `from` to explorer `to`.
fn message(to: u32, from: u32, n: u64) -> String {
    format!("msg-{to}-{from}-{n}")
}

/// The explorer a message file `msg-TO-FROM-N` is for.
fn message_to(name: &str) -> Option<u32> {
    let mut parts = name.strip_prefix("msg-")?.split('-');
    let to = parts.next()?.parse().ok()?;
    (parts.count() == 2).then_some(to)
}

impl Drop for Exchange {
    fn drop(&mut self) {
        // Ended early (a failure, a bound): the idle explorers must not wait for this one.
        if !self.over {
            let _ = std::fs::write(self.dir.join("stop"), b"");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Exchange {
        /// One look of an explorer that waits (after [`ask`](Self::ask)), as `wait` makes it.
        fn look_once(&mut self) -> Option<Wake> {
            let (want, busy) = (self.file("want", self.index), self.file("busy", self.index));
            let lock = self.lock();
            let looked = self.look(&want, &busy);
            drop(lock);
            looked
        }
    }

    /// Messages wake an explorer whose request a giver has claimed, before the work arrives;
    /// it waits again. No second request may be claimed until it has taken that work: a
    /// second gift would be renamed over the first (whose traces nobody then ran).
    #[test]
    fn no_second_gift_is_claimed_while_one_is_on_its_way() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut giver = Exchange::new(dir.path(), 0, 2);
        let mut idle = Exchange::new(dir.path(), 1, 2);
        idle.ask();
        assert_eq!(giver.claim_request(), Some(1));
        giver.send(1, "plants");
        assert!(matches!(idle.look_once(), Some(Wake::Messages(m)) if m == ["plants"]));
        idle.ask();
        assert_eq!(
            giver.claim_request(),
            None,
            "the work claimed is on its way"
        );
        giver.give(1, "first");
        assert_eq!(
            giver.claim_request(),
            None,
            "the work given is not taken yet"
        );
        assert!(matches!(idle.look_once(), Some(Wake::Work(w)) if w == "first"));
        // Taken: it is busy, and asks again when it next waits.
        idle.ask();
        assert_eq!(giver.claim_request(), Some(1));
    }
}
