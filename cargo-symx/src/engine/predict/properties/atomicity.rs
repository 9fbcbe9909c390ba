//! Three-access atomicity violations (the paper's §5.1, in the erroneous-prefix form of §5.3):
//! inside a region its thread marks as meant to be atomic (`symx::atomic_region`), two accesses
//! `t_c` and `t_c'` to one variable, and a remote access `t_r` by another thread that can run
//! between them in a way no serial order of the region explains.
//!
//! Of the eight read/write patterns `t_c`-`t_r`-`t_c'`, R-R-R, R-R-W and W-R-R are
//! serializable; the other five (R-W-R, W-W-R, W-R-W, R-W-W, W-W-W) are violations. A
//! read-modify-write is both a read and a write, so it matches a pattern through either.
//!
//! The candidate triplets (the paper's `PAV`) come from one scan of the regions; two cheap
//! filters drop the ones that cannot happen before any solver runs (the paper's `hb-pavs`
//! and `ls-pavs`): a must-happen-before order from program order, spawn and join, and a
//! lockset check (both local accesses inside one critical section of a lock the remote
//! access holds too). The query itself is the paper's
//! `g(t_c) AND g(t_r) AND g(t_c') AND HB(t_c, t_r) AND HB(t_r, t_c')` in prefix form: the
//! violation point `t_c'` is the next event of its thread once `t_r` ran, and whatever it
//! reads then, the region has been broken (the erroneous-prefix extension of §5.3 comes for
//! free: nothing after `t_c'` is constrained).

use std::fmt;

use symx::trace::format::{EventKind, Location};
use z3::ast::Bool;

use super::{at, loc, Check, Scan};
use crate::engine::predict::confirm;
use crate::engine::predict::encode::Encoding;
use crate::engine::predict::must_hb::MustHb;
use crate::solver::ctp::{Ctp, Ev};
use crate::solver::replayed::Replayed;

/// `remote` (another thread's access to `obj`) runs between `first` and `second`, two
/// accesses to `obj` inside one region marked atomic, in an unserializable pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomicity {
    pub first: Ev,
    pub remote: Ev,
    pub second: Ev,
    pub obj: u32,
}

impl Atomicity {
    fn triplet(&self) -> [Ev; 3] {
        [self.first, self.remote, self.second]
    }
}

impl Check for Atomicity {
    /// Triplets that survive the static filters.
    fn candidates(scan: &Scan) -> Vec<Self> {
        // Must-happen-before is built only when there is a region to filter.
        if regions(scan.ctp).is_empty() {
            return Vec::new();
        }
        candidates(scan.ctp, scan.must_hb())
            .0
            .into_iter()
            .map(|[first, remote, second, obj]| Atomicity {
                first,
                remote,
                second,
                obj: obj as u32,
            })
            .collect()
    }

    fn violation(&self, enc: &Encoding) -> Bool {
        broken(enc, self.triplet())
    }

    /// Not a failure of the run: the three accesses happened in the violating order.
    fn confirm(&self, ctp: &Ctp, run: &Replayed) -> Result<(), String> {
        in_order(ctp, run, self.triplet())
    }

    fn describe(&self, ctp: &Ctp, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "atomicity violation ({}) on object {}: {} runs between {} and {}, which the \
             atomic region means to keep together",
            pattern(ctp, self.triplet()),
            self.obj,
            at(ctp, self.remote),
            at(ctp, self.first),
            at(ctp, self.second)
        )
    }

    fn site(&self, ctp: &Ctp) -> Vec<Option<Location>> {
        self.triplet().map(|e| loc(ctp, e)).to_vec()
    }

    /// The violation point is poised: the schedule runs it after the remote access.
    fn poised(&self, ctp: &Ctp) -> Vec<Ev> {
        let scheduled = ctp.event(self.second).step.is_some();
        scheduled.then_some(self.second).into_iter().collect()
    }
}

/// A region marked atomic: its thread's events strictly between `begin` and `end` (an
/// unclosed region runs to the end of the thread). Nested regions count as the outermost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Region {
    pub begin: Ev,
    pub end: Option<Ev>,
}

/// How an event touches its variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Access {
    pub reads: bool,
    pub writes: bool,
}

/// The atomic regions of every thread, outermost only.
pub(crate) fn regions(ctp: &Ctp) -> Vec<Region> {
    let mut out = Vec::new();
    for events in &ctp.threads {
        let mut depth = 0usize;
        let mut begin = None;
        for &e in events {
            match ctp.event(e).kind {
                EventKind::AtomicBegin => {
                    if depth == 0 {
                        begin = Some(e);
                    }
                    depth += 1;
                }
                EventKind::AtomicEnd if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        let begin = begin.take().expect("an open region");
                        out.push(Region {
                            begin,
                            end: Some(e),
                        });
                    }
                }
                _ => {}
            }
        }
        if let Some(begin) = begin {
            out.push(Region { begin, end: None });
        }
    }
    out
}

/// Reads and writes of an access event (`None`: it does not access a variable's value).
pub(crate) fn access(ctp: &Ctp, e: Ev) -> Option<Access> {
    let ev = ctp.event(e);
    ev.obj?;
    let reads = ev.read.is_some() || ev.kind == EventKind::CellRead;
    let writes = ev.write.is_some() || ev.kind == EventKind::CellWrite;
    (reads || writes).then_some(Access { reads, writes })
}

/// No serial order of the region explains `local` .. `remote` .. `local'`: one of the five
/// unserializable patterns, through any of each access's reads and writes.
pub(crate) fn unserializable(c: Access, r: Access, c2: Access) -> bool {
    let modes = |a: Access| {
        [(a.reads, false), (a.writes, true)]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, w)| w)
    };
    modes(c).any(|cw| {
        modes(r).any(|rw| {
            // Serializable: R-R-R, R-R-W, W-R-R; everything else is a violation.
            modes(c2).any(|c2w| rw || (cw && c2w))
        })
    })
}

/// The pattern in the paper's notation, e.g. `R-W-W` (a read-modify-write prints as `RW`).
fn pattern(ctp: &Ctp, triplet: [Ev; 3]) -> String {
    let letters = |e: Ev| match access(ctp, e) {
        Some(Access {
            reads: true,
            writes: true,
        }) => "RW",
        Some(Access { writes: true, .. }) => "W",
        _ => "R",
    };
    triplet.map(letters).join("-")
}

/// Candidate triplets `(t_c, t_r, t_c', object)` that survive the must-HB and lockset
/// filters, and how many there were before the filters.
pub(crate) fn candidates(ctp: &Ctp, mhb: &MustHb) -> (Vec<[Ev; 4]>, usize) {
    let mut out = Vec::new();
    let mut all = 0;
    for region in regions(ctp) {
        let local = region_accesses(ctp, region);
        for (i, &(c, obj, ca)) in local.iter().enumerate() {
            for &(c2, _, c2a) in local[i + 1..].iter().filter(|l| l.1 == obj) {
                for &r in ctp.accesses.get(&obj).map_or(&[][..], Vec::as_slice) {
                    let Some(ra) = access(ctp, r) else { continue };
                    if ctp.thread(r) == ctp.thread(c) || !unserializable(ca, ra, c2a) {
                        continue;
                    }
                    all += 1;
                    let ordered_out = mhb.before(r, c) || mhb.before(c2, r);
                    if !ordered_out && !lock_protected(ctp, c, c2, r) {
                        out.push([c, r, c2, obj as usize]);
                    }
                }
            }
        }
    }
    (out, all)
}

/// The region's accesses to variables, in program order.
fn region_accesses(ctp: &Ctp, region: Region) -> Vec<(Ev, u32, Access)> {
    let thread = ctp.thread(region.begin);
    ctp.threads[thread]
        .iter()
        .copied()
        .filter(|&e| ctp.po(region.begin, e) && region.end.is_none_or(|end| ctp.po(e, end)))
        .filter_map(|e| Some((e, ctp.event(e).obj?, access(ctp, e)?)))
        .collect()
}

/// `c` and `c2` lie in one critical section of a lock that `r` holds too (exclusive on at
/// least one side): `r` cannot run between them.
fn lock_protected(ctp: &Ctp, c: Ev, c2: Ev, r: Ev) -> bool {
    ctp.sections.values().any(|sections| {
        let local = sections
            .iter()
            .find(|s| ctp.holds(s, c) && ctp.holds(s, c2));
        let remote = sections.iter().find(|s| ctp.holds(s, r));
        matches!((local, remote), (Some(l), Some(m)) if !(l.shared && m.shared))
    })
}

/// `PHI_PRP` of a triplet in prefix form: `t_c` and `t_r` executed in that order, and `t_c'`
/// runs after `t_r`: as its thread's next step (not executed yet), or, for thread-local code
/// such as an `UnsafeCell` access, right after a fire point that follows `t_r`.
fn broken(enc: &Encoding, [c, r, c2]: [Ev; 3]) -> Bool {
    let mut conj = vec![enc.exec[c].clone(), enc.exec[r].clone(), enc.hb(c, r)];
    if enc.ctp.event(c2).step.is_some() {
        conj.push(enc.reached(c2));
        conj.push(enc.exec[c2].not());
    } else {
        match enc.ctp.fire_point[c2] {
            Some(fp) => {
                conj.push(enc.exec[c2].clone());
                conj.push(enc.hb(r, fp));
            }
            // Code before the thread's first step: nothing of another thread runs first.
            None => conj.push(Bool::from_bool(false)),
        }
    }
    Bool::and(&conj)
}

/// The replay ran `events` (same thread, position, kind and place) in this order.
fn in_order(ctp: &Ctp, run: &Replayed, events: [Ev; 3]) -> Result<(), String> {
    let replayed = confirm::by_position(run);
    let mut seqs = Vec::new();
    for e in events {
        let ev = ctp.event(e);
        match replayed.get(&(ev.thread, ev.index)) {
            Some(r) if r.kind == ev.kind && r.location == ev.location => seqs.push(r.seq),
            _ => {
                return Err(format!(
                    "the replay did not run thread {}'s access {} as predicted",
                    ev.thread, ev.index
                ))
            }
        }
    }
    if seqs.windows(2).all(|w| w[0] < w[1]) {
        Ok(())
    } else {
        Err("the replay ran the three accesses in another order".to_string())
    }
}

#[cfg(test)]
mod tests {
    use symx_test_programs::classic::split_sections;
    use symx_test_programs::observe;

    use super::{candidates, unserializable, Access};
    use crate::engine::predict::must_hb::MustHb;
    use crate::solver::ctp::Ctp;

    /// T1, then T2. One critical section around the region's accesses: the lockset filter
    /// drops the only triplet before any query (split into two sections, T2's fits between
    /// them: the engine's split-critical-sections test).
    #[test]
    fn one_critical_section_keeps_the_atomic_region() {
        let trace = observe(&[1, 1, 1, 1, 2, 2, 2], split_sections(true));
        let ctp = Ctp::new(&trace);
        let (kept, all) = candidates(&ctp, &MustHb::new(&ctp));
        assert_eq!((kept.len(), all), (0, 1));
    }

    /// The five unserializable patterns and only those (R-R-R, R-R-W, W-R-R are
    /// serializable).
    #[test]
    fn exactly_five_of_the_eight_patterns_are_violations() {
        let a = |w: bool| Access {
            reads: !w,
            writes: w,
        };
        let mut bad = Vec::new();
        for c in [false, true] {
            for r in [false, true] {
                for c2 in [false, true] {
                    if unserializable(a(c), a(r), a(c2)) {
                        let l = |w: bool| if w { 'W' } else { 'R' };
                        bad.push(format!("{}-{}-{}", l(c), l(r), l(c2)));
                    }
                }
            }
        }
        bad.sort();
        assert_eq!(bad, ["R-W-R", "R-W-W", "W-R-W", "W-W-R", "W-W-W"]);
    }
}
