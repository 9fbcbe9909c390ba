//! The stack with one bug planted, for the model tests to find.

use crate::Stack;

/// The bugs that can be planted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// `pop` frees the node it unlinked at once, without waiting for the threads that may be
    /// about to take a reference to it.
    FreeWithoutWaiting,
    /// Dropping the stack forgets the nodes still on it.
    ForgetNodesOnDrop,
}

/// A stack whose `pop` frees a node another popper may be about to use: a model finds a
/// popper's `Arc::increment_strong_count` on a node whose last reference is gone (a
/// use-after-free, reported as a panic-kind failure).
pub fn use_after_free<T: Clone>() -> Stack<T> {
    Stack::with_flaw(Some(Flaw::FreeWithoutWaiting))
}

/// A stack that leaks the nodes still on it when dropped: a model reports the nodes' `Arc`s
/// (and their tracked values) alive at the end of the execution (failure kind `leak`).
pub fn leaky<T: Clone>() -> Stack<T> {
    Stack::with_flaw(Some(Flaw::ForgetNodesOnDrop))
}
