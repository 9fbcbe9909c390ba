//! The state of one execution and the thread-local handle through which model code reaches it.
//!
//! Model threads are coroutines on the test's OS thread, so "the current execution" is a
//! thread-local pointer installed by the scheduler for the duration of one execution. Code that
//! runs outside any execution (plain tests, statics, drops after the run) sees `None`.

use std::cell::{Cell, RefCell};
use std::panic::Location;

use super::chooser::Chooser;
use super::objects::Objects;
use super::op::{Event, ThreadId};
use super::threads::Thread;
use crate::report::kind::FailureKind;

/// Execution-wide settings taken from the Builder.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub max_steps: u64,
    pub preemption_bound: Option<u32>,
    pub spurious_wakeups: bool,
    pub stack_size: usize,
    /// Report tracked allocations still alive when every thread has finished.
    pub leak_check: bool,
    /// Recording and the symbolic inputs.
    pub sym: crate::sym::record::SymConfig,
    /// Cut the run into bounded epochs (`None`: epoch markers are no-ops).
    pub epochs: Option<crate::covering::epoch::Epochs>,
}

/// A failure found inside an execution, before the explorer attaches schedule and trace.
#[derive(Clone, Debug)]
pub(crate) struct Found {
    pub kind: FailureKind,
    pub message: String,
    /// Further report lines: both accesses of a race, every thread of a deadlock.
    pub details: Vec<String>,
    pub location: Option<crate::report::step::SourceLocation>,
    pub thread: Option<ThreadId>,
}

pub(crate) struct Execution {
    pub config: Config,
    pub objects: super::objects::Objects,
    pub threads: Vec<Thread>,
    pub current: ThreadId,
    /// The global wait queue in FIFO order (each waiter's key is in its status).
    pub queue: Vec<ThreadId>,
    pub trace: Vec<Event>,
    pub failure: Option<Found>,
    /// Closures of threads spawned during the current step, turned into coroutines after it.
    pub spawns: Vec<(ThreadId, Box<dyn FnOnce()>)>,
    /// The choices made where there was more than one option: the schedule.
    pub decisions: Vec<u32>,
    /// A hash of every step (thread, operation kind, object): a replayed schedule must produce
    /// the same one, or the program's operations changed under the token.
    pub fingerprint: u64,
    /// A hash of every step's source location: a replay where only this differs ran the same
    /// operations at moved lines.
    pub locations: u64,
    pub preemptions: u32,
    /// The current step changed no shared state (a load, a failed compare-exchange, a yield).
    pub quiet_step: bool,
    /// Symbolic values and, when recording, the notes the trace is built from.
    pub sym: crate::sym::record::SymState,
    /// Tracked allocations: `Arc` counts, `Track`s, loom's `alloc` blocks.
    pub heap: super::heap::Heap,
    /// `thread_local!` values per thread and `LazyLock` statics of this execution.
    pub locals: super::locals::Locals,
    /// The bounded epochs of a run cut into them.
    pub epochs: Option<super::epochs::EpochState>,
    /// Steps (trace indices) whose line as the user reads it is not their caller's: an
    /// annotated primitive reached through a wrapper crate (see `site`).
    pub user_sites: Vec<(usize, super::site::Stack)>,
    /// The execution is rendered for a report: steps whose user line needs a stack walk (an
    /// unlock at a guard's drop) record their stack; exploration does not pay for the walk.
    pub rendering: bool,
    /// Where the execution is relative to the recorded context it explores from, if any.
    pub context: super::prefix::Phase,
    /// How many changes to objects outside steps' own operations ([`Execution::touch`]) and
    /// cell accesses the execution made (see [`Execution::seen`]).
    pub effects: u64,
}

/// Appends a thread's frontier (what its next event comes after, then its latest event) to
/// `to`. Pushed one by one: smallvec's `extend_from_slice` and `extend` of an `Option` cost
/// about a hundred instructions each, for one or two items.
fn push_frontier(to: &mut super::op::Enablers, after: &[u32], last_event: Option<u32>) {
    for &a in after {
        to.push(a);
    }
    if let Some(l) = last_event {
        to.push(l);
    }
}

impl Execution {
    /// A new execution, its trace sized for as many steps as the last one of this OS thread
    /// took (executions of one test are alike: growing the trace step by step cost several
    /// allocations and copies per execution), and for [`FIRST_TRACE`] steps in the first.
    ///
    /// The tables of the last execution on this OS thread (threads, objects, the wait queue)
    /// are reused emptied, with their storage (see [`Execution::recycle`]).
    pub fn new(config: Config, generation: u32) -> Self {
        let sym = crate::sym::record::SymState::new(config.sym.clone(), generation);
        let epochs = config.epochs.clone().map(super::epochs::EpochState::new);
        let context = super::prefix::Phase::of(config.sym.context_label.is_some());
        let spare = SPARE.take();
        Execution {
            config,
            objects: match spare.objects {
                Some(objects) => objects.renewed(generation),
                None => Objects::new(generation),
            },
            threads: spare.threads,
            current: 0,
            queue: spare.queue,
            trace: {
                let mut trace = SPARE_TRACE.take();
                trace.reserve(TRACE_LENGTH.get().max(FIRST_TRACE));
                trace
            },
            failure: None,
            spawns: spare.spawns,
            // Sized as the last execution's schedule, as the trace is.
            decisions: Vec::with_capacity(DECISIONS_LENGTH.get()),
            fingerprint: FNV_OFFSET,
            locations: FNV_OFFSET,
            preemptions: 0,
            quiet_step: false,
            sym,
            heap: Default::default(),
            locals: Default::default(),
            epochs,
            user_sites: spare.user_sites,
            rendering: false,
            context,
            effects: 0,
        }
    }

    /// Ends this execution, keeping its tables' storage for the next one on this OS thread.
    /// Everything else is dropped as it would be with the execution (the tables first, as
    /// they come first among its fields).
    pub fn recycle(mut self) {
        let mut threads = std::mem::take(&mut self.threads);
        threads.iter_mut().for_each(Thread::recycle);
        threads.clear();
        let mut spawns = std::mem::take(&mut self.spawns);
        spawns.clear();
        let mut queue = std::mem::take(&mut self.queue);
        queue.clear();
        let mut user_sites = std::mem::take(&mut self.user_sites);
        user_sites.clear();
        let objects = std::mem::replace(&mut self.objects, Objects::new(0));
        drop(self);
        SPARE.set(Spare {
            threads,
            queue,
            spawns,
            user_sites,
            objects: Some(objects),
        });
    }

    pub fn me(&mut self) -> &mut Thread {
        let id = self.current;
        &mut self.threads[id]
    }

    /// Records the first failure only: later ones are consequences of tearing down.
    pub fn set_failure(&mut self, found: Found) {
        if self.failure.is_none() {
            self.failure = Some(found);
        }
    }

    /// The events thread `t`'s next step comes after: its latest event and whatever woke or
    /// spawned it since (see `Event::enablers`).
    pub fn frontier(&self, t: ThreadId) -> super::op::Enablers {
        let th = &self.threads[t];
        let mut f = super::op::Enablers::new();
        push_frontier(&mut f, &th.after, th.last_event);
        f
    }

    /// Adds [`Execution::frontier`]`(of)` to what thread `to`'s next event comes after
    /// (`to` is not `of`).
    pub fn add_frontier(&mut self, to: ThreadId, of: ThreadId) {
        let mut after = std::mem::take(&mut self.threads[to].after);
        let th = &self.threads[of];
        push_frontier(&mut after, &th.after, th.last_event);
        self.threads[to].after = after;
    }

    /// The running thread, in the code of its own step, joined thread `t`, which had finished:
    /// what the step changes from here on comes after `t`'s past (see [`Event::joined`]).
    ///
    /// [`Event::joined`]: super::op::Event::joined
    pub fn joined_in_step(&mut self, t: ThreadId) {
        let Some(at) = self.step_now() else { return };
        if self.trace[at].thread != self.current {
            return;
        }
        let Ok(n) = u8::try_from(self.trace[at].touched.len()) else {
            return; // not recorded: the changes are then compared as the operation's
        };
        let th = &self.threads[t];
        let past: smallvec::SmallVec<[u32; 2]> = (th.last_event.into_iter())
            .chain(th.after.iter().copied())
            .collect();
        self.trace[at]
            .joined
            .extend(past.into_iter().map(|p| (n, p)));
    }

    /// Records that the running step changed `obj`'s state outside the step's own operation
    /// (see `switch::touch`).
    pub fn touch(&mut self, obj: super::op::ObjId, how: super::op::Touch) {
        let at = self.step_now();
        self.touch_at(at, obj, how);
    }

    /// The trace position of the step the running code belongs to: the trace's last, if it is
    /// the running thread's own, or the step that spawned the running thread if it has taken
    /// no step and waited for nothing since: its code up to its first visible operation runs
    /// right after that step in every schedule, and comes after nothing else (its
    /// happens-before past is that step's), so its changes are that step's. Code a thread runs
    /// right after a wake-up belongs to no step (`None`): the waking step's past is not the
    /// woken thread's, and recording the change on the waking step made it race with the
    /// woken thread's own earlier steps: its changes are recorded on the waking step apart
    /// ([`Execution::touch_at`], `Event::woke`).
    pub fn step_now(&self) -> Option<usize> {
        let at = self.trace.len().checked_sub(1)?;
        let me = &self.threads[self.current];
        let own = self.trace[at].thread == self.current;
        let just_spawned = me.last_event.is_none() && me.after[..] == [at as u32];
        (own || just_spawned).then_some(at)
    }

    /// [`Execution::touch`] on the step at trace position `at` (`None`: before any step, when
    /// only the main thread runs and nothing can be reordered).
    pub fn touch_at(&mut self, at: Option<usize>, obj: super::op::ObjId, how: super::op::Touch) {
        self.effects += 1;
        let Some(ev) = at.and_then(|at| self.trace.get_mut(at)) else {
            if at.is_none() {
                self.touch_woken(obj, how);
            }
            return;
        };
        // A change to the operation's own object is the operation's, as far as the
        // operation is taken to do anything its kind allows: an outcome that narrowed
        // what it did (a receive that only took one message) no longer tells all.
        // After a join in the step's code the change is no longer the operation's: it comes
        // after the joined thread (`Event::joined`), the operation need not.
        let own = how == super::op::Touch::Changed && ev.obj == Some(obj) && ev.joined.is_empty();
        if own {
            ev.outcome = super::op::Outcome::Unknown;
        } else if !ev.touched.contains(&(obj, how)) {
            ev.touched.push((obj, how));
        }
    }

    /// A change by code the running thread runs right after a wake-up, which belongs to no
    /// step: it runs right after the step that woke the thread (the trace's last, before any
    /// other step), so it is recorded there, with the thread's own past ([`Event::woke`]).
    /// Before any step nothing can be reordered, and nothing is recorded.
    ///
    /// [`Event::woke`]: super::op::Event::woke
    fn touch_woken(&mut self, obj: super::op::ObjId, how: super::op::Touch) {
        let Some(at) = self.trace.len().checked_sub(1) else {
            return;
        };
        let me = &self.threads[self.current];
        let past = (me.last_event.into_iter())
            .chain(me.after.iter().copied())
            .filter(|&p| p as usize != at)
            .collect();
        let thread = self.current;
        let change = super::op::WokenChange {
            thread,
            obj,
            how,
            past,
        };
        let ev = &mut self.trace[at];
        if !ev.woke.contains(&change) {
            ev.woke.push(change);
        }
    }

    /// What the model has seen so far: steps taken, and changes and cell accesses counted.
    /// Two marks that are equal enclose code that did nothing the model sees (see
    /// `sync::arc`, whose destructors are told apart by it).
    pub fn seen(&self) -> (usize, u64) {
        (self.trace.len(), self.effects)
    }

    pub fn hash_step(&mut self, parts: &[u64]) {
        for &p in parts {
            self.fingerprint = (self.fingerprint ^ p).wrapping_mul(FNV_PRIME);
        }
    }

    pub fn hash_location(&mut self, location_hash: u64) {
        self.locations = (self.locations ^ location_hash).wrapping_mul(FNV_PRIME);
    }
}

/// The steps the first execution on an OS thread makes room for: growing its trace by
/// doubling copied it into fresh pages several times, and a page touched for the first time
/// costs more than the copy (short explorations are decided by their first execution).
const FIRST_TRACE: usize = 64;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// A stable hash of a source location, independent of where the binary was built.
///
/// Every step's location is hashed several times (the fingerprint, the reductions' names of
/// events), and hashing the file name byte by byte was a visible share of an execution's
/// instructions: the hashes are kept in a small cache by the location's address (a
/// `&'static Location` of one call site is one address).
pub(crate) fn location_hash(loc: &'static Location<'static>) -> u64 {
    LOCATIONS.with(|cache| by_location(cache, loc, || hash_location_text(loc)))
}

/// `compute`'s value for `loc`, remembered in `cache`, a table direct-mapped by the location's
/// address (a `&'static Location` of one call site is one address, never 0): what a step asks
/// of its location at every step.
pub(crate) fn by_location<T: Copy>(
    cache: &[Cell<(usize, T)>],
    loc: &'static Location<'static>,
    compute: impl FnOnce() -> T,
) -> T {
    let addr = loc as *const Location<'static> as usize;
    let slot = &cache[(addr >> 3) % cache.len()];
    let (known, value) = slot.get();
    if known == addr {
        return value;
    }
    let value = compute();
    slot.set((addr, value));
    value
}

/// Slots of the cache of [`location_hash`], direct-mapped by address.
const LOCATION_CACHE: usize = 256;

thread_local! {
    static LOCATIONS: [Cell<(usize, u64)>; LOCATION_CACHE] =
        const { [const { Cell::new((0, 0)) }; LOCATION_CACHE] };
}

fn hash_location_text(loc: &Location<'_>) -> u64 {
    let mut h = FNV_OFFSET;
    for b in loc.file().bytes() {
        h = (h ^ b as u64).wrapping_mul(FNV_PRIME);
    }
    (h ^ ((loc.line() as u64) << 20 | loc.column() as u64)).wrapping_mul(FNV_PRIME)
}

/// What the thread-local pointer refers to while an execution runs.
pub(crate) struct Ctx {
    pub exec: RefCell<Execution>,
    pub chooser: RefCell<*mut dyn Chooser>,
    /// True while a model thread (not the scheduler) is running.
    pub in_thread: Cell<bool>,
}

/// The emptied tables of the last execution on this OS thread (see [`Execution::recycle`]).
#[derive(Default)]
struct Spare {
    threads: Vec<Thread>,
    queue: Vec<ThreadId>,
    spawns: Vec<(ThreadId, Box<dyn FnOnce()>)>,
    user_sites: Vec<(usize, super::site::Stack)>,
    objects: Option<Objects>,
}

thread_local! {
    static SPARE: Cell<Spare> = Cell::default();
    /// The length of the last trace an execution on this OS thread took.
    pub(crate) static TRACE_LENGTH: Cell<usize> = const { Cell::new(0) };
    /// The length of the last schedule an execution on this OS thread made.
    pub(crate) static DECISIONS_LENGTH: Cell<usize> = const { Cell::new(0) };
    /// A trace its explorer was done with, emptied (see [`recycle_trace`]).
    static SPARE_TRACE: Cell<Vec<Event>> = const { Cell::new(Vec::new()) };
    static CURRENT: Cell<*const Ctx> = const { Cell::new(std::ptr::null()) };
}

/// Installs `ctx` as the current execution until the guard drops.
pub(crate) struct Installed {
    previous: *const Ctx,
}

impl Installed {
    pub fn new(ctx: &Ctx) -> Self {
        let previous = CURRENT.with(|c| c.replace(ctx as *const Ctx));
        assert!(
            previous.is_null(),
            "symx: an exploration cannot be started from inside a model thread"
        );
        Installed { previous }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
    }
}

/// Gives an execution's trace back once its explorer is done with it: the next execution on
/// this OS thread records its steps into the same storage.
pub(crate) fn recycle_trace(mut trace: Vec<Event>) {
    trace.clear();
    SPARE_TRACE.set(trace);
}

/// True on an OS thread that runs an execution (between steps too).
pub(crate) fn installed() -> bool {
    !CURRENT.with(|c| c.get()).is_null()
}

/// The current execution's context, when a model thread of one is running.
pub(crate) fn ctx() -> Option<&'static Ctx> {
    let p = CURRENT.with(|c| c.get());
    // SAFETY: the pointer is set only by `Installed`, whose owner keeps the Ctx alive and
    // clears the pointer before dropping it; it is only read on the owning OS thread.
    let ctx = unsafe { p.as_ref()? };
    ctx.in_thread.get().then_some(ctx)
}

/// Runs `f` on the current execution, if a model thread is running.
pub(crate) fn with<R>(f: impl FnOnce(&mut Execution) -> R) -> Option<R> {
    ctx().map(|c| f(&mut c.exec.borrow_mut()))
}

/// True inside a model thread of a running execution.
pub(crate) fn in_model() -> bool {
    ctx().is_some()
}
