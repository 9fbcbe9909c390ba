//! `cargo symx replay`: finds the test a token belongs to (tokens store a hash of the test's
//! name), asks that test's binary to replay exactly the token's execution, and prints it.
//! Exit code 1 when the replay shows the failure (or crashes again), 0 when it runs cleanly.

use std::time::Duration;

use symx::__worker::protocol::Request;
use symx::__worker::tokens::{test_hash_of, token_test_hash};

use crate::commands::args::ReplayArgs;
use crate::config::{duration, Layers, Settings};
use crate::discover::{self, TestCase};
use crate::report::human;
use crate::report::outcome::Finding;
use crate::report::style::{ColorChoice, Style};
use crate::worker_process::{self, Run};
use crate::EXIT_BUG;

/// The token itself, or the first token in the file it names.
fn read_token(arg: &str) -> Result<String, String> {
    if arg.starts_with("symx") && !std::path::Path::new(arg).exists() {
        return Ok(arg.to_string());
    }
    let text = std::fs::read_to_string(arg).map_err(|e| {
        format!("`{arg}` is neither a replay token (symxN-...) nor a readable file: {e}")
    })?;
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .find(|w| looks_like_token(w))
        .map(str::to_string)
        .ok_or_else(|| format!("{arg} contains no replay token (symxN-...)"))
}

/// `symx<version>-<payload>`, and not words like `symx-test-report`.
fn looks_like_token(word: &str) -> bool {
    let Some((head, payload)) = word.split_once('-') else {
        return false;
    };
    head.strip_prefix("symx")
        .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        && !payload.is_empty()
}

pub fn replay(args: &ReplayArgs, color: ColorChoice) -> Result<u8, String> {
    let token = read_token(&args.token)?;
    let hash = token_test_hash(&token).map_err(|e| e.to_string())?;
    let mut cargo = args.cargo.options();
    let metadata = discover::metadata(&cargo)?;
    let layers = Layers::load(&metadata, None, Settings::default())?;
    super::add_configured_features(&mut cargo, &metadata, &layers)?;
    let cargo_color = Style::for_stderr(color).color;
    let cases = discover::build_and_list(&cargo, &metadata, None, &[], cargo_color)?;
    let candidates: Vec<&TestCase> = cases
        .iter()
        .filter(|c| hash == 0 || test_hash_of(&c.name) == hash)
        .collect();
    if candidates.is_empty() {
        return Err(discover::absent::not_built(
            &format!(
                "no test among the {} tests built is the token's",
                cases.len()
            ),
            &cargo,
            &metadata,
            &|c| test_hash_of(&c.name) == hash,
        ));
    }
    let style = Style::for_stdout(color);
    let mut errors = Vec::new();
    for case in candidates {
        // The package's configured timeout, unless the command line gives one.
        let timeout = match &args.timeout {
            Some(t) => duration(t)?,
            None => match metadata
                .packages
                .iter()
                .find(|p| p.id == case.binary.package_id)
            {
                Some(p) => layers.for_package(p)?.timeout,
                None => layers.for_other_package()?.timeout,
            },
        };
        let request = Request::Replay {
            token: token.clone(),
            every_step: args.trace,
        };
        // The token names its test: run it even when it is `#[ignore]`d (a known bug is).
        let include = ["--include-ignored".to_string()];
        let run = worker_process::run(case, request, &include, timeout, &mut |_| {});
        match show(case, &run, args.trace, timeout, style) {
            Ok(code) => return Ok(code),
            Err(e) => errors.push(format!(
                "{}::{} {}: {e}",
                case.binary.package, case.binary.target, case.name
            )),
        }
    }
    Err(format!(
        "the token could not be replayed:\n  {}",
        errors.join("\n  ")
    ))
}

/// Prints what the replay did; `Err` when this test could not replay the token.
fn show(
    case: &TestCase,
    run: &Run,
    trace: bool,
    timeout: Duration,
    style: Style,
) -> Result<u8, String> {
    let title = format!(
        "{}::{} {}",
        case.binary.package,
        case.binary.target,
        style.bold(&case.name)
    );
    if let Some(stuck) = &run.stuck {
        println!("replayed {title}: a thread is stuck again");
        print!(
            "{}",
            human::finding(&Finding::from_report(stuck.clone()), style)
        );
        return Ok(EXIT_BUG);
    }
    if run.crashed() {
        let (kind, message) = crate::run::crash::describe(run, timeout);
        println!(
            "replayed {title}: the execution crashed again\n  {}: {message}",
            style.bold(kind)
        );
        return Ok(EXIT_BUG);
    }
    if let Some(e) = run.errors.first() {
        return Err(e.clone());
    }
    let Some(replayed) = &run.replayed else {
        return Err("it is not a #[symx::test]".into());
    };
    if let Some(e) = &replayed.error {
        return Err(e.clone());
    }
    if let Some(moved) = &replayed.moved {
        println!("{}", moved_note(moved));
    }
    match &replayed.failure {
        Some(f) => {
            println!("replayed {title}: the failure happens again");
            let mut finding = Finding::from_report(f.clone());
            if trace {
                // Every step: the worker collapsed none of the replay's repeated steps.
                finding.steps = replayed.steps.clone();
            }
            print!("{}", human::finding(&finding, style));
            Ok(EXIT_BUG)
        }
        None => {
            // Collapsed rows stand for many steps: the last step's number is the count.
            let steps = replayed.steps.last().map_or(0, |s| s.index);
            println!("replayed {title}: {steps} steps, no failure");
            if trace {
                print!("{}", human::interleaving(&replayed.steps));
            }
            Ok(0)
        }
    }
}

/// The note of a replay whose operations ran at other source lines than the token recorded.
fn moved_note(moved: &[symx::__worker::protocol::Location]) -> String {
    let mut note = "note: the code moved since the token was recorded; the same operations ran, \
                    so the replay goes on"
        .to_string();
    if !moved.is_empty() {
        let places: Vec<String> = moved.iter().map(|l| l.to_string()).collect();
        note.push_str(&format!(
            "; locations the token did not record: {}",
            places.join(", ")
        ));
    }
    note
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_told_from_other_symx_words() {
        assert!(super::looks_like_token("symx1-AAU45mE0czQX3QMBAgHHHc_e"));
        assert!(!super::looks_like_token("symx-test-report"));
        assert!(!super::looks_like_token("symx1-"));
        assert!(!super::looks_like_token("symxy-abc"));
    }
}
