//! `mpsc` channels: a pipeline delivers in order, a rendezvous orders both sides and a buffered
//! send does not; bounded channels block and deadlock; the senders' and the receiver's drops
//! are scheduling points and synchronise with whoever sees them gone; `try_send`, `recv_timeout`;
//! the channels outside a model.

use super::*;

fn pipeline() {
    let written = Arc::new(Racy::new(0u32));
    let (tx1, rx1) = channel::<u32>();
    let (tx2, rx2) = channel::<u32>();
    let w = written.clone();
    let producer = thread::spawn(move || {
        w.set(7);
        for i in 1..=2 {
            tx1.send(i).unwrap();
        }
    });
    let doubler = thread::spawn(move || {
        for v in rx1 {
            tx2.send(v * 2).unwrap();
        }
    });
    assert_eq!(rx2.recv(), Ok(2));
    // producer's write → its first send → the doubler's receive and send → our receive.
    assert_eq!(written.get(), 7);
    let rest: Vec<u32> = rx2.iter().collect();
    assert_eq!(rest, [4]);
    producer.join().unwrap();
    doubler.join().unwrap();
}

#[test]
fn channel_pipeline_of_three_stages_delivers_in_order() {
    let report = passes(pipeline);
    assert!(report.executions() > 1);
}

/// The receiver writes, then receives; the sender writes after its send returns.
fn handoff(bound: usize) {
    let cell = Arc::new(Racy::new(0));
    let (tx, rx) = sync_channel::<()>(bound);
    let c = cell.clone();
    let receiver = thread::spawn(move || {
        c.set(1);
        rx.recv().unwrap();
    });
    tx.send(()).unwrap();
    // In a rendezvous the receiver has taken the value, so its write happened before.
    cell.set(2);
    receiver.join().unwrap();
}

#[test]
fn rendezvous_send_returns_only_after_the_receiver_took_the_value() {
    // Sender: send; receiver: recv, then dropping its receiver while the sender lives (a
    // scheduling point). Send first: the sender waits, recv takes; or recv first: it waits,
    // send wakes it and waits in turn, recv's retry takes. Either way the receiver's drop is
    // the last step: 2 executions.
    assert_eq!(passes(|| handoff(0)).executions(), 2);
}

#[test]
fn buffered_send_does_not_wait_for_the_receiver_so_it_races() {
    fails(FailureKind::DataRace, || handoff(1));
}

fn arrived_before_send_returns(bound: usize) {
    let arrived = Arc::new(AtomicBool::new(false));
    let (tx, rx) = sync_channel::<u8>(bound);
    let a = arrived.clone();
    let receiver = thread::spawn(move || {
        a.store(true, Ordering::SeqCst);
        assert_eq!(rx.recv(), Ok(1));
    });
    tx.send(1).unwrap();
    assert!(
        arrived.load(Ordering::SeqCst),
        "send returned before the receiver came"
    );
    receiver.join().unwrap();
}

#[test]
fn rendezvous_orders_the_receivers_past_before_the_senders_future() {
    passes(|| arrived_before_send_returns(0));
    let f = fails(FailureKind::Panic, || arrived_before_send_returns(1));
    assert!(
        f.message()
            .contains("send returned before the receiver came"),
        "{f}"
    );
}

#[test]
fn bounded_channel_nobody_reads_deadlocks_the_sender() {
    let f = fails(FailureKind::Deadlock, || {
        let (tx, rx) = sync_channel::<u32>(1);
        let t = thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        t.join().unwrap();
        drop(rx);
    });
    assert!(f.to_string().contains("space in the channel"), "{f}");
}

#[test]
fn bounded_channel_blocks_senders_and_keeps_order() {
    passes(|| {
        let (tx, rx) = sync_channel::<u32>(1);
        let tx2 = tx.clone();
        let a = thread::spawn(move || {
            tx.send(1).unwrap();
            tx.send(2).unwrap();
        });
        let b = thread::spawn(move || tx2.send(10).unwrap());
        let got: Vec<u32> = rx.iter().collect();
        assert_eq!(got.len(), 3);
        let ones: Vec<u32> = got.iter().copied().filter(|&v| v < 10).collect();
        assert_eq!(ones, [1, 2]);
        a.join().unwrap();
        b.join().unwrap();
    });
}

#[test]
fn recv_after_every_sender_is_gone_is_an_error() {
    passes(|| {
        let (tx, rx) = channel();
        let tx2 = tx.clone();
        let t = thread::spawn(move || {
            tx.send(1).unwrap();
            drop(tx);
            tx2.send(2).unwrap();
        });
        assert_eq!(rx.recv(), Ok(1));
        assert_eq!(rx.recv(), Ok(2));
        assert_eq!(rx.recv(), Err(RecvError));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
        t.join().unwrap();
    });
}

#[test]
fn seeing_the_senders_gone_synchronises_with_their_drops() {
    passes(|| {
        let cell = Arc::new(Racy::new(0));
        let (tx, rx) = channel::<()>();
        let c = cell.clone();
        let t = thread::spawn(move || {
            c.set(1);
            drop(tx);
        });
        assert_eq!(rx.recv(), Err(RecvError));
        assert_eq!(cell.get(), 1);
        t.join().unwrap();
    });
}

#[test]
fn seeing_the_receiver_gone_synchronises_with_its_drop() {
    passes(|| {
        let cell = Arc::new(Racy::new(0));
        let (tx, rx) = channel::<()>();
        let c = cell.clone();
        let t = thread::spawn(move || {
            c.set(1);
            drop(rx);
        });
        while tx.send(()).is_ok() {
            thread::yield_now();
        }
        assert_eq!(cell.get(), 1);
        t.join().unwrap();
    });
}

static SAW_EMPTY: StdAtomicBool = StdAtomicBool::new(false);
static SAW_DISCONNECTED: StdAtomicBool = StdAtomicBool::new(false);

#[test]
fn dropping_the_last_sender_is_a_scheduling_point() {
    // Thread: drop its sender (a step: the receiver lives); main: try_recv (a step). 2
    // executions, and try_recv sees both Empty and Disconnected.
    let report = passes(|| {
        let (tx, rx) = channel::<u8>();
        let t = thread::spawn(move || drop(tx));
        match rx.try_recv() {
            Err(TryRecvError::Empty) => SAW_EMPTY.store(true, std::sync::atomic::Ordering::SeqCst),
            Err(TryRecvError::Disconnected) => {
                SAW_DISCONNECTED.store(true, std::sync::atomic::Ordering::SeqCst)
            }
            Ok(_) => unreachable!(),
        }
        t.join().unwrap();
    });
    assert_eq!(report.executions(), 2);
    assert!(SAW_EMPTY.load(std::sync::atomic::Ordering::SeqCst));
    assert!(SAW_DISCONNECTED.load(std::sync::atomic::Ordering::SeqCst));
}

static LATE_SEND_OK: StdAtomicBool = StdAtomicBool::new(false);
static LATE_SEND_ERR: StdAtomicBool = StdAtomicBool::new(false);

#[test]
fn dropping_the_receiver_is_a_scheduling_point() {
    // After the receiver's last step (the store) a send may still come before its drop, and
    // succeed, or after it, and fail: both are explored.
    passes(|| {
        let done = Arc::new(AtomicBool::new(false));
        let (tx, rx) = channel::<u8>();
        let d = done.clone();
        let t = thread::spawn(move || {
            let _ = rx.try_recv();
            d.store(true, Ordering::SeqCst);
            drop(rx);
        });
        if done.load(Ordering::SeqCst) {
            let seen = if tx.send(1).is_ok() {
                &LATE_SEND_OK
            } else {
                &LATE_SEND_ERR
            };
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        t.join().unwrap();
    });
    assert!(LATE_SEND_OK.load(std::sync::atomic::Ordering::SeqCst));
    assert!(LATE_SEND_ERR.load(std::sync::atomic::Ordering::SeqCst));
}

#[test]
fn send_after_the_receiver_is_gone_gives_the_value_back() {
    passes(|| {
        let (tx, rx) = channel();
        thread::spawn(move || drop(rx)).join().unwrap();
        assert_eq!(tx.send(5), Err(SendError(5)));
    });
    // A sender blocked on a full channel, or in a rendezvous, gets its value back too.
    for bound in [0, 1] {
        let report = Builder::new().explore(move || {
            let (tx, rx) = sync_channel(bound);
            let t = thread::spawn(move || drop(rx));
            let first = tx.send(1);
            if bound == 0 {
                assert_eq!(first, Err(SendError(1)));
            } else if first.is_ok() {
                assert_eq!(tx.send(2), Err(SendError(2)));
            }
            assert_eq!(tx.try_send(3), Err(TrySendError::Disconnected(3)));
            t.join().unwrap();
        });
        assert!(report.failure().is_none(), "{report}");
        assert!(report.complete());
    }
}

#[test]
fn rendezvous_try_send_needs_a_waiting_receiver() {
    passes(|| {
        let (tx, rx) = sync_channel::<u8>(0);
        assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
        let t = thread::spawn(move || rx.recv());
        // Succeeds only while the receiver waits in recv; then it gets exactly this value.
        loop {
            match tx.try_send(2) {
                Ok(()) => break,
                Err(TrySendError::Full(_)) => thread::yield_now(),
                Err(e) => panic!("{e:?}"),
            }
        }
        assert_eq!(t.join().unwrap(), Ok(2));
    });
}

#[test]
fn recv_timeout_gives_way_and_then_times_out() {
    passes(|| {
        let (tx, rx) = channel::<u8>();
        let t = thread::spawn(move || tx.send(1).unwrap());
        let got = loop {
            match rx.recv_timeout(std::time::Duration::from_millis(10)) {
                Ok(v) => break v,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => panic!("the value comes first"),
            }
        };
        assert_eq!(got, 1);
        t.join().unwrap();
    });
}

#[test]
fn channels_outside_a_model_work_sequentially() {
    let (tx, rx) = channel();
    tx.send(1).unwrap();
    tx.clone().send(2).unwrap();
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    let blocked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rx.recv()));
    let message = *blocked.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("would block forever outside a symx model"),
        "{message}"
    );
    drop(tx);
    assert_eq!(rx.recv(), Err(RecvError));

    let (tx, rx) = sync_channel(1);
    tx.send(1).unwrap();
    assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
    assert_eq!(rx.recv(), Ok(1));
    drop(rx);
    assert_eq!(tx.send(3), Err(SendError(3)));
}
