//! The input-covering-schedules commands (`docs/input-covering.md`):
//!
//! - `cargo symx schedules [TEST] [--output FILE]`: enumerate each selected test's
//!   (input constraint, schedule) pairs, write the schedule file, print the Table 3.1-style
//!   summary;
//! - `cargo symx deadlock [TEST]`: check every deadlocking schedule (exit 1 when one is
//!   confirmed, 0 when none deadlocks, 2 on errors), under constrained execution only;
//! - `cargo symx test-schedules [TEST]`: one constrained run per pair, with a model of its
//!   constraint (or `--input` values, after choosing the pair they satisfy).

use std::path::Path;
use std::time::Duration;

use symx::InputValues;

use crate::commands::args::{CoveringArgs, CoveringCommand};
use crate::config::{Layers, Settings};
use crate::discover::{self, TestCase};
use crate::engine::covering::{
    self, DeadlockVerdict, Enumeration, Options, Stop, Summary, Verdicts,
};
use crate::engine::Executor;
use crate::report::style::{ColorChoice, Style};
use crate::run::executor::WorkerExecutor;
use crate::run::ReplayHint;
use crate::solver::replayed::Replayed;
use crate::{EXIT_BUG, EXIT_USAGE};

const EXIT_OK: u8 = 0;

/// What every covering command says about the deadlock verdict's scope (Property 2).
const SCOPE: &str = "this verdict applies to constrained execution only (the program held to \
these schedules); free interleavings (`cargo symx test`) may deadlock where constrained \
execution cannot";

/// What only one of the commands takes.
#[derive(Default)]
pub struct Extra<'a> {
    /// `schedules --output`.
    pub output: Option<&'a Path>,
    /// `test-schedules --input`.
    pub inputs: &'a [String],
}

pub fn covering(
    which: CoveringCommand,
    args: &CoveringArgs,
    extra: Extra<'_>,
    color: ColorChoice,
) -> Result<u8, String> {
    let mut cargo = args.cargo.options();
    let metadata = discover::metadata(&cargo)?;
    let flags = Settings {
        timeout: args.timeout.clone(),
        ..Settings::default()
    };
    let layers = Layers::load(&metadata, None, flags)?;
    super::add_configured_features(&mut cargo, &metadata, &layers)?;
    let cargo_color = Style::for_stderr(color).color;
    let cases =
        discover::build_and_list(&cargo, &metadata, args.filter.as_deref(), &[], cargo_color)?;
    let timeout = layers.for_other_package()?.timeout;
    let inputs = parse_inputs(extra.inputs)?;
    let hint = ReplayHint::new(&cargo);
    let out_dir = metadata
        .target_directory
        .as_std_path()
        .join("symx")
        .join("schedules");
    let mut code = EXIT_OK;
    let mut ran = 0;
    let opts = options(args);
    for case in &cases {
        let epochs = symx::covering::Epochs {
            stop_at: None,
            no_lockstep: !opts.lockstep,
        };
        let mut exec =
            WorkerExecutor::new(case, &[], timeout).with_epochs(opts.epochs.then_some(epochs));
        let e = covering::enumerate(&mut exec, &opts);
        if e.paths == 0 {
            // An ordinary test, or one that could not run at all: not a #[symx::test].
            continue;
        }
        ran += 1;
        let c = match which {
            CoveringCommand::Schedules => {
                schedules(case, &mut exec, &e, extra.output, &out_dir, ran)?
            }
            CoveringCommand::Deadlock => deadlock(case, &mut exec, &e, &hint),
            CoveringCommand::Discharge => discharge(case, &mut exec, &e),
            CoveringCommand::Markers => markers(case, &e),
            CoveringCommand::TestSchedules => match &inputs {
                Some(given) => follow(case, &mut exec, &e, &opts, given, &hint),
                None => test_schedules(case, &mut exec, &e, &hint),
            },
        };
        code = code.max(c);
    }
    if ran == 0 {
        return Err(match &args.filter {
            Some(f) => format!("no #[symx::test] matches `{f}`"),
            None => "no #[symx::test] was found".into(),
        });
    }
    Ok(code)
}

fn options(args: &CoveringArgs) -> Options {
    Options {
        prefix: !args.no_prefix,
        max_paths: args.max_paths.unwrap_or(Options::default().max_paths),
        time_budget: args.time_budget.map(Duration::from_secs),
        epochs: !args.no_epochs,
        symbolic_tids: !args.concrete_tids,
        ..Options::default()
    }
}

fn test_name(case: &TestCase) -> String {
    format!("{}::{}", case.binary.package, case.name)
}

/// Says why an enumeration is not complete (inputs may be uncovered).
fn incomplete(e: &Enumeration) {
    if !e.complete {
        println!(
            "  not complete, some inputs may be uncovered: {}",
            e.incomplete.join("; ")
        );
    }
}

fn schedules(
    case: &TestCase,
    exec: &mut dyn Executor,
    e: &Enumeration,
    output: Option<&Path>,
    out_dir: &Path,
    nth: usize,
) -> Result<u8, String> {
    if output.is_some() && nth > 1 {
        return Err("--output names one file: select one test".into());
    }
    let verdicts = covering::check_deadlocks(exec, e);
    let name = test_name(case);
    let file = covering::schedule_file(&case.name, e, &verdicts);
    let path = match output {
        Some(p) => p.to_path_buf(),
        None => out_dir.join(format!("{}.schedules.json", name.replace("::", "-"))),
    };
    write(&path, &file)?;
    println!("{}", Summary::of(e, &verdicts).table(&name));
    incomplete(e);
    println!("  schedule file: {}", path.display());
    print_loops(e);
    for epoch in e.epochs.iter().skip(1) {
        let at: Vec<String> = (epoch.contexts.iter())
            .map(|(t, c)| format!("thread {t}: {c}"))
            .collect();
        println!("  {}: {}", epoch.id, at.join(", "));
    }
    for (i, p) in e.pairs.iter().enumerate() {
        let next = p
            .next_epoch
            .map_or(String::new(), |n| format!(" -> {}", e.epochs[n].id));
        println!(
            "  {}: I = {}{next}",
            e.pair_id(i),
            p.constraint_text.replace('\n', " ")
        );
    }
    Ok(EXIT_OK)
}

/// Each loop head the runs passed, with the marker placement's decision and its reason.
fn print_loops(e: &Enumeration) {
    for l in e.loops.values() {
        let what = if l.marker {
            "epoch marker"
        } else {
            "no marker"
        };
        println!(
            "  loop at {} in `{}`: {what} ({})",
            l.site, l.function, l.reason
        );
    }
}

/// `cargo symx markers`: the placement's decisions (Bergan's Fig. 3.2) and Table 3.3's
/// counts, with and without its optimizations.
fn markers(case: &TestCase, e: &Enumeration) -> u8 {
    let name = test_name(case);
    incomplete(e);
    print_loops(e);
    let (with, without) = e.marker_counts();
    println!(
        "{name}: {with} epoch marker(s) with the placement's optimizations, {without} without \
         (a marker at every loop that synchronizes)"
    );
    EXIT_OK
}

fn write(path: &Path, value: &serde_json::Value) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn deadlock(case: &TestCase, exec: &mut dyn Executor, e: &Enumeration, hint: &ReplayHint) -> u8 {
    let name = test_name(case);
    let verdicts = covering::check_deadlocks(exec, e);
    incomplete(e);
    if verdicts.deadlocks.is_empty() && !e.complete {
        println!(
            "{name}: no verdict: none of the {} schedule(s) found deadlocks, but the \
             enumeration was not complete",
            e.pairs.len()
        );
        return EXIT_USAGE;
    }
    if verdicts.deadlocks.is_empty() {
        println!(
            "{name}: no deadlock in its {} schedule(s): deadlock-free under constrained execution",
            e.pairs.len()
        );
        println!("  {SCOPE}");
        return EXIT_OK;
    }
    print_deadlocks(&name, case, e, &verdicts, hint);
    println!("  {SCOPE}");
    if verdicts.confirmed() > 0 {
        EXIT_BUG
    } else {
        EXIT_OK
    }
}

/// `cargo symx discharge`: the pairs proved infeasible, and the part of each constraint no
/// schedule into its epoch can leave true.
fn discharge(case: &TestCase, exec: &mut dyn Executor, e: &Enumeration) -> u8 {
    let name = test_name(case);
    incomplete(e);
    let tried = covering::discharge(exec, e);
    for d in &tried {
        let what = match &d.unreachable {
            Some(part) => format!("infeasible: no schedule into its epoch leaves {part}"),
            None => "not proved infeasible".into(),
        };
        println!(
            "{name}: {} ({}): {what}",
            e.pair_id(d.pair),
            e.pairs[d.pair].constraint_text.replace('\n', " ")
        );
    }
    let proved = tried.iter().filter(|d| d.unreachable.is_some()).count();
    println!(
        "{name}: {proved} of {} schedule(s) over havocked shared state proved infeasible, of {} \
         in all",
        tried.len(),
        e.pairs.len()
    );
    EXIT_OK
}

fn print_deadlocks(name: &str, case: &TestCase, e: &Enumeration, v: &Verdicts, hint: &ReplayHint) {
    for (i, inputs, verdict) in &v.deadlocks {
        let pair = &e.pairs[*i];
        match verdict {
            DeadlockVerdict::Confirmed { token, message } => {
                println!("{name}: {} deadlocks (confirmed): {message}", e.pair_id(*i));
                println!("  constraint: {}", pair.constraint_text.replace('\n', " "));
                println!("  inputs: {}", show_inputs(inputs));
                print_schedule(pair);
                println!("  replay: {}", hint.command(&case.binary.package, token));
            }
            DeadlockVerdict::Unconfirmed(why) => {
                println!(
                    "{name}: {} may deadlock (unconfirmed: {why})",
                    e.pair_id(*i)
                );
                println!("  constraint: {}", pair.constraint_text.replace('\n', " "));
                print_schedule(pair);
            }
            DeadlockVerdict::PossiblyInfeasible { havocked, why } => {
                println!(
                    "{name}: {} may deadlock (unconfirmed, possibly infeasible: its \
                     constraint needs the havocked state {} at the epoch's start; {why})",
                    e.pair_id(*i),
                    havocked.join(", ")
                );
                println!("  constraint: {}", pair.constraint_text.replace('\n', " "));
                if let Some(part) = v.infeasible(*i) {
                    println!("  proved infeasible: no schedule into its epoch leaves {part}");
                }
                print_schedule(pair);
            }
        }
    }
}

fn print_schedule(pair: &covering::Pair) {
    println!("  schedule:");
    for (t, nodes) in &pair.schedule.threads {
        let steps: Vec<String> = nodes
            .iter()
            .map(|n| symx::covering::describe(Some(n)))
            .collect();
        println!("    thread {t}: {}", steps.join(" -> "));
    }
    let stuck = pair.schedule.unfinished();
    if !stuck.is_empty() {
        println!("    blocked for good: threads {stuck:?}");
    }
}

fn show_inputs(inputs: &InputValues) -> String {
    if inputs.is_empty() {
        return "none".into();
    }
    let shown: Vec<String> = inputs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    shown.join(", ")
}

/// `test-schedules` without `--input`: one constrained run per pair, with its model.
fn test_schedules(
    case: &TestCase,
    exec: &mut dyn Executor,
    e: &Enumeration,
    hint: &ReplayHint,
) -> u8 {
    let name = test_name(case);
    incomplete(e);
    let mut code = EXIT_OK;
    for (i, pair) in e.pairs.iter().enumerate() {
        let (c, outcome) = outcome(
            case,
            exec.run_constrained_epochs(&pair.chain(), &pair.model),
            hint,
        );
        code = code.max(c);
        println!(
            "{name}: {} with {}: {outcome}",
            e.pair_id(i),
            show_inputs(&pair.model)
        );
    }
    println!(
        "{name}: {} constrained run(s) for {} schedule(s) over {} path(s)",
        e.pairs.len(),
        e.pairs.len(),
        e.paths
    );
    code
}

/// The longest run `test-schedules --input` follows, in epochs.
const MAX_EPOCHS: usize = 1000;

/// `test-schedules --input`: the run with the given inputs, held to the schedule the
/// selector chooses at its start and at every epoch boundary.
fn follow(
    case: &TestCase,
    exec: &mut dyn Executor,
    e: &Enumeration,
    opts: &Options,
    given: &InputValues,
    hint: &ReplayHint,
) -> u8 {
    let name = test_name(case);
    incomplete(e);
    let followed = covering::follow(exec, e, opts, given, MAX_EPOCHS);
    let ids: Vec<String> = followed.pairs.iter().map(|&i| e.pair_id(i)).collect();
    let (code, outcome) = match followed.end {
        Stop::Ran(ran) => outcome(case, Ok(*ran), hint),
        Stop::Diverged(d) => (EXIT_BUG, format!("DIVERGED: {d}")),
        Stop::Uncovered { epoch, state } => (
            EXIT_BUG,
            format!(
                "uncovered input: no constraint of {} holds for {}",
                e.epochs[epoch].id,
                show_inputs(&state)
            ),
        ),
        Stop::TooLong(n) => (
            EXIT_USAGE,
            format!("stopped after {n} epochs, the most a run is followed"),
        ),
        Stop::Error(why) => (EXIT_USAGE, format!("could not run: {why}")),
    };
    println!(
        "{name}: with {}: {} epoch(s), schedules {}: {outcome}",
        show_inputs(given),
        ids.len(),
        ids.join(" ")
    );
    code
}

/// A constrained run's outcome in words, and its exit code.
fn outcome(case: &TestCase, ran: Result<Replayed, String>, hint: &ReplayHint) -> (u8, String) {
    match ran {
        Err(why) => (EXIT_USAGE, format!("could not run: {why}")),
        Ok(ran) => match (ran.divergence, ran.failure) {
            (Some(d), _) => (EXIT_BUG, format!("DIVERGED: {d}")),
            (None, Some(f)) => (
                EXIT_BUG,
                format!(
                    "FAILED ({}): {}\n    replay: {}",
                    f.kind,
                    f.message,
                    hint.command(&case.binary.package, &f.token)
                ),
            ),
            (None, None) => (EXIT_OK, "ok".into()),
        },
    }
}

/// `--input x=7,y=1`.
fn parse_inputs(given: &[String]) -> Result<Option<InputValues>, String> {
    if given.is_empty() {
        return Ok(None);
    }
    let mut out = InputValues::new();
    for item in given.iter().flat_map(|g| g.split(',')) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("--input takes name=value, not `{item}`"))?;
        let v: i128 = v
            .trim()
            .parse()
            .map_err(|e| format!("--input {item}: {e}"))?;
        out.insert(k.trim().to_string(), v);
    }
    Ok(Some(out))
}
