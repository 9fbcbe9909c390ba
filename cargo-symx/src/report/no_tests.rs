//! What a run says when its selection held no `#[symx::test]` (a forgotten feature or `cfg`, a
//! filter that matches nothing): by default an error with exit code 4 (nextest's code for "no
//! tests ran"), so that a CI job whose symx tests all vanished does not pass in silence.

use crate::report::outcome::Outcome;
use crate::report::style::Style;
use crate::{EXIT_INTERRUPTED, EXIT_NO_TESTS};

/// `--no-tests`: what a run without a `#[symx::test]` means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NoTests {
    /// An error: exit code 4.
    #[default]
    Fail,
    /// A warning; the exit code is what the other tests make it.
    Warn,
    /// Nothing said.
    Pass,
}

/// How many outcomes ran as a `#[symx::test]` (the worker announced a strategy).
pub fn symx_tests(outcomes: &[Outcome]) -> usize {
    outcomes.iter().filter(|o| o.strategy.is_some()).count()
}

/// Whether `judge` will say something of this run: then the caller looks for the cause.
pub fn will_judge(outcomes: &[Outcome], mode: NoTests, code: u8) -> bool {
    mode != NoTests::Pass && code != EXIT_INTERRUPTED && symx_tests(outcomes) == 0
}

/// The exit code once `mode` has judged a run without symx tests, printing why on stderr (with
/// `cause`, what the caller found out about a filter that matched nothing). A bug, an
/// interruption or an error (a nonzero `code`) wins over having no symx tests; an interrupted
/// run says nothing of it (the tests may simply not have started).
pub fn judge(
    outcomes: &[Outcome],
    filter: Option<&str>,
    cause: Option<&str>,
    mode: NoTests,
    code: u8,
    style: Style,
) -> u8 {
    if !will_judge(outcomes, mode, code) {
        return code;
    }
    let fail = mode == NoTests::Fail && code == 0;
    let label = if fail {
        style.error_label()
    } else {
        style.warning_label()
    };
    eprintln!("{label} {}", message(outcomes.len(), filter, cause));
    if fail {
        EXIT_NO_TESTS
    } else {
        code
    }
}

/// Why no `#[symx::test]` ran: the `cause` when one was found, else what to check.
pub fn message(tests: usize, filter: Option<&str>, cause: Option<&str>) -> String {
    let selection = match (tests, filter) {
        (0, Some(f)) => format!("no test matches the filter `{f}`"),
        (0, None) => "the selection holds no tests".to_string(),
        (n, _) => format!("none of the {n} tests that ran is a #[symx::test]"),
    };
    if let Some(cause) = cause {
        return format!(
            "no #[symx::test] ran: {selection}: {cause} (`--no-tests=warn` or \
             `--no-tests=pass` accepts a run without them)"
        );
    }
    format!(
        "no #[symx::test] ran: {selection}. Is a feature or `--cfg` that enables them missing \
         (`--features`, or `features` in [package.metadata.symx]), or is the filter misspelt? \
         (`--no-tests=warn` or `--no-tests=pass` accepts a run without them)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_empty_filter_or_the_ordinary_tests() {
        assert!(message(0, Some("lost"), None).contains("no test matches the filter `lost`"));
        assert!(message(3, None, None).contains("none of the 3 tests that ran is a #[symx::test]"));
        assert!(message(0, None, None).contains("the selection holds no tests"));
        let found = message(0, Some("lost"), Some("did you mean `lost_update`?"));
        assert!(
            found.contains("`lost`: did you mean `lost_update`?"),
            "{found}"
        );
        assert!(!found.contains("misspelt"), "{found}");
    }

    #[test]
    fn only_a_run_that_would_pass_becomes_exit_code_4() {
        let style = Style { color: false };
        assert_eq!(
            judge(&[], None, None, NoTests::Fail, 0, style),
            EXIT_NO_TESTS
        );
        assert_eq!(judge(&[], None, None, NoTests::Fail, 1, style), 1);
        assert_eq!(judge(&[], None, None, NoTests::Warn, 0, style), 0);
        assert_eq!(judge(&[], None, None, NoTests::Pass, 0, style), 0);
    }
}
