//! A bounded multi-producer multi-consumer queue: a `Mutex` around a `VecDeque`, a `Condvar`
//! for "not empty" and one for "not full", and a `close` that lets consumers drain and stop.
//! An ordinary library written against std: its synchronization is named once, in its private
//! `sync` module, which swaps std's types for symx's models under `cfg(symx)`, so that
//! `cargo symx test` explores the library's own code (see `docs/testing-a-library.md`).
//!
//! ```
//! let queue = bounded_queue::BoundedQueue::new(2);
//! queue.push(1).unwrap();
//! queue.close();
//! assert_eq!(queue.pop(), Some(1));
//! assert_eq!(queue.pop(), None);
//! ```

use std::collections::VecDeque;

mod sync;

pub mod seeded_bug;

use sync::{AtomicUsize, Condvar, Mutex, MutexGuard, Ordering};

/// What the lock protects.
struct State<T> {
    items: VecDeque<T>,
    closed: bool,
}

/// A queue of at most `capacity` items; `push` waits while it is full, `pop` while it is empty.
pub struct BoundedQueue<T> {
    state: Mutex<State<T>>,
    not_empty: Condvar,
    not_full: Condvar,
    capacity: usize,
    /// The number of items, readable without the lock (written under it).
    len: AtomicUsize,
}

/// The queue was closed: the item that could not be pushed.
#[derive(Debug, PartialEq, Eq)]
pub struct Closed<T>(pub T);

impl<T> BoundedQueue<T> {
    /// An empty queue for at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> BoundedQueue<T> {
        assert!(capacity > 0, "a bounded queue holds at least one item");
        BoundedQueue {
            state: Mutex::new(State {
                items: VecDeque::with_capacity(capacity),
                closed: false,
            }),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            capacity,
            len: AtomicUsize::new(0),
        }
    }

    /// Appends `item`, waiting while the queue is full; `Err` once the queue is closed.
    pub fn push(&self, item: T) -> Result<(), Closed<T>> {
        let mut state = self.lock();
        while state.items.len() == self.capacity && !state.closed {
            state = self.not_full.wait(state).unwrap();
        }
        if state.closed {
            return Err(Closed(item));
        }
        self.append(&mut state, item);
        Ok(())
    }

    /// Appends `item` if there is room now; gives it back otherwise.
    pub fn try_push(&self, item: T) -> Result<(), T> {
        let mut state = self.lock();
        if state.closed || state.items.len() == self.capacity {
            return Err(item);
        }
        self.append(&mut state, item);
        Ok(())
    }

    /// The oldest item, waiting while the queue is empty; `None` once it is closed and drained.
    pub fn pop(&self) -> Option<T> {
        let mut state = self.lock();
        loop {
            if let Some(item) = self.take(&mut state) {
                return Some(item);
            }
            if state.closed {
                return None;
            }
            state = self.not_empty.wait(state).unwrap();
        }
    }

    /// The oldest item if there is one now.
    pub fn try_pop(&self) -> Option<T> {
        self.take(&mut self.lock())
    }

    /// Refuses further pushes and wakes every waiting thread; items already queued can still
    /// be popped.
    pub fn close(&self) {
        self.lock().closed = true;
        self.not_empty.notify_all();
        self.not_full.notify_all();
    }

    /// The number of queued items (a snapshot: other threads may change it at once).
    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Whether no item is queued (a snapshot).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most items the queue holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap()
    }

    fn append(&self, state: &mut State<T>, item: T) {
        state.items.push_back(item);
        self.len.store(state.items.len(), Ordering::Release);
        self.not_empty.notify_one();
    }

    fn take(&self, state: &mut State<T>) -> Option<T> {
        let item = state.items.pop_front()?;
        self.len.store(state.items.len(), Ordering::Release);
        self.not_full.notify_one();
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_out_in_order() {
        let q = BoundedQueue::new(3);
        for i in 0..3 {
            q.push(i).unwrap();
        }
        assert_eq!(q.len(), 3);
        assert_eq!(q.try_push(9), Err(9));
        assert_eq!((q.pop(), q.pop(), q.try_pop()), (Some(0), Some(1), Some(2)));
        assert_eq!(q.try_pop(), None);
        assert!(q.is_empty());
    }

    #[test]
    fn a_closed_queue_drains_then_says_none_and_refuses_pushes() {
        let q = BoundedQueue::new(2);
        q.push('a').unwrap();
        q.close();
        assert_eq!(q.push('b'), Err(Closed('b')));
        assert_eq!(q.pop(), Some('a'));
        assert_eq!(q.pop(), None);
    }

    // OS threads: std's build only. In the symx build the queue is made of symx's models,
    // which only threads symx spawns may use (the model tests in tests/ are those).
    #[cfg(not(symx))]
    #[test]
    fn producers_and_consumers_on_os_threads_pass_every_item_once() {
        use std::sync::Arc;
        let q = Arc::new(BoundedQueue::new(4));
        let producers: Vec<_> = (0..4)
            .map(|p| {
                let q = Arc::clone(&q);
                std::thread::spawn(move || (0..250).for_each(|i| q.push(p * 1000 + i).unwrap()))
            })
            .collect();
        let consumers: Vec<_> = (0..3)
            .map(|_| {
                let q = Arc::clone(&q);
                std::thread::spawn(move || std::iter::from_fn(|| q.pop()).collect::<Vec<_>>())
            })
            .collect();
        producers.into_iter().for_each(|p| p.join().unwrap());
        q.close();
        let mut all: Vec<i32> = consumers
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect();
        all.sort();
        let expected: Vec<i32> = (0..4)
            .flat_map(|p| (0..250).map(move |i| p * 1000 + i))
            .collect();
        assert_eq!(all, expected);
    }
}
