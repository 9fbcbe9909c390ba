//! Model tests in loom's style (`loom::model`, `loom::thread`), run under symx through its loom
//! API: the stack is correct within the model's bounds, and each planted bug is found with the
//! failure a user would see.

use loom::sync::Arc;
use loom::thread;

use crate::{broken, Stack};

/// Two threads pop the two values a stack holds at the same time: each value is popped
/// exactly once, and the stack is empty afterwards.
fn two_poppers(stack: fn() -> Stack<u32>) {
    let s = Arc::new(stack());
    s.push(1);
    s.push(2);
    let popper = |s: Arc<Stack<u32>>| move || s.pop();
    let a = thread::spawn(popper(s.clone()));
    let b = thread::spawn(popper(s.clone()));
    let mut got = [a.join().unwrap(), b.join().unwrap()];
    got.sort_unstable();
    assert_eq!(got, [Some(1), Some(2)]);
    assert_eq!(s.pop(), None);
}

#[test]
fn the_stack_pops_every_value_once_in_every_interleaving() {
    loom::model(|| two_poppers(Stack::new));
}

#[test]
fn the_leak_check_passes_a_stack_dropped_with_values_on_it() {
    loom::model(|| {
        let s = Stack::new();
        s.push(1);
        s.push(2);
    });
}

fn failure_of(body: fn()) -> symx::Failure {
    let report = symx::Builder::new().explore(body);
    report.failure().expect("the planted bug is found").clone()
}

#[test]
fn freeing_without_waiting_is_a_use_after_free() {
    let failure = failure_of(|| two_poppers(broken::use_after_free));
    assert_eq!(failure.kind(), symx::FailureKind::Panic, "{failure}");
    assert!(failure.message().contains("use after free"), "{failure}");
    assert!(failure.message().contains("Arc<Node>"), "{failure}");
    assert!(
        failure.message().contains("increment_strong_count"),
        "{failure}"
    );
}

#[test]
fn forgetting_the_nodes_is_a_leak_with_where_they_were_made() {
    let failure = failure_of(|| {
        let s = broken::leaky();
        s.push(7u32);
    });
    assert_eq!(failure.kind(), symx::FailureKind::Leak, "{failure}");
    assert!(failure.message().contains("lib.rs"), "{failure}");
    assert!(failure.to_string().contains("Track<u32>"), "{failure}");
}
