//! The object table of one execution: every modelled object (atomic, lock, cell, queue) gets an
//! [`ObjId`] on first use, with the per-execution state the runtime keeps for it.
//!
//! Objects carry their identity in an [`ObjRef`] stamped with the execution's generation, so a
//! `static` object starts every execution fresh and a moved object keeps its identity. Wait
//! queues of user objects are named by address, as in the arbitrary-context paper.

use rustc_hash::FxHashMap as HashMap;
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

/// The identity slot embedded in every modelled object: `(generation << 32) | (id + 1)`, with
/// where the object was created (reports name objects by it) and whether it holds data of its
/// own that an execution can change (a `Mutex<T>`'s `T`: such state would survive into the
/// next execution, unlike an atomic's value, which the object table keeps).
#[derive(Debug)]
pub struct ObjRef {
    tag: AtomicU64,
    created: &'static Location<'static>,
    holds_state: bool,
    /// The type the user wrote, when another type implements it (`AtomicBool` on `AtomicU8`).
    user_type: Option<&'static str>,
}

impl Default for ObjRef {
    #[track_caller]
    fn default() -> Self {
        ObjRef::new()
    }
}

impl ObjRef {
    /// The slot of an object whose state the object table keeps (atomics, condvars, ...).
    #[track_caller]
    pub const fn new() -> Self {
        ObjRef {
            tag: AtomicU64::new(0),
            created: Location::caller(),
            holds_state: false,
            user_type: None,
        }
    }

    /// The slot of an object implementing the user's type `name` (reports say `name`).
    #[track_caller]
    pub const fn named(name: &'static str) -> Self {
        ObjRef {
            user_type: Some(name),
            ..ObjRef::new()
        }
    }

    /// The type reports name the object by, if not its implementing type's.
    pub(crate) fn user_type(&self) -> Option<&'static str> {
        self.user_type
    }

    /// The slot of an object that stores a `T` itself (locks, cells, channels).
    #[track_caller]
    pub const fn holding<T>() -> Self {
        ObjRef {
            holds_state: std::mem::size_of::<T>() != 0,
            ..ObjRef::new()
        }
    }

    pub(crate) fn get(&self, generation: u32) -> Option<ObjId> {
        let tag = self.tag.load(Ordering::Relaxed);
        ((tag >> 32) as u32 == generation && tag as u32 != 0).then(|| (tag as u32) - 1)
    }

    /// The generation of the execution that last used the object (0: never used).
    pub(crate) fn generation(&self) -> u32 {
        (self.tag.load(Ordering::Relaxed) >> 32) as u32
    }

    pub(crate) fn set(&self, generation: u32, id: ObjId) {
        self.tag.store(
            ((generation as u64) << 32) | (id as u64 + 1),
            Ordering::Relaxed,
        );
    }

    /// Where the object was created (`Mutex::new`'s caller).
    pub(crate) fn created(&self) -> &'static Location<'static> {
        self.created
    }

    /// The object starts afresh at its next use, as if never used (an atomic whose value was
    /// written back into its own storage).
    pub(crate) fn forget(&mut self) {
        *self.tag.get_mut() = 0;
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
    /// Where the object was created; `None` for user objects known only by address.
    pub created: Option<&'static Location<'static>>,
    /// The program took the value out of the model (`get_mut`, `into_inner`) and read it
    /// without a step.
    pub taken: bool,
    /// Data-race bookkeeping for `UnsafeCell`s.
    pub cell: Option<Box<CellState>>,
    /// The value a variable (atomic, `Shared`) had when this execution first used it, for
    /// traces: a read ordered before every write reads it.
    pub initial: Option<(crate::sym::expr::Ty, u128)>,
    /// Present when the object is (also) a lock: who holds it.
    pub lock: Option<LockState>,
    /// Barrier annotation: expected arrivals and the arrivals of the current generation.
    pub barrier: Option<BarrierState>,
    /// Present once a channel published whether its receiver can take something.
    pub channel: Option<ChannelState>,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct LockState {
    pub writer: Option<(ThreadId, &'static std::panic::Location<'static>)>,
    pub readers: Vec<ThreadId>,
    /// Annotated (user-built) lock rather than a built-in one.
    pub annotated: bool,
}

/// What the scheduler needs to know of a channel: a blocking `recv` can run only while a
/// message is queued or every sender is gone (as a lock can only be taken while free).
#[derive(Debug, Default, Clone)]
pub(crate) struct ChannelState {
    /// The receiver's pending operation is a blocking `recv` (not `try_recv` or
    /// `recv_timeout`, which never wait).
    pub receiving: bool,
    /// A message is queued or every sender is gone.
    pub takeable: bool,
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
    /// The first object found holding state left by an earlier execution (see [`ObjRef`]).
    survivor: Option<ObjId>,
}

impl Objects {
    pub fn new(generation: u32) -> Self {
        Objects {
            generation,
            states: Vec::new(),
            by_addr: HashMap::default(),
            survivor: None,
        }
    }

    /// This table emptied for a new execution `generation`, keeping its storage (and its
    /// objects' clocks' storage, for [`VClock::spare`]).
    pub fn renewed(mut self, generation: u32) -> Self {
        // In place: moving each object's state out of the table copies it whole.
        for state in &mut self.states {
            std::mem::take(&mut state.clock).recycle();
        }
        self.states.clear();
        self.by_addr.clear();
        Objects {
            generation,
            survivor: None,
            ..self
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
        let id = self.push(kind, type_name, initial, Some(r.created()));
        if r.holds_state && r.generation() != 0 && self.survivor.is_none() {
            self.survivor = Some(id);
        }
        r.set(self.generation, id);
        id
    }

    /// An object this execution uses that an earlier one used too, and whose own state (a
    /// lock's data) that execution may have changed: it does not start this one afresh.
    #[inline]
    pub fn take_survivor(&mut self) -> Option<ObjId> {
        self.survivor.take()
    }

    /// The id of a user object known only by its address (annotations, wait queues).
    pub fn by_address(&mut self, addr: usize, type_name: &'static str) -> ObjId {
        if let Some(&id) = self.by_addr.get(&addr) {
            return id;
        }
        let id = self.push(ObjKind::User, type_name, 0, None);
        self.by_addr.insert(addr, id);
        id
    }

    /// A new object known by neither an identity slot nor an address (an `Arc`'s allocation,
    /// made at `created`).
    pub fn fresh(
        &mut self,
        kind: ObjKind,
        type_name: &'static str,
        created: &'static Location<'static>,
    ) -> ObjId {
        self.push(kind, type_name, 0, Some(created))
    }

    fn push(
        &mut self,
        kind: ObjKind,
        type_name: &'static str,
        initial: u64,
        created: Option<&'static Location<'static>>,
    ) -> ObjId {
        let id = self.states.len() as ObjId;
        self.states.push(ObjState {
            kind,
            type_name,
            value: initial,
            created,
            taken: false,
            clock: VClock::spare(),
            cell: None,
            initial: None,
            lock: None,
            barrier: None,
            channel: None,
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

    /// How reports name an object: by the type the user wrote and where the object was
    /// created (`Condvar created at queue.rs:14`), with its number when another object of
    /// this execution has the same name and line (`Mutex#3 created at lib.rs:5`); an object
    /// known only by its address by its number (`SpinLock#2`).
    pub fn label(&self, id: ObjId) -> String {
        let shared = |at: &Location<'_>| {
            let same = |o: &ObjState| o.created.is_some_and(|c| same_line(c, at));
            self.states
                .iter()
                .filter(|o| same(o) && self.kind_name(o) == self.name(id))
                .count()
                > 1
        };
        self.label_with(id, shared)
    }

    /// Every object's label ([`Objects::label`]), computed once for a whole trace.
    pub fn labels(&self) -> Vec<String> {
        let mut places: HashMap<(&str, &str, u32), usize> = HashMap::default();
        for o in &self.states {
            if let Some(at) = o.created {
                *places
                    .entry((self.kind_name(o), at.file(), at.line()))
                    .or_default() += 1;
            }
        }
        (0..self.states.len() as ObjId)
            .map(|id| self.label_with(id, |at| places[&(self.name(id), at.file(), at.line())] > 1))
            .collect()
    }

    fn label_with(&self, id: ObjId, shared: impl Fn(&Location<'_>) -> bool) -> String {
        let name = self.name(id);
        match self.get(id).created {
            Some(at) if shared(at) => format!("{name}#{id} created at {}", place(at)),
            Some(at) => format!("{name} created at {}", place(at)),
            None => format!("{name}#{id}"),
        }
    }

    fn kind_name(&self, s: &ObjState) -> &'static str {
        if s.type_name.is_empty() {
            s.kind.name()
        } else {
            s.type_name
        }
    }

    /// The type the user wrote (`AtomicUsize`), or else the kind's name (`Mutex`).
    pub fn name(&self, id: ObjId) -> &'static str {
        self.kind_name(self.get(id))
    }
}

fn same_line(a: &Location<'_>, b: &Location<'_>) -> bool {
    (a.file(), a.line()) == (b.file(), b.line())
}

/// `queue.rs:14`: the file's name without its directories, and the line (short enough for a
/// column of the interleaving; the steps' own locations give whole paths).
pub(crate) fn place(at: &Location<'_>) -> String {
    let file = at.file().rsplit(['/', '\\']).next().unwrap_or(at.file());
    format!("{file}:{}", at.line())
}

/// `std::any::type_name` without the module path: `AtomicUsize`, `SpinLock`.
pub(crate) fn short_type_name<T: ?Sized>() -> &'static str {
    shorten(std::any::type_name::<T>())
}

/// The short name of type name `full`, remembered by the name's address and length: an `Arc::new`
/// in every execution took a few hundred instructions to find it again.
fn shorten(full: &'static str) -> &'static str {
    thread_local! {
        static SHORT: std::cell::RefCell<Vec<((usize, usize), &'static str)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let at = (full.as_ptr() as usize, full.len());
    let known = SHORT.with_borrow(|s| s.iter().find(|k| k.0 == at).map(|k| k.1));
    known.unwrap_or_else(|| {
        let base = full.split('<').next().unwrap_or(full);
        let short = base.rsplit("::").next().unwrap_or(base);
        SHORT.with_borrow_mut(|s| {
            if s.len() < 64 {
                s.push((at, short));
            }
        });
        short
    })
}
