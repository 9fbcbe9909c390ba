//! The concurrent trace program (CTP) of one recorded trace: per-thread program order (PO),
//! the shared accesses by object, the spawn/join edges, the lock critical sections and the
//! initial value of every object. Pure bookkeeping over `symx::trace::Trace`; it knows nothing
//! of z3 (that is `encode`).

use std::collections::BTreeMap;

use symx::trace::format::{EventKind, SyncKind, TraceEvent, Ty};
use symx::trace::Trace;

/// An event, by its position in `trace.events` (its `seq`).
pub type Ev = usize;

/// A critical section of one thread on one lock: `acquire` .. `release` (none when the trace
/// ends with the lock held).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    pub thread: usize,
    pub acquire: Ev,
    pub release: Option<Ev>,
    /// A read (shared) lock: shared sections do not exclude each other.
    pub shared: bool,
    /// Where the thread began to wait for the lock: the acquisition itself for a built-in
    /// lock, the start of the `#[symx::acquire]` call (where it may spin) for an annotated
    /// one.
    pub wait: Ev,
}

/// A failed try-lock: the lock was held by someone at that point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TryFail {
    pub event: Ev,
    pub lock: u32,
}

/// The CTP: the trace's events with only program order kept between them.
#[derive(Debug)]
pub struct Ctp<'t> {
    pub trace: &'t Trace,
    /// Per thread, its events in program order.
    pub threads: Vec<Vec<Ev>>,
    /// The thread-local preceding event (None for a thread's first event).
    pub pred: Vec<Option<Ev>>,
    /// Per object, the events that write it (in trace order).
    pub writes: BTreeMap<u32, Vec<Ev>>,
    /// Per object, the events that read it through a read variable.
    pub reads: BTreeMap<u32, Vec<Ev>>,
    /// Per object, every access (reads and writes, valued or not), for race candidates.
    pub accesses: BTreeMap<u32, Vec<Ev>>,
    /// Per thread, the spawn event that created it.
    pub spawned_at: Vec<Option<Ev>>,
    /// Per lock object, its critical sections.
    pub sections: BTreeMap<u32, Vec<Section>>,
    pub try_fails: Vec<TryFail>,
    /// Events whose blocking semantics the encoding does not model (channels, park, once):
    /// they keep their observed order (see `encode`).
    pub unmodelled: Vec<Ev>,
    /// Per object, its type and its value before any write, when the trace shows it.
    pub initial: BTreeMap<u32, (Ty, Option<i128>)>,
    /// Every assertion event.
    pub asserts: Vec<Ev>,
    /// Per event, the last event before it in its thread after which the thread runs on
    /// without a scheduling decision: a visible operation or a join. Thread-local code
    /// (branches, assertions) runs right after it, whatever the schedule does next.
    pub fire_point: Vec<Option<Ev>>,
}

impl<'t> Ctp<'t> {
    pub fn new(trace: &'t Trace) -> Self {
        let mut ctp = Ctp {
            trace,
            threads: vec![Vec::new(); trace.threads.len()],
            pred: vec![None; trace.events.len()],
            writes: BTreeMap::new(),
            reads: BTreeMap::new(),
            accesses: BTreeMap::new(),
            spawned_at: vec![None; trace.threads.len()],
            sections: BTreeMap::new(),
            try_fails: Vec::new(),
            unmodelled: Vec::new(),
            initial: BTreeMap::new(),
            asserts: Vec::new(),
            fire_point: vec![None; trace.events.len()],
        };
        let mut open = Open::default();
        for (e, ev) in trace.events.iter().enumerate() {
            ctp.pred[e] = ctp.threads[ev.thread].last().copied();
            ctp.fire_point[e] = ctp.pred[e].and_then(|p| {
                let pe = &trace.events[p];
                if pe.step.is_some() || pe.kind == EventKind::Join {
                    Some(p)
                } else {
                    ctp.fire_point[p]
                }
            });
            if ev.assert.is_some() {
                ctp.asserts.push(e);
            }
            ctp.threads[ev.thread].push(e);
            ctp.data(e, ev);
            ctp.sync(e, ev, &mut open);
            if ev.kind == EventKind::Spawn {
                if let Some(c) = ev.child {
                    ctp.spawned_at[c] = Some(e);
                }
            }
            if unmodelled(ev.kind) {
                ctp.unmodelled.push(e);
            }
        }
        ctp
    }

    pub fn event(&self, e: Ev) -> &'t TraceEvent {
        &self.trace.events[e]
    }

    pub fn thread(&self, e: Ev) -> usize {
        self.trace.events[e].thread
    }

    /// Program order: `a` is before `b` in the same thread.
    pub fn po(&self, a: Ev, b: Ev) -> bool {
        self.thread(a) == self.thread(b) && self.event(a).index < self.event(b).index
    }

    /// Section `s` is open at `e`, in `e`'s own thread: acquired before it in program order
    /// and not released before it.
    pub fn holds(&self, s: &Section, e: Ev) -> bool {
        self.po(s.acquire, e) && s.release.is_none_or(|r| self.po(e, r))
    }

    /// The events of `e`'s thread after it, in program order.
    pub fn later(&self, e: Ev) -> &[Ev] {
        &self.threads[self.thread(e)][self.event(e).index as usize + 1..]
    }

    /// The last event of a thread (its `exit`, when it finished).
    pub fn last_of(&self, thread: usize) -> Option<Ev> {
        self.threads.get(thread).and_then(|t| t.last().copied())
    }

    /// Reads, writes and the initial value: the object's recorded initial value where the
    /// trace has one; otherwise a read that comes before every write to its object in the
    /// observed trace read it, and when a write came first it is unknown (`None`).
    fn data(&mut self, e: Ev, ev: &TraceEvent) {
        let Some(obj) = ev.obj else { return };
        let cell = matches!(ev.kind, EventKind::CellRead | EventKind::CellWrite);
        if !(ev.read.is_some() || ev.write.is_some() || cell) {
            return;
        }
        self.accesses.entry(obj).or_default().push(e);
        let recorded = self.trace.objects[obj as usize]
            .initial
            .map(|i| (i.ty, Some(i.value)));
        if let Some(r) = ev.read {
            self.reads.entry(obj).or_default().push(e);
            let seen = recorded.unwrap_or((r.ty, Some(r.value)));
            self.initial.entry(obj).or_insert(seen);
        }
        if let Some(w) = ev.write {
            self.writes.entry(obj).or_default().push(e);
            self.initial
                .entry(obj)
                .or_insert(recorded.unwrap_or((w.ty, None)));
        }
    }

    /// Lock critical sections from the `sync` records (built-in and annotated alike): a
    /// release closes the thread's most recent open acquire of that lock.
    fn sync(&mut self, e: Ev, ev: &TraceEvent, open: &mut Open) {
        if let (EventKind::AcquireCall, Some(obj)) = (ev.kind, ev.obj) {
            open.calls.insert((ev.thread, obj), e);
        }
        for s in &ev.sync {
            let list = self.sections.entry(s.obj).or_default();
            match s.op {
                SyncKind::Acquire => {
                    let key = (ev.thread, s.obj);
                    open.sections.entry(key).or_default().push(list.len());
                    let call = s.annotated.then(|| open.calls.remove(&key)).flatten();
                    list.push(Section {
                        thread: ev.thread,
                        acquire: e,
                        release: None,
                        shared: s.shared,
                        wait: call.unwrap_or(e),
                    });
                }
                SyncKind::Release => {
                    if let Some(i) = open
                        .sections
                        .get_mut(&(ev.thread, s.obj))
                        .and_then(Vec::pop)
                    {
                        list[i].release = Some(e);
                    }
                }
                SyncKind::TryAcquireFailed => self.try_fails.push(TryFail {
                    event: e,
                    lock: s.obj,
                }),
                SyncKind::BarrierArrive | SyncKind::BarrierDepart => {}
            }
        }
    }

    /// Thread-local code that runs as soon as its thread gets there: no scheduling step, no
    /// blocking (joins and annotated lock operations can block).
    pub fn eager(&self, e: Ev) -> bool {
        let ev = self.event(e);
        ev.step.is_none() && ev.kind != EventKind::Join && ev.sync.is_empty()
    }

    /// A lock built by the user and annotated (`#[symx::acquire]`): its mutual exclusion is
    /// a claim to check, not a fact of the runtime.
    pub fn annotated_lock(&self, lock: u32) -> bool {
        self.sections.get(&lock).is_some_and(|ss| {
            ss.iter().any(|s| {
                let ev = self.event(s.acquire);
                ev.sync.iter().any(|r| r.obj == lock && r.annotated)
            })
        })
    }

    /// Objects the races property looks at: `Shared` and `UnsafeCell` (atomics never race).
    pub fn racy_object(&self, obj: u32) -> bool {
        matches!(&*self.trace.objects[obj as usize].kind, "shared" | "cell")
    }
}

/// What is open while the trace is read, per `(thread, lock)`: the thread's sections not yet
/// released (innermost last), and the `#[symx::acquire]` call it is in.
#[derive(Default)]
struct Open {
    sections: BTreeMap<(usize, u32), Vec<usize>>,
    calls: BTreeMap<(usize, u32), Ev>,
}

/// Blocking or matching semantics the encoding does not model exactly (those it does are
/// `blocking`'s).
fn unmodelled(kind: EventKind) -> bool {
    use EventKind::*;
    matches!(
        kind,
        Send | Recv | Park | Unpark | Once | SpuriousWake | Disconnect
    )
}
