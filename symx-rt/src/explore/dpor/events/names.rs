//! Canonical object names that survive from one execution to the next ([`Names`]): the
//! runtime numbers objects by first use, which depends on the interleaving, so a name is tied
//! to the events that use the object (an [`EventKey`] and which of its accesses) and names are
//! merged (union-find) whenever two turn out to denote one object.
//!
//! **Which event keys a name** ([`EventKey`], session 23). A key should denote one object in
//! every execution it occurs in: where it denotes two, their names are joined and the two
//! objects compare as one, which costs reduction (never soundness: only more events compare
//! as dependent). The key is the event's thread, its index in the thread, its source
//! location, which of its accesses (the slot), and, since session 23, `nth`: how many events
//! of its thread came at that location before it in its execution. An index shifts whenever
//! the thread's control flow before the event differs between executions (a `try_lock` that
//! succeeds has an unlock after it, one that fails has none; a branch takes its other path),
//! and where one line serves several objects (a helper; the random programs' interpreter
//! locks every mutex at one line) the event at a shifted index and that line is another
//! object. Checked with a dump of the joins (`Family::Deadlocky` seed 9,006,690, shrunk to
//! `t1: lock m0`, `t2: try_lock m1; try_lock m0; lock m0 { lock m1 }`): `t2`'s index 4 at the
//! lock line was `lock m0` where both `try_lock`s succeeded and `lock m1` where the second
//! failed; `m0` and `m1` were one name, and the optimal DPOR ran two of the program's 4 traces
//! twice (6 executions; 4 now,
//! `tests/dpor_vs_dfs/names.rs::nested_locks_after_try_locks_at_the_interpreters_lines`).
//!
//! Why both the index and the count. Take the thread's events at one location `L`, in order,
//! in two executions. Keyed by `nth` alone, they name no two objects as one as long as those
//! two lists agree position by position: a difference in the thread's events at other lines
//! (the unlock after a `try_lock` that succeeded, a branch's other path) leaves them alone,
//! where it shifts every later index. But a difference at `L` itself shifts the count: a
//! branch whose two arms have as many events, one of them at `L` and the other not (the
//! interpreter runs every `fetch_add` at one line), keeps the indices after it in line and
//! shifts the count at `L`; so does a loop at one line whose number of rounds depends on the
//! schedule, and a `try_lock`'s unlock, recorded at the `try_lock`'s line. Keyed by the count
//! alone, `Family::Branching` seed 9,007,298 (fresh, `dpor_vs_dfs`) ran 113 -> 313
//! executions, and 3 more of 2,000 fresh programs more than before. Two events of two
//! executions share a key only where both their indices and their counts agree, so the
//! names are joined where the index alone would join them and the count alone would too,
//! never where either keeps them apart: no join that either key avoids. What it costs: an
//! event whose index or count shifted has a key no execution had, and names its object as
//! this execution did so far (or afresh, [`Names::may_be_one`]) without joining it to the name
//! another key gave the object elsewhere; the differentials (none missed, numbers in
//! CHANGELOG, session 23) are the evidence that other events join them. Both reductions key
//! events alike: [`Occurrences`] counts each thread's events per location, in the chooser as
//! each step is taken (`steps::Threads::stepped`, which names pending events) and in
//! `trace::of_trace_into` over a finished trace, from its first step: the events of a
//! repeated prefix that it keeps without naming them again (the bounded reduction's, and the
//! optimal DPOR's shared steps) are counted too, so the events after them count on from
//! there (a debug assertion checks that the count gives each kept event its own `nth`). The
//! counts are per execution, never saved; the names saved in a checkpoint are keyed with
//! `nth` (format 8).

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::{Access, Canon, Ev, Fair};
use crate::rt::execution::location_hash;
use crate::rt::op::{ObjId, Op, OpKind, ThreadId};

/// What identifies an event across executions, for naming the objects it uses: its thread,
/// its index in the thread, its source location, and how many events of its thread came at
/// that location before it in its execution (`nth`, counted by [`Occurrences`]; see the module
/// doc).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EventKey {
    pub thread: ThreadId,
    pub index: u32,
    pub nth: u32,
    pub location: u64,
}

impl EventKey {
    /// The event's location and its count of events there, as one number: the key's location
    /// in [`ByEvent`] (`nth` 0 leaves the location's hash as it is).
    fn place(&self) -> u64 {
        self.location ^ u64::from(self.nth).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Each thread's count of events so far at each source location in the current execution:
/// an event's [`EventKey::nth`]. A thread runs code at few locations, looked for in a short
/// list of (location hash, count).
#[derive(Clone, Default)]
pub(crate) struct Occurrences(Vec<SmallVec<[(u64, u32); 8]>>);

impl Occurrences {
    /// Forgets every count, keeping the memory.
    pub fn clear(&mut self) {
        for at in &mut self.0 {
            at.clear();
        }
    }

    /// How many events thread `t` had at `location` so far: its next one's `nth` there.
    pub fn next(&self, t: ThreadId, location: u64) -> u32 {
        let at = self
            .0
            .get(t)
            .and_then(|a| a.iter().find(|e| e.0 == location));
        at.map_or(0, |e| e.1)
    }

    /// Counts an event of thread `t` at `location`; returns its `nth` (the count before it).
    pub fn count(&mut self, t: ThreadId, location: u64) -> u32 {
        if self.0.len() <= t {
            self.0.resize(t + 1, SmallVec::new());
        }
        let at = &mut self.0[t];
        match at.iter_mut().find(|e| e.0 == location) {
            Some(e) => {
                e.1 += 1;
                e.1 - 1
            }
            None => {
                at.push((location, 1));
                0
            }
        }
    }
}

/// Canonical object names and how this execution's runtime ids map to them.
#[derive(Clone, Default, Serialize, Deserialize)]
pub(crate) struct Names {
    parent: Vec<Canon>,
    /// Which name the object used by an event had before, keyed by the event ([`EventKey`]:
    /// thread, index, and its location with its count of events there before it) and which of
    /// its accesses.
    pub(super) by_event: ByEvent,
    /// This execution's runtime ids (none between executions, when a checkpoint is taken).
    #[serde(skip)]
    current: ByObject,
    /// The first name made in this execution, set as each execution starts
    /// ([`Names::new_execution`]; a checkpoint is resumed by starting one).
    #[serde(skip)]
    first_here: Canon,
    /// `trace::of_trace_into`'s counts of each thread's events per location, kept for their
    /// memory (a fresh list per trace was ~1 % of a small program's instructions).
    #[serde(skip)]
    pub(super) counted: Occurrences,
}

impl Names {
    pub fn new_execution(&mut self) {
        self.current.clear();
        self.first_here = self.parent.len() as Canon;
    }

    /// Whether `x` and `y`, names in events of different executions, may denote one object:
    /// one class, or one of them made in this execution (its object's first use here by an
    /// event that named none before) and the other taken by no object of this execution so far.
    ///
    /// Why (session 21): a name is tied to the event that used the object first, so an
    /// object used first here by a new event gets a fresh name, joined with the object's older
    /// names only when an event that named it before uses it again; a sleeping event compared
    /// with the step before that holds only the older name. Bounded seed 9,000,071 of
    /// `Family::Branching`: a sleeping drop of an `Arc` (named by the drop's own event) was not
    /// woken by a count read of it glued to another step than before (a fresh name).
    pub fn may_be_one(&mut self, x: Canon, y: Canon) -> bool {
        let (x, y) = (self.find(x), self.find(y));
        if x == y {
            return true;
        }
        let here = self.first_here;
        match (x >= here, y >= here) {
            (true, false) => !self.taken_here(y),
            (false, true) => !self.taken_here(x),
            _ => false,
        }
    }

    /// Whether an object of this execution has a name in class `c` (a root).
    fn taken_here(&mut self, c: Canon) -> bool {
        let names: SmallVec<[Canon; 16]> = self.current.names().collect();
        names.into_iter().any(|a| self.find(a) == c)
    }

    pub fn find(&mut self, mut c: Canon) -> Canon {
        while self.parent[c as usize] != c {
            let grand = self.parent[self.parent[c as usize] as usize];
            self.parent[c as usize] = grand;
            c = grand;
        }
        c
    }

    /// Names runtime object `obj` as `c`, the name an earlier execution gave it at an event
    /// this execution repeats, as naming that event again would (the event's key has a name
    /// in `c`'s class since then): joins it to the object's name so far, if it has one.
    pub fn adopt(&mut self, obj: ObjId, c: Canon) {
        match self.current.get(obj) {
            Some(a) => self.union(a, c),
            None => {
                self.current.insert(obj, c);
            }
        }
    }

    pub(super) fn union(&mut self, a: Canon, b: Canon) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b) as usize] = a.min(b);
        }
    }

    pub(super) fn fresh(&mut self) -> Canon {
        let c = self.parent.len() as Canon;
        self.parent.push(c);
        c
    }

    /// The canonical name of runtime object `obj` as used by the event keyed `at`.
    pub fn name(&mut self, obj: ObjId, at: EventKey, slot: u8) -> Canon {
        let key = (at.thread, at.index, slot, at.place());
        let known = self.by_event.get(key);
        match (self.current.get(obj), known) {
            (Some(a), Some(b)) => {
                // Mostly one name (the event named the object the last time too): no finds.
                if a != b {
                    self.union(a, b);
                }
                a
            }
            (Some(a), None) => {
                self.by_event.insert(key, a);
                a
            }
            (None, Some(b)) => {
                self.current.insert(obj, b);
                b
            }
            (None, None) => {
                let c = self.fresh();
                self.current.insert(obj, c);
                self.by_event.insert(key, c);
                c
            }
        }
    }

    /// The event a pending operation of `thread` will be, as far as it is known before it
    /// runs; `index` is its index in the thread, and `at` counts the thread's events so far.
    pub fn pending(&mut self, thread: ThreadId, index: u32, at: &Occurrences, op: &Op) -> Ev {
        let mut ev = Ev::default();
        self.pending_into(&mut ev, thread, index, at, op);
        ev
    }

    /// [`Names::pending`] written into `ev` in place (every field set), keeping its lists'
    /// memory: the bounded reduction names a pending event at every step, into its node.
    pub fn pending_into(
        &mut self,
        ev: &mut Ev,
        thread: ThreadId,
        index: u32,
        at: &Occurrences,
        op: &Op,
    ) {
        let location = location_hash(op.location);
        let nth = at.next(thread, location);
        let at = EventKey {
            thread,
            index,
            nth,
            location,
        };
        (ev.thread, ev.index, ev.nth) = (thread, index, nth);
        (ev.execution, ev.fair) = (0, Fair::None);
        ev.accesses.clear();
        ev.accesses.push(self.access(op.kind, op.obj, at, 0));
        if op.obj2.is_some() {
            ev.accesses
                .push(self.access(OpKind::Unlock, op.obj2, at, 1));
        }
        ev.exact.clear();
        ev.enablers.clear();
    }

    pub fn access(&mut self, kind: OpKind, obj: Option<ObjId>, at: EventKey, slot: u8) -> Access {
        match obj {
            None => Access::None,
            Some(o) => Access::of(kind, self.name(o, at, slot)),
        }
    }
}

/// A map from this execution's runtime object ids to names, stored by id (dense: every
/// pending operation and every new step names its objects, and hashing was most of a
/// look-up), and cleared by moving to a new generation. The runtime numbers objects densely
/// from 0; ids beyond [`DENSE_OBJECTS`] (the fairness rules' pseudo-objects) are kept in a map.
#[derive(Clone, Default)]
struct ByObject {
    /// `dense[o] = (generation, name)`: `o`'s name if its generation is `now`.
    dense: Vec<(u32, Canon)>,
    sparse: HashMap<ObjId, Canon>,
    now: u32,
}

const DENSE_OBJECTS: usize = 1 << 16;

impl ByObject {
    fn clear(&mut self) {
        self.sparse.clear();
        self.now = self.now.wrapping_add(1);
        if self.now == 0 {
            self.dense.fill((0, 0));
            self.now = 1;
        }
    }

    fn get(&self, o: ObjId) -> Option<Canon> {
        match self.dense.get(o as usize) {
            Some(&(at, c)) => (at == self.now && self.now != 0).then_some(c),
            None if o as usize >= DENSE_OBJECTS => self.sparse.get(&o).copied(),
            None => None,
        }
    }

    /// The names of this execution's objects.
    fn names(&self) -> impl Iterator<Item = Canon> + '_ {
        let now = self.now;
        let dense = self
            .dense
            .iter()
            .filter(move |&&(at, _)| at == now && now != 0);
        dense.map(|&(_, c)| c).chain(self.sparse.values().copied())
    }

    fn insert(&mut self, o: ObjId, c: Canon) {
        let i = o as usize;
        if i >= DENSE_OBJECTS {
            self.sparse.insert(o, c);
            return;
        }
        if self.now == 0 {
            self.now = 1;
        }
        if self.dense.len() <= i {
            self.dense.resize(i + 1, (0, 0));
        }
        self.dense[i] = (self.now, c);
    }
}

/// A map from (thread, index, slot, place) to a name (the place: the location with the
/// event's count of events there, [`EventKey::place`]), stored by thread and index (dense:
/// every execution looks up each of its events, so this is on the hot path). Saved in a
/// checkpoint as the list of its pairs in key order. Threads beyond [`DENSE_THREADS`] (a
/// reduction's placeholder names) are kept in a map.
#[derive(Clone, Default)]
pub(super) struct ByEvent(Vec<Vec<Slots>>, HashMap<EventSlot, Canon>);

/// The names one event's objects had: (slot, location, name).
type Slots = SmallVec<[(u8, u64, Canon); 1]>;

pub(super) type EventSlot = (ThreadId, u32, u8, u64);

const DENSE_THREADS: usize = 1 << 16;

impl ByEvent {
    pub(super) fn get(&self, key @ (t, i, slot, location): EventSlot) -> Option<Canon> {
        if t >= DENSE_THREADS {
            return self.1.get(&key).copied();
        }
        let at = self.0.get(t)?.get(i as usize)?;
        at.iter()
            .find(|e| e.0 == slot && e.1 == location)
            .map(|e| e.2)
    }

    pub(super) fn insert(&mut self, key @ (t, i, slot, location): EventSlot, c: Canon) {
        if t >= DENSE_THREADS {
            self.1.insert(key, c);
            return;
        }
        if self.0.len() <= t {
            self.0.resize(t + 1, Vec::new());
        }
        let per_thread = &mut self.0[t];
        if per_thread.len() <= i as usize {
            per_thread.resize(i as usize + 1, SmallVec::new());
        }
        let at = &mut per_thread[i as usize];
        match at.iter_mut().find(|e| e.0 == slot && e.1 == location) {
            Some(e) => e.2 = c,
            None => at.push((slot, location, c)),
        }
    }

    /// The names event (thread, index) gave, with their keys.
    pub(super) fn at(&self, t: ThreadId, i: u32) -> Vec<(EventSlot, Canon)> {
        if t >= DENSE_THREADS {
            let of = |k: &EventSlot| k.0 == t && k.1 == i;
            return self
                .1
                .iter()
                .filter(|(k, _)| of(k))
                .map(|(&k, &c)| (k, c))
                .collect();
        }
        let at = self.0.get(t).and_then(|e| e.get(i as usize));
        let slots = at.into_iter().flatten();
        slots.map(|&(s, l, c)| ((t, i, s, l), c)).collect()
    }

    pub(super) fn pairs(&self) -> Vec<(EventSlot, Canon)> {
        let mut pairs = Vec::new();
        for (t, per_thread) in self.0.iter().enumerate() {
            for (i, at) in per_thread.iter().enumerate() {
                pairs.extend(at.iter().map(|&(s, l, c)| ((t, i as u32, s, l), c)));
            }
        }
        pairs.extend(self.1.iter().map(|(&k, &c)| (k, c)));
        pairs.sort_unstable_by_key(|p| p.0);
        pairs
    }
}

impl Serialize for ByEvent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.pairs().serialize(s)
    }
}

impl<'de> Deserialize<'de> for ByEvent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = ByEvent::default();
        for (key, c) in Vec::<(EventSlot, Canon)>::deserialize(d)? {
            map.insert(key, c);
        }
        Ok(map)
    }
}
