//! `cargo symx`: the subcommand users run. For now it runs the in-process explorer that every
//! `#[symx::test]` carries, through `cargo test`; the worker protocol, the reports and the
//! z3-backed engines come with the driver (see the project's issues).

use std::process::{Command, ExitCode};

mod predict;

const HELP: &str = "\
cargo symx: explore the #[symx::test] tests of a cargo project

USAGE:
    cargo symx test [CARGO TEST ARGS]...      explore every #[symx::test] (and run the other tests)
    cargo symx replay <TOKEN> <TEST PATH>     replay one failure, e.g. tests::lost_update

EXAMPLES:
    cargo symx test
    cargo symx test -p getting-started lost_update
    cargo symx replay symx1-AAU45mE0czQX3QMBAgHHHc_e tests::lost_update

EXIT CODES:
    0  no bug found      1  a test failed (a bug was found)      2  usage or build error
";

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn run(mut cmd: Command) -> ExitCode {
    match cmd.status() {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        // cargo test exits 101 for failing tests and for build errors alike.
        Ok(s) if s.code() == Some(101) => ExitCode::from(1),
        Ok(_) => ExitCode::from(2),
        Err(e) => {
            eprintln!("cargo symx: cannot run cargo: {e}");
            ExitCode::from(2)
        }
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // Invoked as `cargo symx ...`, cargo passes "symx" first.
    if args.first().map(String::as_str) == Some("symx") {
        args.remove(0);
    }
    match args.first().map(String::as_str) {
        Some("test") => {
            let mut cmd = cargo();
            cmd.arg("test").args(&args[1..]);
            run(cmd)
        }
        Some("replay") if args.len() == 3 => {
            let (token, test) = (&args[1], &args[2]);
            if let Err(e) = token.parse::<Token>() {
                eprintln!("cargo symx replay: {e}");
                return ExitCode::from(2);
            }
            let mut cmd = cargo();
            cmd.env("SYMX_REPLAY", token).args([
                "test",
                test.as_str(),
                "--",
                "--exact",
                "--nocapture",
            ]);
            run(cmd)
        }
        Some("--version" | "-V") => {
            println!("cargo-symx {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help" | "-h" | "help") => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        _ => {
            eprint!("{HELP}");
            ExitCode::from(2)
        }
    }
}

/// Only the shape is checked here; the test binary validates the token fully.
struct Token;

impl std::str::FromStr for Token {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s.starts_with("symx") && s.contains('-') {
            Ok(Token)
        } else {
            Err(format!(
                "`{s}` is not a symx replay token (tokens look like symx1-...)"
            ))
        }
    }
}
