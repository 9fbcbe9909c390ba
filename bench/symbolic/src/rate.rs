//! Guided executions per second: what one solver answer costs to run. Under `cargo symx` every
//! guided execution is a worker process of the test binary (`run_one`, through the driver's
//! own `WorkerExecutor`); a persistent worker session (`session`, see docs/worker-protocol.md)
//! answers many `run_one` lines in one process; in process (`Builder::run_guided`) is the same
//! execution without any process, the bound a session can approach.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cargo_symx::discover::{self, CargoOptions, TestCase};
use cargo_symx::engine::Executor;
use cargo_symx::run::executor::WorkerExecutor;
use symx::__worker::protocol::{
    InputValue, Request, RequestLine, ENV_WORKER, LINE_PREFIX, PROTOCOL_VERSION,
};
use symx::{Builder, Guide, InputValues};

use crate::programs::Program;

/// The programs `tests/fixture.rs` has as tests: those that pass at the default inputs.
pub const FIXTURES: [&str; 3] = ["thirty_seven", "hash_collision", "behind_a_branch"];

/// The fixture test (`tests/fixture.rs`) named like `p`, built in release mode.
pub fn fixture_case(p: &Program) -> Result<TestCase, String> {
    let cargo = CargoOptions {
        manifest_path: Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/Cargo.toml"
        ))),
        release: true,
        ..CargoOptions::default()
    };
    let metadata = discover::metadata(&cargo)?;
    let cases = discover::build_and_list(&cargo, &metadata, Some(p.name), &[], false)?;
    cases
        .into_iter()
        .find(|c| c.binary.target == "fixture" && c.name == p.name)
        .ok_or_else(|| format!("no fixture test {}", p.name))
}

/// The guide every timed execution follows: the failing input value, default schedule.
fn guide(p: &Program) -> Guide {
    Guide {
        steps: Vec::new(),
        choices: Vec::new(),
        inputs: InputValues::from([(p.input.to_string(), p.failing.1)]),
    }
}

/// Executions per second of `n` guided executions, one worker process each.
pub fn per_process(case: &TestCase, p: &Program, n: u64) -> Result<f64, String> {
    let mut exec = WorkerExecutor::new(case, &[], Duration::from_secs(60));
    let g = guide(p);
    let started = Instant::now();
    for _ in 0..n {
        exec.run(&g)?;
    }
    Ok(n as f64 / started.elapsed().as_secs_f64())
}

/// Executions per second of `n` guided executions in this process.
pub fn in_process(p: &Program, n: u64) -> f64 {
    let b = Builder::new();
    let g = guide(p);
    let started = Instant::now();
    for _ in 0..n {
        let run = b.run_guided(&g, p.body);
        std::hint::black_box(&run);
    }
    n as f64 / started.elapsed().as_secs_f64()
}

/// Executions per second of `n` guided executions in one worker session, from the worker's
/// start to its last answer; an error when the worker has no session mode.
pub fn session(case: &TestCase, p: &Program, n: u64) -> Result<f64, String> {
    let run_one = RequestLine {
        v: PROTOCOL_VERSION,
        request: Request::RunOne {
            prefix: Vec::new(),
            choices: Vec::new(),
            inputs: vec![InputValue {
                name: p.input.into(),
                value: p.failing.1,
            }],
            epochs: None,
        },
    };
    let one = serde_json::to_string(&run_one).map_err(|e| e.to_string())? + "\n";
    // Written by hand: the request kinds are newer than some workers this may drive.
    let mut requests = format!("{{\"v\":{PROTOCOL_VERSION},\"request\":\"session\"}}\n");
    requests.push_str(&one.repeat(n as usize));
    requests.push_str(&format!(
        "{{\"v\":{PROTOCOL_VERSION},\"request\":\"end\"}}\n"
    ));
    let started = Instant::now();
    let mut child = Command::new(&case.binary.path)
        .args([case.name.as_str(), "--exact", "--test-threads=1"])
        .current_dir(&case.binary.cwd)
        .env(ENV_WORKER, PROTOCOL_VERSION.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the worker: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    // From a thread of its own, so that neither side blocks on a full pipe.
    let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
    let mut kinds = Vec::new();
    for line in BufReader::new(child.stdout.take().expect("piped")).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if let Some(at) = line.find(LINE_PREFIX) {
            let m: serde_json::Value =
                serde_json::from_str(&line[at + LINE_PREFIX.len()..]).map_err(|e| e.to_string())?;
            kinds.push(m["kind"].as_str().unwrap_or("").to_string());
        }
    }
    let elapsed = started.elapsed();
    let _ = writer.join();
    let _ = child.wait();
    if kinds.get(1).map(String::as_str) != Some("session") {
        return Err(format!(
            "no session mode in this worker (answers: {kinds:?})"
        ));
    }
    let ran = kinds.iter().filter(|k| *k == "ran").count() as u64;
    if ran != n {
        return Err(format!("{ran} of {n} guided executions answered"));
    }
    Ok(n as f64 / elapsed.as_secs_f64())
}
