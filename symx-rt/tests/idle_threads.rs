//! `Report::idle_threads`: spawned model threads that made no operation symx sees (the code
//! they run is on std::sync, or plain), counted so that a report can say its `complete` does
//! not cover them.

use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicU32, Ordering};
use symx::sync::Arc;
use symx::{thread, Builder};

#[test]
fn threads_on_std_sync_are_idle() {
    let report = Builder::new().explore(|| {
        let n = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let spawned: Vec<_> = (0..3)
            .map(|_| {
                let n = n.clone();
                thread::spawn(move || n.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
            })
            .collect();
        spawned.into_iter().for_each(|t| drop(t.join()));
    });
    assert!(report.complete());
    assert_eq!(report.executions(), 1);
    assert_eq!(report.idle_threads(), 3);
}

#[test]
fn threads_with_a_symx_operation_are_not() {
    let report = Builder::new().explore(|| {
        let n = Arc::new(AtomicU32::new(0));
        let n2 = n.clone();
        let t = thread::spawn(move || n2.fetch_add(1, Ordering::SeqCst));
        t.join().unwrap();
    });
    assert_eq!(report.idle_threads(), 0);
}

struct Cell(UnsafeCell<u32>);
unsafe impl Sync for Cell {}

#[test]
fn an_unsafe_cell_access_is_an_operation_and_the_main_thread_is_never_counted() {
    let report = Builder::new().explore(|| {
        let c = Arc::new(Cell(UnsafeCell::new(0)));
        let c2 = c.clone();
        let t = thread::spawn(move || c2.0.with_mut(|p| unsafe { *p = 1 }));
        t.join().unwrap();
        // Only a plain read after the join: the main thread does nothing symx sees here.
        let _ = std::hint::black_box(1);
    });
    assert_eq!(report.idle_threads(), 0);
    let report = Builder::new().explore(|| {
        let _ = std::hint::black_box(1);
    });
    assert_eq!(report.idle_threads(), 0);
}
