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

use z3::ast::Bool;

use super::encode::Encoding;
use super::must_hb::MustHb;
use crate::solver::ctp::{Ctp, Ev, Section};

/// Pairs `(first, second, lock)` of exclusive acquisitions of an annotated lock by different
/// threads, where `second` may come while `first`'s section is open: nothing (program
/// order, spawn, join) puts `first`'s release before `second` or `second`'s section first.
pub fn candidates(ctp: &Ctp, mhb: &MustHb) -> Vec<(Ev, Ev, u32)> {
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
pub fn formula(enc: &Encoding, first: Ev, second: Ev, lock: u32) -> Bool {
    let section = enc.ctp.sections[&lock]
        .iter()
        .find(|s: &&Section| s.acquire == first)
        .expect("the candidate's section");
    let still_held = match section.release {
        Some(r) => Bool::or(&[enc.exec[r].not(), enc.hb(second, r)]),
        None => Bool::from_bool(true),
    };
    Bool::and(&[
        enc.exec[first].clone(),
        enc.exec[second].clone(),
        enc.hb(first, second),
        still_held,
    ])
}
