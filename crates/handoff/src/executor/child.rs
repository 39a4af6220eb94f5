//! [`Child`]: the samples of one trial in a worker process.
//!
//! The worker speaks the [`crate::worker`] protocol over its standard input and output, which
//! it keeps to itself: what the transport prints (on either stream) reaches the parent on the
//! worker's standard error, and is kept in the trial's [`Printed`] record. How the process is
//! started and ended: [`super::spawn`].

use super::captured::Printed;
use super::spawn;
use super::{Executor, Heartbeat, SampleRequest, WorkerCommand, GRACE};
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::workload::TrialSpec;
use std::io::{BufRead, BufReader, Write};
use std::process::ChildStdin;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// A line of the protocol, or its end.
enum Line {
    Out(String),
    Eof,
}

/// How long closing waits for the last of a dead worker's output to be read.
const DRAIN: Duration = Duration::from_millis(500);

/// Runs samples in a worker process.
pub struct Child {
    spec: TrialSpec,
    child: Option<std::process::Child>,
    stdin: Option<ChildStdin>,
    lines: Option<mpsc::Receiver<Line>>,
    printed: Arc<Mutex<Printed>>,
    /// Closed (its sender dropped) when the reader of the worker's output has read it all.
    drained: Option<mpsc::Receiver<()>>,
    start_error: Option<String>,
}

impl Child {
    /// Starts a worker for `spec`; what it prints is appended to `printed`. Failure to start is
    /// reported by the first sample.
    pub fn start(cmd: &WorkerCommand, spec: TrialSpec, printed: Arc<Mutex<Printed>>) -> Child {
        let mut me = Child {
            spec,
            child: None,
            stdin: None,
            lines: None,
            printed,
            drained: None,
            start_error: None,
        };
        let mut child = match spawn::start(cmd) {
            Ok(c) => c,
            Err(e) => {
                me.start_error = Some(format!(
                    "could not start worker {}: {e}",
                    cmd.program.display()
                ));
                return me;
            }
        };
        let (Some(stdout), Some(stderr), Some(mut stdin)) =
            (child.stdout.take(), child.stderr.take(), child.stdin.take())
        else {
            spawn::end(&mut child);
            me.start_error = Some("the worker's streams were not piped".into());
            return me;
        };
        let (tx, rx) = mpsc::channel();
        let reader = thread::Builder::new()
            .name("handoff-worker-protocol".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    match line {
                        Ok(l) => {
                            if tx.send(Line::Out(l)).is_err() {
                                return;
                            }
                        }
                        Err(_) => break,
                    }
                }
                let _ = tx.send(Line::Eof);
            });
        let printed = me.printed.clone();
        let (done, drained) = mpsc::channel::<()>();
        let output = thread::Builder::new()
            .name("handoff-worker-output".into())
            .spawn(move || {
                let _done = done;
                let mut lines = BufReader::new(stderr);
                let mut buf = Vec::new();
                // Bytes, not UTF-8 lines: a transport may print anything.
                while matches!(lines.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
                    let text = String::from_utf8_lossy(&buf);
                    let text = text.trim_end_matches(['\n', '\r']);
                    printed.lock().unwrap_or_else(|e| e.into_inner()).push(text);
                    buf.clear();
                }
            });
        if let Err(e) = reader.and(output) {
            spawn::end(&mut child);
            me.start_error = Some(format!("could not read the worker: {e}"));
            return me;
        }
        let header = serde_json::to_string(&me.spec).expect("spec serialises");
        if let Err(e) = writeln!(stdin, "{header}") {
            me.start_error = Some(format!("could not talk to worker: {e}"));
        }
        me.child = Some(child);
        me.stdin = Some(stdin);
        me.lines = Some(rx);
        me.drained = Some(drained);
        me
    }

    fn fail(&mut self, status: SampleStatus) -> SampleOutcome {
        self.close();
        SampleOutcome::status_only(status, Placement::default())
    }

    /// What the worker printed, for a crash report: its first and last lines.
    fn printed(&self) -> String {
        self.printed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .one_line()
    }

    /// Why the worker ended and what it printed, once its output has been read to the end.
    fn crash_report(&mut self) -> String {
        let why = self.exit_description();
        self.wait_drained();
        let printed = self.printed();
        if printed.is_empty() {
            why
        } else {
            format!("{why}; output: {printed}")
        }
    }

    fn wait_drained(&mut self) {
        if let Some(d) = self.drained.take() {
            let _ = d.recv_timeout(DRAIN);
        }
    }

    fn exit_description(&mut self) -> String {
        let Some(child) = self.child.as_mut() else {
            return "worker gone".into();
        };
        // Give the process a moment to be reaped after closing its output.
        for _ in 0..100 {
            match child.try_wait() {
                Ok(Some(status)) => return describe_exit(status),
                Ok(None) => thread::sleep(Duration::from_millis(10)),
                Err(e) => return format!("worker status unknown: {e}"),
            }
        }
        "worker closed its output but did not exit".into()
    }
}

#[cfg(unix)]
pub(crate) fn describe_exit(status: std::process::ExitStatus) -> String {
    describe_exit_of("worker", status)
}

/// How the process `who` ended, e.g. `peer process killed by signal 9 (SIGKILL)`.
#[cfg(unix)]
pub(crate) fn describe_exit_of(who: &str, status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (_, Some(sig)) => format!("{who} killed by signal {sig} ({})", signal_name(sig)),
        (Some(code), _) => format!("{who} exited with code {code}"),
        _ => format!("{who} ended"),
    }
}

#[cfg(not(unix))]
pub(crate) fn describe_exit(status: std::process::ExitStatus) -> String {
    describe_exit_of("worker", status)
}

#[cfg(not(unix))]
pub(crate) fn describe_exit_of(who: &str, status: std::process::ExitStatus) -> String {
    format!("{who} ended: {status}")
}

#[cfg(unix)]
fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "signal",
    }
}

impl Executor for Child {
    fn run(&mut self, request: SampleRequest) -> SampleOutcome {
        let SampleRequest { messages, rate, .. } = request;
        if let Some(e) = self.start_error.take() {
            return self.fail(SampleStatus::Crashed(e));
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return self.fail(SampleStatus::Crashed("worker already closed".into()));
        };
        let request = serde_json::to_string(&request).expect("a request serialises");
        if writeln!(stdin, "{request}")
            .and_then(|_| stdin.flush())
            .is_err()
        {
            let why = self.crash_report();
            return self.fail(SampleStatus::Crashed(why));
        }
        // The parent's own watchdog: heartbeats restart it whenever their count moves.
        let watchdog = self.spec.watchdog(rate);
        let limit = watchdog + GRACE;
        let Some(lines) = self.lines.as_ref() else {
            return self.fail(SampleStatus::Crashed("worker already closed".into()));
        };
        let (mut delivered, mut moved) = (0u64, Instant::now());
        let got = loop {
            let left = (moved + limit).saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(Line::Out(l)) => match serde_json::from_str::<Heartbeat>(&l) {
                    Ok(beat) => {
                        if beat.progress != delivered {
                            delivered = beat.progress;
                            moved = Instant::now();
                        }
                    }
                    Err(_) => break Ok(Line::Out(l)),
                },
                other => break other,
            }
        };
        match got {
            Ok(Line::Out(l)) => match serde_json::from_str::<SampleOutcome>(&l) {
                Ok(o) => {
                    if !o.status.is_pass() {
                        // The worker may hold stuck threads now; it is not reused.
                        self.close();
                    }
                    o
                }
                Err(e) => self.fail(SampleStatus::Crashed(format!(
                    "worker sent an unreadable reply ({e}): {l}"
                ))),
            },
            Ok(Line::Eof) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                let why = self.crash_report();
                self.fail(SampleStatus::Crashed(why))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let quiet = moved.elapsed();
                self.fail(SampleStatus::Hung(format!(
                    "no message delivered for {:.1} s (watchdog {} ms + {} s grace): the worker reported no progress and gave no answer, about {delivered} of {messages} messages delivered; killed",
                    quiet.as_secs_f64(),
                    watchdog.as_millis(),
                    GRACE.as_secs()
                )))
            }
        }
    }

    fn close(&mut self) {
        self.stdin = None;
        if let Some(mut c) = self.child.take() {
            spawn::end(&mut c);
        }
        // The worker's group is dead: whatever it printed last is read now, for the report.
        self.wait_drained();
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.close();
    }
}
