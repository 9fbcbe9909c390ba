//! What the user is told: the outcome model every format is rendered from (`outcome`), the
//! progress shown while tests run (`progress`), colour (`style`), and the formats: `human`
//! (the default, for people), and `json`, `junit`, `sarif` for machines; each is rendered from
//! the same [`Outcome`] records. Also where a report goes and the exit code it implies.

pub mod context;
pub mod guided;
pub mod human;
pub mod json;
pub mod junit;
pub mod kind;
pub mod no_tests;
pub mod outcome;
mod predicted;
pub mod progress;
pub mod sarif;
pub mod style;
pub mod symbolic;
mod table;

use std::io::IsTerminal;
use std::time::Instant;

use outcome::{Outcome, Status};
use style::{ColorChoice, Style};

use crate::{EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE};

/// The report formats (`--format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Junit,
    Sarif,
}

/// Where a report goes and how it looks.
pub struct Destination<'a> {
    pub format: Format,
    pub output: Option<&'a std::path::Path>,
    pub color: ColorChoice,
}

/// Writes the report of `outcomes`: the chosen format to stdout or the output file, and the
/// human report on stderr besides a machine format.
pub fn render(
    to: &Destination,
    outcomes: &[Outcome],
    start: Instant,
    interrupted: bool,
) -> Result<(), String> {
    let color = to.color;
    let elapsed = start.elapsed();
    let machine = match to.format {
        Format::Human => None,
        Format::Json => Some(json::render(outcomes, elapsed, interrupted)),
        Format::Junit => Some(junit::render(outcomes)?),
        Format::Sarif => Some(sarif::render(outcomes)?),
    };
    let to_file = |text: &str| -> Result<(), String> {
        match &to.output {
            Some(path) => std::fs::write(path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display())),
            None => {
                print!("{text}");
                Ok(())
            }
        }
    };
    match machine {
        None if to.output.is_none() => {
            print!(
                "{}",
                human::render(outcomes, elapsed, Style::for_stdout(color))
            );
        }
        None => to_file(&human::render(outcomes, elapsed, Style { color: false }))?,
        Some(text) => {
            let style = Style::new(color, std::io::stderr().is_terminal());
            eprint!("{}", human::render(outcomes, elapsed, style));
            to_file(&text)?;
        }
    }
    if interrupted {
        eprintln!("symx: interrupted; the report above has what was found until then");
    }
    Ok(())
}

/// The process's exit code for `outcomes`: a bug wins over an interruption, which wins over
/// an error.
pub fn exit_code(outcomes: &[Outcome], interrupted: bool) -> u8 {
    if outcomes.iter().any(|o| o.status.is_bug()) {
        EXIT_BUG
    } else if interrupted {
        EXIT_INTERRUPTED
    } else if outcomes.iter().any(|o| o.status == Status::Error) {
        EXIT_USAGE
    } else {
        0
    }
}
