//! Executors: where a trial's samples run.
//!
//! * [`InProcess`] calls the transport's runner directly. A hung sample leaves its threads behind
//!   (they cannot be killed from inside the process) and an aborting transport takes the whole
//!   process down; fine for tests and library use with trusted transports.
//! * [`Child`] runs the trial in a child process speaking the [`crate::worker`] protocol over its
//!   standard input and output. A hang is cut off by killing the child, a crash (abort, segfault)
//!   is read from its exit status and the tail of its standard error, and in both cases the run
//!   goes on with every other result intact.

use crate::catalog::Catalog;
use crate::layout::SampleLayout;
use crate::outcome::{SampleOutcome, SampleStatus};
use crate::placement::Placement;
use crate::workload::TrialSpec;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What the session asks of one sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRequest {
    /// Messages to send (round trips for ping-pong).
    pub messages: u64,
    /// Overrides an open-loop trial's rate, messages per second (a ramp's steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<u64>,
    /// The seed of the sample's placement (see [`crate::layout`]); `None` runs it under the
    /// fixed placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<u64>,
}

impl SampleRequest {
    /// A closed-loop sample of `messages` under the fixed placement.
    pub fn of(messages: u64) -> SampleRequest {
        SampleRequest {
            messages,
            ..SampleRequest::default()
        }
    }
}

/// Runs the samples of one trial.
pub trait Executor {
    /// Runs one sample of `messages` messages under the fixed placement.
    fn sample(&mut self, messages: u64) -> SampleOutcome {
        self.run(SampleRequest::of(messages))
    }
    /// Runs one sample as `request` says.
    fn run(&mut self, request: SampleRequest) -> SampleOutcome;
    /// Releases whatever the executor holds (kills a child process).
    fn close(&mut self) {}
}

/// Runs samples in this process.
pub struct InProcess {
    catalog: Catalog,
    spec: TrialSpec,
}

impl InProcess {
    /// An in-process executor for `spec`, whose transports (every hop's, for a pipeline) are
    /// looked up in `catalog`.
    pub fn new(catalog: Catalog, spec: TrialSpec) -> InProcess {
        InProcess { catalog, spec }
    }
}

impl Executor for InProcess {
    fn run(&mut self, request: SampleRequest) -> SampleOutcome {
        run_sample(&self.catalog, &self.spec, request)
    }
}

/// Runs one sample of `spec` in this process: through the catalog entry of its transport, or,
/// for an open-loop workload, through the boxed hops of every transport it uses. The request's
/// rate overrides an open-loop trial's rate; its layout seed places the sample (the heap pad is
/// held from before the channel is created until the sample ends, and the crew pads its
/// threads' stacks), and the outcome records that placement.
pub fn run_sample(catalog: &Catalog, spec: &TrialSpec, request: SampleRequest) -> SampleOutcome {
    let layout = request.layout.map(SampleLayout::from_seed);
    let owned;
    let spec = if request.rate.is_some() || layout.is_some() {
        owned = TrialSpec {
            pacing: match request.rate {
                Some(r) => crate::workload::Pacing::Rate(r),
                None => spec.pacing.clone(),
            },
            layout,
            ..spec.clone()
        };
        &owned
    } else {
        spec
    };
    let pad = layout.map(|l| l.allocate_pad());
    let messages = request.messages;
    let mut outcome = if spec.workload.is_open_loop() {
        crate::engine::pipeline::run(catalog, spec, messages)
    } else {
        match catalog.lookup(&spec.transport) {
            Ok(entry) => entry.runner().run_sample(spec, messages),
            Err(e) => SampleOutcome::status_only(SampleStatus::Invalid(e), Placement::default()),
        }
    };
    drop(pad);
    outcome.layout = layout.map(|l| l.record(outcome.placement.threads));
    outcome
}

/// How to start a worker process: a program and its arguments (the program must answer the
/// worker protocol, e.g. `handoff __worker`).
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

/// Extra time the parent grants a child beyond the sample's own watchdog before killing it.
const GRACE: Duration = Duration::from_secs(5);
/// Lines of a child's standard error kept for crash reports.
const STDERR_TAIL: usize = 12;

enum Line {
    Out(String),
    Eof,
}

/// Runs samples in a child process.
pub struct Child {
    spec: TrialSpec,
    child: Option<std::process::Child>,
    stdin: Option<ChildStdin>,
    lines: Option<mpsc::Receiver<Line>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    start_error: Option<String>,
}

impl Child {
    /// Starts a worker for `spec`. Failure to start is reported by the first sample.
    pub fn start(cmd: &WorkerCommand, spec: TrialSpec) -> Child {
        let mut me = Child {
            spec,
            child: None,
            stdin: None,
            lines: None,
            stderr: Arc::new(Mutex::new(VecDeque::new())),
            start_error: None,
        };
        let spawned = Command::new(&cmd.program)
            .args(&cmd.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                me.start_error = Some(format!(
                    "could not start worker {}: {e}",
                    cmd.program.display()
                ));
                return me;
            }
        };
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
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
        let tail = me.stderr.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        let mut stdin = child.stdin.take().expect("piped");
        let header = serde_json::to_string(&me.spec).expect("spec serialises");
        if let Err(e) = writeln!(stdin, "{header}") {
            me.start_error = Some(format!("could not talk to worker: {e}"));
        }
        me.child = Some(child);
        me.stdin = Some(stdin);
        me.lines = Some(rx);
        me
    }

    fn fail(&mut self, status: SampleStatus) -> SampleOutcome {
        self.close();
        SampleOutcome::status_only(status, Placement::default())
    }

    fn stderr_tail(&self) -> String {
        let t = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        t.iter().cloned().collect::<Vec<_>>().join(" | ")
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
fn describe_exit(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (_, Some(sig)) => format!("worker killed by signal {sig} ({})", signal_name(sig)),
        (Some(code), _) => format!("worker exited with code {code}"),
        _ => "worker ended".into(),
    }
}

#[cfg(not(unix))]
fn describe_exit(status: std::process::ExitStatus) -> String {
    format!("worker ended: {status}")
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
            let why = format!(
                "{}; stderr: {}",
                self.exit_description(),
                self.stderr_tail()
            );
            return self.fail(SampleStatus::Crashed(why));
        }
        let wait = Duration::from_millis(self.spec.watchdog_ms(messages, rate)) + GRACE;
        let got = self.lines.as_ref().expect("started").recv_timeout(wait);
        match got {
            Ok(Line::Out(l)) => match serde_json::from_str::<SampleOutcome>(&l) {
                Ok(o) => {
                    if !o.status.is_pass() {
                        // The child may hold stuck threads now; it is not reused.
                        self.close();
                    }
                    o
                }
                Err(e) => self.fail(SampleStatus::Crashed(format!(
                    "worker sent an unreadable reply ({e}): {l}"
                ))),
            },
            Ok(Line::Eof) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                // Let the stderr reader drain what the dying process printed.
                thread::sleep(Duration::from_millis(50));
                let why = self.exit_description();
                let tail = self.stderr_tail();
                let why = if tail.is_empty() {
                    why
                } else {
                    format!("{why}; stderr: {tail}")
                };
                self.fail(SampleStatus::Crashed(why))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => self.fail(SampleStatus::Hung(format!(
                "worker gave no answer within {} ms; killed",
                wait.as_millis()
            ))),
        }
    }

    fn close(&mut self) {
        self.stdin = None;
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        self.close();
    }
}
