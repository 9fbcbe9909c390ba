//! An unlock is a step of its own, and a report shows it where the user reads it happening:
//! where the guard is dropped (an explicit `drop(guard)`, or the end of the guard's scope), not
//! at the `lock()` call that made the guard. A `Drop` has no caller location, so the runtime
//! finds the line on the stack when it renders an execution for a report.

use symx::sync::{Arc, Mutex, RwLock};
use symx::{thread, Builder, Failure, FailureKind};

/// Two threads each read under the lock, unlock, and write back under it again: an update is
/// lost, and the report's interleaving unlocks both ways.
fn lost_update() {
    let n = on_two_threads(Mutex::new(0u32), increment);
    let total = *n.lock().unwrap();
    assert_eq!(total, 2, "an increment was lost");
}

fn increment(n: &Mutex<u32>) {
    let reading = n.lock().unwrap();
    let v = *reading;
    drop(reading); // the mutex reading guard is dropped
    {
        let mut writing = n.lock().unwrap();
        *writing = v + 1;
    } // the mutex writing guard's scope ends
}

/// The same with a reader-writer lock, the other way round: the read guard is a temporary,
/// dropped at the end of its statement, and the write guard is dropped explicitly.
fn lost_update_rw() {
    let n = on_two_threads(RwLock::new(0u32), increment_rw);
    assert_eq!(*n.read().unwrap(), 2, "an increment was lost");
}

fn increment_rw(n: &RwLock<u32>) {
    let v = *n.read().unwrap(); // the rw read guard is a temporary
    let mut writing = n.write().unwrap();
    *writing = v + 1;
    drop(writing); // the rw writing guard is dropped
}

/// Runs `increment` on `lock` in the main thread and one spawned thread; returns the lock.
fn on_two_threads<L: Send + Sync + 'static>(lock: L, increment: fn(&L)) -> Arc<L> {
    let n = Arc::new(lock);
    let t = {
        let n = n.clone();
        thread::spawn(move || increment(&n))
    };
    increment(&n);
    t.join().unwrap();
    n
}

/// The line of this file that contains `text` (exactly one does, besides where a test quotes it).
fn line_of(text: &str) -> u32 {
    let source = include_str!("unlock_site.rs");
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(text) && !l.contains(&format!("\"{text}\"")))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{text:?} is on lines {lines:?}");
    lines[0] as u32
}

/// The lines of `f`'s unlock rows, in order.
fn unlock_lines(f: &Failure, unlock: &str) -> Vec<u32> {
    f.steps()
        .iter()
        .filter(|s| s.operation == unlock)
        .inspect(|s| assert!(s.location.file.ends_with("unlock_site.rs"), "{f}"))
        .map(|s| s.location.line)
        .collect()
}

fn explore_and_replay(body: fn()) -> (Failure, Failure) {
    let report = Builder::new().explore(body);
    let found = report.failure().expect("the lost update is found").clone();
    assert_eq!(found.kind(), FailureKind::Panic, "{found}");
    let again = Builder::new()
        .try_replay(found.schedule(), body)
        .expect("the token replays");
    let replayed = again.failure().expect("the replay fails again").clone();
    (found, replayed)
}

/// How many of `lines` are each of `expected`'s lines, beside the count expected.
fn count_at(lines: &[u32], expected: &[(u32, usize)]) -> Vec<(u32, usize, usize)> {
    expected
        .iter()
        .map(|&(l, n)| (l, lines.iter().filter(|&&x| x == l).count(), n))
        .collect()
}

/// The line an unlock row shows: where its guard is dropped, found on the stack; in a build
/// without debug information (this workspace's release profile) the stack shows no line of
/// the user's, and the row keeps the guard's `lock()` line.
fn unlocked_at(dropped: &str, locked: &str) -> u32 {
    match cfg!(debug_assertions) {
        true => line_of(dropped),
        false => line_of(locked),
    }
}

#[test]
fn a_mutex_unlock_is_shown_where_its_guard_is_dropped() {
    let dropped = unlocked_at(
        "// the mutex reading guard is dropped",
        "let reading = n.lock().unwrap();",
    );
    let scope_end = unlocked_at(
        "// the mutex writing guard's scope ends",
        "let mut writing = n.lock().unwrap();",
    );
    let total = line_of("let total = *n.lock().unwrap();");
    let (found, replayed) = explore_and_replay(lost_update);
    for f in [&found, &replayed] {
        let lines = unlock_lines(f, "unlock");
        // Each thread unlocks a read (dropped explicitly) and a write (dropped at its scope's
        // end); the failing check's read unlocks at the end of its statement.
        assert_eq!(lines.len(), 5, "{f}");
        for (line, seen, wanted) in count_at(&lines, &[(dropped, 2), (scope_end, 2), (total, 1)]) {
            assert_eq!(seen, wanted, "unlock rows at line {line}: {lines:?}\n{f}");
        }
    }
}

#[test]
fn a_rwlock_unlock_is_shown_where_its_guard_is_dropped() {
    let temporary = line_of("// the rw read guard is a temporary");
    let dropped = unlocked_at(
        "// the rw writing guard is dropped",
        "let mut writing = n.write().unwrap();",
    );
    let (found, replayed) = explore_and_replay(lost_update_rw);
    for f in [&found, &replayed] {
        // The failing check's read guard is still held when the assertion panics: no unlock.
        assert_eq!(
            unlock_lines(f, "read-unlock"),
            [temporary, temporary],
            "{f}"
        );
        assert_eq!(unlock_lines(f, "unlock"), [dropped, dropped], "{f}");
    }
}
