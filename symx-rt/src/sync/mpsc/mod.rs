//! `symx::sync::mpsc`: std's channels, unbounded (`channel`), bounded (`sync_channel(n)`) and
//! rendezvous (`sync_channel(0)`). Each send and receive is one visible operation; one that
//! must block waits in the channel's queue (the receiver for a message, a sender for space or
//! for its value to be taken) and retries when woken.
//!
//! Happens-before: a message carries its sender's clock to its receiver; in a rendezvous the
//! receiver's take also happens before the sender's return; dropping a `Sender` (or the
//! `Receiver`) happens before the other side observes the disconnection. Nothing else: two
//! senders are not ordered by sending to the same channel.
//!
//! Dropping the last `Sender` while the `Receiver` lives, or the `Receiver` while a sender
//! lives, is a scheduling point (reported where that handle was made), because the other side
//! can tell whether it happened yet; other drops are not. Channels are not `const`, so they are
//! made inside the model and every execution starts with empty ones.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::Arc as StdArc;
use std::time::Duration;

pub use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};

mod chan;

use chan::Chan;

/// The sending half of an unbounded [`channel`]; `send` never blocks.
pub struct Sender<T> {
    chan: StdArc<Chan<T>>,
    /// Where this handle was made: its drop is reported there.
    at: &'static Location<'static>,
}

/// The sending half of a [`sync_channel`]; `send` blocks while the channel is full, and in a
/// rendezvous channel until the receiver takes the value.
pub struct SyncSender<T> {
    chan: StdArc<Chan<T>>,
    at: &'static Location<'static>,
}

/// The receiving half of a channel.
pub struct Receiver<T> {
    chan: StdArc<Chan<T>>,
    at: &'static Location<'static>,
    /// As std's: a receiver may move between threads but not be shared.
    _not_sync: PhantomData<Cell<()>>,
}

/// An unbounded channel.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let at = Location::caller();
    let chan = StdArc::new(Chan::new(None));
    let tx = Sender {
        chan: chan.clone(),
        at,
    };
    (tx, Receiver::new(chan, at))
}

/// A channel holding at most `bound` values; with `0`, every send waits for a receive.
#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    let at = Location::caller();
    let chan = StdArc::new(Chan::new(Some(bound)));
    let tx = SyncSender {
        chan: chan.clone(),
        at,
    };
    (tx, Receiver::new(chan, at))
}

impl<T> Sender<T> {
    /// Queues `t` (a scheduling point); gives it back if the receiver is gone.
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        self.chan.send(t, "Sender::send", Location::caller())
    }
}

impl<T> SyncSender<T> {
    /// Queues `t` (a scheduling point), waiting for space or, in a rendezvous channel, for the
    /// receiver to take it; gives it back if the receiver is gone.
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        self.chan.send(t, "SyncSender::send", Location::caller())
    }

    /// Queues `t` if there is space (in a rendezvous channel: if the receiver is waiting), as
    /// a scheduling point that never blocks.
    #[track_caller]
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        self.chan.try_send(t, Location::caller())
    }
}

impl<T> Clone for Sender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        self.chan.add_sender();
        Sender {
            chan: self.chan.clone(),
            at: Location::caller(),
        }
    }
}

impl<T> Clone for SyncSender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        self.chan.add_sender();
        SyncSender {
            chan: self.chan.clone(),
            at: Location::caller(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.chan.drop_sender(self.at);
    }
}

impl<T> Drop for SyncSender<T> {
    fn drop(&mut self) {
        self.chan.drop_sender(self.at);
    }
}

impl<T> Receiver<T> {
    fn new(chan: StdArc<Chan<T>>, at: &'static Location<'static>) -> Self {
        Receiver {
            chan,
            at,
            _not_sync: PhantomData,
        }
    }

    /// Takes the next value, waiting for one; `Err` once the channel is empty and every
    /// sender is gone.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        self.chan.recv(Location::caller())
    }

    /// Takes the next value if there is one (a scheduling point that never blocks).
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.chan.try_recv(Location::caller())
    }

    /// As `recv`, but time does not pass in a model: if nothing is there, the thread gives
    /// way to the others once, and then times out unless a value came.
    #[track_caller]
    pub fn recv_timeout(&self, _timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.chan.recv_timeout(Location::caller())
    }

    /// Values until every sender is gone (each `next` is a `recv`).
    #[track_caller]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter {
            rx: self,
            at: Location::caller(),
        }
    }

    /// The values there are now (each `next` is a `try_recv`).
    #[track_caller]
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter {
            rx: self,
            at: Location::caller(),
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.chan.drop_receiver(self.at);
    }
}

/// [`Receiver::iter`]: reports each `recv` where the iterator was made.
pub struct Iter<'a, T: 'a> {
    rx: &'a Receiver<T>,
    at: &'static Location<'static>,
}

/// [`Receiver::try_iter`].
pub struct TryIter<'a, T: 'a> {
    rx: &'a Receiver<T>,
    at: &'static Location<'static>,
}

/// `Receiver::into_iter`.
pub struct IntoIter<T> {
    rx: Receiver<T>,
    at: &'static Location<'static>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.chan.recv(self.at).ok()
    }
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.chan.try_recv(self.at).ok()
    }
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.chan.recv(self.at).ok()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    #[track_caller]
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    #[track_caller]
    fn into_iter(self) -> IntoIter<T> {
        IntoIter {
            rx: self,
            at: Location::caller(),
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for SyncSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncSender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for TryIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryIter").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter").finish_non_exhaustive()
    }
}
