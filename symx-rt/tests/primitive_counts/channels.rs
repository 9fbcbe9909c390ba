//! Channels (`mpsc`): sends, receives, `try_recv`, a bounded channel, a rendezvous, a
//! receive with a timeout and the drops of senders and receivers commute where the queue lets
//! them (loom's `commutative_senders` among them).

use super::*;

/// loom's `mpsc::commutative_senders`, as loom's own test suite has it.
pub(crate) fn commutative_senders() {
    let (s, r) = mpsc::channel();
    let s2 = s.clone();
    thread::spawn(move || {
        s.send(5).unwrap();
    });
    thread::spawn(move || {
        s2.send(6).unwrap();
    });
    let mut val = r.recv().unwrap();
    val += r.recv().unwrap();
    assert_eq!(val, 11);
}

pub(crate) fn two_senders_then_the_receiver() {
    let (s, r) = mpsc::channel();
    let s2 = s.clone();
    let a = thread::spawn(move || s.send(1).unwrap());
    let b = thread::spawn(move || s2.send(2).unwrap());
    a.join().unwrap();
    b.join().unwrap();
    let got: Vec<i32> = r.iter().collect();
    record(format!("{got:?}"));
}

pub(crate) fn a_try_recv_beside_two_sends() {
    let (s, r) = mpsc::channel();
    let a = thread::spawn(move || {
        s.send(1).unwrap();
        s.send(2).unwrap();
    });
    let first = r.try_recv().ok();
    a.join().unwrap();
    let rest: Vec<i32> = r.iter().collect();
    record(format!("{first:?} {rest:?}"));
}

pub(crate) fn a_receiver_dropped_while_two_send() {
    let (s, r) = mpsc::channel();
    let s2 = s.clone();
    let a = thread::spawn(move || s.send(1).is_ok());
    let b = thread::spawn(move || s2.send(2).is_ok());
    let first = r.try_recv().ok();
    drop(r);
    let sent = (a.join().unwrap(), b.join().unwrap());
    record(format!("{first:?} {sent:?}"));
}

pub(crate) fn receives_until_the_senders_are_gone() {
    let (s, r) = mpsc::channel();
    let s2 = s.clone();
    let x = Arc::new(AtomicUsize::new(0));
    let x2 = x.clone();
    thread::spawn(move || {
        s.send(1).unwrap();
        x2.store(1, SeqCst);
        drop(s);
    });
    thread::spawn(move || {
        drop(s2);
    });
    let mut seen = Vec::new();
    loop {
        match r.try_recv() {
            Ok(v) => seen.push(format!("{v}")),
            Err(mpsc::TryRecvError::Empty) => {
                seen.push("empty".into());
                match r.recv() {
                    Ok(v) => seen.push(format!("{v}")),
                    Err(_) => break,
                }
            }
            Err(mpsc::TryRecvError::Disconnected) => break,
        }
    }
    seen.push(format!("x={}", x.load(SeqCst)));
    record(seen.join(" "));
}

pub(crate) fn the_receiver_sends_too() {
    let (s, r) = mpsc::channel();
    let s2 = s.clone();
    let a = thread::spawn(move || {
        s2.send(1).unwrap();
        s2.send(2).unwrap();
    });
    let first = r.try_recv().ok();
    s.send(3).unwrap();
    let second = r.try_recv().ok();
    drop(s);
    a.join().unwrap();
    let rest: Vec<i32> = r.iter().collect();
    record(format!("{first:?} {second:?} {rest:?}"));
}

pub(crate) fn a_bounded_channel_of_one() {
    let (s, r) = mpsc::sync_channel(1);
    let s2 = s.clone();
    let a = thread::spawn(move || s.try_send(1).is_ok());
    let b = thread::spawn(move || s2.send(2).is_ok());
    let first = r.recv().ok();
    let second = r.try_recv().ok();
    let sent = (a.join().unwrap(), b.join().unwrap());
    let rest: Vec<i32> = r.iter().collect();
    record(format!("{first:?} {second:?} {sent:?} {rest:?}"));
}

pub(crate) fn a_rendezvous() {
    let (s, r) = mpsc::sync_channel(0);
    let s2 = s.clone();
    let a = thread::spawn(move || s.send(1).is_ok());
    let b = thread::spawn(move || s2.try_send(2).is_ok());
    let first = r.recv().ok();
    drop(r);
    let sent = (a.join().unwrap(), b.join().unwrap());
    record(format!("{first:?} {sent:?}"));
}

pub(crate) fn a_receive_with_a_timeout() {
    let (s, r) = mpsc::channel();
    let s2 = s.clone();
    thread::spawn(move || s.send(1).unwrap());
    thread::spawn(move || s2.send(2).unwrap());
    let first = r.recv_timeout(std::time::Duration::from_secs(1)).ok();
    let rest: Vec<i32> = r.iter().collect();
    record(format!("{first:?} {rest:?}"));
}

/// The receive with a timeout in a thread spawned after the sender's: its second look (after
/// finding nothing) takes the message, or the message comes after it.
pub(crate) fn a_receive_with_a_timeout_after_the_sender() {
    let (s, r) = mpsc::channel();
    let sender = thread::spawn(move || s.send(1).unwrap());
    let receiver = thread::spawn(move || r.recv_timeout(std::time::Duration::from_secs(1)).ok());
    sender.join().unwrap();
    record(format!("{:?}", receiver.join().unwrap()));
}

#[test]
fn channel_operations_commute_where_the_queue_lets_them() {
    // loom's own test. Two messages in either order, times whether the second sender's
    // going away comes before or after the receive that ends main (which drops the receiver:
    // a step of its own only while a sender lives): 2 x 2. The DFS's 14 schedules fall into
    // exactly these 4 classes (7 per order: 4 with the receiver's drop a step, 3 without). A
    // receive runs only once there is a message, so whether it would have found the queue
    // empty is no choice any more (that doubled both receives: 8 before). Every interleaving
    // was 40 while a receive that found nothing was a step; loom runs 3.
    assert_eq!(dpor_count(commutative_senders), 4);
    // Only the order of the two messages.
    assert_eq!(dpor_count(two_senders_then_the_receiver), 2);
    // The `try_recv` comes before the first send (nothing), or takes message 1 whether or not
    // the second has come: 2 (was 4).
    assert_eq!(dpor_count(a_try_recv_beside_two_sends), 2);
    // 5 outcomes, 8 executions (was 10, then 5 while which of the two senders goes last was
    // not explored: the other's drop ordered the last one after its whole step, and that
    // step's `try_recv` then raced with nothing after the disconnect; see
    // `bounded_channels.rs::the_optimal_dpor_reaches_every_outcome_where_a_step_dropped_a_sender`).
    // Main's step that finds its sender the last now conflicts with the thread's drop, so both
    // orders run where both are possible, 3 of them with the same outcome.
    assert_eq!(dpor_count(the_receiver_sends_too), 8);
}

#[test]
fn channels_lose_no_outcome() {
    // No closed form: each is checked against the DFS's outcomes, and never costs more.
    for body in [
        a_receiver_dropped_while_two_send as fn(),
        receives_until_the_senders_are_gone,
        a_bounded_channel_of_one,
        a_rendezvous,
        a_receive_with_a_timeout,
        // Its second look once had no access: the DPOR never ran the message coming after
        // it (the timeout, `None`).
        a_receive_with_a_timeout_after_the_sender,
    ] {
        dpor_count(body);
    }
}
