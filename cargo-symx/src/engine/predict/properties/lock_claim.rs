//! The mutual exclusion a user-annotated lock claims (`#[symx::acquire]` /
//! `#[symx::release]`), checked rather than assumed: can a thread's acquisition return while
//! another thread holds the lock? The runtime reports that as misuse ("mutual exclusion is
//! broken"); it is the paper's double-locking check (§5.2: `assert(A != i)` before each lock,
//! the lock as `assume(A = 0) {A := i}`), asked of the lock's own implementation, whose
//! atomics the trace records. A double unlock cannot be predicted on its own: the trace
//! pairs every release with its thread's acquisition, and the runtime reports a release by a
//! thread that does not hold the lock in the run that makes it.
//!
//! Every other query assumes the claim (`Encoding::claims`); this one drops it for its lock.

use std::fmt;

use symx::trace::format::Location;
use symx::FailureKind;
use z3::ast::Bool;

use super::{at, loc, Check, Scan};
use crate::engine::predict::confirm;
use crate::engine::predict::encode::Encoding;
use crate::engine::predict::must_hb::MustHb;
use crate::solver::ctp::{Ctp, Ev, Section};
use crate::solver::replayed::Replayed;

/// `second` (an acquisition of the user-annotated `lock`) returns while `first`'s thread
/// holds it: the lock's claimed mutual exclusion breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockClaim {
    pub first: Ev,
    pub second: Ev,
    pub lock: u32,
}

impl Check for LockClaim {
    fn candidates(scan: &Scan) -> Vec<Self> {
        let ctp = scan.ctp;
        // Must-happen-before is built only when there is an annotated lock to filter.
        if !ctp.sections.keys().any(|&l| ctp.annotated_lock(l)) {
            return Vec::new();
        }
        candidates(ctp, scan.must_hb())
            .into_iter()
            .map(|(first, second, lock)| LockClaim {
                first,
                second,
                lock,
            })
            .collect()
    }

    fn violation(&self, enc: &Encoding) -> Bool {
        still_held(enc, self.first, self.second, self.lock)
    }

    /// The runtime reported misuse at either acquisition: it stops at the one that finds the
    /// lock held, whichever the replay made second.
    fn confirm(&self, ctp: &Ctp, run: &Replayed) -> Result<(), String> {
        let failure = confirm::failure(run)?;
        let ours = [self.first, self.second]
            .into_iter()
            .any(|e| confirm::failed_at(ctp, e, failure));
        confirm::judged(confirm::is(run, FailureKind::Misuse) && ours, failure)
    }

    fn describe(&self, ctp: &Ctp, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "mutual exclusion of {} broken: {} acquires it while {} holds it",
            ctp.trace.objects[self.lock as usize].type_name,
            at(ctp, self.second),
            at(ctp, self.first)
        )
    }

    fn site(&self, ctp: &Ctp) -> Vec<Option<Location>> {
        vec![loc(ctp, self.first), loc(ctp, self.second)]
    }

    fn questioned_lock(&self) -> Option<u32> {
        Some(self.lock)
    }
}

/// Pairs `(first, second, lock)` of exclusive acquisitions of an annotated lock by different
/// threads, where `second` may come while `first`'s section is open: nothing (program
/// order, spawn, join) puts `first`'s release before `second` or `second`'s section first.
fn candidates(ctp: &Ctp, mhb: &MustHb) -> Vec<(Ev, Ev, u32)> {
    let mut out = Vec::new();
    for (&lock, sections) in ctp.sections.iter().filter(|(&l, _)| ctp.annotated_lock(l)) {
        for s in sections {
            for t in sections
                .iter()
                .filter(|t| t.thread != s.thread && !(s.shared && t.shared))
            {
                let released_first = s.release.is_some_and(|r| mhb.before(r, t.acquire));
                if !released_first && !mhb.before(t.acquire, s.acquire) {
                    out.push((s.acquire, t.acquire, lock));
                }
            }
        }
    }
    out
}

/// `PHI_PRP`: `first`'s section is open when `second` acquires.
fn still_held(enc: &Encoding, first: Ev, second: Ev, lock: u32) -> Bool {
    let section = enc.ctp.sections[&lock]
        .iter()
        .find(|s: &&Section| s.acquire == first)
        .expect("the candidate's section");
    let open = match section.release {
        Some(r) => Bool::or(&[enc.exec[r].not(), enc.hb(second, r)]),
        None => Bool::from_bool(true),
    };
    Bool::and(&[
        enc.exec[first].clone(),
        enc.exec[second].clone(),
        enc.hb(first, second),
        open,
    ])
}
