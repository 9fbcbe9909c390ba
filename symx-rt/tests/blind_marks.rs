//! `#[symx::instrument]` marks an atomic operation whose result the program drops (every
//! store, a read-modify-write whose value a statement discards) as *blind* in the trace; an
//! operation whose value is used, and a user type's methods of the same names, are not.

use std::cell::Cell;

use symx::sync::atomic::Ordering::{self, SeqCst};
use symx::sync::atomic::{AtomicBool, AtomicU32};
use symx::sync::Arc;
use symx::trace::format::{EventKind, Verdict};
use symx::{Builder, Guide};

/// Not an atomic, with atomics' method names: never marked (it takes no steps anyway).
struct Counter(Cell<u32>);

impl Counter {
    fn fetch_add(&self, v: u32, _: Ordering) -> u32 {
        self.0.replace(self.0.get() + v)
    }

    fn store(&mut self, v: u32, _: Ordering) {
        self.0.set(v);
    }
}

/// The lines of `body`'s operations, as it saw them (it runs on a thread of the runtime's).
static LINES: std::sync::Mutex<[u32; 7]> = std::sync::Mutex::new([0; 7]);

fn first<'a>(of: &[&'a AtomicU32]) -> &'a AtomicU32 {
    of[0]
}

#[symx::instrument]
fn body() {
    let mut at = [0; 7];
    let a = Arc::new(AtomicU32::new(0));
    let flag = AtomicBool::new(false);
    at[0] = line!() + 1;
    a.fetch_add(1, SeqCst);
    at[1] = line!() + 1;
    let _ = flag.swap(true, Ordering::SeqCst);
    at[2] = line!() + 1;
    let old = a.fetch_add(1, SeqCst);
    at[3] = line!() + 1;
    a.store(old + 1, SeqCst);
    let mut c = Counter(Cell::new(0));
    c.fetch_add(1, SeqCst);
    c.store(2, SeqCst);
    let order = SeqCst;
    at[4] = line!() + 1;
    a.fetch_add(1, order);
    at[5] = line!() + 1;
    let seen = a.load(SeqCst);
    at[6] = line!() + 1;
    first(&[&*a]).fetch_sub(1, SeqCst);
    assert_eq!((seen, c.0.get()), (3, 2));
    *LINES.lock().unwrap() = at;
}

#[test]
fn dropped_results_are_marked_blind_at_the_users_line() {
    let run = Builder::new().run_guided(&Guide::default(), body);
    assert_eq!(run.divergence, None);
    assert_eq!(run.trace.verdict, Verdict::Pass);
    let steps: Vec<_> = (run.trace.events.iter())
        .filter(|e| e.step.is_some() && e.obj.is_some())
        .map(|e| (e.kind, e.blind, e.location.as_ref().map(|l| l.line)))
        .collect();
    let at = *LINES.lock().unwrap();
    use EventKind::*;
    assert_eq!(
        steps,
        [
            (Rmw, true, Some(at[0])),
            (Rmw, true, Some(at[1])),
            (Rmw, false, Some(at[2])),
            (Store, true, Some(at[3])),
            (Rmw, false, Some(at[4])),
            (Load, false, Some(at[5])),
            (Rmw, true, Some(at[6])),
        ]
    );
    // At the method's name, as without the mark.
    let columns: Vec<u32> = (run.trace.events.iter())
        .filter(|e| e.blind)
        .filter_map(|e| e.location.as_ref().map(|l| l.column))
        .collect();
    assert_eq!(columns, [7, 18, 7, 19]);
    let json = run.trace.to_json();
    assert_eq!(json.matches("\"blind\": true").count(), 4, "{json}");
}
