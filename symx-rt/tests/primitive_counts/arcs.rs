//! `Arc`s: which thread frees a value whose destructor the program sees, drops in the code
//! before a thread's first step or after a wake-up, and reads of the count against the drops.

use super::*;

/// Sets its flag when the last `Arc` of it goes.
struct SetOnDrop(Arc<AtomicUsize>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(1, SeqCst);
    }
}

/// Stores the number of the thread that frees it, plus one, in its flag.
struct NameOnDrop(Arc<AtomicUsize>);

impl Drop for NameOnDrop {
    fn drop(&mut self) {
        self.0.store(thread::current().id().as_usize() + 1, SeqCst);
    }
}

/// As [`an_arc_freed_by_either_thread`], the destructor telling which thread ran it.
pub(crate) fn an_arc_freed_by_a_named_thread() {
    let flag = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(NameOnDrop(flag.clone()));
    let start = Arc::new(AtomicUsize::new(0));
    let a = drop_after_a_step(value.clone(), &start, &flag);
    let b = drop_after_a_step(value, &start, &flag);
    record(format!("{:?}", [a.join().unwrap(), b.join().unwrap()]));
}

/// Spawns a thread that takes a step of its own (a load of `step`: the drop is part of it),
/// drops `value`, and returns what it then reads from `read`.
fn drop_after_a_step<V: Send + Sync + 'static>(
    value: Arc<V>,
    step: &Arc<AtomicUsize>,
    read: &Arc<AtomicUsize>,
) -> thread::JoinHandle<usize> {
    let (step, read) = (step.clone(), read.clone());
    thread::spawn(move || {
        step.load(SeqCst);
        drop(value);
        read.load(SeqCst)
    })
}

/// A flag, and a value that sets it when the last `Arc` of it goes.
fn flag_and_value() -> (Arc<AtomicUsize>, Arc<SetOnDrop>) {
    let flag = Arc::new(AtomicUsize::new(0));
    let value = Arc::new(SetOnDrop(flag.clone()));
    (flag, value)
}

/// Two threads each drop an `Arc` of a value whose destructor sets a flag, then read the
/// flag: the one that frees the value (the last to drop) sees it set; the other may not.
pub(crate) fn an_arc_freed_by_either_thread() {
    let (flag, value) = flag_and_value();
    let start = Arc::new(AtomicUsize::new(0));
    let a = drop_after_a_step(value.clone(), &start, &flag);
    let b = drop_after_a_step(value, &start, &flag);
    record(format!("{:?}", [a.join().unwrap(), b.join().unwrap()]));
}

/// As [`an_arc_freed_by_either_thread`], of a value whose destructor does nothing the model
/// sees (it frees a `String` and a `Mutex`'s vector).
pub(crate) fn an_arc_of_a_quiet_value_dropped_by_all() {
    let value = Arc::new((String::from("quiet"), Mutex::new(vec![1u8])));
    let start = Arc::new(AtomicUsize::new(0));
    let a = drop_after_a_step(value.clone(), &start, &start);
    let b = drop_after_a_step(value, &start, &start);
    record(format!("{:?}", [a.join().unwrap(), b.join().unwrap()]));
}

/// One thread drops its `Arc` of a [`SetOnDrop`] in the code it runs before its first
/// visible operation (right after main's step that spawns it), the other after a step of its
/// own; each then reads the flag.
pub(crate) fn an_arc_freed_before_a_first_step() {
    let (flag, value) = flag_and_value();
    let start = Arc::new(AtomicUsize::new(0));
    let late = drop_after_a_step(value.clone(), &start, &flag);
    // A step of main's, before or after the other thread's drop: the spawn comes in it.
    start.load(SeqCst);
    let early = thread::spawn(move || {
        drop(value);
        flag.load(SeqCst)
    });
    record(format!(
        "{:?}",
        [early.join().unwrap(), late.join().unwrap()]
    ));
}

/// As [`an_arc_freed_before_a_first_step`], the first thread dropping its `Arc` in the code
/// it runs right after an `unpark` woke it.
pub(crate) fn an_arc_freed_after_a_wake_up() {
    let (flag, value) = flag_and_value();
    let start = Arc::new(AtomicUsize::new(0));
    let (v1, f1) = (value.clone(), flag.clone());
    let parked = thread::spawn(move || {
        thread::park();
        drop(v1);
        f1.load(SeqCst)
    });
    let other = drop_after_a_step(value, &start, &flag);
    parked.thread().unpark();
    record(format!(
        "{:?}",
        [parked.join().unwrap(), other.join().unwrap()]
    ));
}

/// Main reads the count of an `Arc` two threads drop clones of.
pub(crate) fn a_count_read_beside_drops() {
    let value = Arc::new(String::from("counted"));
    let start = Arc::new(AtomicUsize::new(0));
    let a = drop_after_a_step(value.clone(), &start, &start);
    let b = drop_after_a_step(value.clone(), &start, &start);
    start.load(SeqCst);
    let count = Arc::strong_count(&value);
    let weak = Arc::downgrade(&value);
    drop(value);
    let upgraded = weak.upgrade().is_some();
    a.join().unwrap();
    b.join().unwrap();
    record(format!("{count} {upgraded}"));
}

/// As [`a_count_read_beside_drops`], of a value without drop glue (`Touch::ReleasedNoGlue`),
/// main reading the count three ways: `strong_count`,
/// `try_unwrap` (its own reference dropped if that fails) and a `Weak`'s `upgrade`.
pub(crate) fn counts_of_a_plain_value_read_beside_drops() {
    let value = Arc::new(7u64);
    let weak = Arc::downgrade(&value);
    let start = Arc::new(AtomicUsize::new(0));
    let a = drop_after_a_step(value.clone(), &start, &start);
    let b = drop_after_a_step(value.clone(), &start, &start);
    start.load(SeqCst);
    let count = Arc::strong_count(&value);
    let unwrapped = Arc::try_unwrap(value).is_ok();
    let upgraded = weak.upgrade().is_some();
    a.join().unwrap();
    b.join().unwrap();
    record(format!("{count} {unwrapped} {upgraded}"));
}

#[test]
fn arc_drops_explore_who_frees() {
    // Which thread frees a value whose destructor the program sees is explored: a drop that
    // leaves references and the one that frees do not commute then. Main's drop comes before
    // the second thread exists, so one of the two threads frees; the other's read of the flag
    // comes before or after the destructor's store: 2 x 2 traces, reaching the DFS's three
    // outcomes `[0, 1]`, `[1, 0]`, `[1, 1]` (DFS 8). Before, the DPOR ran 2 and never the first
    // thread freeing (`[1, 0]`).
    assert_eq!(dpor_count(an_arc_freed_by_either_thread), 4);
    // A value whose destructor nothing sees: every drop commutes with the others, and with the
    // loads around them: one execution (every interleaving is 8).
    assert_eq!(dpor_count(an_arc_of_a_quiet_value_dropped_by_all), 1);
}

#[test]
fn drops_before_a_threads_first_step_belong_to_the_step_that_spawned_it() {
    // A drop in the code a thread runs before its first visible operation happens right
    // after the step that spawned it (in every schedule): it is that step's. Before, it was
    // no step's, and the DPOR never ran that thread freeing (outcome `[1, 0]` missing, 2
    // executions). Now as for two drops in steps of their own: either thread frees, the
    // other's read comes before or after the destructor's store.
    assert_eq!(dpor_count(an_arc_freed_before_a_first_step), 4);
    // A drop right after a wake-up belongs to no step (see the events module): here the
    // park and unpark conflict with every operation on the thread, which explores the orders
    // anyway; checked against the DFS's outcomes.
    dpor_count(an_arc_freed_after_a_wake_up);
}

#[test]
fn reads_of_an_arcs_count_are_explored_against_its_drops() {
    // `strong_count` and `Weak::upgrade` read the count that the drops change: before, they
    // were no access and the DPOR reached only the outcome of its first schedule. Main's step
    // that reads the count, drops its own reference and upgrades comes before or after each
    // thread's drop (the drops commute): 2 x 2, reaching the DFS's three outcomes (DFS 30).
    // 5, one of the 4 twice, since a moved load carries `Access::Touches` (the code after it
    // may take another path where a reversal moves it): a load of `start` moved in a wakeup
    // sequence conflicts with the drops, and a sequence a sleeper covered is explored too.
    assert_eq!(dpor_count(a_count_read_beside_drops), 5);
    // 5, as for the `String`'s: drops of an `Arc<u64>` are dependent across executions as
    // any drops are (4 while session 24 let them commute there; withdrawn for a miss,
    // `events::count_sensitive`).
    assert_eq!(dpor_count(counts_of_a_plain_value_read_beside_drops), 5);
}

/// The destructor names the thread that frees: 2 freers x the other's read before or after
/// the destructor's store, 4 traces and outcomes. The bounded reduction used to miss `[2, 2]`
/// (the second thread to drop frees, the first reads after the store): a sleep set kept a
/// thread's drop asleep after the other thread's drop of the same `Arc`, both drops that left
/// a reference where each ran first, yet after the other one the sleeping drop frees. Now
/// drops compared across executions conflict, and a step is compared with its drops too
/// (they were unknown when its successor's sleep set was made). Both engines reach the 4.
#[test]
fn a_sleeping_drop_that_would_free() {
    assert_eq!(dpor_count(an_arc_freed_by_a_named_thread), 4);
}
