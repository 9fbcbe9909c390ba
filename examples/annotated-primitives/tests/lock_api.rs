//! A raw lock annotated once checks every `lock_api` type built on it, and its reports point
//! at the user's lines: `lock_api` calls the annotated methods from its own source, and symx
//! walks past that source to the caller in the test.

use annotated_primitives::LockApiMutex;
use symx::sync::Arc;
use symx::{thread, Builder, FailureKind, SourceLocation};

#[symx::test]
fn lock_api_mutex_keeps_its_counter_exact() {
    let m = Arc::new(LockApiMutex::new(0));
    let m2 = m.clone();
    let t = thread::spawn(move || *m2.lock() += 1);
    *m.lock() += 1;
    t.join().unwrap();
    assert_eq!(*m.lock(), 2);
}

/// The line of the second `lock()` in `relocking_deadlocks`.
static RELOCK_LINE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

fn relocking_deadlocks() {
    let m = LockApiMutex::new(0);
    let _held = m.lock();
    RELOCK_LINE.store(line!() + 1, std::sync::atomic::Ordering::Relaxed);
    let _again = m.lock();
}

fn assert_in_this_file(at: &SourceLocation, line: u32) {
    assert!(at.file.ends_with("tests/lock_api.rs"), "{at:?}");
    assert_eq!(at.line, line, "{at:?}");
}

#[test]
fn a_self_deadlock_through_lock_api_is_reported_at_the_user_s_second_lock() {
    let report = Builder::new().explore(relocking_deadlocks);
    let failure = report.failure().expect("the second lock() deadlocks");
    assert_eq!(failure.kind(), FailureKind::Deadlock, "{failure}");
    let line = RELOCK_LINE.load(std::sync::atomic::Ordering::Relaxed);
    assert_in_this_file(failure.location().expect("a location"), line);
    let text = failure.to_string();
    assert!(
        !text.contains("lock_api-"),
        "a line of lock_api's source:\n{text}"
    );
}

/// The line of the guard's `drop` in `releasing_twice`.
static DROP_LINE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The line of the `lock()` in `releasing_twice`.
static LOCK_LINE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The guard releases a lock `force_unlock` already released. `lock_api`'s `lock` is
/// `#[track_caller]`, but a guard's `Drop` cannot be: the release is called from `lock_api`'s
/// source, and only the walk up the stack finds the user's `drop(guard)`. Without debug
/// information (this workspace's release profile) there is no walk, and the release is at the
/// guard's `lock()`, as a symx guard's is.
fn releasing_twice() {
    let m = LockApiMutex::new(0);
    LOCK_LINE.store(line!() + 1, std::sync::atomic::Ordering::Relaxed);
    let guard = m.lock();
    unsafe { m.force_unlock() };
    DROP_LINE.store(line!() + 1, std::sync::atomic::Ordering::Relaxed);
    drop(guard);
}

#[test]
fn a_release_by_a_guard_s_drop_is_reported_at_the_user_s_drop() {
    let report = Builder::new().explore(releasing_twice);
    let failure = report.failure().expect("the guard releases a free lock");
    assert_eq!(failure.kind(), FailureKind::Misuse, "{failure}");
    let line = match cfg!(debug_assertions) {
        true => DROP_LINE.load(std::sync::atomic::Ordering::Relaxed),
        false => LOCK_LINE.load(std::sync::atomic::Ordering::Relaxed),
    };
    assert_in_this_file(failure.location().expect("a location"), line);
    let text = failure.to_string();
    assert!(
        !text.contains("lock_api-"),
        "a line of lock_api's source:\n{text}"
    );
    // The step rows show the user's lines as well: the guard's release is the last step.
    let steps = failure.steps();
    for step in steps {
        assert!(!step.location.file.contains("lock_api-"), "{step:?}");
    }
    let release = steps.iter().rev().find(|s| s.operation.contains("release"));
    assert_in_this_file(&release.expect("a release step").location, line);
}
