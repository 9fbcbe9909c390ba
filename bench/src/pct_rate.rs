//! `pct-rate`: how reliably PCT finds the two shallow bugs, against the goal "found by PCT
//! within 1,000 iterations in ≥ 90 % of seeds (measured over 100 seeds)".
//!
//! For each bug (lost update; bounded buffer with `if` around `Condvar::wait`) and each sampling
//! tool (symx PCT and random, shuttle PCT and random), seeds 1..=N are each given up to
//! `--iterations` executions. A child process per bug × tool runs all the seeds (shuttle prints
//! to stderr on every failure it finds; the child's stderr is dropped) and reports, per seed,
//! the execution that found the bug or that none did.

use std::time::{Duration, Instant};

use crate::measure;
use crate::runner::{median_u64, run_child};
use crate::scenarios::{Family, Scenario, Tool, PCT_DEPTH};
use crate::table::{duration, markdown, thousands};
use crate::{scenarios_shuttle, scenarios_symx, Settings};

/// The bugs the criterion is about.
pub const BUGS: [Scenario; 2] = [Scenario::LostUpdate, Scenario::BoundedBuffer];

/// The tools compared (PCT is the criterion; random is the baseline it should beat or match).
pub const TOOLS: [Tool; 4] = [
    Tool::SymxPct,
    Tool::ShuttlePct,
    Tool::SymxRandom,
    Tool::ShuttleRandom,
];

/// What the parent asks each child for.
#[derive(Clone, Copy, Debug)]
pub struct RateOptions {
    pub seeds: u64,
    pub iterations: u64,
}

/// Child side: runs every seed and prints `RATE secs=S found=a,b,-,c,...` (one entry per seed,
/// `-` where the seed did not find the bug).
pub fn child(tool: Tool, scenario: Scenario, opts: RateOptions) {
    let start = Instant::now();
    let mut per_seed = Vec::new();
    for seed in 1..=opts.seeds {
        let settings = Settings {
            seed,
            iterations: opts.iterations,
            preemption_bound: None,
            // The iteration cap is the bound; the time budget only guards against a hang.
            time_limit: Duration::from_secs(3600),
        };
        measure::reset_executions();
        let found_at = match tool.family() {
            Family::Symx => {
                let report = scenarios_symx::builder(tool, &settings)
                    .explore(move || scenarios_symx::run_scenario(scenario));
                report.failure().map(|_| report.executions())
            }
            Family::Shuttle => scenarios_shuttle::explore(tool, scenario, &settings)
                .err()
                .map(|_| measure::executions()),
            Family::Loom => unreachable!("loom has no sampling mode"),
        };
        per_seed.push(found_at.map_or("-".to_string(), |n| n.to_string()));
    }
    println!(
        "RATE secs={:.6} found={}",
        start.elapsed().as_secs_f64(),
        per_seed.join(",")
    );
}

/// Parent side: one child per bug × tool, then the table.
pub fn run(tools: &[Tool], opts: RateOptions) {
    println!(
        "PCT detection rate: {} seeds (1..={}), at most {} executions per seed, PCT depth {}.",
        opts.seeds, opts.seeds, opts.iterations, PCT_DEPTH
    );
    println!("Goal: PCT finds each bug in ≥ 90 % of seeds.\n");
    let mut rows = Vec::new();
    for scenario in BUGS {
        for &tool in tools.iter().filter(|t| TOOLS.contains(t)) {
            eprintln!("pct-rate: {scenario} / {} ...", tool.name());
            let args = vec![
                "--rate-one".to_string(),
                tool.name().to_string(),
                scenario.to_string(),
                "--seeds".to_string(),
                opts.seeds.to_string(),
                "--iterations".to_string(),
                opts.iterations.to_string(),
            ];
            let row = match run_child(&args, Duration::from_secs(1800)) {
                Ok(out) => match parse(&out.stdout) {
                    Some((secs, found)) => rate_row(scenario, tool, opts, secs, &found),
                    None => error_row(scenario, tool, &out.stderr),
                },
                Err(e) => error_row(scenario, tool, &e.to_string()),
            };
            rows.push(row);
        }
    }
    print!(
        "{}",
        markdown(
            &[
                "Bug",
                "Tool",
                "Seeds that found it",
                "Rate",
                "Executions to detection: median",
                "min–max",
                "90th pct.",
                "Wall time (all seeds)",
                "≥ 90 %",
            ],
            &rows,
        )
    );
}

/// Parses `RATE secs=S found=...` into the time and, per seed, the detecting execution.
fn parse(stdout: &str) -> Option<(f64, Vec<Option<u64>>)> {
    let line = stdout.lines().find_map(|l| l.strip_prefix("RATE "))?;
    let mut secs = None;
    let mut found = None;
    for field in line.split(' ') {
        if let Some(v) = field.strip_prefix("secs=") {
            secs = v.parse().ok();
        } else if let Some(v) = field.strip_prefix("found=") {
            found = Some(v.split(',').map(|x| x.parse().ok()).collect());
        }
    }
    Some((secs?, found?))
}

fn rate_row(
    scenario: Scenario,
    tool: Tool,
    opts: RateOptions,
    secs: f64,
    found: &[Option<u64>],
) -> Vec<String> {
    let mut at: Vec<u64> = found.iter().flatten().copied().collect();
    at.sort_unstable();
    let pct = 100.0 * at.len() as f64 / opts.seeds as f64;
    let (median, range, p90) = if at.is_empty() {
        ("—".to_string(), "—".to_string(), "—".to_string())
    } else {
        // Nearest-rank 90th percentile over the seeds that found the bug.
        let rank = ((0.9 * at.len() as f64).ceil() as usize).clamp(1, at.len());
        (
            thousands(median_u64(at.clone())),
            format!("{}–{}", thousands(at[0]), thousands(at[at.len() - 1])),
            thousands(at[rank - 1]),
        )
    };
    vec![
        scenario.to_string(),
        tool.name().to_string(),
        format!("{}/{}", at.len(), opts.seeds),
        format!("{pct:.0} %"),
        median,
        range,
        p90,
        duration(secs),
        if pct >= 90.0 { "yes" } else { "NO" }.to_string(),
    ]
}

fn error_row(scenario: Scenario, tool: Tool, stderr: &str) -> Vec<String> {
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    let mut row = vec![scenario.to_string(), tool.name().to_string()];
    row.push(format!(
        "error: {}",
        measure::one_line(last.unwrap_or("no output"))
    ));
    row.extend(std::iter::repeat_n(String::new(), 6));
    row
}
