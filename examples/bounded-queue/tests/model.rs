//! The queue under symx: every interleaving of a few producers and consumers, on the library's
//! own code. Only in the symx build (`cargo symx test` builds with `--cfg symx`): in a plain
//! build the library blocks on std's `Condvar`, which would stop symx's model threads, so these
//! tests would hang rather than explore.
#![cfg(symx)]

use std::sync::Arc;

use bounded_queue::{seeded_bug, BoundedQueue, Closed};
use symx::thread;

/// Two consumers each waiting for one of the two items a producer pushes.
fn two_consumers(pop: fn(&BoundedQueue<u32>) -> Option<u32>) {
    let queue = Arc::new(BoundedQueue::new(2));
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let queue = Arc::clone(&queue);
            thread::spawn(move || pop(&queue))
        })
        .collect();
    queue.push(1).unwrap();
    queue.push(2).unwrap();
    let mut got: Vec<Option<u32>> = consumers.into_iter().map(|c| c.join().unwrap()).collect();
    got.sort();
    assert_eq!(got, [Some(1), Some(2)], "each consumer gets one item");
}

#[symx::test]
fn every_item_reaches_exactly_one_consumer() {
    two_consumers(BoundedQueue::pop);
}

/// The seeded bug: a consumer woken for an item another consumer took reports the queue closed.
#[symx::test]
#[ignore = "a seeded bug: `cargo symx test` expects it to fail (see Cargo.toml)"]
fn seeded_bug_loses_an_item() {
    two_consumers(seeded_bug::pop_waiting_once);
}

#[symx::test]
fn a_full_queue_makes_the_producer_wait_and_keeps_the_order() {
    let queue = Arc::new(BoundedQueue::new(1));
    let producer = {
        let queue = Arc::clone(&queue);
        thread::spawn(move || (1..=3).for_each(|i| queue.push(i).unwrap()))
    };
    let got: Vec<u32> = (0..3).map(|_| queue.pop().unwrap()).collect();
    producer.join().unwrap();
    assert_eq!(got, [1, 2, 3]);
    assert!(queue.is_empty());
}

#[symx::test]
fn close_wakes_every_waiter_and_loses_nothing() {
    let queue = Arc::new(BoundedQueue::new(1));
    let consumers: Vec<_> = (0..2)
        .map(|_| {
            let queue = Arc::clone(&queue);
            thread::spawn(move || queue.pop())
        })
        .collect();
    let pushed = queue.push(7);
    queue.close();
    assert_eq!(queue.push(8), Err(Closed(8)));
    let mut got: Vec<Option<u32>> = consumers.into_iter().map(|c| c.join().unwrap()).collect();
    got.sort();
    assert_eq!(pushed, Ok(()));
    assert_eq!(got, [None, Some(7)]);
}
