//! The driver's side of the worker protocol: starts one test binary for one test and one
//! request, reads what it says (protocol lines and libtest's verdict), and kills it when its
//! deadline passes or the user interrupts. It judges nothing; `run` and `crash` do. At most
//! `--jobs` such processes run at once (`budget`), and none starts after Ctrl-C (`cancel`).

pub mod budget;
mod cancel;
pub mod session;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use symx::__worker::protocol::{
    FailureReport, Message, Ran, Replayed, Request, RequestLine, Verdict, ENV_STUCK_AFTER_MS,
    ENV_WORKER, LINE_PREFIX, PROTOCOL_VERSION,
};

use crate::discover::TestCase;

pub use cancel::INTERRUPTED;

/// How the worker process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    /// Killed by a signal: its number and name.
    Signal(i32, &'static str),
    /// Killed by us at the deadline.
    TimedOut,
    /// Killed by us after Ctrl-C.
    Interrupted,
    /// Killed by us because another shard of the test found a failure.
    Cancelled,
}

/// libtest's own verdict line for the test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Libtest {
    Ok,
    Failed,
    Ignored,
}

/// Everything one worker process said.
#[derive(Debug, Default)]
pub struct Run {
    /// The strategy, when the test is a `#[symx::test]` (it said hello).
    pub symx_strategy: Option<String>,
    /// The test's own `max_branch_depth` (it said hello).
    pub max_branch_depth: Option<u32>,
    /// The test's own `assertion_guided` (it said hello).
    pub assertion_guided: bool,
    pub verdict: Option<Verdict>,
    pub replayed: Option<Replayed>,
    /// The answer to `run_one`, for the engines that will ask for single guided executions.
    pub ran: Option<Box<Ran>>,
    /// Traces of an exploration that asked for them (`explore` with `traces`), for the
    /// engines that read recorded executions.
    pub traces: Vec<symx::trace::Trace>,
    /// Unsupported requests and protocol errors, as the worker worded them.
    pub errors: Vec<String>,
    /// The requests the worker answered `unsupported` (`shard`, `run_one`).
    pub unsupported: Vec<String>,
    pub libtest: Option<Libtest>,
    pub exit: Option<Exit>,
    /// What the test printed (its stdout without protocol lines, then its stderr).
    pub output: String,
    /// Announce mode: the decisions of the execution running last.
    pub announced: Vec<u32>,
    /// The watchdog's report of a model thread that ran without reaching a scheduling point
    /// (the worker exited after it).
    pub stuck: Option<FailureReport>,
    pub elapsed: Duration,
    /// The execution count of the last progress message.
    pub last_progress: u64,
    /// Worker processes whose verdicts make up this run (more than 1 when sharded).
    pub shards: u32,
    /// Of a complete optimal-DPOR exploration split among shards: its executions whose trace
    /// another execution (of this shard or another) ran too.
    pub redundant: Option<u64>,
}

impl Run {
    /// The process died or was killed before it answered.
    pub fn crashed(&self) -> bool {
        let answered = self.verdict.is_some()
            || self.replayed.is_some()
            || self.ran.is_some()
            || !self.errors.is_empty();
        let clean_exit = matches!(self.exit, Some(Exit::Code(0 | 101))) && self.libtest.is_some();
        match self.exit {
            Some(Exit::Interrupted | Exit::Cancelled) => false,
            Some(Exit::TimedOut | Exit::Signal(..)) => true,
            _ => !(clean_exit && (answered || self.symx_strategy.is_none())),
        }
    }
}

enum Line {
    Protocol(Box<Message>),
    Text(String),
}

/// What a running worker reports as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The test is a `#[symx::test]` serving the request.
    Hello,
    /// Executions run so far, at most in all when that is known, and the exploration's
    /// estimate of its size when it has one.
    Progress(u64, Option<u64>, Option<u64>),
    /// The most preemptions an execution took so far, and the bound the exploration has.
    Preemptions(u32, Option<u32>),
    /// The exploration ended with a failure.
    Failure,
}

/// Runs `case` with `request`, telling `events` what happens as it happens.
pub fn run(
    case: &TestCase,
    request: Request,
    extra: &[String],
    timeout: Duration,
    events: &mut dyn FnMut(Event),
) -> Run {
    run_cancellable(case, request, extra, timeout, events, None)
}

/// [`run`], killing the worker (as [`Exit::Cancelled`]) once `cancel` is set.
pub fn run_cancellable(
    case: &TestCase,
    request: Request,
    extra: &[String],
    timeout: Duration,
    events: &mut dyn FnMut(Event),
    cancel: Option<&AtomicBool>,
) -> Run {
    let mut run = Run::default();
    let _slot = match budget::acquire(cancel) {
        Ok(slot) => slot,
        Err(refused) => {
            run.exit = Some(match refused {
                budget::Refused::Interrupted => Exit::Interrupted,
                budget::Refused::Cancelled => Exit::Cancelled,
            });
            return run;
        }
    };
    let start = Instant::now();
    let mut child = match spawn(case, extra, Some(stuck_after(timeout))) {
        Ok(child) => child,
        Err(e) => {
            run.errors
                .push(format!("cannot start {}: {e}", case.binary.path.display()));
            run.exit = Some(Exit::Code(-1));
            return run;
        }
    };
    send_request(&mut child, request);
    let lines = read_lines(&mut child);
    let stderr = read_all(child.stderr.take().expect("piped"));
    let deadline = start + timeout;
    let mut killed = None;
    let mut interrupted_at = None;
    loop {
        match lines.recv_timeout(Duration::from_millis(50)) {
            Ok(line) => take(&mut run, &case.name, line, events),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if killed.is_none() {
            if INTERRUPTED.load(Ordering::SeqCst) {
                // Ctrl-C reached the worker too: an exploration that checkpoints stops after
                // its current execution and saves its state. It gets a moment to.
                let since = *interrupted_at.get_or_insert_with(Instant::now);
                if since.elapsed() >= CTRL_C_GRACE {
                    killed = Some(Exit::Interrupted);
                }
            } else if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                killed = Some(Exit::Cancelled);
            } else if Instant::now() >= deadline {
                killed = Some(Exit::TimedOut);
            }
            if killed.is_some() {
                let _ = child.kill();
            }
        }
    }
    let status = child.wait();
    // A worker that ended on its own after Ctrl-C was interrupted all the same.
    let interrupted = interrupted_at.map(|_| Exit::Interrupted);
    run.exit = Some(killed.or(interrupted).unwrap_or_else(|| match status {
        Ok(s) => exit_of(s),
        Err(_) => Exit::Code(-1),
    }));
    run.output.push_str(&stderr.recv().unwrap_or_default());
    run.elapsed = start.elapsed();
    run.shards = 1;
    run
}

/// How long a worker may take to end on its own after Ctrl-C (saving its checkpoint) before
/// it is killed.
const CTRL_C_GRACE: Duration = Duration::from_secs(2);

/// How long a model thread may run without reaching a scheduling point before the worker's
/// watchdog reports it: seconds, not the test's whole `timeout`.
pub fn stuck_after(timeout: Duration) -> Duration {
    STUCK_AFTER.min(timeout / 2)
}

const STUCK_AFTER: Duration = Duration::from_secs(10);

/// Starts a worker of `case`; with `stuck_after`, its watchdog is armed.
fn spawn(
    case: &TestCase,
    extra: &[String],
    stuck_after: Option<Duration>,
) -> std::io::Result<Child> {
    let mut command = Command::new(&case.binary.path);
    if let Some(limit) = stuck_after {
        command.env(ENV_STUCK_AFTER_MS, limit.as_millis().to_string());
    }
    command
        .args([case.name.as_str(), "--exact", "--test-threads=1"])
        .args(extra)
        .env(ENV_WORKER, PROTOCOL_VERSION.to_string())
        .envs(case.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&case.binary.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
}

fn send_request(child: &mut Child, request: Request) {
    let line = RequestLine {
        v: PROTOCOL_VERSION,
        request,
    };
    let mut stdin = child.stdin.take().expect("piped");
    let json = serde_json::to_string(&line).expect("requests serialise");
    // An ordinary test never reads it, and a worker that died early cannot: both are fine.
    let _ = writeln!(stdin, "{json}");
}

fn read_lines(child: &mut Child) -> mpsc::Receiver<Line> {
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        // libtest writes `test NAME ... ` before running the test and `ok` after it, so a
        // protocol line can start in the middle of a text line: the text part is held back
        // and joined with the next text line.
        let mut pending = String::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let parsed = match line.find(LINE_PREFIX) {
                Some(at) => {
                    pending.push_str(&line[..at]);
                    protocol_line(&line[at + LINE_PREFIX.len()..])
                }
                None => Line::Text(std::mem::take(&mut pending) + &line),
            };
            if tx.send(parsed).is_err() {
                break;
            }
        }
    });
    rx
}

fn protocol_line(json: &str) -> Line {
    match serde_json::from_str(json) {
        Ok(m) => Line::Protocol(Box::new(m)),
        Err(e) => Line::Protocol(Box::new(Message::Error {
            message: format!("unreadable worker message ({e}): {json}"),
        })),
    }
}

fn read_all(mut stream: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stream.read_to_end(&mut bytes);
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    rx
}

fn take(run: &mut Run, name: &str, line: Line, events: &mut dyn FnMut(Event)) {
    match line {
        Line::Protocol(m) => match *m {
            Message::Hello {
                strategy,
                max_branch_depth,
                assertion_guided,
                ..
            } => {
                run.symx_strategy = Some(strategy);
                run.max_branch_depth = max_branch_depth;
                run.assertion_guided = assertion_guided;
                events(Event::Hello);
            }
            Message::Progress {
                executions,
                total,
                estimate,
                max_preemptions,
                preemption_bound,
                ..
            } => {
                run.last_progress = executions;
                events(Event::Progress(executions, total, estimate));
                events(Event::Preemptions(max_preemptions, preemption_bound));
            }
            Message::Execution { .. } => run.announced.clear(),
            Message::Decision { value } => run.announced.push(value),
            Message::Verdict(v) => {
                if v.failure.is_some() {
                    events(Event::Failure);
                }
                run.verdict = Some(v);
            }
            Message::Replayed(r) => run.replayed = Some(r),
            Message::Stuck { failure } => run.stuck = Some(failure),
            Message::Ran(r) => run.ran = Some(Box::new(r)),
            Message::Trace { trace, .. } => run.traces.push(*trace),
            Message::Unsupported { request, reason } => {
                run.errors
                    .push(format!("{request} is unsupported: {reason}"));
                run.unsupported.push(request);
            }
            Message::Error { message } => run.errors.push(message),
            // Sessions (and the points of their driven executions) belong to the engines
            // that run many guided executions, not here.
            Message::Session { .. } | Message::Point { .. } | Message::Unknown => {}
        },
        Line::Text(text) => {
            if let Some(result) = libtest_result(&text, name) {
                run.libtest = Some(result);
            } else if !is_libtest_chatter(&text) {
                run.output.push_str(&text);
                run.output.push('\n');
            }
        }
    }
}

/// `test NAME ... ok|FAILED|ignored[, reason]`.
fn libtest_result(line: &str, name: &str) -> Option<Libtest> {
    let rest = line
        .strip_prefix("test ")?
        .strip_prefix(name)?
        .strip_prefix(" ... ")?;
    match rest {
        "ok" => Some(Libtest::Ok),
        "FAILED" => Some(Libtest::Failed),
        r if r.starts_with("ignored") => Some(Libtest::Ignored),
        _ => None,
    }
}

fn is_libtest_chatter(line: &str) -> bool {
    line.is_empty() || line.starts_with("running ") || line.starts_with("test result: ")
}

fn exit_of(status: ExitStatus) -> Exit {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Exit::Signal(sig, signal_name(sig));
        }
    }
    Exit::Code(status.code().unwrap_or(-1))
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        2 => "SIGINT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(exit: Exit, symx: bool, answered: bool, libtest: Option<Libtest>) -> Run {
        Run {
            exit: Some(exit),
            symx_strategy: symx.then(|| "dpor".to_string()),
            errors: if answered { vec!["x".into()] } else { vec![] },
            libtest,
            ..Run::default()
        }
    }

    #[test]
    fn a_crash_is_a_process_that_ended_without_answering() {
        let ok = Some(Libtest::Ok);
        // Ordinary tests: libtest's verdict line and a normal exit code are an answer.
        assert!(!run(Exit::Code(0), false, false, ok).crashed());
        assert!(!run(Exit::Code(101), false, false, Some(Libtest::Failed)).crashed());
        assert!(
            run(Exit::Code(3), false, false, None).crashed(),
            "process::exit(3)"
        );
        assert!(
            run(Exit::Code(0), false, false, None).crashed(),
            "exit(0) mid-test"
        );
        // symx tests must also have answered the request.
        assert!(!run(Exit::Code(0), true, true, ok).crashed());
        assert!(run(Exit::Code(0), true, false, ok).crashed());
        assert!(run(Exit::Signal(11, "SIGSEGV"), true, true, ok).crashed());
        assert!(run(Exit::TimedOut, false, false, None).crashed());
        // Killed by us on purpose: not a crash.
        assert!(!run(Exit::Interrupted, true, false, None).crashed());
        assert!(!run(Exit::Cancelled, true, false, None).crashed());
    }

    #[test]
    fn libtest_lines_are_read_for_the_named_test_only() {
        assert_eq!(
            libtest_result("test a::b ... ok", "a::b"),
            Some(Libtest::Ok)
        );
        assert_eq!(
            libtest_result("test a::b ... FAILED", "a::b"),
            Some(Libtest::Failed)
        );
        assert_eq!(
            libtest_result("test a::b ... ignored, slow", "a::b"),
            Some(Libtest::Ignored)
        );
        assert_eq!(libtest_result("test a::bc ... ok", "a::b"), None);
        assert_eq!(libtest_result("hello", "a::b"), None);
    }
}
