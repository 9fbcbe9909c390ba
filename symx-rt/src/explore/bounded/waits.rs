//! What a sleeping event does once a step it sleeps through changed who waits for whom
//! ([`Waits`]).

use smallvec::SmallVec;

use crate::explore::dpor::events::{add_touched, add_woken, Access, Ev, Names};
use crate::rt::execution::location_hash;
use crate::rt::op::{Event, ThreadId};

/// An event by its thread and index (stable across executions).
type Key = (ThreadId, u32);

/// Per pair of an event `p` and a step `g` (in that order, sorted), the changes, over
/// canonical names, that a change's code made right after `g` in an execution where `p` was
/// part of the change's past: a woken thread's change, after its last event `p`, made when
/// step `g` woke it; or a change of step `g`'s own code after it joined the thread whose last
/// event was `p` (`Event::woke`, `Event::joined`).
///
/// A change runs right after the later of its step and its past. So where `p` sleeps and `g`
/// is taken (the two in the other order), `p`'s step makes the change once it runs: the
/// woken thread comes to its wait after `g` and finds it over, or `g`'s thread waits in the
/// join and `p`'s end wakes it. The sleeping event, as it ran where it ran first, does not
/// carry the change, and without it sleeps on through steps that conflict with it, which the
/// branch it stands for did not reorder: from `g` on it carries the change as its own
/// ([`Waits::carry`]). Its sleep stays sound: where it ran first the change came right after
/// `g`, and where it runs later right after it, and the steps between commute with both (the
/// optimal DPOR's `dpor::woken::record_waits`, for the woken thread's past). Without this,
/// `t3: spawn c { y.cas(2, 1); load x }; y += 2; join c` with `t1: y.cas(0, 2)`, `t2: x += 2`
/// and main reading the `Arc` counts after each join never ran `c`'s load after `t3`'s add and
/// `t1`'s end and before `t2`'s add: `c`'s load slept there, from the branch where it ran
/// right after `c`'s compare-exchange, before `t3` came to its join (`tests/bounded_por/`,
/// `a_sleeping_end_carries_what_its_joiner_changes`).
#[derive(Default)]
pub(super) struct Waits(Vec<(Key, Key, SmallVec<[Access; 2]>)>);

impl Waits {
    /// Records the changes of `trace` (`evs`: its events) with their pasts.
    pub(super) fn record(&mut self, trace: &[Event], evs: &[Ev], names: &mut Names) {
        let key = |p: u32| (evs[p as usize].thread, evs[p as usize].index);
        for (g, step) in trace.iter().enumerate().take(evs.len()) {
            if step.woke.is_empty() && step.joined.is_empty() {
                continue;
            }
            let at = (evs[g].thread, evs[g].index);
            let mut named = Ev {
                thread: at.0,
                index: at.1,
                nth: evs[g].nth,
                ..Ev::default()
            };
            add_woken(&mut named, step, false, names);
            for (change, &a) in step.woke.iter().zip(&named.accesses) {
                for &p in &change.past {
                    self.add(key(p), at, a);
                }
            }
            named.accesses.clear();
            add_touched(
                &mut named,
                step.touched.iter().copied(),
                location_hash(step.location),
                names,
            );
            for &(from, q) in &step.joined {
                for &a in named.accesses.get(usize::from(from)..).unwrap_or_default() {
                    self.add(key(q), at, a);
                }
            }
        }
    }

    fn add(&mut self, p: Key, g: Key, a: Access) {
        let n = match self.0.binary_search_by(|w| (w.0, w.1).cmp(&(p, g))) {
            Ok(n) => n,
            Err(n) => {
                self.0.insert(n, (p, g, SmallVec::new()));
                n
            }
        };
        if !self.0[n].2.contains(&a) {
            self.0[n].2.push(a);
        }
    }

    /// `s`, asleep, sleeps on through `step`: with the changes it makes from there on, if
    /// any. (Its exact accesses go: the changes have none of its execution.)
    pub(super) fn carry(&self, s: &mut Ev, step: &Ev) {
        if self.0.is_empty() {
            return;
        }
        let key = ((s.thread, s.index), (step.thread, step.index));
        let Ok(n) = self.0.binary_search_by(|w| (w.0, w.1).cmp(&key)) else {
            return;
        };
        for &a in &self.0[n].2 {
            if !s.accesses.contains(&a) {
                s.accesses.push(a);
            }
        }
        s.exact.clear();
    }
}
