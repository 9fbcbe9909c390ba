//! `symx-symbolic-bench [engine|sample|enumerate|rate|e2e|context|all] [--runs N] [--seeds N]
//! [--n N] [--filter NAME,..] [--symx PATH]`: the measurements of `BENCHMARKS.md`'s "Symbolic
//! exploration", as Markdown tables on stdout (progress on stderr). Timings are medians of
//! `--runs` (5).

use symx_symbolic_bench::measure::{self, median, repeat, SampledInputs, Sampler};
use symx_symbolic_bench::programs::{self, Program};
use symx_symbolic_bench::{e2e, rate};

struct Args {
    what: String,
    runs: usize,
    seeds: u64,
    n: u64,
    filter: Option<Vec<String>>,
    /// A `cargo-symx` binary for `e2e` (`all` skips `e2e` without one).
    symx: Option<std::path::PathBuf>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        what: "all".into(),
        runs: 5,
        seeds: 100,
        n: 200,
        filter: None,
        symx: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--runs" => a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--seeds" => a.seeds = value()?.parse().map_err(|e| format!("--seeds: {e}"))?,
            "--n" => a.n = value()?.parse().map_err(|e| format!("--n: {e}"))?,
            "--filter" => a.filter = Some(value()?.split(',').map(String::from).collect()),
            "--symx" => a.symx = Some(value()?.into()),
            "engine" | "sample" | "enumerate" | "rate" | "e2e" | "context" | "all" => a.what = arg,
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(a)
}

fn main() {
    let args = parse().unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    let selected: Vec<Program> = programs::all()
        .into_iter()
        .filter(|p| {
            args.filter
                .as_ref()
                .is_none_or(|f| f.iter().any(|n| n == p.name))
        })
        .collect();
    let all = args.what == "all";
    if all || args.what == "engine" {
        engine(&selected, args.runs);
    }
    if all || args.what == "sample" {
        sample(&selected, args.seeds, args.runs);
    }
    if all || args.what == "enumerate" {
        enumerate(&selected, args.runs);
    }
    if all || args.what == "rate" {
        rates(&selected, args.n, args.runs);
    }
    if args.what == "context" {
        contexts(args.runs, args.filter.as_deref());
    }
    match &args.symx {
        Some(symx) if all || args.what == "e2e" => end_to_end(&selected, symx, args.runs),
        None if args.what == "e2e" => eprintln!("error: e2e needs --symx PATH"),
        _ => {}
    }
}

/// The Table 2.1 skeletons from their recorded context and from the start: 4 and 6 items per
/// worker, branch depth 3, at most 20,000 executions; timings are medians of `runs`.
fn contexts(runs: usize, filter: Option<&[String]>) {
    use symx_symbolic_bench::context::measure;
    const DEPTH: u32 = 3;
    const BUDGET: u64 = 20_000;
    println!("\n| program | items per worker | from | paths | executions | wall time | solver share | seeded bug |");
    println!("|---|---:|---|---:|---:|---:|---:|---|");
    let programs = symx_test_programs::contexts::all();
    let chosen = programs
        .iter()
        .filter(|(name, _)| filter.is_none_or(|f| f.iter().any(|n| n == name)));
    for &(name, program) in chosen {
        for items in [4, 6] {
            for from_context in [true, false] {
                let from = if from_context { "context" } else { "start" };
                eprintln!("context: {name} {items} from the {from}");
                let rs = repeat(runs, || {
                    measure(program, items, DEPTH, BUDGET, from_context)
                });
                let r = &rs[0];
                let bug = match (r.found, r.stopped) {
                    (true, _) => "found".to_string(),
                    (false, true) => format!("not found in {BUDGET} executions"),
                    (false, false) => format!("not found to depth {DEPTH}"),
                };
                println!(
                    "| {name} | {items} | {from} | {} | {} | {} | {:.0} % | {bug} |",
                    r.paths,
                    r.executions,
                    secs(median(rs.iter().map(|r| r.seconds).collect())),
                    r.solver_share * 100.0
                );
            }
        }
    }
}

fn engine(ps: &[Program], runs: usize) {
    println!("\n| program | executions to the bug | input classes | solver queries | input found | wall time | solver time | solver share |");
    println!("|---|---:|---:|---:|---|---:|---:|---:|");
    for p in ps {
        eprintln!("engine: {}", p.name);
        let rs = repeat(runs, || measure::engine(p));
        let r = &rs[0];
        let found = match r.found {
            Some(v) if (p.fails_with)(v) => format!("{} = {v}", p.input),
            Some(v) => format!("{} = {v} (does not fail!)", p.input),
            None => "**not found**".into(),
        };
        let wall = median(rs.iter().map(|r| r.seconds).collect());
        let solver = median(rs.iter().map(|r| r.solver_seconds).collect());
        let share = median(rs.iter().map(|r| r.solver_seconds / r.seconds).collect());
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.0} % |",
            p.name,
            r.executions,
            r.classes,
            r.queries,
            found,
            ms(wall),
            ms(solver),
            share * 100.0
        );
    }
}

fn sample(ps: &[Program], seeds: u64, runs: usize) {
    println!("\n| program | strategy | inputs | seeds whose input can fail | seeds that found the bug | executions to the bug (median, min–max) | executions, all seeds | wall time, all seeds |");
    println!("|---|---|---|---:|---:|---|---:|---:|");
    let kinds = [SampledInputs::Seeded, SampledInputs::Given];
    for (p, inputs) in ps.iter().flat_map(|p| kinds.map(|k| (p, k))) {
        let shown = match inputs {
            SampledInputs::Seeded => "`input_seed(s)`".to_string(),
            SampledInputs::Given => format!("{} = {} given", p.input, p.failing.1),
        };
        for sampler in [Sampler::Random, Sampler::Pct] {
            eprintln!("sample: {} {} {shown}", p.name, sampler.name());
            let rs = repeat(runs, || measure::sample(p, sampler, inputs, seeds));
            let s = &rs[0];
            let mut found: Vec<f64> = s.found.iter().map(|&e| e as f64).collect();
            found.sort_by(f64::total_cmp);
            let to_bug = match (found.first(), found.last()) {
                (Some(lo), Some(hi)) => format!("{} ({lo}–{hi})", median(found.clone())),
                _ => "—".into(),
            };
            println!(
                "| {} | {} | {shown} | {}/{seeds} | {}/{seeds} | {} | {} | {} |",
                p.name,
                sampler.name(),
                s.failing_inputs,
                s.found.len(),
                to_bug,
                s.executions,
                secs(median(rs.iter().map(|r| r.seconds).collect()))
            );
        }
    }
}

fn enumerate(ps: &[Program], runs: usize) {
    println!("\n| program | values enumerated | failing values | DPOR executions per passing value | ascending order: executions to the bug, wall time | random order: expected executions to the bug, wall time (computed) |");
    println!("|---|---:|---:|---:|---|---|");
    for p in ps {
        eprintln!("enumerate: {}", p.name);
        let e = measure::enumerate(p, runs * 20);
        let ascending = match e.ran {
            Some((n, t)) => format!("{n}, {} (run)", secs(t)),
            None => format!(
                "{}, {} (computed)",
                big(e.ascending()),
                duration(e.ascending_seconds())
            ),
        };
        let (executions, seconds) = e.random_order(p.failing.0);
        println!(
            "| {} | {} | {} | {} | {} | {}, {} |",
            p.name,
            big(e.values as f64),
            big(p.failing.0 as f64),
            e.passing.executions,
            ascending,
            big(executions),
            duration(seconds)
        );
    }
}

fn rates(ps: &[Program], n: u64, runs: usize) {
    println!("\n| program | one worker process per execution (`run_one`) | one worker session (`session`) | in process (`Builder::run_guided`) | session / one process each |");
    println!("|---|---:|---:|---:|---:|");
    for p in ps.iter().filter(|p| rate::FIXTURES.contains(&p.name)) {
        eprintln!("rate: {}", p.name);
        let case = match rate::fixture_case(p) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("rate: {e}");
                continue;
            }
        };
        let worker: Vec<f64> = repeat(runs, || rate::per_process(&case, p, n).unwrap_or(f64::NAN));
        let session: Vec<Result<f64, String>> = repeat(runs, || rate::session(&case, p, n * 10));
        let local: Vec<f64> = repeat(runs, || rate::in_process(p, n * 50));
        let (w, l) = (median(worker), median(local));
        let (s, ratio) = match session.iter().find_map(|r| r.as_ref().err()) {
            Some(e) => (e.clone(), "—".to_string()),
            None => {
                let s = median(session.into_iter().map(Result::unwrap).collect());
                (format!("{s:.0}/s"), format!("{:.0}×", s / w))
            }
        };
        println!("| {} | {w:.0}/s | {s} | {l:.0}/s | {ratio} |", p.name);
    }
}

fn end_to_end(ps: &[Program], symx: &std::path::Path, runs: usize) {
    println!("\n| program | `cargo symx test` wall time | the test's duration | symbolic search | solver | executions | input found |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    for p in ps.iter().filter(|p| rate::FIXTURES.contains(&p.name)) {
        eprintln!("e2e: {}", p.name);
        let rs: Vec<e2e::E2eRun> = match repeat(runs, || e2e::run(symx, p)).into_iter().collect() {
            Ok(rs) => rs,
            Err(e) => {
                eprintln!("e2e: {e}");
                continue;
            }
        };
        let m = |f: fn(&e2e::E2eRun) -> f64| median(rs.iter().map(f).collect());
        let found = match rs[0].found {
            Some(v) => format!("{} = {v}", p.input),
            None => "**not found**".into(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            p.name,
            secs(m(|r| r.seconds)),
            secs(m(|r| r.test_seconds)),
            secs(m(|r| r.symbolic_seconds)),
            secs(m(|r| r.solver_seconds)),
            rs[0].executions,
            found
        );
    }
}

fn ms(s: f64) -> String {
    format!("{:.1} ms", s * 1e3)
}

fn secs(s: f64) -> String {
    if s < 1.0 {
        ms(s)
    } else {
        format!("{s:.2} s")
    }
}

/// A count, with a power of ten beyond a million.
fn big(x: f64) -> String {
    if x < 1e6 {
        format!("{x:.0}")
    } else {
        format!(
            "{:.2}e{}",
            x / 10f64.powi(x.log10() as i32),
            x.log10() as i32
        )
    }
}

fn duration(s: f64) -> String {
    match s {
        s if s < 60.0 => secs(s),
        s if s < 3600.0 * 48.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.0} days", s / 86400.0),
    }
}
