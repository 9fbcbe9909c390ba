//! `cargo symx predict <trace.json>`: reads a saved trace, finds the test it names among the
//! built test targets, runs the predictive checks on it (every witness replayed by a worker of
//! that test) and reports like `cargo symx test`: exit 1 on a confirmed prediction, 0
//! otherwise, 2 when the trace or the test cannot be used.

use std::path::Path;
use std::time::Instant;

use symx::trace::Trace;

use crate::commands::args::PredictArgs;
use crate::config::{Layers, Settings};
use crate::discover::{self, TestCase};
use crate::report::outcome::Outcome;
use crate::report::style::{ColorChoice, Style};
use crate::report::{self, Destination};
use crate::run::ReplayHint;

pub fn predict(args: &PredictArgs, color: ColorChoice) -> Result<u8, String> {
    let start = Instant::now();
    // The trace is checked before the (slow) build.
    let trace = read_trace(&args.trace)?;
    let name = trace.test.clone().ok_or_else(|| {
        format!(
            "{}: the trace names no test (its `test` field is missing: it was not recorded by \
             a #[symx::test]), so there is no program to confirm predictions with",
            args.trace.display()
        )
    })?;
    let mut cargo = args.cargo.options();
    let metadata = discover::metadata(&cargo)?;
    let mut flags = Settings {
        timeout: args.timeout.clone(),
        ..Settings::default()
    };
    args.options.apply(&mut flags);
    let layers = Layers::load(&metadata, args.report.profile.as_deref(), flags)?;
    super::add_configured_features(&mut cargo, &metadata, &layers)?;
    let cargo_color = Style::for_stderr(color).color;
    let cases = discover::build_and_list(&cargo, &metadata, Some(&name), &[], cargo_color)?;
    let case = the_test(&cases, &name, &cargo, &metadata)?;
    let mut settings = match metadata
        .packages
        .iter()
        .find(|p| p.id == case.binary.package_id)
    {
        Some(p) => layers.for_package(p)?,
        None => layers.for_other_package()?,
    };
    settings.predict.enabled = true;
    settings.predict.verbose = args.options.verbose;
    let found = crate::run::engines::analyse(
        case,
        std::slice::from_ref(&trace),
        &settings.predict,
        &[],
        settings.timeout,
    );
    let mut outcome = Outcome {
        strategy: Some("predict".into()),
        ..Outcome::new(case)
    };
    crate::run::engines::apply(&mut outcome, found);
    outcome.duration = start.elapsed();
    let hint = ReplayHint::new(&cargo);
    hint.add_commands(&mut outcome);
    let outcomes = [outcome];
    let to = Destination {
        format: args.report.format.into(),
        output: args.report.output.as_deref(),
        color,
    };
    report::render(&to, &outcomes, start, false)?;
    Ok(report::exit_code(&outcomes, false))
}

/// The trace in `path`, checked; the error names the file and what is wrong with it.
fn read_trace(path: &Path) -> Result<Trace, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the trace {}: {e}", path.display()))?;
    Trace::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The one test called `name`; when there is none, why (see [`discover::absent`]).
fn the_test<'a>(
    cases: &'a [TestCase],
    name: &str,
    cargo: &discover::CargoOptions,
    metadata: &cargo_metadata::Metadata,
) -> Result<&'a TestCase, String> {
    let found: Vec<&TestCase> = cases.iter().filter(|c| c.name == name).collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(discover::absent::not_built(
            &format!(
                "the trace was recorded by the test `{name}`, which is not among the tests built"
            ),
            cargo,
            metadata,
            &|c| c.name == name,
        )),
        many => {
            let where_: Vec<String> = many
                .iter()
                .map(|c| format!("{}::{}", c.binary.package, c.binary.target))
                .collect();
            Err(format!(
                "the trace's test `{name}` exists in several test targets ({}); select one \
                 package with -p",
                where_.join(", ")
            ))
        }
    }
}
