//! The loom-style entry point (`symx::model`, `Builder::check`) reports as `#[symx::test]` does:
//! the failure panics at the caller's line, its token names the calling test (so two tests finding
//! the same bug get different tokens and one's token is rejected by the other), and the printed
//! `SYMX_REPLAY=… cargo test NAME -- --exact --include-ignored` replays it. And the report texts:
//! what a deadlock, the step limit and a race before any scheduling point say.
//!
//! The two `#[ignore]`d tests fail on purpose; the others run them in a child process of this
//! test binary, with and without `SYMX_REPLAY`.

use std::process::Command;

use symx::cell::UnsafeCell;
use symx::sync::atomic::{AtomicUsize, Ordering};
use symx::sync::{Arc, Mutex};
use symx::{thread, Builder};

fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let m = n.clone();
    let t = thread::spawn(move || {
        let v = m.load(Ordering::SeqCst);
        m.store(v + 1, Ordering::SeqCst);
    });
    let v = n.load(Ordering::SeqCst);
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
}

#[test]
#[ignore = "fails on purpose: run by the tests below in a child process"]
fn model_of_a_lost_update() {
    symx::model(lost_update);
}

#[test]
#[ignore = "fails on purpose: run by the tests below in a child process"]
fn check_of_a_lost_update() {
    Builder::new().check(lost_update);
}

/// Runs one of the tests above in a child process; its stdout and stderr together.
fn child(test: &str, replay: Option<&str>) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--include-ignored", "--nocapture"])
        .env_remove("SYMX_REPLAY")
        .env_remove("RUSTFLAGS");
    if let Some(token) = replay {
        cmd.env("SYMX_REPLAY", token);
    }
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "{test} fails");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The line of this file that holds `code`.
fn line_of(code: &str) -> usize {
    let source = include_str!("model_entry.rs");
    1 + source.lines().position(|l| l.trim() == code).unwrap()
}

/// The token in the report's replay command, which must be `SYMX_REPLAY=… cargo test [FLAGS] TEST
/// -- --exact --include-ignored` (flags such as `--manifest-path` and `--target-dir` say how the
/// run was built).
fn printed_token(output: &str, test: &str) -> String {
    let command = output
        .lines()
        .find_map(|l| l.strip_prefix("replay with:  "))
        .unwrap_or_else(|| panic!("a replay command:\n{output}"));
    let (token, rest) = command
        .strip_prefix("SYMX_REPLAY=")
        .and_then(|c| c.split_once(' '))
        .unwrap_or_else(|| panic!("a SYMX_REPLAY command: {command}"));
    assert!(
        rest.starts_with("cargo test ")
            && rest.ends_with(&format!(" {test} -- --exact --include-ignored")),
        "the command names {test}: {command}"
    );
    token.to_string()
}

#[test]
fn a_model_failure_points_at_the_caller_and_its_printed_command_replays_it_in_that_test_only() {
    let mut tokens = Vec::new();
    for (test, call) in [
        ("model_of_a_lost_update", "symx::model(lost_update);"),
        (
            "check_of_a_lost_update",
            "Builder::new().check(lost_update);",
        ),
    ] {
        let found = child(test, None);
        let at = format!("panicked at {}:{}:", file!(), line_of(call));
        assert!(found.contains(&at), "`{at}`:\n{found}");
        assert!(found.contains("symx found a panic"), "{found}");
        let token = printed_token(&found, test);
        let replayed = child(test, Some(&token));
        assert!(replayed.contains("replayed:"), "{replayed}");
        assert!(replayed.contains("lost update"), "{replayed}");
        tokens.push(token);
    }
    // The same bug in two tests: two tokens, and neither test takes the other's.
    assert_ne!(tokens[0], tokens[1]);
    let rejected = child("check_of_a_lost_update", Some(&tokens[0]));
    assert!(
        rejected.contains("cannot use SYMX_REPLAY")
            && rejected.contains("recorded by a different test"),
        "{rejected}"
    );
}

fn failure_of(builder: Builder, body: impl Fn()) -> String {
    builder
        .explore(body)
        .failure()
        .expect("a failure")
        .to_string()
}

#[test]
fn a_deadlock_is_said_once_and_a_join_names_the_thread_it_waits_for() {
    let text = failure_of(Builder::new(), || {
        let m = Arc::new(Mutex::new(()));
        let m2 = m.clone();
        let _held = m.lock().unwrap();
        let t = thread::spawn(move || drop(m2.lock().unwrap()));
        let _ = t.join();
    });
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        "symx found a deadlock: no thread can make progress (blocked: thread 0, 1)"
    );
    let join = format!(
        "    thread 0 (main): waits for thread 1 to finish (join) at {}:{}:",
        file!(),
        line_of("let _ = t.join();")
    );
    assert!(text.contains(&join), "`{join}`:\n{text}");
}

#[test]
fn the_step_limit_is_said_in_words_and_counts_each_threads_steps() {
    let text = failure_of(Builder::new().max_steps(2), || {
        thread::yield_now();
        thread::yield_now();
        thread::yield_now();
    });
    let mut lines = text.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("symx hit the step limit: an execution exceeded 2 steps: "),
        "{text}"
    );
    assert_eq!(
        lines.next().unwrap(),
        "    thread 0 (main) ran 2 of the last 2 steps, each a different operation"
    );
    let spin = failure_of(Builder::new().max_steps(10), || loop {
        symx::hint::spin_loop();
    });
    let all = format!(
        "    thread 0 (main) ran 10 of the last 10 steps, all yield at {}:{}:",
        file!(),
        line_of("symx::hint::spin_loop();")
    );
    assert!(spin.contains(&all), "`{all}`:\n{spin}");
}

struct Shared(UnsafeCell<u32>);
// SAFETY: not safe, on purpose: the test is that symx reports the race.
unsafe impl Sync for Shared {}

#[test]
fn a_race_before_any_scheduling_point_draws_no_empty_interleaving() {
    let text = failure_of(Builder::new(), || {
        let cell = Arc::new(Shared(UnsafeCell::new(0)));
        let other = cell.clone();
        let t = thread::spawn(move || other.0.with_mut(|p| unsafe { *p = 1 }));
        cell.0.with(|p| unsafe { *p });
        t.join().unwrap();
    });
    assert!(text.starts_with("symx found a data race: "), "{text}");
    assert!(
        text.contains(
            "\nno interleaving to draw: the failure came before the first scheduling point\n"
        ),
        "{text}"
    );
    assert!(!text.contains("0 steps"), "{text}");
}
