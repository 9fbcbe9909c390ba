//! `symx::sync::Once` and `OnceLock`: one-time initialisation whose state (incomplete,
//! running, complete, poisoned) lives in the object table, so a `static` starts every execution
//! afresh. Each call is one visible operation; a thread that finds another running the
//! initialiser waits in the object's queue and re-checks when the initialiser ends. Completion
//! publishes the initialiser's clock to every thread that observes it complete.
//!
//! What was done outside any model (a `Once` completed, a `OnceLock` set before exploring) is
//! every execution's initial state, as an atomic's stored value is.

use std::fmt;
use std::panic::Location;
use std::sync::atomic::Ordering;
use std::sync::{Mutex as StdMutex, PoisonError};

use crate::rt::op::Outcome;
use crate::rt::{self, ObjId, ObjKind, ObjRef, OpKind, Value, Wait};

/// The per-execution states, kept in the object's `value` slot of the object table.
const INCOMPLETE: u64 = 0;
const RUNNING: u64 = 1;
const COMPLETE: u64 = 2;
const POISONED: u64 = 3;

/// What a call found once it may proceed.
enum Turn {
    /// Complete; the caller has taken the initialiser's clock.
    Complete,
    /// Poisoned, and the caller does not force its way in.
    Poisoned,
    /// The caller runs the initialiser (the state is now `RUNNING`); `poisoned` if an earlier
    /// initialiser panicked.
    Run { poisoned: bool },
}

/// The part `Once` and `OnceLock` share: the object-table state and the wait queue.
#[derive(Debug)]
struct OnceCore {
    obj: ObjRef,
}

impl OnceCore {
    #[track_caller]
    const fn new() -> Self {
        OnceCore { obj: ObjRef::new() }
    }

    fn key(&self) -> usize {
        self as *const OnceCore as usize
    }

    #[track_caller]
    fn id(&self, type_name: &'static str, initially_complete: bool) -> Option<ObjId> {
        let initial = if initially_complete {
            COMPLETE
        } else {
            INCOMPLETE
        };
        let id = rt::with(|e| e.objects.of(&self.obj, ObjKind::Once, type_name, initial));
        if id.is_none() {
            rt::foreign::check(&self.obj, type_name, std::panic::Location::caller());
        }
        id
    }

    fn state(&self, id: ObjId) -> u64 {
        rt::with(|e| e.objects.get(id).value).unwrap_or(COMPLETE)
    }

    /// After the call's scheduling point: waits (without further scheduling points) while
    /// another thread runs the initialiser, then says what the caller should do.
    fn enter(&self, id: ObjId, force: bool, location: &'static Location<'static>) -> Turn {
        let mut waited = false;
        loop {
            let state = self.state(id);
            match state {
                COMPLETE => {
                    rt::with(|e| e.acquire_from(id, Ordering::SeqCst));
                    if !waited {
                        rt::switch::record_outcome(Outcome::OnlyRead);
                    }
                    return Turn::Complete;
                }
                POISONED if !force => return Turn::Poisoned,
                // A thread that is unwinding cannot be woken (the execution has failed
                // already), so it runs the initialiser itself rather than hang.
                RUNNING if !std::thread::panicking() => {
                    waited = true;
                    rt::wait(Wait {
                        key: self.key(),
                        obj: id,
                        wake: None,
                        spurious: false,
                        timeout: false,
                        location,
                        what: "another thread's initialisation",
                    })
                }
                _ => {
                    rt::with(|e| e.objects.get_mut(id).value = RUNNING);
                    return Turn::Run {
                        poisoned: state == POISONED,
                    };
                }
            }
        }
    }

    /// The initialiser ended in `state`: publish it and let the waiters re-check.
    fn finish(&self, id: ObjId, state: u64) {
        // The initialiser ends inside whatever step it last reached: that step changes the state.
        rt::switch::touch(id, rt::op::Touch::Changed);
        rt::with(|e| {
            e.objects.get_mut(id).value = state;
            if state == COMPLETE {
                e.release_to(id, Ordering::SeqCst, false);
            }
        });
        rt::notify(self.key(), true);
    }

    /// Whether the state is complete, without a scheduling point or happens-before (`Debug`).
    fn peek_complete(&self, id: ObjId) -> bool {
        self.state(id) == COMPLETE
    }
}

/// Ends the initialiser's run even when it panics: a `Once` is then poisoned and a `OnceLock`
/// stays empty, as std's are.
struct Running<'a> {
    core: &'a OnceCore,
    id: ObjId,
    end: u64,
}

impl Running<'_> {
    fn complete(mut self) {
        self.end = COMPLETE;
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.core.finish(self.id, self.end);
    }
}

/// One-time global initialisation.
pub struct Once {
    core: OnceCore,
    /// Used outside any model; its completion is every execution's initial state.
    outside: std::sync::Once,
}

/// What `call_once_force`'s closure is told: whether an earlier initialiser panicked.
#[derive(Debug)]
pub struct OnceState {
    poisoned: bool,
}

impl OnceState {
    /// Whether an earlier call's closure panicked (what `call_once_force` lets a closure see).
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }
}

impl Once {
    /// A new `Once` that has not run.
    #[allow(clippy::new_without_default)]
    #[track_caller]
    pub const fn new() -> Once {
        Once {
            core: OnceCore::new(),
            outside: std::sync::Once::new(),
        }
    }

    fn id(&self) -> Option<ObjId> {
        self.core.id("Once", self.outside.is_completed())
    }

    /// Runs `f` if no call has completed yet; a call that finds another running waits for it.
    /// Panics if an earlier initialiser panicked.
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        let location = Location::caller();
        let Some(id) = self.id() else {
            return self.outside.call_once(f);
        };
        rt::visible(OpKind::Once, Some(id), location);
        match self.core.enter(id, false, location) {
            Turn::Complete => {}
            Turn::Poisoned => panic!("Once instance has previously been poisoned"),
            Turn::Run { poisoned } => self.run(id, poisoned, |_| f()),
        }
    }

    /// As `call_once`, but runs `f` even when an earlier initialiser panicked.
    #[track_caller]
    pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
        let location = Location::caller();
        let Some(id) = self.id() else {
            return self.outside.call_once_force(|s| {
                f(&OnceState {
                    poisoned: s.is_poisoned(),
                })
            });
        };
        rt::visible(OpKind::Once, Some(id), location);
        if let Turn::Run { poisoned } = self.core.enter(id, true, location) {
            self.run(id, poisoned, f);
        }
    }

    /// Runs the initialiser; a panic in it poisons this execution's state.
    fn run(&self, id: ObjId, poisoned: bool, f: impl FnOnce(&OnceState)) {
        let running = Running {
            core: &self.core,
            id,
            end: POISONED,
        };
        f(&OnceState { poisoned });
        running.complete();
    }

    /// Whether a call has completed (a scheduling point; `true` synchronises with it).
    #[track_caller]
    pub fn is_completed(&self) -> bool {
        let Some(id) = self.id() else {
            return self.outside.is_completed();
        };
        rt::visible(OpKind::Once, Some(id), Location::caller());
        let done = self.core.state(id) == COMPLETE;
        if done {
            rt::with(|e| e.acquire_from(id, Ordering::SeqCst));
        }
        rt::record_value(Value::Flag(done));
        rt::switch::record_outcome(Outcome::OnlyRead);
        done
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}

/// A cell written once; a thread that reads the value synchronises with the write.
pub struct OnceLock<T> {
    core: OnceCore,
    /// A value set outside any model: every execution starts with it.
    outside: std::sync::OnceLock<T>,
    /// The value set inside an execution, tagged with that execution's generation. A value
    /// of an earlier execution is ignored, and leaked when replaced through `&self`: a `static`
    /// hands out `&'static T`, which may outlive the execution that set it.
    inside: StdMutex<Option<(u32, Box<T>)>>,
}

impl<T> OnceLock<T> {
    /// A new empty cell.
    #[track_caller]
    pub const fn new() -> OnceLock<T> {
        OnceLock {
            core: OnceCore::new(),
            outside: std::sync::OnceLock::new(),
            inside: StdMutex::new(None),
        }
    }

    fn id(&self) -> Option<ObjId> {
        self.core.id("OnceLock", self.outside.get().is_some())
    }

    fn inside(&self) -> std::sync::MutexGuard<'_, Option<(u32, Box<T>)>> {
        self.inside.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The current execution's value (outside any model: the one set outside), whatever the
    /// state says.
    fn stored(&self) -> Option<&T> {
        if let Some(generation) = rt::with(|e| e.objects.generation) {
            let inside = self.inside();
            if let Some((_, value)) = inside.as_ref().filter(|(g, _)| *g == generation) {
                let value: *const T = &**value;
                // SAFETY: the box is freed only through `&mut self` or `self`, never while a
                // `&self` borrow exists; replacing it through `&self` leaks it.
                return Some(unsafe { &*value });
            }
        }
        self.outside.get()
    }

    fn store(&self, value: T) {
        let generation = rt::with(|e| e.objects.generation).expect("inside a model");
        let stale = self.inside().replace((generation, Box::new(value)));
        // References into a stale value may still exist (see `inside`).
        std::mem::forget(stale);
    }

    /// The value, if set (a scheduling point; `Some` synchronises with the write).
    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        if let Some(id) = self.id() {
            rt::visible(OpKind::Once, Some(id), Location::caller());
            let done = self.core.state(id) == COMPLETE;
            rt::record_value(Value::Flag(done));
            rt::switch::record_outcome(Outcome::OnlyRead);
            if !done {
                return None;
            }
            rt::with(|e| e.acquire_from(id, Ordering::SeqCst));
        }
        self.stored()
    }

    /// Sets the value if none is set; waits while another thread initialises it.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let mut value = Some(value);
        self.get_or_init(|| value.take().expect("the initialiser runs once"));
        value.map_or(Ok(()), Err)
    }

    /// The value, set by `f` if none is. A call that finds another thread running its `f`
    /// waits for it; if `f` panics the cell stays empty.
    #[track_caller]
    pub fn get_or_init<F: FnOnce() -> T>(&self, f: F) -> &T {
        let location = Location::caller();
        let Some(id) = self.id() else {
            return self.outside.get_or_init(f);
        };
        rt::visible(OpKind::Once, Some(id), location);
        if let Turn::Run { .. } = self.core.enter(id, true, location) {
            let running = Running {
                core: &self.core,
                id,
                end: INCOMPLETE,
            };
            self.store(f());
            running.complete();
        }
        self.stored().expect("a complete OnceLock holds a value")
    }

    /// Exclusive access needs no synchronisation: `&mut self` proves nobody else has any.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        let generation = rt::with(|e| e.objects.generation);
        match self
            .inside
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
        {
            Some((g, value)) if Some(*g) == generation => Some(&mut **value),
            _ => self.outside.get_mut(),
        }
    }

    /// Empties the cell, returning its value; later calls in this execution see it empty.
    pub fn take(&mut self) -> Option<T> {
        let generation = rt::with(|e| {
            if let Some(id) = self.core.obj.get(e.objects.generation) {
                e.objects.get_mut(id).value = INCOMPLETE;
            }
            e.objects.generation
        });
        let inside = self
            .inside
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        match inside {
            Some((g, value)) if Some(g) == generation => Some(*value),
            // A stale value can be dropped here: `&mut self` proves nobody borrows it.
            _ => self.outside.take(),
        }
    }

    /// The value, if the cell holds one, consuming it.
    pub fn into_inner(mut self) -> Option<T> {
        self.take()
    }

    /// The value if this execution's state is complete, with no scheduling point (`Debug`).
    fn peek(&self) -> Option<&T> {
        match self.id() {
            Some(id) if !self.core.peek_complete(id) => None,
            _ => self.stored(),
        }
    }
}

impl<T> Default for OnceLock<T> {
    #[track_caller]
    fn default() -> Self {
        OnceLock::new()
    }
}

impl<T> From<T> for OnceLock<T> {
    /// A cell that is set from the start, in every execution that uses it.
    #[track_caller]
    fn from(value: T) -> Self {
        let cell = OnceLock::new();
        let _ = cell.outside.set(value);
        cell
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("OnceLock");
        match self.peek() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}

/// A value initialised on first access, once per execution (std's `LazyLock`): a `static`
/// `LazyLock` starts every execution uninitialised, as a fresh process would, and its value is
/// dropped when the execution's last thread ends. Each access is one visible operation, as a
/// [`OnceLock::get_or_init`]; a thread that finds another running the initialiser waits for it.
///
/// The initialiser runs once per execution, so it is `Fn` here rather than std's `FnOnce` (a
/// `fn` item or a closure that does not move out of its captures).
pub struct LazyLock<T, F = fn() -> T> {
    core: OnceCore,
    init: F,
    /// The value forced outside any model: every execution starts with it.
    outside: std::sync::OnceLock<T>,
}

impl<T, F: Fn() -> T> LazyLock<T, F> {
    /// A lazy value that `f` initialises. `const`, as in `std`: usable in statics.
    pub const fn new(f: F) -> LazyLock<T, F> {
        LazyLock {
            core: OnceCore::new(),
            init: f,
            outside: std::sync::OnceLock::new(),
        }
    }

    /// The value, initialising it in this execution if no thread has yet.
    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        let location = Location::caller();
        let Some(id) = this.core.id("LazyLock", this.outside.get().is_some()) else {
            return this.outside.get_or_init(&this.init);
        };
        rt::visible(OpKind::Once, Some(id), location);
        if let Turn::Run { .. } = this.core.enter(id, true, location) {
            let running = Running {
                core: &this.core,
                id,
                end: INCOMPLETE,
            };
            let value = crate::rt::locals::Erased::new((this.init)());
            rt::with(|e| e.set_static(id, value));
            running.complete();
        }
        match rt::with(|e| e.static_value(id)).flatten() {
            // SAFETY: the value is boxed in the execution and dropped only when the
            // execution's last thread ends or `this` is dropped, neither while `this` is
            // borrowed by a running thread.
            Some(ptr) => unsafe { &*(ptr as *const T) },
            None => this
                .outside
                .get()
                .expect("a complete LazyLock holds a value"),
        }
    }
}

impl<T, F: Fn() -> T> std::ops::Deref for LazyLock<T, F> {
    type Target = T;

    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T, F> Drop for LazyLock<T, F> {
    fn drop(&mut self) {
        let value = rt::with(|e| {
            let id = self.core.obj.get(e.objects.generation)?;
            e.take_static(id)
        });
        drop(value);
    }
}

impl<T: Default> Default for LazyLock<T> {
    fn default() -> Self {
        LazyLock::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyLock").finish_non_exhaustive()
    }
}
