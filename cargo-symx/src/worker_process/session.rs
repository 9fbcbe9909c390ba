//! A persistent worker session: one process of the test answers many guided executions
//! (`run_one`, `replay`), one line each, instead of one process per execution (see
//! docs/worker-protocol.md, *Sessions*). What the engines use when they run many executions
//! of one test. A session that fails (the worker crashed, hung or does not know sessions) is
//! an error for the caller, who falls back to one process per execution.

use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use symx::__worker::protocol::{Message, Request, RequestLine, PROTOCOL_VERSION};

use super::{budget, read_all, read_lines, spawn, Line, INTERRUPTED};
use crate::discover::TestCase;

/// An open session with one worker process of a test.
pub struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    timeout: Duration,
}

impl Session {
    /// Starts a worker of `case` and opens a session; `Err` (and no process left) when the
    /// worker does not open one.
    pub fn open(case: &TestCase, extra: &[String], timeout: Duration) -> Result<Session, String> {
        // Unwatched: a session's answers are single executions the engines bound themselves.
        let mut child = spawn(case, extra, None)
            .map_err(|e| format!("cannot start {}: {e}", case.binary.path.display()))?;
        let stdin = child.stdin.take().expect("piped");
        let lines = read_lines(&mut child);
        // Drained so that a chatty test cannot block on a full pipe; a session reports no
        // output.
        let _ = read_all(child.stderr.take().expect("piped"));
        let mut session = Session {
            child,
            stdin,
            lines,
            timeout,
        };
        session.send(Request::Session)?;
        match session.answer()? {
            Message::Session { .. } => Ok(session),
            other => Err(format!("the worker did not open a session: {other:?}")),
        }
    }

    /// Sends `request` and waits for its answer (a `ran`, `replayed`, `error` or
    /// `unsupported` message). Holds one slot of the `--jobs` budget while the worker runs.
    pub fn ask(&mut self, request: Request) -> Result<Message, String> {
        let _slot = budget::acquire(None).map_err(|_| "interrupted (Ctrl-C)".to_string())?;
        self.send(request)?;
        self.answer()
    }

    /// Runs one driven execution (`drive`): every `point` the worker sends is answered with
    /// `decide`'s decision, until its `ran`. Holds one slot of the `--jobs` budget meanwhile.
    pub fn drive(
        &mut self,
        request: Request,
        decide: &mut dyn FnMut(&symx::DrivenPoint<'_>) -> symx::Drive,
    ) -> Result<Message, String> {
        let _slot = budget::acquire(None).map_err(|_| "interrupted (Ctrl-C)".to_string())?;
        self.send(request)?;
        loop {
            match self.answer()? {
                Message::Point {
                    step,
                    enabled,
                    trace,
                } => {
                    let enabled: Vec<usize> = enabled.iter().map(|&t| t as usize).collect();
                    let point = symx::DrivenPoint {
                        step,
                        enabled: &enabled,
                        trace: &trace,
                    };
                    let thread = match decide(&point) {
                        symx::Drive::Run(t) => Some(t as u32),
                        symx::Drive::Stop => None,
                    };
                    self.send(Request::Decide { thread })?;
                }
                m => return Ok(m),
            }
        }
    }

    fn send(&mut self, request: Request) -> Result<(), String> {
        let line = RequestLine {
            v: PROTOCOL_VERSION,
            request,
        };
        let json = serde_json::to_string(&line).expect("requests serialise");
        writeln!(self.stdin, "{json}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("the worker stopped reading its requests: {e}"))
    }

    /// The next answer, skipping `hello`, progress and libtest's text.
    fn answer(&mut self) -> Result<Message, String> {
        let deadline = Instant::now() + self.timeout;
        loop {
            if INTERRUPTED.load(Ordering::SeqCst) {
                return Err("interrupted (Ctrl-C)".into());
            }
            if Instant::now() >= deadline {
                return Err(format!("no answer within {:.1?}", self.timeout));
            }
            match self.lines.recv_timeout(Duration::from_millis(50)) {
                Ok(Line::Protocol(m)) => match *m {
                    Message::Hello { .. } | Message::Progress { .. } | Message::Unknown => {}
                    m => return Ok(m),
                },
                Ok(Line::Text(_)) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err("the worker ended the session (it crashed or exited)".into())
                }
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.send(Request::End);
        // A worker that does not end promptly is not waited for.
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
