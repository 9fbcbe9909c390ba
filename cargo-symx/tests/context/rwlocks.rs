//! Reader-writer locks over symbolic identities: the lockset invariant with modes. Figure
//! 2.1 of the dissertation with `nodes[k].lock` an `RwLock`: a writer inside its critical
//! section keeps a reader out, readers inside keep a writer out, and readers share.

use symx::context::{self, Cells, ContextMode, RwLocks};

use super::{explore, labels, vectors};

/// `Bar` write-holds `nodes[k].lock` inside its critical section (`inside[k] == 1`); `Foo`
/// is about to read-lock `nodes[i].lock`; reaching definitions say `k == i`.
fn reader_meets_writer() {
    let i = context::identity("i", 2);
    let k = context::identity("k", 2);
    context::value_fact("k == i", k.sym_eq(i));
    let locks = RwLocks::new("node.lock", 2);
    let inside = Cells::known("writers_inside", vec![0u8; 2]);
    let held = locks.held_write(k);
    inside.set(k, 1u8);
    let (l1, in1, in2) = (locks.clone(), inside.clone(), inside.clone());
    let foo_thread = symx::thread::spawn(move || {
        let guard = l1.read(i);
        symx::assert!(in1.get(i).sym_eq(0u8), "a reader beside a writer");
        drop(guard);
    });
    let bar_thread = symx::thread::spawn(move || {
        in2.set(k, 0u8);
        drop(held);
    });
    foo_thread.join().unwrap();
    bar_thread.join().unwrap();
}

/// Two readers inside `nodes[k].lock` (`reading[r] == 1` for each); a writer is about to
/// lock `nodes[i]`, with `k == i`.
fn writer_meets_readers() {
    let i = context::identity("i", 2);
    let k = context::identity("k", 2);
    context::value_fact("k == i", k.sym_eq(i));
    let locks = RwLocks::new("node.lock", 2);
    let reading = Cells::known("reading", vec![1u8; 2]);
    let readers: Vec<_> = (0..2usize)
        .map(|r| {
            let (held, reading) = (locks.held_read(k), reading.clone());
            symx::thread::spawn(move || {
                reading.set(r, 0u8);
                drop(held);
            })
        })
        .collect();
    let (l1, reading) = (locks.clone(), reading.clone());
    let writer = symx::thread::spawn(move || {
        let guard = l1.write(i);
        let nobody = reading.get(0usize).sym_eq(0u8) & reading.get(1usize).sym_eq(0u8);
        symx::assert!(nobody, "a writer beside readers");
        drop(guard);
    });
    for r in readers {
        r.join().unwrap();
    }
    writer.join().unwrap();
}

#[test]
fn full_keeps_a_reader_out_while_the_writer_holds() {
    let out = explore(ContextMode::Full, reader_meets_writer);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    // Foo reads at once only after Bar released (its release woke nobody); otherwise it
    // blocks and Bar's release wakes it.
    let expected = vectors(&[&["acquire"], &["block", "wake {1}", "acquire"]]);
    assert_eq!(labels(&out), expected, "{out:#?}");
    assert_eq!(
        explore(ContextMode::NoRd, reader_meets_writer)
            .failures
            .len(),
        0
    );
}

#[test]
fn without_the_invariant_a_reader_enters_beside_the_writer() {
    // `writer[k]` is free: Foo reads beside Bar (the overlap), or blocks on a lock with a
    // writer nobody is (deadlocks that cannot happen).
    let naive = explore(ContextMode::Naive, reader_meets_writer);
    assert_eq!(naive.failures_of("panic"), 1, "{naive:#?}");
    assert_eq!(naive.failures_of("deadlock"), 2, "{naive:#?}");
    let no_si = explore(ContextMode::NoSi, reader_meets_writer);
    assert_eq!(no_si.failures_of("panic"), 1, "{no_si:#?}");
    let facts: Vec<&str> = (no_si.failures.iter())
        .filter(|f| f.kind == "panic")
        .flat_map(|f| f.facts.iter().map(|u| u.fact.text.as_str()))
        .collect();
    assert_eq!(facts, ["k == i"]);
}

#[test]
fn full_keeps_the_writer_out_while_readers_hold_and_the_count_drops_per_reader() {
    let out = explore(ContextMode::Full, writer_meets_readers);
    assert_eq!(out.failures.len(), 0, "{out:#?}");
    // The writer acquires after both readers left, or blocks and is woken by each release:
    // the first one sends it back to wait, the last one lets it in.
    let expected = vectors(&[
        &["acquire"],
        &["block", "wake {3}", "acquire"],
        &["block", "wake {3}", "block", "wake {3}", "acquire"],
    ]);
    assert_eq!(labels(&out), expected, "{out:#?}");
    let naive = explore(ContextMode::Naive, writer_meets_readers);
    assert!(naive.failures_of("panic") >= 1, "{naive:#?}");
    assert!(
        (naive.failures.iter()).any(|f| f.message.contains("a writer beside readers")),
        "{naive:#?}"
    );
}
