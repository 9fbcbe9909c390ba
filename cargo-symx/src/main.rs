//! `cargo symx`: builds a project's tests, runs each as a worker of the driver, and reports.
//! This file only dispatches commands and maps results to exit codes (0 no bug, 1 a confirmed
//! bug, 2 usage/configuration/build error, 130 interrupted); each module says what it owns.

mod budget;
mod cli;
mod config;
mod crash;
mod discover;
mod outcome;
mod output;
mod predict;
mod predict_cmd;
mod predict_run;
mod progress;
mod replay;
mod run;
mod shards;
mod style;
mod test_cmd;
mod worker;

use std::process::ExitCode;

pub const EXIT_BUG: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match &cli.command {
        cli::Command::Test(args) => test_cmd::test(args, cli.color),
        cli::Command::List(args) => test_cmd::list(args, cli.color),
        cli::Command::Replay(args) => replay::replay(args, cli.color),
        cli::Command::Predict(args) => predict_cmd::predict(args, cli.color),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("{} {message}", error_label(cli.color));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn error_label(color: cli::ColorChoice) -> String {
    let style = style::Style::new(color, std::io::IsTerminal::is_terminal(&std::io::stderr()));
    if style.color {
        "\x1b[1;31merror:\x1b[0m".to_string()
    } else {
        "error:".to_string()
    }
}
