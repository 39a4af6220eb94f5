//! The peer process: the other side of a cross-process sample.
//!
//! The worker running a sample with `placement = processes` starts its peer, a second process
//! of the same program (the worker's own command, with [`PEER_ENV`] set), once per sample,
//! outside the timed region. The two speak JSON lines on the peer's standard streams, which the
//! peer moves off the descriptors a transport could print on (as a worker does):
//!
//! 1. the worker sends one [`Order`]: the trial, the sample's size, the rendezvous of every
//!    channel (see [`crate::transport_cross`]), the path of the shared start line and the cores
//!    the peer's threads are pinned to;
//! 2. the peer opens the start line, joins the channels and says [`Said::Joined`] (or
//!    [`Said::Failed`] with the reason);
//! 3. the peer's threads meet the worker's at the start line, run, and the peer says
//!    [`Said::Done`] with what its side measured (its stamps on the machine-wide clock, see
//!    `clock`), then exits.
//!
//! **Lifetime.** The peer is in the worker's process group, so ending the worker's group ends
//! it too; it is also started with a parent-death signal (`SIGKILL`), so it cannot outlive the
//! worker however the worker ends. The worker kills and reaps it when the sample ends, whatever
//! the outcome. A peer that exits without [`Said::Done`] has crashed: the sample is `crashed`,
//! naming the peer's side and how it ended.

use crate::engine::open_loop::injector::InjectorReport;
use crate::open_loop::clock::SharedClock;
use crate::outcome::SampleStatus;
use crate::verify::Verdict;
use crate::workload::TrialSpec;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant};

/// Set in a peer's environment: the process serves one [`Order`] instead of the worker
/// protocol (see [`crate::worker::serve_stdio`]).
pub(crate) const PEER_ENV: &str = "HANDOFF_PEER";

/// How a peer is started: a program and its arguments.
#[derive(Clone, Debug)]
pub(crate) struct PeerCommand {
    pub program: std::path::PathBuf,
    pub args: Vec<String>,
}

/// How this process starts a peer: its own command, recorded by a worker as it starts.
static COMMAND: OnceLock<PeerCommand> = OnceLock::new();

/// Records this process's own command as the one that starts its peers.
pub(crate) fn record_own_command() {
    let program = std::env::current_exe().ok();
    if let Some(program) = program {
        let _ = COMMAND.set(PeerCommand {
            program,
            args: std::env::args().skip(1).collect(),
        });
    }
}

/// The command that starts a peer, if this process can start one.
pub(crate) fn command() -> Option<&'static PeerCommand> {
    COMMAND.get()
}

/// What the worker asks of its peer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Order {
    /// The trial.
    pub trial: TrialSpec,
    /// Messages (round trips) of the sample.
    pub messages: u64,
    /// The rendezvous of each channel, in the workload's order.
    pub rendezvous: Vec<String>,
    /// The shared start line's path.
    pub line: String,
    /// The core of each of the peer's threads (`None`: not pinned).
    pub cores: Vec<Option<usize>>,
    /// What an open-loop sample's two processes share besides the start line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopOrder>,
}

/// The clock and the counters both processes of an open-loop sample read.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct OpenLoopOrder {
    /// The clock every stamp is read on.
    pub clock: SharedClock,
    /// The path of the hops' shared counters (see `open_loop::gauge::shared`).
    pub gauges: String,
}

/// What a member in the peer reports, its moments on the machine-wide clock.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Member {
    /// A stream's producer.
    Producer {
        producer: u32,
        start_ns: u64,
        end_ns: u64,
        failed: u64,
        refused_after: Option<u64>,
        cpu_ns: Option<u64>,
    },
    /// An open-loop sample's injector.
    Injector {
        report: Box<InjectorReport>,
        cpu_ns: Option<u64>,
    },
    /// A pipeline's merge source.
    Source {
        report: Box<InjectorReport>,
        cpu_ns: Option<u64>,
    },
    /// A pipeline's stage, reading hop `h`: its failed non-blocking (send, receive) attempts.
    Stage {
        h: usize,
        failed: (u64, u64),
        cpu_ns: Option<u64>,
    },
    /// Ping-pong's ponger.
    Ponger {
        start_ns: u64,
        requests: Verdict,
        failed: (u64, u64),
        cpu_ns: Option<u64>,
    },
}

impl Member {
    /// The member with its thread's CPU time.
    pub fn with_cpu(mut self, ns: Option<u64>) -> Member {
        match &mut self {
            Member::Producer { cpu_ns, .. }
            | Member::Injector { cpu_ns, .. }
            | Member::Source { cpu_ns, .. }
            | Member::Stage { cpu_ns, .. }
            | Member::Ponger { cpu_ns, .. } => *cpu_ns = ns,
        }
        self
    }
}

/// What the peer measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Report {
    /// Its members, in the order they were started.
    pub members: Vec<Member>,
    /// A pin request was refused.
    pub pin_failed: bool,
}

/// A line from the peer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Said {
    /// It has joined every channel and is starting its threads.
    Joined,
    /// It could not take part, and why.
    Failed(String),
    /// Its side ran.
    Done(Report),
}

/// A running peer, seen from the worker.
pub(crate) struct Peer {
    child: std::process::Child,
    said: mpsc::Receiver<Said>,
}

impl Peer {
    /// Starts a peer with `cmd` and sends it `order`.
    pub fn start(cmd: &PeerCommand, order: &Order) -> Result<Peer, String> {
        let mut command = Command::new(&cmd.program);
        command
            .args(&cmd.args)
            .env(PEER_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        crate::executor::spawn::dies_with_parent(&mut command, libc::SIGKILL);
        let mut child = command
            .spawn()
            .map_err(|e| format!("could not start the peer process: {e}"))?;
        let line = serde_json::to_string(order).expect("an order serialises");
        let sent = child
            .stdin
            .take()
            .map(|mut input| writeln!(input, "{line}").and_then(|()| input.flush()));
        let stdout = child.stdout.take();
        let (tx, said) = mpsc::channel();
        if let Some(out) = stdout {
            std::thread::Builder::new()
                .name("handoff-peer-out".into())
                .spawn(move || {
                    for line in BufReader::new(out).lines() {
                        let Ok(line) = line else { return };
                        let said = serde_json::from_str::<Said>(&line).unwrap_or_else(|e| {
                            Said::Failed(format!(
                                "the peer said `{line}`, not a line of its protocol ({e})"
                            ))
                        });
                        if tx.send(said).is_err() {
                            return;
                        }
                    }
                })
                .map_err(|e| format!("could not start a thread: {e}"))?;
        }
        let mut peer = Peer { child, said };
        if let Some(Err(e)) = sent {
            return Err(peer.ended(&format!("could not send the peer its order ({e})")));
        }
        Ok(peer)
    }

    /// Waits up to `within` for the peer to join its channels.
    pub fn joined(&mut self, within: Duration) -> Result<(), SampleStatus> {
        match self.next(within) {
            Ok(Said::Joined) => Ok(()),
            Ok(Said::Failed(why)) => Err(refusal(why)),
            Ok(Said::Done(_)) => Err(SampleStatus::Crashed(
                "the peer process finished before it joined".into(),
            )),
            Err(status) => Err(status),
        }
    }

    /// Waits for the peer's report: up to the sample's `watchdog` interval and the grace a
    /// worker's parent grants beyond it (the worker's own watchdog has fired by then).
    pub fn report(&mut self, watchdog: Duration) -> Result<Report, SampleStatus> {
        match self.next(watchdog + crate::executor::GRACE) {
            Ok(Said::Done(report)) => Ok(report),
            Ok(Said::Failed(why)) => Err(SampleStatus::Crashed(format!("peer process: {why}"))),
            Ok(Said::Joined) => Err(SampleStatus::Crashed(
                "the peer process said it joined twice".into(),
            )),
            Err(status) => Err(status),
        }
    }

    /// Whether the peer has ended other than by finishing, and how (without waiting).
    pub fn crashed(&mut self) -> Option<SampleStatus> {
        match self.child.try_wait() {
            Ok(Some(status)) if !status.success() => Some(SampleStatus::Crashed(format!(
                "the peer process ended mid-sample: {}",
                crate::executor::describe_exit_of("peer process", status)
            ))),
            _ => None,
        }
    }

    /// The peer's next line, waited for up to `within`.
    fn next(&mut self, within: Duration) -> Result<Said, SampleStatus> {
        match self.said.recv_timeout(within) {
            Ok(said) => Ok(said),
            Err(mpsc::RecvTimeoutError::Timeout) => Err(SampleStatus::Hung(format!(
                "the peer process said nothing for {:.1} s",
                within.as_secs_f64()
            ))),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(SampleStatus::Crashed(
                self.ended("the peer process ended without a report"),
            )),
        }
    }

    /// `what`, with how the peer ended (it has closed its output; it is waited for briefly).
    fn ended(&mut self, what: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return format!(
                        "{what}: {}",
                        crate::executor::describe_exit_of("peer process", status)
                    )
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => return what.to_string(),
            }
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A peer's refusal to join: the transport's own words.
fn refusal(why: String) -> SampleStatus {
    SampleStatus::Unsupported(why)
}

/// The peer's side: reads one [`Order`] from `input`, runs it with `serve` (which says
/// [`Said::Joined`] through the function it is given, then returns its last word), and writes
/// every line to `output`.
pub(crate) fn serve_order(
    input: impl BufRead,
    mut output: impl Write,
    serve: impl FnOnce(&Order, &mut dyn FnMut(&Said)) -> Said,
) -> std::io::Result<()> {
    let mut say = |said: &Said| {
        let line = serde_json::to_string(said).expect("a peer's line serialises");
        let _ = writeln!(output, "{line}").and_then(|()| output.flush());
    };
    let Some(first) = input.lines().next() else {
        return Ok(());
    };
    let last = match serde_json::from_str::<Order>(&first?) {
        Ok(order) => serve(&order, &mut say),
        Err(e) => Said::Failed(format!("bad order: {e}")),
    };
    say(&last);
    Ok(())
}
