//! What the code after a moved operation may change ([`Access::Touches`]): the accesses it
//! conflicts with, and how an event of a wakeup sequence comes to carry it and loses it.

use super::{Access, Ev};
use crate::rt::op::{Event, OpKind};

impl Access {
    /// Whether the code between two operations can change the access's object (an `Arc`'s
    /// count, a channel, a `Once`: see `Touch`), so that it conflicts with [`Access::Touches`]:
    /// not an atomic, a lock, a condvar, a park token or a barrier, which only operations
    /// change.
    ///
    /// The code between two operations changes an object the model sees only through
    /// `rt::switch::touch` (a step's `Touch`es, and a woken thread's, `Event::woke`), and
    /// reads one only so too (a read of an `Arc`'s count is recorded as a change). That is
    /// called on three kinds of object alone: an `Arc`'s count (clones, drops, count reads),
    /// a channel (a sender cloned or dropped, the receiver dropped) and a `Once` (its
    /// initialiser ends inside a step). Everything else is read and changed by operations
    /// only, each an event of its own; an event whose thread took another path where a
    /// reversal moved it may do another next operation, but that is another event, not its
    /// code's change. Per object kind of the accesses that are not touchable:
    /// - an atomic, a lock (its holder; the value it guards is another object, an atomic or
    ///   plain memory the model does not see), a barrier's count of arrivals (the declaration
    ///   at its first use in an execution, `Barrier::id`, sets the count it was built with,
    ///   the same whichever thread makes it and when): the accesses from [`Access::Read`] to
    ///   [`Access::UnlockShared`], [`Access::CountDown`], and a barrier wait before it ran
    ///   ([`Access::Signal`]);
    /// - a condvar ([`Access::Signal`], [`Access::ObserveSignal`]): its state is which threads
    ///   wait on it, which only a wait, a notify and a spurious wake-up change (each an
    ///   operation or a scheduler step); it holds no value, and a waiter borrows it until it is
    ///   woken. The mutex a wait releases is another object ([`Access::Unlock`]);
    /// - a thread's park token ([`Access::Signal`], [`Access::ObserveSignal`]): set by an
    ///   unpark, taken by a park, both operations; a `Thread` handle reads nothing else of it.
    ///   A park that waited clears it in the code right after its wake-up, which only the
    ///   park's own thread runs and whose park conflicts with every unpark of it anyway. The
    ///   thread's end, which a join waits for on the same object, is no access to it (it
    ///   enables the join).
    ///
    /// Left touchable, though the random programs do not show them changed so: user objects
    /// named by address (`wait_queue`, annotated locks and barriers, whose count
    /// `symx::barrier_init` resets from plain code; the arbitrary-context classes), which stay
    /// [`Access::Other`]; and, since channels are touched, a `recv_timeout`'s second look.
    pub const fn touchable(self) -> bool {
        !matches!(
            self,
            Access::None
                | Access::Read(_)
                | Access::Write(_)
                | Access::Lock(_)
                | Access::TryLock(_)
                | Access::TryLockOk(_)
                | Access::Shared(_)
                | Access::Unlock(_)
                | Access::UnlockShared(_)
                | Access::CountDown(..)
                | Access::Signal(_)
                | Access::ObserveSignal(_)
        )
    }

    /// Whether an operation of `kind` is on an object that only operations change (see
    /// [`Access::touchable`]): a condvar's wait, notify and spurious wake-up (only a
    /// condvar's waits may wake spuriously), a park, an unpark, a barrier wait.
    pub const fn on_signal(kind: OpKind) -> bool {
        matches!(
            kind,
            OpKind::CondvarWait
                | OpKind::NotifyOne
                | OpKind::NotifyAll
                | OpKind::SpuriousWake
                | OpKind::Park
                | OpKind::Unpark
                | OpKind::BarrierWait
        )
    }
}

impl Ev {
    /// Whether its step's code after the operation may change what it did not where it ran
    /// ([`Access::Touches`]).
    pub fn touches_unknown(&self) -> bool {
        self.accesses.contains(&Access::Touches)
    }

    /// Takes its step's code after the operation to change anything such code can
    /// ([`Access::Touches`]), besides what it changed where it ran.
    pub fn touches_anything(&mut self) {
        if !self.touches_unknown() {
            self.accesses.push(Access::Touches);
            if !self.exact.is_empty() {
                self.exact.push(Access::Touches);
            }
        }
    }

    /// Keeps only the accesses of its operation, which `step` ran again (the mutex a condvar
    /// wait releases too), dropping what its step's code and the threads it woke changed where
    /// it ran, for what they changed where it ran again. Its exact accesses (of the execution
    /// it came from) stay for its operation only where `exact`, since the changes added after
    /// have none of that execution: the caller's say, when there are none.
    pub fn keep_operation(&mut self, step: &Event, exact: bool) {
        self.accesses.truncate(1 + usize::from(step.obj2.is_some()));
        match exact {
            true => {
                let own = usize::from(step.obj.is_some()) + usize::from(step.obj2.is_some());
                self.exact.truncate(own);
            }
            false => self.exact.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::conflict_on_one_object;
    use super::*;
    use crate::rt::op::{Outcome, Value};

    /// The code between two operations changes an `Arc`'s count, a channel and a `Once` only:
    /// a condvar's, a park token's and a barrier's accesses, before and after they ran, are not
    /// touchable; those of a channel, a `Once` and a user's wait queue are.
    #[test]
    fn only_objects_that_code_changes_are_touchable() {
        let ran = |kind, outcome| Access::of(kind, 0).refined(kind, outcome, Value::None);
        let fixed = [
            ran(OpKind::CondvarWait, Outcome::Unknown),
            ran(OpKind::NotifyOne, Outcome::OnlyRead),
            ran(OpKind::NotifyAll, Outcome::Unknown),
            ran(OpKind::SpuriousWake, Outcome::Unknown),
            ran(OpKind::Park, Outcome::Unknown),
            ran(OpKind::Unpark, Outcome::TokenSet),
            ran(OpKind::Unpark, Outcome::Unknown),
            ran(OpKind::BarrierWait, Outcome::Arrived(1)),
        ];
        for a in fixed {
            assert!(!a.touchable() && !a.unrefined().touchable(), "{a:?}");
            assert!(conflict_on_one_object(a, a.unrefined()), "{a:?}");
        }
        let touched = [
            ran(OpKind::Once, Outcome::OnlyRead),
            ran(OpKind::Once, Outcome::Unknown),
            ran(OpKind::Recv, Outcome::Unknown),
            ran(OpKind::Send, Outcome::Queued(1)),
            ran(OpKind::QueueWait, Outcome::Unknown),
        ];
        for a in touched {
            assert!(a.touchable() && a.unrefined().touchable(), "{a:?}");
        }
    }
}
