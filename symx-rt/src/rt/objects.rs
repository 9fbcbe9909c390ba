//! The object table of one execution: every modelled object (atomic, lock, cell, queue) gets an
//! [`ObjId`] on first use, with the per-execution state the runtime keeps for it.
//!
//! Objects carry their identity in an [`ObjRef`] stamped with the execution's generation, so a
//! `static` object starts every execution fresh and a moved object keeps its identity. Wait
//! queues of user objects are named by address, as in the arbitrary-context paper.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::clock::VClock;
use super::op::{ObjId, ThreadId};
use super::race::CellState;

static GENERATION: AtomicU32 = AtomicU32::new(1);

/// A fresh generation number for a new execution (never 0, which marks "never used").
pub(crate) fn next_generation() -> u32 {
    loop {
        let g = GENERATION.fetch_add(1, Ordering::Relaxed);
        if g != 0 {
            return g;
        }
    }
}

/// The identity slot embedded in every modelled object: `(generation << 32) | (id + 1)`, and
/// where the object was created (the caller of its `#[track_caller]` constructor), which names
/// it the same way in every execution (input-covering schedules compare objects across runs).
#[derive(Debug)]
pub struct ObjRef(AtomicU64, Option<&'static Location<'static>>);

impl Default for ObjRef {
    fn default() -> Self {
        ObjRef(AtomicU64::new(0), None)
    }
}

impl ObjRef {
    #[track_caller]
    pub const fn new() -> Self {
        ObjRef(AtomicU64::new(0), Some(Location::caller()))
    }

    /// Forgets the execution that used the object (it starts the next one fresh), keeping
    /// where it was created.
    pub(crate) fn forget(&mut self) {
        *self.0.get_mut() = 0;
    }

    /// Where the object was created, when its constructor tracks its caller.
    pub(crate) fn created(&self) -> Option<&'static Location<'static>> {
        self.1
    }

    pub(crate) fn get(&self, generation: u32) -> Option<ObjId> {
        let tag = self.0.load(Ordering::Relaxed);
        ((tag >> 32) as u32 == generation && tag as u32 != 0).then(|| (tag as u32) - 1)
    }

    /// The generation of the execution that last used the object (0: never used).
    pub(crate) fn generation(&self) -> u32 {
        (self.0.load(Ordering::Relaxed) >> 32) as u32
    }

    pub(crate) fn set(&self, generation: u32, id: ObjId) {
        self.0.store(
            ((generation as u64) << 32) | (id as u64 + 1),
            Ordering::Relaxed,
        );
    }
}

/// What kind of object, for reports (`Mutex#3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ObjKind {
    Atomic,
    Mutex,
    RwLock,
    Condvar,
    Barrier,
    Channel,
    Once,
    Cell,
    /// A user object known by address: annotated locks, barriers, wait queues.
    User,
    Arc,
    /// `symx::Shared`: a symbolic shared variable.
    Shared,
}

impl ObjKind {
    /// The kind as traces name it.
    pub(crate) fn trace_name(self) -> &'static str {
        match self {
            ObjKind::Atomic => "atomic",
            ObjKind::Mutex => "mutex",
            ObjKind::RwLock => "rwlock",
            ObjKind::Condvar => "condvar",
            ObjKind::Barrier => "barrier",
            ObjKind::Channel => "channel",
            ObjKind::Once => "once",
            ObjKind::Cell => "cell",
            ObjKind::User => "object",
            ObjKind::Arc => "arc",
            ObjKind::Shared => "shared",
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            ObjKind::Atomic => "Atomic",
            ObjKind::Mutex => "Mutex",
            ObjKind::RwLock => "RwLock",
            ObjKind::Condvar => "Condvar",
            ObjKind::Barrier => "Barrier",
            ObjKind::Channel => "Channel",
            ObjKind::Once => "Once",
            ObjKind::Cell => "UnsafeCell",
            ObjKind::User => "Object",
            ObjKind::Arc => "Arc",
            ObjKind::Shared => "Shared",
        }
    }
}

/// The runtime's state for one object in one execution.
#[derive(Debug)]
pub(crate) struct ObjState {
    pub kind: ObjKind,
    /// The type name the user wrote, when it is more telling than the kind (`AtomicUsize`).
    pub type_name: &'static str,
    /// Current value of an atomic (the object's own storage keeps only the initial value).
    pub value: u64,
    /// Clock published by releases on this object (atomic stores, unlocks, notifies).
    pub clock: VClock,
    /// Data-race bookkeeping for `UnsafeCell`s.
    pub cell: Option<Box<CellState>>,
    /// The value a variable (atomic, `Shared`) had when this execution first used it, for
    /// traces: a read ordered before every write reads it.
    pub initial: Option<(crate::sym::expr::Ty, u128)>,
    /// Present when the object is (also) a lock: who holds it.
    pub lock: Option<LockState>,
    /// Where it was created, when known (see [`ObjRef`]).
    pub created: Option<&'static Location<'static>>,
    /// Barrier annotation: expected arrivals and the arrivals of the current generation.
    pub barrier: Option<BarrierState>,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct LockState {
    pub writer: Option<(ThreadId, &'static std::panic::Location<'static>)>,
    pub readers: Vec<ThreadId>,
    /// Annotated (user-built) lock rather than a built-in one.
    pub annotated: bool,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct BarrierState {
    pub expected: usize,
    pub arrived: usize,
}

/// All objects of one execution.
#[derive(Debug)]
pub(crate) struct Objects {
    pub generation: u32,
    states: Vec<ObjState>,
    by_addr: HashMap<usize, ObjId>,
}

impl Objects {
    pub fn new(generation: u32) -> Self {
        Objects {
            generation,
            states: Vec::new(),
            by_addr: HashMap::new(),
        }
    }

    /// The id of an object that embeds an [`ObjRef`], registering it on first use.
    /// `initial` is the value an atomic starts this execution with.
    pub fn of(
        &mut self,
        r: &ObjRef,
        kind: ObjKind,
        type_name: &'static str,
        initial: u64,
    ) -> ObjId {
        if let Some(id) = r.get(self.generation) {
            return id;
        }
        let id = self.push(kind, type_name, initial);
        self.states[id as usize].created = r.created();
        r.set(self.generation, id);
        id
    }

    /// The id of a user object known only by its address (annotations, wait queues).
    pub fn by_address(&mut self, addr: usize, type_name: &'static str) -> ObjId {
        if let Some(&id) = self.by_addr.get(&addr) {
            return id;
        }
        let id = self.push(ObjKind::User, type_name, 0);
        self.by_addr.insert(addr, id);
        id
    }

    fn push(&mut self, kind: ObjKind, type_name: &'static str, initial: u64) -> ObjId {
        let id = self.states.len() as ObjId;
        self.states.push(ObjState {
            kind,
            type_name,
            value: initial,
            clock: VClock::new(),
            cell: None,
            initial: None,
            lock: None,
            created: None,
            barrier: None,
        });
        id
    }

    /// Records a variable's initial value the first time it is used.
    pub fn note_initial(&mut self, id: ObjId, ty: crate::sym::expr::Ty, bits: u128) {
        let state = self.get_mut(id);
        if state.initial.is_none() {
            state.initial = Some((ty, bits));
        }
    }

    /// Objects used so far in this execution.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn get(&self, id: ObjId) -> &ObjState {
        &self.states[id as usize]
    }

    pub fn get_mut(&mut self, id: ObjId) -> &mut ObjState {
        &mut self.states[id as usize]
    }

    /// `Mutex#3`: how reports name an object.
    pub fn label(&self, id: ObjId) -> String {
        let s = self.get(id);
        let name = if s.type_name.is_empty() {
            s.kind.name()
        } else {
            s.type_name
        };
        format!("{name}#{id}")
    }
}

/// `std::any::type_name` without the module path: `AtomicUsize`, `SpinLock`.
pub(crate) fn short_type_name<T: ?Sized>() -> &'static str {
    let full = std::any::type_name::<T>();
    let base = full.split('<').next().unwrap_or(full);
    base.rsplit("::").next().unwrap_or(base)
}
