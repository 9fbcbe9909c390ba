//! The queue's `pop` as it is often first written, kept to show what symx finds: it waits on
//! "not empty" once (`if`) where it must wait in a loop (`while`). Between the wake-up and the
//! wait returning, another consumer can take the item that caused the wake-up; this `pop` then
//! finds the queue empty and tells its caller the queue is closed while it is not.

use crate::BoundedQueue;

/// [`BoundedQueue::pop`] with the seeded bug.
pub fn pop_waiting_once<T>(queue: &BoundedQueue<T>) -> Option<T> {
    let mut state = queue.lock();
    if state.items.is_empty() && !state.closed {
        state = queue.not_empty.wait(state).unwrap();
    }
    queue.take(&mut state)
}
