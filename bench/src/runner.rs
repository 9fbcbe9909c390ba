//! The parent side: every measured run is a fresh child process of this same binary
//! (`--one TOOL SCENARIO`), killed if it outlives its time limit, and the runs of one
//! scenario × tool are summarised into one table row.
//!
//! Why a process per run: a slow scenario cannot hang the benchmark (the child is killed),
//! loom can abort the process on a deadlock (it panics again while unwinding), every run starts
//! from the same cold state as a user's test binary, and no tool's globals (panic hooks, thread
//! locals, leaked stacks of failed shuttle executions) leak into the next measurement.

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::measure::{Bug, End, Outcome, PostDetection};
use crate::scenarios::{sampling_iterations, Scenario, Tool};

/// What the parent got from one child.
#[derive(Clone, Debug)]
pub enum RunResult {
    Finished(Outcome),
    /// Still running at the hard deadline and killed; nothing is known about its progress.
    Killed {
        secs: f64,
    },
    /// Ended without a result line: a crash of the tool or of the harness.
    Crashed {
        why: String,
    },
}

/// Options the parent passes on to each child.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub time_limit: Duration,
    pub preemption_bound: Option<u32>,
}

/// The arguments of a `--one` child.
pub fn child_args(tool: Tool, scenario: Scenario, seed: u64, opts: &RunOptions) -> Vec<String> {
    let mut args = vec![
        "--one".to_string(),
        tool.name().to_string(),
        scenario.to_string(),
        "--seed".to_string(),
        seed.to_string(),
        "--iterations".to_string(),
        sampling_iterations(scenario).to_string(),
        "--time-limit-ms".to_string(),
        opts.time_limit.as_millis().to_string(),
    ];
    if let Some(b) = opts.preemption_bound {
        args.extend(["--preemption-bound".to_string(), b.to_string()]);
    }
    args
}

/// Each tool stops itself at the time limit, but only between executions; the hard deadline
/// leaves it that much slack before the parent kills it.
pub fn hard_deadline(time_limit: Duration) -> Duration {
    time_limit + time_limit / 2 + Duration::from_secs(5)
}

/// Output of a child process, or `None` in `status` if it was killed at `deadline`.
pub struct ChildOutput {
    pub stdout: String,
    pub stderr: String,
    pub status: Option<std::process::ExitStatus>,
    pub secs: f64,
}

/// Runs this binary with `args`, killing it at `deadline`.
pub fn run_child(args: &[String], deadline: Duration) -> std::io::Result<ChildOutput> {
    let exe = std::env::current_exe()?;
    let started = Instant::now();
    let mut child = Command::new(exe)
        .args(args)
        // Backtraces would only lengthen the stderr of tools that print panics.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Drain both pipes on their own threads so a chatty child never blocks on a full pipe.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let err = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        // Polling latency does not affect the figures: the child times itself.
        thread::sleep(Duration::from_millis(5));
    };
    Ok(ChildOutput {
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        status,
        secs: started.elapsed().as_secs_f64(),
    })
}

/// One measured run of `tool` on `scenario` in a child process.
pub fn run_once(tool: Tool, scenario: Scenario, seed: u64, opts: &RunOptions) -> RunResult {
    let args = child_args(tool, scenario, seed, opts);
    let output = match run_child(&args, hard_deadline(opts.time_limit)) {
        Ok(o) => o,
        Err(e) => {
            return RunResult::Crashed {
                why: format!("could not start child: {e}"),
            }
        }
    };
    if let Some(outcome) = Outcome::from_output(&output.stdout) {
        return RunResult::Finished(outcome);
    }
    match output.status {
        None => RunResult::Killed { secs: output.secs },
        Some(status) => {
            let last = output
                .stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output");
            RunResult::Crashed {
                why: format!("{status}: {}", crate::measure::one_line(last)),
            }
        }
    }
}

/// The summary of all runs of one scenario × tool: one table row.
#[derive(Clone, Debug)]
pub struct Cell {
    pub scenario: Scenario,
    pub tool: Tool,
    pub runs: usize,
    pub summary: Summary,
}

#[derive(Clone, Debug)]
pub enum Summary {
    /// Every run finished within the limit.
    Done {
        executions: u64,
        secs: f64,
        end: End,
        /// Runs that reported a bug, and the execution indexes at which they did.
        found: Vec<Bug>,
        /// Median work after detection (symx's counterexample minimisation).
        post: PostDetection,
    },
    /// A run hit the time limit; `executions` is what it had done by then, if known.
    Timeout {
        executions: Option<u64>,
        secs: f64,
    },
    Crashed {
        why: String,
    },
}

/// Runs `tool` on `scenario` `runs` times (seeds 1, 2, ... for the sampling tools) and
/// summarises. A run that times out ends the series: the next would only time out again.
pub fn measure(
    tool: Tool,
    scenario: Scenario,
    runs: usize,
    opts: &RunOptions,
    mut progress: impl FnMut(usize, &RunResult),
) -> Cell {
    let mut outcomes = Vec::new();
    let mut summary = None;
    for i in 0..runs {
        let result = run_once(tool, scenario, i as u64 + 1, opts);
        progress(i, &result);
        match result {
            RunResult::Finished(o) if o.end == End::TimeLimit => {
                summary = Some(Summary::Timeout {
                    executions: Some(o.executions),
                    secs: o.secs,
                });
                break;
            }
            RunResult::Finished(o) => outcomes.push(o),
            RunResult::Killed { secs } => {
                summary = Some(Summary::Timeout {
                    executions: None,
                    secs,
                });
                break;
            }
            RunResult::Crashed { why } => {
                summary = Some(Summary::Crashed { why });
                break;
            }
        }
    }
    let runs_done = outcomes.len().max(1);
    let summary = summary.unwrap_or_else(|| Summary::Done {
        executions: median_u64(outcomes.iter().map(|o| o.executions).collect()),
        secs: median_f64(outcomes.iter().map(|o| o.secs).collect()),
        // The sampling tools on a correct program end by iterations, the rest by exhaustion;
        // any bug-ending run makes the row a "found" row.
        end: if outcomes.iter().any(|o| o.end == End::Bug) {
            End::Bug
        } else {
            outcomes.last().map_or(End::Exhausted, |o| o.end)
        },
        found: outcomes.iter().filter_map(|o| o.bug.clone()).collect(),
        post: PostDetection {
            executions: median_u64(outcomes.iter().map(|o| o.post.executions).collect()),
            secs: median_f64(outcomes.iter().map(|o| o.post.secs).collect()),
        },
    });
    Cell {
        scenario,
        tool,
        runs: runs_done,
        summary,
    }
}

pub fn median_f64(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

pub fn median_u64(v: Vec<u64>) -> u64 {
    median_f64(v.into_iter().map(|x| x as f64).collect()).round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median_u64(vec![5, 1, 3]), 3);
        assert_eq!(median_u64(vec![4, 1, 3, 2]), 3); // 2.5 rounds up
        assert_eq!(median_f64(vec![]), 0.0);
    }
}
