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

use crate::rt::op::Op;
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
    const fn new() -> Self {
        OnceCore { obj: ObjRef::new() }
    }

    fn key(&self) -> usize {
        self as *const OnceCore as usize
    }

    fn id(&self, type_name: &'static str, initially_complete: bool) -> Option<ObjId> {
        let initial = if initially_complete { COMPLETE } else { INCOMPLETE };
        rt::with(|e| e.objects.of(&self.obj, ObjKind::Once, type_name, initial))
    }

    fn state(&self, id: ObjId) -> u64 {
        rt::with(|e| e.objects.get(id).value).unwrap_or(COMPLETE)
    }

    /// After the call's scheduling point: waits (without further scheduling points) while
    /// another thread runs the initialiser, then says what the caller should do.
    fn enter(&self, id: ObjId, force: bool, location: &'static Location<'static>) -> Turn {
        loop {
            let state = self.state(id);
            match state {
                COMPLETE => {
                    rt::with(|e| e.acquire_from(id, Ordering::SeqCst));
                    return Turn::Complete;
                }
                POISONED if !force => return Turn::Poisoned,
                // A thread that is unwinding cannot be woken (the execution has failed
                // already), so it runs the initialiser itself rather than hang.
                RUNNING if !std::thread::panicking() => rt::wait(Wait {
                    key: self.key(),
                    obj: id,
                    wake: None,
                    spurious: false,
                    location,
                    what: "another thread's initialisation",
                }),
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
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }
}

impl Once {
    #[allow(clippy::new_without_default)]
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
            Turn::Run { .. } => self.run(id, |_| f()),
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
            self.run(id, |state| f(state));
            let _ = poisoned;
        }
    }

    fn run(&self, id: ObjId, f: impl FnOnce(&OnceState)) {
        let poisoned = false;
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
        done
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}
