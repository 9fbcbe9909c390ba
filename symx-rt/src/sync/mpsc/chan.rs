//! A channel's shared state ([`Chan`]) and its visible operations: send, receive, the
//! blocking and retrying of each, and the drops that disconnect. The handles in the parent
//! module are thin wrappers around it.

use std::collections::VecDeque;
use std::panic::Location;
use std::sync::{Mutex as StdMutex, MutexGuard as StdGuard, PoisonError};

use super::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
use crate::rt::clock::VClock;
use crate::rt::op::{Op, Outcome, Touch};
use crate::rt::{self, ObjId, ObjKind, ObjRef, OpKind, Wait};

/// A value in flight, with its sender's clock.
struct Message<T> {
    value: T,
    clock: VClock,
    /// Rendezvous: the ticket of the sender that waits until this value is taken.
    ticket: Option<u64>,
    /// The channel's n-th message (from 1), which names it to the partial-order reduction.
    seq: u32,
    /// The trace position of the step that queued it.
    sent_at: Option<u32>,
}

struct State<T> {
    queue: VecDeque<Message<T>>,
    senders: usize,
    receiver: bool,
    /// Rendezvous: the receiver is blocked in `recv` and nothing is queued for it yet, so a
    /// `try_send` can hand a value over.
    receiver_waiting: bool,
    /// Rendezvous: tickets whose value was taken, with the receiver's clock at the take.
    taken: Vec<(u64, VClock)>,
    next_ticket: u64,
    /// Messages queued so far.
    sent: u32,
    /// The trace position of the step in which the last sender went away.
    gone_at: Option<u32>,
    /// Published by every dropped sender; taken by whoever sees that all are gone.
    senders_gone: VClock,
    /// Published by the dropped receiver; taken by a send that finds it gone.
    receiver_gone: VClock,
}

/// The shared channel. Its lock is only ever held inside one step, never across a
/// scheduling point, and no user code (a message's destructor) runs under it.
pub(super) struct Chan<T> {
    obj: ObjRef,
    /// `None`: unbounded; `Some(0)`: rendezvous.
    bound: Option<usize>,
    state: StdMutex<State<T>>,
}

/// What one attempt to send did.
enum Offer<T> {
    Sent,
    /// Rendezvous: queued; the sender waits until the ticket's value is taken.
    Offered(u64),
    Full(T),
    Disconnected(T),
}

fn timed_out(e: TryRecvError) -> RecvTimeoutError {
    match e {
        TryRecvError::Empty => RecvTimeoutError::Timeout,
        TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
    }
}

#[track_caller]
fn would_block(op: &str, why: &str) -> ! {
    panic!("symx::sync::mpsc::{op} would block forever outside a symx model ({why})")
}

impl<T> Chan<T> {
    #[track_caller]
    pub(super) fn new(bound: Option<usize>) -> Self {
        Chan {
            obj: ObjRef::holding::<State<T>>(),
            bound,
            state: StdMutex::new(State {
                queue: VecDeque::new(),
                senders: 1,
                receiver: true,
                receiver_waiting: false,
                taken: Vec::new(),
                next_ticket: 0,
                sent: 0,
                gone_at: None,
                senders_gone: VClock::new(),
                receiver_gone: VClock::new(),
            }),
        }
    }

    fn state(&self) -> StdGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[track_caller]
    fn id(&self) -> Option<ObjId> {
        let id = rt::with(|e| e.objects.of(&self.obj, ObjKind::Channel, "Channel", 0));
        if id.is_none() {
            rt::foreign::check(&self.obj, "channel", std::panic::Location::caller());
        }
        id
    }

    /// Tells the scheduler whether a blocking `recv` can take something now (see
    /// `ChannelState`); `receiving` also says whether the receiver's pending operation is one.
    /// Only on unbounded channels, whose receives conflict only with the send of the message
    /// they take: a bounded channel's receive conflicts with every send (a send may find it
    /// full), so reversals would keep asking for it where it cannot run; and a rendezvous
    /// receive's waiting is what lets a `try_send` hand a value over.
    fn publish(&self, st: &State<T>, receiving: Option<bool>) {
        let takeable = !st.queue.is_empty() || st.senders == 0;
        let unbounded = self.bound.is_none();
        rt::with(|e| {
            let Some(id) = self.obj.get(e.objects.generation) else {
                return;
            };
            let channel = e.objects.get_mut(id).channel.get_or_insert_default();
            channel.takeable = takeable;
            if let Some(r) = receiving {
                channel.receiving = r && unbounded;
            }
        });
    }

    /// The queue the receiver waits in.
    fn recv_key(&self) -> usize {
        &self.state as *const StdMutex<State<T>> as usize
    }

    /// The queue senders wait in.
    fn send_key(&self) -> usize {
        &self.obj as *const ObjRef as usize
    }

    fn rendezvous(&self) -> bool {
        self.bound == Some(0)
    }

    /// Waits under `key` until notified; the thread's next step is `retry` (with `None` it runs
    /// on at once). `false` when the thread is unwinding: the execution has already failed and
    /// nobody would wake it, so the caller gives up instead.
    fn block(
        &self,
        key: usize,
        id: ObjId,
        retry: Option<OpKind>,
        location: &'static Location<'static>,
        what: &'static str,
    ) -> bool {
        if std::thread::panicking() {
            return false;
        }
        rt::wait(Wait {
            key,
            obj: id,
            wake: retry.map(|kind| Op {
                kind,
                obj: Some(id),
                obj2: None,
                location,
            }),
            spurious: false,
            timeout: false,
            location,
            what,
        });
        true
    }

    /// One attempt to send, inside the caller's step. `wait_for_taker`: a rendezvous value may
    /// be queued for the sender to wait on; otherwise it goes only to a waiting receiver.
    fn offer(&self, value: T, wait_for_taker: bool) -> Offer<T> {
        let mut st = self.state();
        if !st.receiver {
            let gone = st.receiver_gone.clone();
            drop(st);
            rt::with(|e| e.sync_clock(&gone));
            return Offer::Disconnected(value);
        }
        let ticket = match self.bound {
            Some(0) if wait_for_taker => {
                st.next_ticket += 1;
                Some(st.next_ticket)
            }
            Some(0) if st.receiver_waiting => None,
            Some(cap) if st.queue.len() >= cap => return Offer::Full(value),
            _ => None,
        };
        let clock = rt::with(|e| e.sync_clock(&VClock::new())).unwrap_or_default();
        st.sent += 1;
        let seq = st.sent;
        st.queue.push_back(Message {
            value,
            clock,
            ticket,
            seq,
            sent_at: rt::switch::my_step(),
        });
        if self.bound.is_none() {
            rt::switch::record_outcome(Outcome::Queued(seq));
        }
        // The waiting receiver is spoken for by this value.
        st.receiver_waiting = false;
        self.publish(&st, None);
        drop(st);
        rt::notify(self.recv_key(), false);
        ticket.map_or(Offer::Sent, Offer::Offered)
    }

    /// `send` of either sender: a scheduling point, then a retry each time space frees up; a
    /// rendezvous send then waits until its value is taken.
    pub(super) fn send(
        &self,
        mut value: T,
        op: &str,
        location: &'static Location<'static>,
    ) -> Result<(), SendError<T>> {
        let id = self.id();
        rt::visible(OpKind::Send, id, location);
        loop {
            value = match self.offer(value, id.is_some()) {
                Offer::Sent => return Ok(()),
                Offer::Offered(ticket) => return self.await_taken(ticket, id, location),
                Offer::Disconnected(v) => return Err(SendError(v)),
                Offer::Full(v) => v,
            };
            let Some(id) = id else {
                would_block(op, "no receiver can take the value");
            };
            if !self.block(
                self.send_key(),
                id,
                Some(OpKind::Send),
                location,
                "space in the channel",
            ) {
                return Err(SendError(value));
            }
        }
    }

    /// Rendezvous: waits until the receiver has taken the value of `ticket`, then takes the
    /// receiver's clock; if the receiver goes away first, takes the value back.
    fn await_taken(
        &self,
        ticket: u64,
        id: Option<ObjId>,
        location: &'static Location<'static>,
    ) -> Result<(), SendError<T>> {
        let id = id.expect("values are queued for a taker only inside a model");
        loop {
            let mut st = self.state();
            if let Some(i) = st.taken.iter().position(|&(t, _)| t == ticket) {
                let (_, clock) = st.taken.swap_remove(i);
                drop(st);
                rt::with(|e| e.sync_clock(&clock));
                return Ok(());
            }
            let receiver = st.receiver;
            drop(st);
            if !receiver
                || !self.block(
                    self.send_key(),
                    id,
                    None,
                    location,
                    "a receiver to take the value",
                )
            {
                return Err(SendError(self.withdraw(ticket)));
            }
        }
    }

    /// Takes back the untaken value of `ticket`.
    fn withdraw(&self, ticket: u64) -> T {
        let mut st = self.state();
        let i = st.queue.iter().position(|m| m.ticket == Some(ticket));
        let value = st
            .queue
            .remove(i.expect("an untaken value stays queued"))
            .expect("in range")
            .value;
        let gone = st.receiver_gone.clone();
        drop(st);
        rt::with(|e| e.sync_clock(&gone));
        value
    }

    /// One attempt to receive, inside the caller's step. `awaited`: by a blocking `recv`, which
    /// could not have run before the message it takes was sent (it is enabled only while
    /// something is queued, and every earlier message was taken by its own earlier receives).
    fn take(&self, awaited: bool) -> Result<T, TryRecvError> {
        let mut st = self.state();
        st.receiver_waiting = false;
        let popped = st.queue.pop_front();
        self.publish(&st, Some(false));
        let Some(message) = popped else {
            if st.senders > 0 {
                return Err(TryRecvError::Empty);
            }
            let gone = st.senders_gone.clone();
            let gone_at = st.gone_at.filter(|_| awaited && self.bound.is_none());
            drop(st);
            rt::with(|e| e.sync_clock(&gone));
            if let Some(at) = gone_at {
                rt::switch::record_enabler(at);
            }
            return Err(TryRecvError::Disconnected);
        };
        let clock = rt::with(|e| e.sync_clock(&message.clock)).unwrap_or_default();
        if self.bound.is_none() {
            rt::switch::record_outcome(Outcome::Took(message.seq));
        }
        if let Some(at) = message.sent_at.filter(|_| awaited && self.bound.is_none()) {
            rt::switch::record_enabler(at);
        }
        if let Some(ticket) = message.ticket {
            st.taken.push((ticket, clock));
        }
        drop(st);
        // A slot is free (one sender may use it), or an offering sender may return (each
        // checks whether its own value was taken).
        rt::notify(self.send_key(), self.rendezvous());
        Ok(message.value)
    }

    /// `SyncSender::try_send`: one scheduling point that queues `value` if there is space (in
    /// a rendezvous channel: if the receiver is waiting) and never blocks.
    pub(super) fn try_send(
        &self,
        value: T,
        location: &'static Location<'static>,
    ) -> Result<(), TrySendError<T>> {
        rt::visible(OpKind::Send, self.id(), location);
        match self.offer(value, false) {
            Offer::Full(v) => Err(TrySendError::Full(v)),
            Offer::Disconnected(v) => Err(TrySendError::Disconnected(v)),
            Offer::Sent | Offer::Offered(_) => Ok(()),
        }
    }

    pub(super) fn recv(&self, location: &'static Location<'static>) -> Result<T, RecvError> {
        let id = self.id();
        // Enabled only once there is something to take: a receive that would find nothing is
        // no step of its own (it would conflict with every send).
        self.publish(&self.state(), Some(true));
        rt::visible(OpKind::Recv, id, location);
        loop {
            match self.take(true) {
                Ok(v) => return Ok(v),
                Err(TryRecvError::Disconnected) => return Err(RecvError),
                Err(TryRecvError::Empty) => {}
            }
            let Some(id) = id else {
                would_block(
                    "Receiver::recv",
                    "the channel is empty and a sender is alive",
                );
            };
            self.state().receiver_waiting = true;
            if !self.block(
                self.recv_key(),
                id,
                Some(OpKind::Recv),
                location,
                "a message",
            ) {
                return Err(RecvError);
            }
        }
    }

    pub(super) fn try_recv(&self, location: &'static Location<'static>) -> Result<T, TryRecvError> {
        rt::visible(OpKind::Recv, self.id(), location);
        self.take(false)
    }

    /// Time does not pass in a model: when nothing is there, the thread gives way (as
    /// `thread::sleep` does) and the timeout expires unless a message came meanwhile.
    pub(super) fn recv_timeout(
        &self,
        location: &'static Location<'static>,
    ) -> Result<T, RecvTimeoutError> {
        let id = self.id();
        rt::visible(OpKind::Recv, id, location);
        match self.take(false) {
            Err(TryRecvError::Empty) => {
                rt::visible(OpKind::Yield, id, location);
                self.take(false).map_err(timed_out)
            }
            other => other.map_err(timed_out),
        }
    }

    pub(super) fn add_sender(&self) {
        self.state().senders += 1;
    }

    /// A sender goes away; the last one wakes the receiver to see the disconnection.
    pub(super) fn drop_sender(&self, location: &'static Location<'static>) {
        let observable = {
            let st = self.state();
            st.senders == 1 && st.receiver
        };
        if observable {
            // This step read that the other senders are gone: it depends on their drops
            // (before them, it would have been one of those drops).
            if let Some(id) = self.id() {
                rt::switch::touch(id, Touch::CountedSenders);
            }
            // Pending, it is already the last sender's drop: this thread holds the only
            // sender, so none can be added before it runs (the receiver may go meanwhile,
            // which commutes with it).
            rt::visible(OpKind::SendersGone, self.id(), location);
        } else if rt::in_model() && self.state().receiver {
            // Not the last sender: the step that drops it must come before the last one's
            // disconnect, and commutes with everything else.
            if let Some(id) = self.id() {
                rt::switch::touch(id, Touch::DroppedSender);
            }
        } else if self.state().senders == 1 {
            // The last sender, after the receiver went away: the step that decides this drop
            // is no step of its own read that the receiver is gone, so it depends on that
            // going away (before it, the drop would have been a disconnect the receiver sees).
            if let Some(id) = rt::with(|e| self.obj.get(e.objects.generation)).flatten() {
                rt::switch::touch(id, Touch::Changed);
            }
        }
        let mut st = self.state();
        st.senders -= 1;
        if let Some(clock) = rt::with(|e| e.sync_clock(&VClock::new())) {
            st.senders_gone.join(&clock);
        }
        let gone = st.senders == 0;
        if gone {
            st.gone_at = rt::switch::my_step();
        }
        self.publish(&st, None);
        drop(st);
        if gone {
            rt::notify(self.recv_key(), true);
        }
    }

    /// The receiver goes away: queued values are dropped now, as std does, except those whose
    /// senders wait in a rendezvous (they take them back); every waiting sender is woken.
    pub(super) fn drop_receiver(&self, location: &'static Location<'static>) {
        let observable = self.state().senders > 0;
        if let Some(id) = rt::with(|e| self.obj.get(e.objects.generation)).flatten() {
            // The step that decides whether this drop is a step of its own reads whether the
            // last sender went away: it depends on that going away.
            rt::switch::touch(id, Touch::Changed);
        }
        if observable {
            rt::visible(OpKind::ReceiverGone, self.id(), location);
        }
        let mut st = self.state();
        st.receiver = false;
        st.receiver_waiting = false;
        if let Some(clock) = rt::with(|e| e.sync_clock(&VClock::new())) {
            st.receiver_gone = clock;
        }
        let queued = std::mem::take(&mut st.queue);
        let (waited_on, lost): (VecDeque<_>, VecDeque<_>) =
            queued.into_iter().partition(|m| m.ticket.is_some());
        st.queue = waited_on;
        drop(st);
        rt::notify(self.send_key(), true);
        drop(lost);
    }
}
