//! Colour: on only when the output is a terminal (or `--color always`), off with `--color never`
//! or `NO_COLOR`. Also the one-line form of a finished test, shared by progress and summary.

use std::io::IsTerminal;

use crate::report::outcome::{Outcome, Status};

/// When to colour (`--color`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour a terminal unless `NO_COLOR` is set.
    Auto,
    Always,
    Never,
}

/// `--color always|never` win; `auto` colours a terminal unless `NO_COLOR` is set.
fn decide(choice: ColorChoice, terminal: bool, no_color: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color,
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Colour for a stream that is (`terminal`) or is not a terminal.
    pub fn new(choice: ColorChoice, terminal: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: decide(choice, terminal, no_color),
        }
    }

    pub fn for_stdout(choice: ColorChoice) -> Style {
        Style::new(choice, std::io::stdout().is_terminal())
    }

    pub fn for_stderr(choice: ColorChoice) -> Style {
        Style::new(choice, std::io::stderr().is_terminal())
    }

    /// `error:`, in bold red when colouring.
    pub fn error_label(&self) -> String {
        self.paint("1;31", "error:")
    }

    /// `   WARN`, aligned with the status labels, in bold yellow when colouring.
    pub fn warn_label(&self) -> String {
        self.paint("1;33", &format!("{:>7}", "WARN"))
    }

    /// `warning:`, in bold yellow when colouring.
    pub fn warning_label(&self) -> String {
        self.paint("1;33", "warning:")
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn status(&self, status: Status) -> String {
        let label = format!("{:>7}", status.label());
        let code = match status {
            Status::Passed | Status::ExpectedFailure => "1;32",
            Status::Ignored | Status::Interrupted => "1;33",
            _ => "1;31",
        };
        self.paint(code, &label)
    }

    /// `   PASS [ 0.120s] pkg::target name  (dpor, 14 executions, complete under sequential
    /// consistency)`
    pub fn outcome_line(&self, o: &Outcome) -> String {
        let mut about = Vec::new();
        if let Some(s) = &o.strategy {
            about.push(s.clone());
        }
        if let Some(n) = o.executions {
            about.push(format!("{n} executions"));
        }
        match (o.complete, &o.failure) {
            (Some(true), _) => about.push(o.completeness()),
            (Some(false), None) => about.push("incomplete".to_string()),
            _ => {}
        }
        // Never `complete` without the warning that says what it does not cover.
        about.extend(o.warnings.iter().map(|w| format!("warning: {}", w.code)));
        if let Some(f) = &o.failure {
            about.push(f.kind.clone());
            if f.predicted {
                about.push("predicted".to_string());
            }
        }
        let about = if about.is_empty() {
            String::new()
        } else {
            self.dim(&format!("  ({})", about.join(", ")))
        };
        format!(
            "{} [{:>7.3}s] {}::{} {}{about}",
            self.status(o.status),
            o.duration.as_secs_f64(),
            o.package,
            o.target,
            self.bold(&o.name)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::decide;
    use super::ColorChoice::*;

    #[test]
    fn colour_only_on_terminals_and_never_under_no_color_unless_forced() {
        assert!(decide(Auto, true, false));
        assert!(!decide(Auto, false, false));
        assert!(!decide(Auto, true, true));
        assert!(decide(Always, false, true));
        assert!(!decide(Never, true, false));
    }
}
