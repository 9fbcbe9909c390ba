//! Acceptance: tokens replay exactly; corrupt tokens, tokens of other tests and tokens of
//! another (or a changed) program are rejected with errors that say so.

mod common;

use symx::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use symx::sync::{Arc, Mutex};
use symx::{thread, Builder, FailureKind, ReplayError, Schedule};
use symx_test_programs::classic::lost_update;

/// Same shape of threads and locations count, different operations.
fn another_program() {
    let m = Arc::new(Mutex::new(0));
    let m2 = m.clone();
    let t = thread::spawn(move || *m2.lock().unwrap() += 1);
    *m.lock().unwrap() += 1;
    t.join().unwrap();
}

fn token_of(body: fn()) -> Schedule {
    common::assert_fails(FailureKind::Panic, body)
        .schedule()
        .clone()
}

#[test]
fn a_reported_token_replays_the_same_interleaving() {
    let failure = common::assert_fails(FailureKind::Panic, lost_update);
    let replayed = Builder::new().replay(failure.schedule(), lost_update);
    let steps =
        |f: &symx::Failure| -> Vec<String> { f.steps().iter().map(|s| s.to_string()).collect() };
    assert_eq!(steps(replayed.failure().unwrap()), steps(&failure));
}

#[test]
fn a_corrupted_token_is_rejected() {
    let token = token_of(lost_update).to_string();
    let mut bytes = token.into_bytes();
    let i = bytes.len() / 2 + 3;
    bytes[i] = if bytes[i] == b'x' { b'y' } else { b'x' };
    let corrupted = String::from_utf8(bytes).unwrap();
    let err = corrupted.parse::<Schedule>().unwrap_err();
    assert!(matches!(err, ReplayError::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("corrupted"), "{err}");
}

#[test]
fn a_token_from_another_program_is_rejected_not_replayed() {
    let schedule = token_of(lost_update);
    let err = Builder::new()
        .try_replay(&schedule, another_program)
        .unwrap_err();
    assert!(matches!(err, ReplayError::Diverged(_)), "{err}");
    assert!(
        err.to_string().contains("does not match this program"),
        "{err}"
    );
}

#[test]
fn a_token_of_another_test_is_rejected() {
    let report = Builder::new().name("tests::first").explore(lost_update);
    let schedule = report.failure().unwrap().schedule().clone();
    let err = Builder::new()
        .name("tests::second")
        .try_replay(&schedule, lost_update)
        .unwrap_err();
    assert_eq!(err, ReplayError::OtherTest);
    // The right test name replays it.
    let ok = Builder::new()
        .name("tests::first")
        .try_replay(&schedule, lost_update)
        .unwrap();
    assert_eq!(ok.failure().unwrap().kind(), FailureKind::Panic);
}

#[test]
fn the_replay_command_names_the_test_and_the_token() {
    let report = Builder::new()
        .name("tests::lost_update")
        .explore(lost_update);
    let failure = report.failure().unwrap();
    let command = failure.replay_command();
    // The environment's RUSTFLAGS, when there are any, are repeated before `cargo test`.
    let flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    let prefix = match flags.trim() {
        "" => String::new(),
        f => format!("RUSTFLAGS=\"{f}\" "),
    };
    // Then the package's manifest and, when the run's target directory is not the default,
    // that directory: the command builds what the run built.
    let start = format!(
        "SYMX_REPLAY={} {prefix}cargo test --manifest-path {} ",
        failure.schedule(),
        env!("CARGO_MANIFEST_PATH")
    );
    assert!(command.starts_with(&start), "{command}");
    assert!(
        command.ends_with(" tests::lost_update -- --exact --include-ignored"),
        "{command}"
    );
    assert!(failure.to_string().contains(&command));
}

#[test]
fn symx_replay_in_a_test_reproduces_the_failure() {
    let name = "mycrate::tests::lost_update";
    let report = Builder::new()
        .name("tests::lost_update")
        .explore(lost_update);
    let token = report.failure().unwrap().schedule().to_string();
    let outcome = std::panic::catch_unwind(|| {
        symx::__private::run_test_with(name, Builder::new(), lost_update, Some(token.clone()))
    });
    let message = *outcome.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("replayed:") && message.contains("lost update"),
        "{message}"
    );

    let bad = std::panic::catch_unwind(|| {
        symx::__private::run_test_with(
            name,
            Builder::new(),
            lost_update,
            Some("symx1-nonsense".into()),
        )
    });
    let message = *bad.unwrap_err().downcast::<String>().unwrap();
    assert!(
        message.contains("cannot use SYMX_REPLAY") && message.contains("corrupted"),
        "{message}"
    );
}

/// `lost_update`'s operations, written at other lines (and in another file): what a token
/// meets after a comment or an `eprintln!` was added above the test.
fn lost_update_moved() {
    let c = Arc::new(AtomicUsize::new(0));
    let c2 = c.clone();

    let t = thread::spawn(move || {
        let v = c2.load(SeqCst);
        c2.store(v + 1, SeqCst);
    });
    // A line that moves the rest down.
    let v = c.load(SeqCst);
    c.store(v + 1, SeqCst);
    t.join().unwrap();
    assert_eq!(c.load(SeqCst), 2, "lost update");
}

#[test]
fn a_token_replays_when_only_source_locations_moved_and_says_which() {
    let schedule = token_of(lost_update);
    let report = Builder::new()
        .try_replay(&schedule, lost_update_moved)
        .expect("the same operations replay");
    assert_eq!(report.failure().unwrap().kind(), FailureKind::Panic);
    let moved = report
        .moved_locations()
        .expect("the replay says lines moved");
    assert!(!moved.is_empty());
    assert!(
        moved.iter().all(|l| l.file.ends_with("replay.rs")),
        "{moved:?}"
    );
    // Replayed into the program it was recorded from, nothing moved.
    let same = Builder::new().try_replay(&schedule, lost_update).unwrap();
    assert_eq!(same.moved_locations(), None);
}

#[test]
fn a_token_of_an_older_format_is_rejected_with_what_to_do() {
    let old: Schedule = "symx1-z6qt1AgCQOU8f5qlyQECAAEzcWEr".parse().unwrap();
    let err = Builder::new().try_replay(&old, lost_update).unwrap_err();
    assert_eq!(err, ReplayError::OldVersion(1));
    assert!(err.to_string().contains("run the test again"), "{err}");
}
