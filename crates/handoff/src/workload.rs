//! Workloads: what is asked of a transport, and the fully resolved parameters of one trial.

use crate::payload::PayloadKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The shape of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    /// One producer streams to one consumer.
    Spsc,
    /// K producers stream to one consumer.
    Mpsc,
    /// K producers stream to M consumers.
    Mpmc,
    /// A round trip over two channels of the same transport; every reply is checked before the
    /// next request is sent (a dependency chain), and each round trip's time is recorded.
    PingPong,
}

impl WorkloadKind {
    /// Every workload, in listing order.
    pub const ALL: [WorkloadKind; 4] = [
        WorkloadKind::Spsc,
        WorkloadKind::Mpsc,
        WorkloadKind::Mpmc,
        WorkloadKind::PingPong,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Spsc => "spsc",
            WorkloadKind::Mpsc => "mpsc",
            WorkloadKind::Mpmc => "mpmc",
            WorkloadKind::PingPong => "ping-pong",
        }
    }

    /// One line describing the workload.
    pub fn description(self) -> &'static str {
        match self {
            WorkloadKind::Spsc => "1 producer -> 1 consumer stream, closed loop (as fast as possible)",
            WorkloadKind::Mpsc => "K producers -> 1 consumer stream (K swept, default 1,2,4,8)",
            WorkloadKind::Mpmc => "K producers -> M consumers stream, for transports with many consumers",
            WorkloadKind::PingPong => "round trip over two channels of one transport; each reply checked; latency histogram",
        }
    }

    /// Default producer counts swept when none are given.
    pub fn default_producers(self) -> Vec<usize> {
        match self {
            WorkloadKind::Mpsc | WorkloadKind::Mpmc => vec![1, 2, 4, 8],
            _ => vec![1],
        }
    }

    /// Default consumer count.
    pub fn default_consumers(self) -> usize {
        match self {
            WorkloadKind::Mpmc => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WorkloadKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        WorkloadKind::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| {
                crate::suggest::unknown("workload", s, WorkloadKind::ALL.iter().map(|w| w.name()))
            })
    }
}

/// How many messages (round trips, for ping-pong) one sample moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Messages {
    /// Exactly this many.
    Fixed(u64),
    /// Calibrated during warm-up so that one sample lasts about `target_ms` milliseconds,
    /// within `[min, max]` messages. The count chosen is echoed with the result.
    Auto {
        /// Target duration of one sample.
        target_ms: u64,
        /// Lower bound on the count.
        min: u64,
        /// Upper bound on the count.
        max: u64,
    },
}

impl fmt::Display for Messages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Messages::Fixed(n) => write!(f, "{n}"),
            Messages::Auto { target_ms, .. } => write!(f, "auto({target_ms} ms)"),
        }
    }
}

/// Every parameter of one trial: one workload over one transport.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialSpec {
    /// Transport name.
    pub transport: String,
    /// Workload shape.
    pub workload: WorkloadKind,
    /// Payload shape.
    pub payload: PayloadKind,
    /// Capacity in messages (bounded transports).
    pub capacity: usize,
    /// Producer threads.
    pub producers: usize,
    /// Consumer threads.
    pub consumers: usize,
    /// Messages per sample (total over all producers).
    pub messages: Messages,
    /// Consumer drains in runs of up to this many (`recv_batch`) and producers publish runs of
    /// this many (`send_batch`); `None` for one message at a time.
    pub batch: Option<usize>,
    /// Transport options (`wake = edge`, …).
    pub options: BTreeMap<String, String>,
    /// Timed samples.
    pub samples: usize,
    /// Untimed warm-up samples.
    pub warmup: usize,
    /// Watchdog: a sample running longer than this is declared hung.
    pub timeout_ms: u64,
    /// Pin threads to distinct cores where the machine has enough.
    pub pin: bool,
}

impl TrialSpec {
    /// A short label identifying the trial in progress output and errors,
    /// e.g. `crossbeam-bounded spsc u64 cap=1024 p=1`.
    pub fn label(&self) -> String {
        let mut s = format!("{} {} {}", self.transport, self.workload, self.payload);
        s.push_str(&format!(" cap={}", self.capacity));
        if self.workload != WorkloadKind::Spsc && self.workload != WorkloadKind::PingPong {
            s.push_str(&format!(" p={}", self.producers));
        }
        if self.consumers != 1 {
            s.push_str(&format!(" c={}", self.consumers));
        }
        if let Some(b) = self.batch {
            s.push_str(&format!(" batch={b}"));
        }
        for (k, v) in &self.options {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }

    /// Threads the workload runs (not counting threads a callback transport starts itself).
    pub fn threads(&self) -> usize {
        match self.workload {
            WorkloadKind::PingPong => 2,
            _ => self.producers + self.consumers,
        }
    }
}
