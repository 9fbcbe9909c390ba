//! `symx-bench`: the same concurrency scenarios under symx, loom and shuttle, measured side by
//! side (executions explored, wall time, executions per second, bug found at which execution).
//!
//! ```text
//! cargo run --release --manifest-path bench/Cargo.toml -- \
//!     [--filter NAME[,NAME..]] [--tools symx,loom,shuttle] [--timeout-secs 60] [--runs 3] \
//!     [--preemption-bound N[,N..]] [--list]
//! cargo run --release --manifest-path bench/Cargo.toml -- pct-rate [--seeds 100] [--iterations 1000]
//! cargo run --release --manifest-path bench/Cargo.toml -- spin-outcomes [--max-bound 4]
//! ```
//!
//! Internal modes (the parent runs itself as a child): `--one TOOL SCENARIO ...` measures one
//! run and prints a `RESULT` line; `--rate-one TOOL SCENARIO ...` runs the pct-rate seeds.
//! See README.md for what the columns mean.

mod measure;
mod pct_rate;
mod runner;
mod scenarios;
mod scenarios_loom;
mod scenarios_shuttle;
mod scenarios_symx;
mod spin_outcomes;
mod table;

use std::process::ExitCode;
use std::time::Duration;

use runner::{Cell, RunOptions, RunResult};
use scenarios::{Family, Scenario, Tool};

/// What a child needs to run one tool on one scenario.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Seed of the sampling tools (ignored by the exhaustive ones).
    pub seed: u64,
    /// Executions a sampling tool may run.
    pub iterations: u64,
    /// For symx's exhaustive strategies and loom; `None` = unbounded.
    pub preemption_bound: Option<u32>,
    /// Each tool stops itself (between executions) after this long.
    pub time_limit: Duration,
}

/// Command-line arguments, in the order they were given.
struct Args(Vec<String>);

impl Args {
    /// The value after `--name`, if given.
    fn value(&self, name: &str) -> Option<&str> {
        let i = self.0.iter().position(|a| a == name)?;
        self.0.get(i + 1).map(String::as_str)
    }

    fn parsed<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("{name}: cannot parse `{v}`")),
        }
    }

    fn flag(&self, name: &str) -> bool {
        self.0.iter().any(|a| a == name)
    }

    fn tools(&self) -> Result<Vec<Tool>, String> {
        Tool::parse_list(self.value("--tools").unwrap_or("symx,loom,shuttle"))
    }

    fn preemption_bound(&self) -> Result<Option<u32>, String> {
        match self.preemption_bounds()?.as_slice() {
            [] => Ok(None),
            [one] => Ok(*one),
            _ => Err("--preemption-bound: one bound in this mode".to_string()),
        }
    }

    /// The bounds of `--preemption-bound N[,N..]`: none given, the one run unbounded.
    fn preemption_bounds(&self) -> Result<Vec<Option<u32>>, String> {
        let Some(list) = self.value("--preemption-bound") else {
            return Ok(vec![None]);
        };
        list.split(',')
            .map(|v| {
                v.trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("--preemption-bound: `{v}`"))
            })
            .collect()
    }

    /// The two positional words after an internal mode flag: tool and scenario.
    fn tool_and_scenario(&self, mode: &str) -> Result<(Tool, Scenario), String> {
        let i = self.0.iter().position(|a| a == mode).expect("mode given");
        let word = |k: usize| self.0.get(i + k).map(String::as_str).unwrap_or("");
        let tool = Tool::parse(word(1)).ok_or_else(|| format!("unknown tool `{}`", word(1)))?;
        let scenario =
            Scenario::parse(word(2)).ok_or_else(|| format!("unknown scenario `{}`", word(2)))?;
        Ok((tool, scenario))
    }
}

fn main() -> ExitCode {
    let args = Args(std::env::args().skip(1).collect());
    let result = if args.flag("--one") {
        one(&args)
    } else if args.flag("--rate-one") {
        rate_one(&args)
    } else if args.0.first().map(String::as_str) == Some("pct-rate") {
        pct_rate(&args)
    } else if args.0.first().map(String::as_str) == Some("spin-outcomes") {
        spin_outcomes(&args)
    } else if args.flag("--help") || args.flag("-h") {
        print!("{}", USAGE);
        Ok(())
    } else if args.flag("--list") {
        list();
        Ok(())
    } else {
        bench(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("symx-bench: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

const USAGE: &str = "\
usage: symx-bench [--filter NAME[,NAME..]] [--tools LIST] [--timeout-secs 60] [--runs 3]
                  [--preemption-bound N[,N..]] [--list]
       symx-bench pct-rate [--seeds 100] [--iterations 1000] [--tools LIST]
       symx-bench spin-outcomes [--max-bound 4]
  --filter   run the scenarios whose name contains one of the words (see --list)
  --preemption-bound  for symx, symx-dfs and loom; a list runs everything once per bound
  --tools    symx, loom, shuttle (each with all its modes) or single tools:
             symx, symx-dfs, symx-random, symx-pct, loom, shuttle-dfs, shuttle-random, shuttle-pct
";

fn list() {
    println!("scenarios:");
    for s in Scenario::all() {
        let kind = if s.has_bug() { "bug" } else { "correct" };
        println!("  {s:<18} {kind}");
    }
    println!("tools:");
    for t in Tool::ALL {
        println!("  {}", t.name());
    }
}

/// The default mode: every selected scenario × tool, then the tables; once per preemption
/// bound when several are given.
fn bench(args: &Args) -> Result<(), String> {
    let tools = args.tools()?;
    let runs: usize = args.parsed("--runs", 3)?;
    let timeout: u64 = args.parsed("--timeout-secs", 60)?;
    let bounds = args.preemption_bounds()?;
    let scenarios: Vec<Scenario> = match args.value("--filter") {
        None => Scenario::all(),
        Some(words) => Scenario::all()
            .into_iter()
            .filter(|s| words.split(',').any(|w| s.to_string().contains(w.trim())))
            .collect(),
    };
    if scenarios.is_empty() || tools.is_empty() || runs == 0 {
        return Err("nothing to run".to_string());
    }

    print_header(&tools, runs, timeout, &bounds);
    for &preemption_bound in &bounds {
        let opts = RunOptions {
            time_limit: Duration::from_secs(timeout),
            preemption_bound,
        };
        let cells = measure_all(&scenarios, &tools, runs, &opts);
        let section = match (bounds.len(), preemption_bound) {
            (1, _) => String::new(),
            (_, Some(b)) => format!(", preemption bound {b}"),
            (_, None) => ", no preemption bound".to_string(),
        };
        println!("## Per scenario and tool{section}\n");
        print!("{}", table::main_table(&cells, opts.time_limit));
        println!(
            "\n## At a glance{section}: executions (bug@ = execution that found the bug) / wall time\n"
        );
        print!("{}", table::matrix(&cells, &scenarios, &tools));
        println!();
    }
    Ok(())
}

/// Every scenario × tool under `opts`, with a progress line per run on stderr.
fn measure_all(
    scenarios: &[Scenario],
    tools: &[Tool],
    runs: usize,
    opts: &RunOptions,
) -> Vec<Cell> {
    let total = scenarios.len() * tools.len();
    let bound = opts
        .preemption_bound
        .map_or(String::new(), |b| format!(" (bound {b})"));
    let mut cells: Vec<Cell> = Vec::new();
    for &scenario in scenarios {
        for &tool in tools {
            let n = cells.len() + 1;
            let cell = runner::measure(tool, scenario, runs, opts, |i, r| {
                eprintln!(
                    "[{n}/{total}]{bound} {scenario} {} run {}/{runs}: {}",
                    tool.name(),
                    i + 1,
                    describe(r)
                );
            });
            cells.push(cell);
        }
    }
    cells
}

/// One progress line per run, on stderr, so a long benchmark shows where it is.
fn describe(r: &RunResult) -> String {
    match r {
        RunResult::Finished(o) => format!(
            "{} executions, {}, {:?}{}",
            o.executions,
            table::duration(o.secs),
            o.end,
            o.bug
                .as_ref()
                .map_or(String::new(), |b| format!(" at {}: {}", b.at, b.what))
        ),
        RunResult::Killed { secs } => format!("killed after {}", table::duration(*secs)),
        RunResult::Crashed { why } => format!("crashed: {why}"),
    }
}

fn print_header(tools: &[Tool], runs: usize, timeout: u64, bounds: &[Option<u32>]) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("# symx-bench\n");
    println!(
        "- command: symx-bench {}",
        std::env::args().skip(1).collect::<Vec<_>>().join(" ")
    );
    println!("- machine: {cores} CPUs ({cpu})");
    println!(
        "- tools: symx-rt (path ../symx-rt, default strategy `{}`), loom {}, shuttle {}",
        scenarios_symx::default_strategy(),
        env!("BENCH_LOOM_VERSION"),
        env!("BENCH_SHUTTLE_VERSION")
    );
    println!(
        "- selected: {}",
        tools
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "- runs: median of {runs} (each a fresh process; sampling tools use seeds 1..={runs}); time limit {timeout} s per run"
    );
    println!(
        "- preemption bound (symx, symx-dfs, loom): {}",
        bounds
            .iter()
            .map(|b| b.map_or("none".to_string(), |b| b.to_string()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "- sampling tools: 1,000 iterations on correct programs, up to 100,000 on buggy ones; PCT depth {}\n",
        scenarios::PCT_DEPTH
    );
}

/// Child mode `--one TOOL SCENARIO`: one measured run, one `RESULT` line.
fn one(args: &Args) -> Result<(), String> {
    let (tool, scenario) = args.tool_and_scenario("--one")?;
    let settings = Settings {
        seed: args.parsed("--seed", 1)?,
        iterations: args.parsed("--iterations", scenarios::sampling_iterations(scenario))?,
        preemption_bound: args.preemption_bound()?,
        time_limit: Duration::from_millis(args.parsed("--time-limit-ms", 60_000)?),
    };
    let outcome = match tool.family() {
        Family::Symx => scenarios_symx::run(tool, scenario, &settings),
        Family::Loom => scenarios_loom::run(scenario, &settings),
        Family::Shuttle => scenarios_shuttle::run(tool, scenario, &settings),
    };
    println!("{}", outcome.to_line());
    Ok(())
}

/// Child mode `--rate-one TOOL SCENARIO`: all pct-rate seeds of one bug × tool.
fn rate_one(args: &Args) -> Result<(), String> {
    let (tool, scenario) = args.tool_and_scenario("--rate-one")?;
    if !tool.is_sampling() {
        return Err(format!("{} is not a sampling tool", tool.name()));
    }
    let opts = pct_rate::RateOptions {
        seeds: args.parsed("--seeds", 100)?,
        iterations: args.parsed("--iterations", 1_000)?,
    };
    pct_rate::child(tool, scenario, opts);
    Ok(())
}

/// `pct-rate`: detection rate of PCT (and random) on the two shallow bugs.
fn pct_rate(args: &Args) -> Result<(), String> {
    let tools = match args.value("--tools") {
        Some(_) => args.tools()?,
        None => pct_rate::TOOLS.to_vec(),
    };
    let opts = pct_rate::RateOptions {
        seeds: args.parsed("--seeds", 100)?,
        iterations: args.parsed("--iterations", 1_000)?,
    };
    pct_rate::run(&tools, opts);
    Ok(())
}

/// `spin-outcomes`: what one preemption bound covers in symx and in loom on the SPSC queue.
fn spin_outcomes(args: &Args) -> Result<(), String> {
    spin_outcomes::run(args.parsed("--max-bound", 4)?);
    Ok(())
}
