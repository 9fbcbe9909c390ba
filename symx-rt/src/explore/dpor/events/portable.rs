//! Events as one explorer of a split exploration sends them to another (`dpor::split`).
//!
//! Thread and object names are an explorer's own: threads are numbered in the order it met
//! them, and objects get canonical names as its executions reveal them (`Names`). Two
//! explorers that started from one copy drift apart, so events travel with their *evidence*:
//! the spawn-path key of every thread number, and for the events' keys (thread, index, slot,
//! place: `EventKey`) the sender's canonical name (its union-find root). The receiver maps a
//! sender's root to the union of its own names for the same keys (a fresh name when it knows
//! none), and remembers the keys it did not know. Merging names only adds dependences, so the
//! translation may cost reduction, never soundness. The events lose their exact accesses
//! (runtime ids of the sender's execution, which mean nothing here).

use serde::{Deserialize, Serialize};

use super::names::EventSlot;
use super::{Access, Canon, Ev, Names};
use crate::rt::op::ThreadId;

/// What the names in some events mean, in terms any explorer of the exploration shares.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct Evidence {
    /// The spawn-path key of each of the sender's thread numbers.
    threads: Vec<u64>,
    /// Event keys and the sender's root name of the object each named.
    names: Vec<(EventSlot, Canon)>,
}

/// The receiver's names for a sender's threads and root names.
pub(crate) struct Translation {
    threads: Vec<ThreadId>,
    canons: rustc_hash::FxHashMap<Canon, Canon>,
}

impl Names {
    /// `ev` with every object named by its root, as [`Evidence`] describes names.
    pub fn export(&mut self, ev: &Ev) -> Ev {
        let mut out = ev.clone();
        for a in out.accesses.iter_mut() {
            *a = a.renamed(|c| self.find(c));
        }
        out.exact.clear();
        out
    }

    /// The evidence for events `at` (thread, index) of a sender whose threads have spawn-path
    /// keys `threads`; every event key when `at` is `None`.
    pub fn evidence(&mut self, threads: Vec<u64>, at: Option<&[(ThreadId, u32)]>) -> Evidence {
        let mut names = match at {
            None => self.by_event.pairs(),
            Some(at) => at
                .iter()
                .flat_map(|&(t, i)| self.by_event.at(t, i))
                .collect(),
        };
        for (_, c) in names.iter_mut() {
            *c = self.find(*c);
        }
        names.sort_unstable();
        names.dedup();
        Evidence { threads, names }
    }

    /// Takes in another explorer's evidence (see the module doc); `thread_of` names a thread
    /// by its spawn-path key.
    pub fn absorb(
        &mut self,
        evidence: &Evidence,
        thread_of: &mut impl FnMut(u64) -> ThreadId,
    ) -> Translation {
        let threads: Vec<ThreadId> = evidence.threads.iter().map(|&k| thread_of(k)).collect();
        let mut out = Translation {
            threads,
            canons: Default::default(),
        };
        let keys: Vec<(EventSlot, Canon)> = evidence
            .names
            .iter()
            .map(|&((t, i, s, l), root)| ((out.thread(t), i, s, l), root))
            .collect();
        // The names this explorer already has for a root's keys are one object.
        for &(key, root) in &keys {
            if let Some(mine) = self.by_event.get(key) {
                match out.canons.get(&root) {
                    Some(&c) => self.union(c, mine),
                    None => {
                        out.canons.insert(root, mine);
                    }
                }
            }
        }
        for &(key, root) in &keys {
            let c = match out.canons.get(&root) {
                Some(&c) => c,
                None => {
                    let c = self.fresh();
                    out.canons.insert(root, c);
                    c
                }
            };
            if self.by_event.get(key).is_none() {
                self.by_event.insert(key, c);
            }
        }
        out
    }
}

impl Translation {
    fn thread(&self, t: ThreadId) -> ThreadId {
        // Beyond the sender's numbering: a reduction's placeholder thread, the same here.
        self.threads.get(t).copied().unwrap_or(t)
    }

    /// `ev`, exported by the sender, in this explorer's names.
    pub fn apply(&self, ev: &mut Ev) {
        ev.thread = self.thread(ev.thread);
        for a in ev.accesses.iter_mut() {
            *a = a.renamed(|c| {
                *self.canons.get(&c).unwrap_or_else(|| {
                    panic!("symx: object {c} of a shard's event has no evidence")
                })
            });
        }
        for e in ev.enablers.iter_mut() {
            e.0 = self.thread(e.0);
        }
        ev.exact.clear();
        ev.execution = 0;
    }
}

impl Access {
    /// The same access to object `f(o)`.
    pub(crate) fn renamed(self, mut f: impl FnMut(Canon) -> Canon) -> Access {
        match self {
            Access::None => Access::None,
            Access::Touches => Access::Touches,
            Access::Read(o) => Access::Read(f(o)),
            Access::Write(o) => Access::Write(f(o)),
            Access::Lock(o) => Access::Lock(f(o)),
            Access::TryLock(o) => Access::TryLock(f(o)),
            Access::TryLockOk(o) => Access::TryLockOk(f(o)),
            Access::Shared(o) => Access::Shared(f(o)),
            Access::Unlock(o) => Access::Unlock(f(o)),
            Access::UnlockShared(o) => Access::UnlockShared(f(o)),
            Access::Send(o, n) => Access::Send(f(o), n),
            Access::Took(o, n) => Access::Took(f(o), n),
            Access::SendersGone(o) => Access::SendersGone(f(o)),
            Access::ReceiverGone(o) => Access::ReceiverGone(f(o)),
            Access::DroppedSender(o) => Access::DroppedSender(f(o)),
            Access::CountedSenders(o) => Access::CountedSenders(f(o)),
            Access::Observe(o) => Access::Observe(f(o)),
            Access::ObserveSignal(o) => Access::ObserveSignal(f(o)),
            Access::CountDown(o, n) => Access::CountDown(f(o), n),
            Access::Released(o) => Access::Released(f(o)),
            Access::ReleasedNoGlue(o) => Access::ReleasedNoGlue(f(o)),
            Access::Other(o) => Access::Other(f(o)),
            Access::Signal(o) => Access::Signal(f(o)),
        }
    }
}
