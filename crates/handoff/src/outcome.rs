//! What one sample produced: figures, verifier state and how it ended.

use crate::placement::Placement;
pub use handoff_model::cpu::SampleCpu;
pub use handoff_model::open_loop::HopFigures;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The first violation the verifier saw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// What kind of violation.
    pub kind: ViolationKind,
    /// The producer whose stream was violated.
    pub producer: u32,
    /// The sequence number (or count) expected.
    pub expected: u64,
    /// The sequence number (or count) seen.
    pub got: u64,
    /// In a fan-out, the consumer whose copy of the stream was violated (each consumer of a
    /// broadcast must see the whole stream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumer: Option<u32>,
}

/// Kinds of violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationKind {
    /// A sequence number arrived out of the declared order (or a message was skipped).
    Order,
    /// A message arrived twice.
    Duplicate,
    /// The stream ended with messages missing; `expected` is the first missing sequence number.
    Missing,
    /// A message's body does not match its header.
    Corrupt,
    /// A producer id or sequence number that was never sent.
    Unknown,
    /// Conflating delivery: a value older than one already delivered (`expected` is one past
    /// the newest delivered so far).
    Stale,
    /// Conflating delivery: the stream ended without its final value; `got` is one past the
    /// newest delivered.
    FinalMissing,
    /// A send was refused because every consumer was gone before the stream ended;
    /// `got` is how many messages that producer had sent.
    Disconnected,
    /// The consumer fell behind and the transport overwrote messages before it received them
    /// (a broadcast ring); `got` is how many were lost, `expected` the sequence number the
    /// consumer was waiting for from `producer`.
    Lagged,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.producer;
        if let Some(c) = self.consumer {
            write!(f, "fan-out consumer {c}: ")?;
        }
        match self.kind {
            ViolationKind::Order => write!(
                f,
                "producer {p}: expected seq {}, got {}",
                self.expected, self.got
            ),
            ViolationKind::Duplicate => write!(f, "producer {p}: seq {} delivered twice", self.got),
            ViolationKind::Missing => write!(
                f,
                "producer {p}: stream ended without seq {} ({} of its messages missing)",
                self.expected, self.got
            ),
            ViolationKind::Corrupt => {
                write!(f, "producer {p}: seq {} has a corrupted body", self.got)
            }
            ViolationKind::Unknown => {
                write!(
                    f,
                    "producer {p}: seq {} was never sent (producers or range exceeded)",
                    self.got
                )
            }
            ViolationKind::Stale => write!(
                f,
                "producer {p}: stale value seq {} delivered after seq {}",
                self.got,
                self.expected.saturating_sub(1)
            ),
            ViolationKind::FinalMissing => write!(
                f,
                "producer {p}: final value seq {} never delivered (newest delivered: {})",
                self.expected,
                match self.got {
                    0 => "none".to_string(),
                    g => (g - 1).to_string(),
                }
            ),
            ViolationKind::Disconnected => {
                write!(
                    f,
                    "producer {p}: send refused (consumer gone) after {} messages",
                    self.got
                )
            }
            ViolationKind::Lagged => write!(
                f,
                "consumer lagged: the transport overwrote {} messages before they were received (waiting for producer {p} seq {})",
                self.got, self.expected
            ),
        }
    }
}

/// How a sample ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "status", content = "detail")]
pub enum SampleStatus {
    /// Every message delivered exactly once, in order, intact.
    Pass,
    /// The verifier found a violation.
    Fail(Violation),
    /// The watchdog fired: no message was delivered for a whole watchdog interval.
    Hung(String),
    /// A thread panicked or the process died.
    Crashed(String),
    /// The transport cannot run this workload.
    Unsupported(String),
    /// The parameters are invalid for this transport.
    Invalid(String),
}

impl SampleStatus {
    /// True for `Pass`.
    pub fn is_pass(&self) -> bool {
        matches!(self, SampleStatus::Pass)
    }
}

/// The figures of one sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleOutcome {
    /// How the sample ended.
    pub status: SampleStatus,
    /// Messages delivered (round trips for ping-pong).
    pub messages: u64,
    /// Time from the first thread leaving the start barrier to the last expected message
    /// delivered, in nanoseconds.
    pub elapsed_ns: u64,
    /// Failed non-blocking send attempts (queue full), over all producers.
    pub failed_sends: u64,
    /// Failed non-blocking receive attempts (queue empty), over all consumers.
    pub failed_recvs: u64,
    /// Order-independent digest of the delivered stream (sum of message keys).
    pub digest: u64,
    /// Round-trip histogram (ping-pong), HdrHistogram V2 + deflate, base64.
    pub latency: Option<String>,
    /// Where the threads ran.
    pub placement: Placement,
    /// Open-loop figures (`paced`, `ramp`, `pipeline`); `latency` then holds the one-way latency
    /// from each message's intended send time.
    #[serde(default)]
    pub paced: Option<Box<PacedFigures>>,
    /// How many hand-offs ran on the OS thread of their sender (async transports, every driver;
    /// see [`WorkerShare`]); `None` where not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_worker: Option<WorkerShare>,
    /// The placement the sample ran under, when layouts are randomised (see [`crate::layout`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<crate::layout::LayoutRecord>,
    /// The worker's memory during and after the sample (see `crate::memory`); `None` in
    /// process and where the system does not show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<crate::memory::SampleMemory>,
    /// The CPU time of the harness's producer and consumer threads over the sample (see
    /// [`handoff_model::cpu`]); `None` where not measured (async drivers, callback streams,
    /// systems without a per-thread CPU clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<SampleCpu>,
    /// Nanoseconds from the start until every producer's last send returned (streams); `None`
    /// where not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_ns: Option<u64>,
    /// Messages an at-least-once transport delivered again (see [`crate::verify`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redelivered: u64,
    /// Messages an at-most-once transport never delivered.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Hand-offs whose receiver ran on the OS thread its sender last ran on: on a multi-thread
/// async runtime the two tasks then took turns on one worker, and no core was crossed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerShare {
    /// Hand-offs observed (receives, each side of a ping-pong counting its own).
    pub observed: u64,
    /// Of those, the ones received on the sender's thread.
    pub same: u64,
}

impl WorkerShare {
    /// The sum of two counts.
    pub(crate) fn merge(self, other: WorkerShare) -> WorkerShare {
        WorkerShare {
            observed: self.observed + other.observed,
            same: self.same + other.same,
        }
    }

    /// The fraction of hand-offs that stayed on one thread, `None` if none was observed.
    pub fn fraction(&self) -> Option<f64> {
        (self.observed > 0).then(|| self.same as f64 / self.observed as f64)
    }
}

/// What an open-loop sample measured besides the corrected latency histogram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PacedFigures {
    /// Requested rate, messages per second over every producer.
    pub requested_rate: u64,
    /// Rate the producers achieved (sum over producers; see `crate::open_loop::pacer::achieved_rate`).
    pub achieved_rate: f64,
    /// Sends refused because the transport was full when the message was due (the message was
    /// then sent blocking, and its wait counts in its latency).
    pub refused: u64,
    /// The longest a refused send then waited for room, ns (0 if none was refused; absent from
    /// outcomes written before it was measured).
    #[serde(default)]
    pub refused_wait_max_ns: u64,
    /// Whether the transport can refuse a send at all (it has a non-blocking `try_send`); if not,
    /// refusals cannot be seen and only latency shows saturation.
    pub refusals_observable: bool,
    /// How the pacer waited (`spin` or `yield`).
    pub pacer: String,
    /// The harness's own per-message timing cost, measured in the same sample.
    pub overhead: crate::open_loop::clock::Overhead,
    /// One-way latency from each message's actual send (not corrected for coordinated
    /// omission), HdrHistogram V2 + deflate, base64.
    pub uncorrected: String,
    /// Messages sent (in `latest` delivery, more than were delivered), over the injectors and
    /// a merge source.
    pub sent: u64,
    /// Times the sinks fired (see [`crate::report::PacedResult::fires`]).
    #[serde(default)]
    pub fires: u64,
    /// Per-hop queue depths (pipelines; one entry for a single-hop paced run).
    pub hops: Vec<HopFigures>,
    /// A soak's windows, in order; empty for a sample measured as a whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<crate::open_loop::SoakWindow>,
}

impl SampleOutcome {
    /// An outcome with no figures, only a status.
    pub fn status_only(status: SampleStatus, placement: Placement) -> SampleOutcome {
        SampleOutcome {
            status,
            messages: 0,
            elapsed_ns: 0,
            failed_sends: 0,
            failed_recvs: 0,
            digest: 0,
            latency: None,
            placement,
            paced: None,
            same_worker: None,
            layout: None,
            memory: None,
            cpu: None,
            submit_ns: None,
            redelivered: 0,
            lost: 0,
        }
    }
}
