//! `cargo symx test`: configuration, build, test selection, the run, and where the report
//! goes.

use std::collections::HashMap;
use std::time::Instant;

use crate::commands::args::TestArgs;
use crate::config::{GuidedKey, Layers, Resolved, Settings};
use crate::discover;
use crate::report::progress::Progress;
use crate::report::style::{ColorChoice, Style};
use crate::report::{self, Destination, Format};
use crate::run::{self, Job, ReplayHint};
use crate::worker_process::INTERRUPTED;

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
        symbolic: args.no_symbolic.then_some(false),
        max_branch_depth: args.max_branch_depth,
        context_mode: args.context_mode.clone(),
        assertion_guided: args.assertion_guided.as_deref().map(|m| match m {
            "audit" => GuidedKey::Mode(m.into()),
            _ => GuidedKey::Switch(true),
        }),
        ..Settings::default()
    };
    args.predict_options.apply(&mut s);
    s
}

/// The configured context mode reaches every worker (explorations, guided runs, replays)
/// through the environment the workers inherit (`SYMX_CONTEXT_MODE`, which the runtime reads
/// over the attribute), so it is one value for the whole run.
fn set_context_mode(jobs: &[Job]) -> Result<(), String> {
    let modes: std::collections::BTreeSet<_> = jobs
        .iter()
        .filter_map(|j| j.settings.context_mode)
        .collect();
    match modes.len() {
        0 => Ok(()),
        1 => {
            let mode = modes.into_iter().next().expect("one");
            std::env::set_var(symx::context::MODE_ENV, mode.name());
            Ok(())
        }
        _ => Err("context-mode differs between the selected packages; give --context-mode".into()),
    }
}

pub fn test(args: &TestArgs, color: ColorChoice) -> Result<u8, String> {
    let start = Instant::now();
    // Before the build, so that Ctrl-C during it still ends with a report (of no tests).
    run::install_interrupt_handler();
    // Configuration errors are found before the (slow) build.
    let mut cargo = args.cargo.options();
    let metadata = discover::metadata(&cargo)?;
    let layers = Layers::load(
        &metadata,
        args.report.profile.as_deref(),
        flag_settings(args),
    )?;
    super::add_configured_features(&mut cargo, &metadata, &layers)?;
    let verbose = args.predict_options.verbose;
    let mut resolved: HashMap<String, Resolved> = HashMap::new();
    for p in metadata.workspace_packages() {
        let mut settings = layers.for_package(p)?;
        settings.predict.verbose = verbose;
        resolved.insert(p.id.repr.clone(), settings);
    }
    let filter = args.filter.as_deref();
    let cargo_color = Style::for_stderr(color).color;
    let cases = discover::build_and_list(&cargo, &metadata, filter, &args.test_args, cargo_color)?;
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
    set_context_mode(&jobs)?;
    let workers = args
        .jobs
        .or_else(|| jobs.first().and_then(|j| j.settings.jobs))
        .unwrap_or_else(run::default_jobs);
    crate::worker_process::budget::set(workers);
    let format: Format = args.report.format.into();
    let human_on_stdout = format == Format::Human && args.report.output.is_none();
    let progress = Progress::new(Style::for_stderr(color), human_on_stdout);
    let hint = ReplayHint::new(&cargo);
    let outcomes = run::run_all(jobs, workers, &args.test_args, &progress, &hint);
    let interrupted = INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst);
    let to = Destination {
        format,
        output: args.report.output.as_deref(),
        color,
    };
    report::render(&to, &outcomes, start, interrupted)?;
    let code = report::exit_code(&outcomes, interrupted);
    let mode = args.no_tests.into();
    let cause = match filter {
        Some(f) if outcomes.is_empty() && report::no_tests::will_judge(&outcomes, mode, code) => {
            unmatched_filter(&cargo, &metadata, f, &args.test_args)
        }
        _ => None,
    };
    let style = Style::for_stderr(color);
    Ok(report::no_tests::judge(
        &outcomes,
        filter,
        cause.as_deref(),
        mode,
        code,
        style,
    ))
}

/// Why `filter` matched no test built: a matching test in a build with another feature, or
/// tests of a similar name (a misspelling); `None` when neither explains it.
fn unmatched_filter(
    cargo: &discover::CargoOptions,
    metadata: &cargo_metadata::Metadata,
    filter: &str,
    test_args: &[String],
) -> Option<String> {
    use discover::absent;
    let all = discover::build_and_list(cargo, metadata, None, test_args, false).ok()?;
    let close = absent::similar(all.iter().map(|c| c.name.as_str()), filter);
    if !close.is_empty() {
        let names: Vec<String> = close.iter().map(|n| format!("`{n}`")).collect();
        return Some(format!("did you mean {}?", names.join(" or ")));
    }
    let found = absent::with_other_features(cargo, metadata, &|c| c.name.contains(filter))?;
    Some(absent::elsewhere_said(&found, cargo))
}
