//! loom's `future`: [`block_on`], which polls a future on the calling model thread and waits on
//! a loom [`Notify`] between polls (so a wake-up, and once a spurious
//! re-poll, are explored), and [`AtomicWaker`] built on a modelled mutex.

use std::future::Future;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use super::sync::Notify;
use crate::sync::Mutex;

/// The waker `block_on` hands its future: waking leaves a permit in the `Notify`.
struct NotifyWaker(Notify);

impl Wake for NotifyWaker {
    fn wake(self: StdArc<Self>) {
        self.0.notify();
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        self.0.notify();
    }
}

/// Runs `f` to completion on the calling model thread: polls it, and between polls waits for
/// its waker (or, once, re-polls without one, as a spurious wake-up would).
#[track_caller]
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let notify = StdArc::new(NotifyWaker(Notify::new()));
    let waker = Waker::from(notify.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(value) = f.as_mut().poll(&mut cx) {
            return value;
        }
        notify.0.wait();
    }
}

/// loom's `AtomicWaker`: holds one waker; `wake` takes and wakes it. Each call is a modelled
/// lock of its slot, so registering and waking race as the real one's do.
#[derive(Debug, Default)]
pub struct AtomicWaker {
    waker: Mutex<Option<Waker>>,
}

impl AtomicWaker {
    /// An `AtomicWaker` without a waker.
    pub fn new() -> AtomicWaker {
        AtomicWaker::default()
    }

    /// Stores `waker`, replacing the one registered before.
    #[track_caller]
    pub fn register(&self, waker: Waker) {
        *self.slot() = Some(waker);
    }

    /// Stores a clone of `waker` unless the registered one would wake the same task.
    #[track_caller]
    pub fn register_by_ref(&self, waker: &Waker) {
        let mut slot = self.slot();
        if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }

    /// Wakes the registered waker, if any, and forgets it.
    #[track_caller]
    pub fn wake(&self) {
        if let Some(waker) = self.take_waker() {
            waker.wake();
        }
    }

    /// Takes the registered waker, if any.
    #[track_caller]
    pub fn take_waker(&self) -> Option<Waker> {
        self.slot().take()
    }

    #[track_caller]
    fn slot(&self) -> crate::sync::MutexGuard<'_, Option<Waker>> {
        self.waker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
