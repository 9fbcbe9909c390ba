//! Plain `cargo test` runs symbolic inputs at one assignment and says so once per test
//! binary: this binary runs itself on its two input-drawing tests and counts the notes on its
//! stderr (once), and under the driver's worker mode (none).

use std::process::{Command, Stdio};

use symx::Sym;

#[symx::test]
fn draws_an_input() {
    let n: Sym<u32> = symx::any();
    let _ = n.peek();
}

#[symx::test]
fn draws_another_input() {
    let n: Sym<u8> = symx::any_named("n");
    let _ = n.peek();
}

#[symx::test]
fn draws_nothing_symbolic() {}

const NOTE: &str = "draws symbolic inputs";

/// Runs this binary's `draws_` tests; returns stderr.
fn run_self(worker: bool) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["draws_", "--test-threads=2"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if worker {
        cmd.env(symx::__worker::protocol::ENV_WORKER, "1");
    }
    let out = cmd.output().unwrap();
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn the_note_is_printed_once_per_binary_and_never_to_the_driver() {
    let plain = run_self(false);
    assert_eq!(plain.matches(NOTE).count(), 1, "{plain}");
    assert!(plain.contains("`cargo symx test` explores every input class"));
    let worker = run_self(true);
    assert_eq!(worker.matches(NOTE).count(), 0, "{worker}");
}
