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

    /// Whether the workload verifies that every message arrives exactly once (all of today's
    /// workloads do). A latest-value (conflating) transport cannot run such a workload.
    pub fn counts_every_message(self) -> bool {
        match self {
            WorkloadKind::Spsc
            | WorkloadKind::Mpsc
            | WorkloadKind::Mpmc
            | WorkloadKind::PingPong => true,
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

/// What runs the producers and consumers of a trial: OS threads, or tasks on a tokio runtime.
///
/// Written `threads`, `tokio-current` or `tokio-multi:N` (N worker threads; plain `tokio-multi`
/// takes as many workers as the process may use cores, resolved when the name is parsed so the
/// effective count is echoed with the result).
///
/// * `threads`: one OS thread per producer and consumer, pinned, released by the start line.
///   Async transports run there too: each thread drives its whole loop with one lightweight
///   `block_on` (once per thread, never per message).
/// * `tokio-current`: every producer and consumer is a task on one current-thread runtime, so
///   they take turns on a single OS thread. No hand-off between cores happens; results are
///   labelled *same-thread-cooperative* and never ranked as cross-thread hand-offs.
/// * `tokio-multi:N`: the tasks run on a multi-thread runtime of N worker threads, pinned to
///   distinct cores where there are enough. Where a woken task runs is the scheduler's choice: a
///   task woken by another often runs next on the same worker (tokio's LIFO slot), so such a
///   result mixes cross-core and same-core hand-offs, as an actor runtime does.
///
/// The tokio drivers run async transports only (those registered with
/// [`Entry::asynchronous`](crate::catalog::Entry::asynchronous)); a blocking transport under
/// them is reported `unsupported`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Driver {
    /// One OS thread per producer and consumer.
    #[default]
    Threads,
    /// Tasks on one tokio current-thread runtime (a single OS thread).
    TokioCurrent,
    /// Tasks on a tokio multi-thread runtime.
    TokioMulti {
        /// Worker threads (at least 1).
        workers: usize,
    },
}

impl Driver {
    /// The driver names, for listings and suggestions.
    pub const NAMES: [&'static str; 3] = ["threads", "tokio-current", "tokio-multi"];

    /// Whether tasks run on an async runtime (either tokio flavour).
    pub fn is_async(self) -> bool {
        !matches!(self, Driver::Threads)
    }

    /// Whether this is the default driver (`threads`); serde uses it to keep old reports as they
    /// were.
    pub fn is_threads(&self) -> bool {
        matches!(self, Driver::Threads)
    }

    /// OS threads the driver runs the workload's tasks on, for `tasks` producers and consumers.
    pub fn os_threads(self, tasks: usize) -> usize {
        match self {
            Driver::Threads => tasks,
            Driver::TokioCurrent => 1,
            Driver::TokioMulti { workers } => workers,
        }
    }

    /// One line describing the driver.
    pub fn description(self) -> &'static str {
        match self {
            Driver::Threads => "one OS thread per producer and consumer (async transports: one block_on per thread)",
            Driver::TokioCurrent => "tasks on one tokio current-thread runtime: producer and consumer take turns on one thread",
            Driver::TokioMulti { .. } => "tasks on a tokio multi-thread runtime of N worker threads (tokio-multi:N)",
        }
    }
}

impl fmt::Display for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Driver::Threads => f.write_str("threads"),
            Driver::TokioCurrent => f.write_str("tokio-current"),
            Driver::TokioMulti { workers } => write!(f, "tokio-multi:{workers}"),
        }
    }
}

impl FromStr for Driver {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, count) = match s.split_once(':') {
            Some((n, c)) => (n, Some(c)),
            None => (s, None),
        };
        match (name, count) {
            ("threads", None) => Ok(Driver::Threads),
            ("tokio-current", None) => Ok(Driver::TokioCurrent),
            ("tokio-multi", None) => Ok(Driver::TokioMulti {
                workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            }),
            ("tokio-multi", Some(c)) => match c.trim().parse::<usize>() {
                Ok(0) => Err(format!(
                    "driver `{s}`: a tokio multi-thread runtime needs at least 1 worker"
                )),
                Ok(workers) => Ok(Driver::TokioMulti { workers }),
                Err(_) => Err(format!(
                    "driver `{s}`: expected a worker count after `tokio-multi:`, e.g. `tokio-multi:2`"
                )),
            },
            ("threads" | "tokio-current", Some(_)) => Err(format!(
                "driver `{s}`: only `tokio-multi` takes a worker count (`tokio-multi:N`)"
            )),
            _ => Err(format!(
                "{} (drivers: threads, tokio-current, tokio-multi[:N])",
                crate::suggest::unknown("driver", s, Driver::NAMES)
            )),
        }
    }
}

impl Serialize for Driver {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Driver {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Every parameter of one trial: one workload over one transport.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrialSpec {
    /// Transport name.
    pub transport: String,
    /// Workload shape.
    pub workload: WorkloadKind,
    /// What runs the producers and consumers (absent in older specs: `threads`).
    #[serde(default, skip_serializing_if = "Driver::is_threads")]
    pub driver: Driver,
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
        if self.driver.is_async() {
            s.push_str(&format!(" driver={}", self.driver));
        }
        s
    }

    /// Threads the workload runs (not counting threads a callback transport starts itself).
    pub fn threads(&self) -> usize {
        let tasks = match self.workload {
            WorkloadKind::PingPong => 2,
            _ => self.producers + self.consumers,
        };
        self.driver.os_threads(tasks)
    }
}
