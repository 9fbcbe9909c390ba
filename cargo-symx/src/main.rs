//! `cargo symx`: parses the command line and hands it to the library, which builds a
//! project's tests, runs each as a worker of the driver, and reports. Exit codes: 0 no bug,
//! 1 a confirmed bug, 2 usage/configuration/build error, 130 interrupted.

use std::process::ExitCode;

use cargo_symx::commands::{self, args};

fn main() -> ExitCode {
    // Run by cargo as the rustc wrapper that learns the configuration's rustflags.
    if let Some(out) = std::env::var_os(cargo_symx::discover::rustflags::PROBE_ENV) {
        return ExitCode::from(cargo_symx::discover::rustflags::probe_main(out));
    }
    match args::parse() {
        Ok(cli) => ExitCode::from(commands::run(&cli)),
        Err(e) => {
            let code = if e.use_stderr() {
                cargo_symx::EXIT_USAGE
            } else {
                0
            };
            let _ = e.print();
            ExitCode::from(code)
        }
    }
}
