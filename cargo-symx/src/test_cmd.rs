//! `cargo symx test` and `cargo symx list`: configuration, build, test selection, the run, and
//! where each report goes.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::time::Instant;

use crate::cli::{CargoArgs, ColorChoice, Format, ListArgs, TestArgs};
use crate::config::{Layers, Resolved, Settings};
use crate::discover::{self, TestBinary, TestCase};
use crate::outcome::{Outcome, Status};
use crate::output;
use crate::progress::Progress;
use crate::run::{self, Job, ReplayHint};
use crate::style::Style;
use crate::worker::INTERRUPTED;
use crate::{EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE};

/// Builds the selected test targets of the workspace `metadata` describes and lists the tests
/// matching `filter`.
pub fn build_and_list(
    cargo: &CargoArgs,
    metadata: &cargo_metadata::Metadata,
    filter: Option<&str>,
    extra: &[String],
    color: ColorChoice,
) -> Result<Vec<TestCase>, String> {
    let cargo_color = Style::new(color, std::io::stderr().is_terminal()).color;
    let binaries: Vec<TestBinary> = discover::build(cargo, metadata, cargo_color)?;
    let mut cases = Vec::new();
    for b in &binaries {
        // A binary that is not a libtest harness (`harness = false`) cannot be listed: it is
        // said so and left out rather than failing the run.
        match discover::list(b, filter, extra) {
            Ok(found) => cases.extend(found),
            Err(e) => eprintln!("warning: {e}; its tests are not run"),
        }
    }
    Ok(cases)
}

pub fn list(args: &ListArgs, color: ColorChoice) -> Result<u8, String> {
    let metadata = discover::metadata(&args.cargo)?;
    let cases = build_and_list(&args.cargo, &metadata, args.filter.as_deref(), &[], color)?;
    for c in &cases {
        println!("{}::{} {}", c.binary.package, c.binary.target, c.name);
    }
    Ok(0)
}

fn flag_settings(args: &TestArgs) -> Settings {
    let mut s = Settings {
        preemption_bound: args.preemption_bound,
        max_executions: args.max_executions,
        time_budget: args.time_budget.clone(),
        timeout: args.timeout.clone(),
        jobs: args.jobs,
        shards: args.shards,
        predict: args.predict.then_some(true),
        predict_executions: args.predict_executions,
        ..Settings::default()
    };
    crate::predict_run::flag_settings(&args.predict_options, &mut s);
    s
}

pub fn test(args: &TestArgs, color: ColorChoice) -> Result<u8, String> {
    let start = Instant::now();
    // Before the build, so that Ctrl-C during it still ends with a report (of no tests).
    run::install_interrupt_handler();
    // Configuration errors are found before the (slow) build.
    let metadata = discover::metadata(&args.cargo)?;
    let layers = Layers::load(
        &metadata,
        args.report.profile.as_deref(),
        flag_settings(args),
    )?;
    let verbose = args.predict_options.verbose;
    let mut resolved: HashMap<String, Resolved> = HashMap::new();
    for p in metadata.workspace_packages() {
        let mut settings = layers.for_package(p)?;
        settings.predict.verbose = verbose;
        resolved.insert(p.id.repr.clone(), settings);
    }
    let filter = args.filter.as_deref();
    let cases = build_and_list(&args.cargo, &metadata, filter, &args.test_args, color)?;
    let jobs: Vec<Job> = cases
        .into_iter()
        .map(|case| {
            let mut settings = resolved
                .get(&case.binary.package_id.repr)
                .cloned()
                .map_or_else(|| layers.for_other_package(), Ok)?;
            settings.predict.verbose = verbose;
            Ok(Job { case, settings })
        })
        .collect::<Result<_, String>>()?;
    let workers = args
        .jobs
        .or_else(|| jobs.first().and_then(|j| j.settings.jobs))
        .unwrap_or_else(run::default_jobs);
    crate::budget::set(workers);
    let human_on_stdout = args.report.format == Format::Human && args.report.output.is_none();
    let progress = Progress::new(
        Style::new(color, std::io::stderr().is_terminal()),
        human_on_stdout,
    );
    let hint = ReplayHint::new(&args.cargo);
    let outcomes = run::run_all(jobs, workers, &args.test_args, &progress, &hint);
    let interrupted = INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst);
    let to = Destination {
        format: args.report.format,
        output: args.report.output.as_deref(),
        color,
    };
    report(&to, &outcomes, start, interrupted)?;
    Ok(exit_code(&outcomes, interrupted))
}

/// Where a report goes and how it looks.
pub struct Destination<'a> {
    pub format: Format,
    pub output: Option<&'a std::path::Path>,
    pub color: ColorChoice,
}

/// Writes the report of `outcomes`: the chosen format to stdout or the output file, and the
/// human report on stderr besides a machine format.
pub fn report(
    to: &Destination,
    outcomes: &[Outcome],
    start: Instant,
    interrupted: bool,
) -> Result<(), String> {
    let color = to.color;
    let elapsed = start.elapsed();
    let machine = match to.format {
        Format::Human => None,
        Format::Json => Some(output::json::render(outcomes, elapsed, interrupted)),
        Format::Junit => Some(output::junit::render(outcomes)?),
        Format::Sarif => Some(output::sarif::render(outcomes)?),
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
                output::human::render(outcomes, elapsed, Style::for_stdout(color))
            );
        }
        None => to_file(&output::human::render(
            outcomes,
            elapsed,
            Style { color: false },
        ))?,
        Some(text) => {
            let style = Style::new(color, std::io::stderr().is_terminal());
            eprint!("{}", output::human::render(outcomes, elapsed, style));
            to_file(&text)?;
        }
    }
    if interrupted {
        eprintln!("symx: interrupted; the report above has what was found until then");
    }
    Ok(())
}

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
