//! What the user sees while tests run: a spinner per running test with its execution count and
//! rate (only on a terminal), and one line per finished test.

use std::sync::Mutex;
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::report::outcome::Outcome;
use crate::report::style::Style;

pub struct Progress {
    multi: MultiProgress,
    style: Style,
    /// Finished-test lines go to stdout when it carries the human report, else stderr.
    to_stdout: bool,
}

/// One running test's spinner.
pub struct TestBar {
    bar: ProgressBar,
    start: Instant,
    /// The most preemptions an execution took so far (over every shard), and the bound.
    preemptions: Mutex<(u32, Option<u32>)>,
}

impl Progress {
    pub fn new(style: Style, to_stdout: bool) -> Progress {
        let target = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        Progress {
            multi: MultiProgress::with_draw_target(target),
            style,
            to_stdout,
        }
    }

    pub fn start(&self, id: &str) -> TestBar {
        let bar = self.multi.add(ProgressBar::new_spinner());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed:>4} {prefix} {msg}")
                .expect("a valid template"),
        );
        bar.set_prefix(id.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        TestBar {
            bar,
            start: Instant::now(),
            preemptions: Mutex::new((0, None)),
        }
    }

    pub fn finish(&self, bar: TestBar, outcome: &Outcome) {
        bar.bar.finish_and_clear();
        self.multi.remove(&bar.bar);
        let line = self.style.outcome_line(outcome);
        if self.multi.is_hidden() {
            if self.to_stdout {
                println!("{line}");
            } else {
                eprintln!("{line}");
            }
        } else {
            let _ = self.multi.println(line);
        }
    }
}

impl TestBar {
    /// A progress message: `executions` so far, of at most `total` when that is known, or of
    /// about `estimate` (the exploration's own estimate of its size), then with the time left
    /// at the current rate.
    pub fn executions(&self, executions: u64, total: Option<u64>, estimate: Option<u64>) {
        let secs = self.start.elapsed().as_secs_f64().max(1e-3);
        let rate = executions as f64 / secs;
        let left = |of: u64| of.saturating_sub(executions) as f64 / rate;
        let message = match (total, estimate) {
            (Some(total), _) if total > 0 && rate > 0.0 => {
                let left = left(total);
                format!("{executions}/{total} executions ({rate:.0}/s, ~{left:.0}s left)")
            }
            (_, Some(about)) if rate > 0.0 => {
                let (about, left) = (about.max(executions), left(about));
                format!(
                    "{executions}/~{about} executions ({rate:.0}/s, ~{left:.0}s left by estimate)"
                )
            }
            _ => format!("{executions} executions ({rate:.0}/s)"),
        };
        let preemptions = *self.preemptions.lock().unwrap_or_else(|p| p.into_inner());
        self.bar
            .set_message(format!("{message}{}", preemption_note(preemptions)));
    }

    /// Replaces the message (for what follows the exploration).
    pub fn say(&self, message: String) {
        self.bar.set_message(message);
    }

    /// Notes the most preemptions an execution took (shown with the next message).
    pub fn preemptions(&self, max: u32, bound: Option<u32>) {
        let mut p = self.preemptions.lock().unwrap_or_else(|p| p.into_inner());
        *p = (p.0.max(max), bound);
    }
}

/// `, ≤ 3 preemptions` — and, when a bound cuts the space, that it has been reached.
fn preemption_note((max, bound): (u32, Option<u32>)) -> String {
    match bound {
        Some(b) if max >= b => format!(", preemption bound {b} reached"),
        Some(b) => format!(", ≤ {max} of {b} preemptions"),
        None => format!(", ≤ {max} preemptions"),
    }
}

#[cfg(test)]
mod tests {
    use super::preemption_note;

    #[test]
    fn the_note_says_when_the_preemption_bound_is_reached() {
        assert_eq!(preemption_note((1, None)), ", ≤ 1 preemptions");
        assert_eq!(preemption_note((1, Some(2))), ", ≤ 1 of 2 preemptions");
        assert_eq!(
            preemption_note((2, Some(2))),
            ", preemption bound 2 reached"
        );
    }
}
