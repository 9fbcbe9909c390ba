//! A lock-free Treiber stack whose nodes are `Arc`s linked by raw pointers
//! (`Arc::into_raw`/`Arc::from_raw`), with each node's value in a `Track` so that a model finds
//! a node that is never freed. Popping is the hard part: between loading the head and taking a
//! reference to it, another thread may pop that node and drop the stack's reference, the last
//! one. [`Stack`] closes that window with a count of threads inside it: a popper frees the
//! node it unlinked only once no thread is in the window (a quiescent point, as in
//! quiescent-state reclamation).
//!
//! The same stack with a bug planted is kept in [`broken`], each with what a model reports:
//! [`broken::use_after_free`] frees without waiting (a popper's `increment_strong_count` on a
//! node another popper already freed), [`broken::leaky`] forgets its nodes when dropped.
//!
//! The crate swaps std's types for loom's under `cfg(loom)` (see `sync`); its model tests run
//! under symx through symx's loom API: `cargo test -p treiber-stack`.

mod sync;

pub mod broken;

use std::ptr;
use std::sync::atomic::Ordering::SeqCst;

use sync::{spin_loop, Arc, AtomicPtr, AtomicUsize, Track};

/// A node: its value and the next node (a pointer from `Arc::into_raw`, or null).
struct Node<T> {
    value: Track<T>,
    next: AtomicPtr<Node<T>>,
}

/// A lock-free LIFO stack (see the crate documentation for how it frees nodes).
pub struct Stack<T> {
    /// The top node, owning one strong reference (from `Arc::into_raw`), or null.
    head: AtomicPtr<Node<T>>,
    /// Threads between loading `head` and holding a reference of their own to it.
    in_window: AtomicUsize,
    /// The bug planted in this stack, if any (see [`broken`]).
    flaw: Option<broken::Flaw>,
}

impl<T: Clone> Default for Stack<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone> Stack<T> {
    /// An empty stack.
    pub fn new() -> Self {
        Self::with_flaw(None)
    }

    fn with_flaw(flaw: Option<broken::Flaw>) -> Self {
        Stack {
            head: AtomicPtr::new(ptr::null_mut()),
            in_window: AtomicUsize::new(0),
            flaw,
        }
    }

    /// Pushes `value` on top.
    pub fn push(&self, value: T) {
        let node = Arc::into_raw(Arc::new(Node {
            value: Track::new(value),
            next: AtomicPtr::new(ptr::null_mut()),
        })) as *mut Node<T>;
        loop {
            let head = self.head.load(SeqCst);
            // SAFETY: `node` is ours until the compare-exchange publishes it.
            unsafe { (*node).next.store(head, SeqCst) };
            if self
                .head
                .compare_exchange(head, node, SeqCst, SeqCst)
                .is_ok()
            {
                return;
            }
        }
    }

    /// Pops the top value, if any.
    pub fn pop(&self) -> Option<T> {
        let (node, unlinked) = self.unlink()?;
        let value = node.value.get_ref().clone();
        // Wait until no thread can still be about to take a reference to `unlinked`; then the
        // stack's own reference can go.
        while self.flaw != Some(broken::Flaw::FreeWithoutWaiting)
            && self.in_window.load(SeqCst) != 0
        {
            spin_loop();
        }
        // SAFETY: `unlinked` carried the stack's reference, which nobody else will release.
        drop(unsafe { Arc::from_raw(unlinked) });
        Some(value)
    }

    /// Unlinks the top node: returns a reference of our own to it and the pointer that carried
    /// the stack's reference.
    fn unlink(&self) -> Option<(Arc<Node<T>>, *const Node<T>)> {
        loop {
            self.in_window.fetch_add(1, SeqCst);
            let head = self.head.load(SeqCst);
            if head.is_null() {
                self.in_window.fetch_sub(1, SeqCst);
                return None;
            }
            // SAFETY: while we are in the window, no popper frees `head`.
            let node = unsafe {
                Arc::increment_strong_count(head);
                Arc::from_raw(head)
            };
            self.in_window.fetch_sub(1, SeqCst);
            let next = node.next.load(SeqCst);
            if self
                .head
                .compare_exchange(head, next, SeqCst, SeqCst)
                .is_ok()
            {
                return Some((node, head));
            }
        }
    }
}

impl<T> Drop for Stack<T> {
    fn drop(&mut self) {
        if self.flaw == Some(broken::Flaw::ForgetNodesOnDrop) {
            return;
        }
        let mut p = self.head.load(SeqCst);
        while !p.is_null() {
            // SAFETY: `&mut self`: every node still linked carries the stack's reference.
            let node = unsafe { Arc::from_raw(p) };
            p = node.next.load(SeqCst);
        }
    }
}

#[cfg(test)]
mod tests;
