//! Workloads: what is asked of a transport, and the fully resolved parameters of one trial.

use crate::payload::PayloadKind;
use crate::suggest::{LookupError, Thing};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The most threads of one kind a trial may ask for (producers, consumers, or a runtime's
/// workers).
pub const MAX_THREADS: u64 = 1024;

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
    /// K producers -> 1 consumer, open loop: each producer sends on a schedule at a requested
    /// rate and the consumer records every message's one-way latency from its *intended* send
    /// time (corrected for coordinated omission) and from its actual send.
    Paced,
    /// `paced`, stepping the rate up until the transport no longer keeps up: the highest rate
    /// sustained and the whole rate -> latency series.
    Ramp,
    /// Injector -> hop -> stage -> hop -> ... -> sink, each hop a transport of its own, paced;
    /// end-to-end latency per event and each hop's queue depth.
    Pipeline,
}

impl WorkloadKind {
    /// Every workload, in listing order.
    pub const ALL: [WorkloadKind; 7] = [
        WorkloadKind::Spsc,
        WorkloadKind::Mpsc,
        WorkloadKind::Mpmc,
        WorkloadKind::PingPong,
        WorkloadKind::Paced,
        WorkloadKind::Ramp,
        WorkloadKind::Pipeline,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Spsc => "spsc",
            WorkloadKind::Mpsc => "mpsc",
            WorkloadKind::Mpmc => "mpmc",
            WorkloadKind::PingPong => "ping-pong",
            WorkloadKind::Paced => "paced",
            WorkloadKind::Ramp => "ramp",
            WorkloadKind::Pipeline => "pipeline",
        }
    }

    /// One line describing the workload.
    pub fn description(self) -> &'static str {
        match self {
            WorkloadKind::Spsc => "1 producer -> 1 consumer stream, closed loop (as fast as possible)",
            WorkloadKind::Mpsc => "K producers -> 1 consumer stream (K swept, default 1,2,4,8)",
            WorkloadKind::Mpmc => "K producers -> M consumers stream, for transports with many consumers",
            WorkloadKind::PingPong => "round trip over two channels of one transport; each reply checked; latency histogram",
            WorkloadKind::Paced => "K producers -> 1 consumer at a requested rate (open loop); one-way latency from the intended send time",
            WorkloadKind::Ramp => "paced, rate stepped up until it is no longer sustained; highest sustained rate and the rate -> latency series",
            WorkloadKind::Pipeline => "injector(s) -> hop -> stage -> ... -> sink at a requested rate (or ramped); end-to-end latency, depth per hop; K injectors fan in",
        }
    }

    /// Whether the workload verifies that every message arrives exactly once (all of today's
    /// workloads do). A latest-value (conflating) transport cannot run such a workload.
    pub fn counts_every_message(self) -> bool {
        match self {
            WorkloadKind::Spsc
            | WorkloadKind::Mpsc
            | WorkloadKind::Mpmc
            | WorkloadKind::PingPong
            | WorkloadKind::Paced
            | WorkloadKind::Ramp => true,
            // A pipeline counts every event in `sequential` delivery only; its hops are checked
            // against the delivery mode one by one.
            WorkloadKind::Pipeline => false,
        }
    }

    /// Whether messages are sent on a schedule (open loop) and carry send timestamps.
    pub fn is_open_loop(self) -> bool {
        matches!(
            self,
            WorkloadKind::Paced | WorkloadKind::Ramp | WorkloadKind::Pipeline
        )
    }
}

impl fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WorkloadKind {
    type Err = LookupError;
    fn from_str(s: &str) -> Result<Self, LookupError> {
        WorkloadKind::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| {
                LookupError::listing(
                    Thing::Workload,
                    s,
                    WorkloadKind::ALL.iter().map(|w| w.name()),
                )
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
    /// A soak: an open-loop sample that lasts `duration_ms` at its rate (rate × duration
    /// messages), measured window by window (see [`crate::open_loop::SoakWindow`]).
    Soak {
        /// How long one timed sample lasts, milliseconds.
        duration_ms: u64,
        /// The length of one window, milliseconds.
        window_ms: u64,
    },
}

impl Messages {
    /// The window length of a soak, milliseconds; `None` for a count.
    pub fn soak_window_ms(&self) -> Option<u64> {
        match self {
            Messages::Soak { window_ms, .. } => Some(*window_ms),
            _ => None,
        }
    }

    /// The messages a soak sends at `rate` per second over `ms` milliseconds (at least one).
    pub fn over(rate: u64, ms: u64) -> u64 {
        (u128::from(rate) * u128::from(ms) / 1000).clamp(1, u128::from(u64::MAX)) as u64
    }
}

impl fmt::Display for Messages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Messages::Fixed(n) => write!(f, "{n}"),
            Messages::Auto { target_ms, .. } => write!(f, "auto({target_ms} ms)"),
            Messages::Soak {
                duration_ms,
                window_ms,
            } => write!(
                f,
                "soak {} in {} windows",
                crate::fmt::span_ms(*duration_ms),
                crate::fmt::span_ms(*window_ms)
            ),
        }
    }
}

/// What runs the producers and consumers of a trial: OS threads, tasks on a tokio runtime, or
/// tasks on a driver registered with the catalog (the `may` green threads, a user's own runtime).
///
/// Written `threads`, `tokio-current`, `tokio-multi:N` (N worker threads; plain `tokio-multi`
/// takes as many workers as the process may use cores, resolved when the name is parsed so the
/// effective count is echoed with the result), or the name of a registered driver, with `:N`
/// where it takes a worker count (`may:2`).
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
///   result mixes cross-core and same-core hand-offs, as an actor runtime does. The share that
///   stayed on one worker is measured; a result where it is most is labelled *same-worker* and
///   listed apart from cross-thread ones.
/// * a registered driver ([`Driver::Registered`]): its tasks run however that driver runs them;
///   the same-worker share is measured as under tokio.
///
/// The drivers other than `threads` run async transports only (those registered with
/// `handoff::catalog::Entry::asynchronous`); a blocking transport under them is reported
/// `unsupported`.
///
/// A registered driver's name parses whatever it is, as long as it is well formed (lowercase
/// letters, digits and `-`): whether a driver of that name exists is known only to the catalog,
/// which the plan checks it against (an unknown name is refused there, with the closest names).
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
    /// Tasks on a driver registered with the catalog by this name.
    Registered {
        /// The driver's name.
        name: DriverName,
        /// The worker count written after the name (`may:2`), if any.
        workers: Option<usize>,
    },
}

/// The name of a registered driver: interned, so that a [`Driver`] stays a small `Copy` value.
/// Each distinct name is stored once per process, however often it is parsed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DriverName(&'static str);

impl DriverName {
    /// The name, interned.
    pub fn new(name: &str) -> DriverName {
        use std::collections::BTreeSet;
        use std::sync::{Mutex, OnceLock};
        static NAMES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
        let mut names = NAMES
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(n) = names.get(name) {
            return DriverName(n);
        }
        let n: &'static str = Box::leak(name.to_string().into_boxed_str());
        names.insert(n);
        DriverName(n)
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Debug for DriverName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for DriverName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Driver {
    /// The built-in driver names, for listings and suggestions.
    pub const NAMES: [&'static str; 3] = ["threads", "tokio-current", "tokio-multi"];

    /// The most worker threads `tokio-multi:N` (or a registered driver's `:N`) takes (the bound
    /// of every thread count, see [`MAX_THREADS`]).
    pub const MAX_WORKERS: usize = MAX_THREADS as usize;

    /// Whether tasks run on an async runtime (anything but `threads`).
    pub fn is_async(self) -> bool {
        !matches!(self, Driver::Threads)
    }

    /// Whether this is the default driver (`threads`); serde uses it to keep old reports as they
    /// were.
    pub fn is_threads(&self) -> bool {
        matches!(self, Driver::Threads)
    }

    /// The driver's name without its worker count (`tokio-multi`, `may`).
    pub fn name(self) -> &'static str {
        match self {
            Driver::Threads => "threads",
            Driver::TokioCurrent => "tokio-current",
            Driver::TokioMulti { .. } => "tokio-multi",
            Driver::Registered { name, .. } => name.as_str(),
        }
    }

    /// The worker count the driver was given, where it takes one.
    pub fn workers(self) -> Option<usize> {
        match self {
            Driver::TokioMulti { workers } => Some(workers),
            Driver::Registered { workers, .. } => workers,
            _ => None,
        }
    }

    /// OS threads the driver runs the workload's tasks on, for `tasks` producers and consumers
    /// (a registered driver: its worker count, or one thread when it was given none).
    pub fn os_threads(self, tasks: usize) -> usize {
        match self {
            Driver::Threads => tasks,
            Driver::TokioCurrent => 1,
            Driver::TokioMulti { workers } => workers,
            Driver::Registered { workers, .. } => workers.unwrap_or(1),
        }
    }

    /// One line describing a built-in driver (a registered driver describes itself to the
    /// catalog).
    pub fn description(self) -> &'static str {
        match self {
            Driver::Threads => "one OS thread per producer and consumer (async transports: one block_on per thread)",
            Driver::TokioCurrent => "tasks on one tokio current-thread runtime: producer and consumer take turns on one thread",
            Driver::TokioMulti { .. } => "tasks on a tokio multi-thread runtime of N worker threads (tokio-multi:N)",
            Driver::Registered { .. } => "tasks on a driver registered with the catalog",
        }
    }
}

impl fmt::Display for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Driver::Threads => f.write_str("threads"),
            Driver::TokioCurrent => f.write_str("tokio-current"),
            Driver::TokioMulti { workers } => write!(f, "tokio-multi:{workers}"),
            Driver::Registered {
                name,
                workers: None,
            } => write!(f, "{name}"),
            Driver::Registered {
                name,
                workers: Some(n),
            } => write!(f, "{name}:{n}"),
        }
    }
}

/// Why a driver's name does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DriverError {
    /// No driver of that name, or a name no driver could have.
    #[error(transparent)]
    Unknown(#[from] LookupError),
    /// `tokio-multi:0`.
    #[error("driver `{0}`: a driver's worker count is at least 1")]
    NoWorkers(String),
    /// More workers than [`Driver::MAX_WORKERS`].
    #[error("driver `{driver}`: at most {max} worker threads")]
    TooManyWorkers {
        /// The driver as written.
        driver: String,
        /// The most workers taken.
        max: usize,
    },
    /// A worker count that is not a number.
    #[error("driver `{0}`: expected a worker count after `:`, e.g. `tokio-multi:2`")]
    BadWorkerCount(String),
    /// A worker count given to a driver that takes none.
    #[error("driver `{0}`: only `tokio-multi` and registered drivers take a worker count (`tokio-multi:N`)")]
    TakesNoCount(String),
}

/// Whether `name` could name a registered driver: lowercase ASCII letters, digits and `-`,
/// starting with a letter, at most 40 characters.
fn well_formed(name: &str) -> bool {
    name.len() <= 40
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl FromStr for Driver {
    type Err = DriverError;
    fn from_str(s: &str) -> Result<Self, DriverError> {
        let (name, count) = match s.split_once(':') {
            Some((n, c)) => (n, Some(c)),
            None => (s, None),
        };
        let too_many = || DriverError::TooManyWorkers {
            driver: s.to_string(),
            max: Driver::MAX_WORKERS,
        };
        let workers = |c: &str| match c.trim().parse::<usize>() {
            Ok(0) => Err(DriverError::NoWorkers(s.to_string())),
            Ok(workers) if workers > Driver::MAX_WORKERS => Err(too_many()),
            Ok(workers) => Ok(workers),
            Err(_) if c.trim().bytes().all(|b| b.is_ascii_digit()) && !c.trim().is_empty() => {
                Err(too_many())
            }
            Err(_) => Err(DriverError::BadWorkerCount(s.to_string())),
        };
        match (name, count) {
            ("threads", None) => Ok(Driver::Threads),
            ("tokio-current", None) => Ok(Driver::TokioCurrent),
            ("tokio-multi", None) => Ok(Driver::TokioMulti {
                workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            }),
            ("tokio-multi", Some(c)) => Ok(Driver::TokioMulti {
                workers: workers(c)?,
            }),
            ("threads" | "tokio-current", Some(_)) => Err(DriverError::TakesNoCount(s.to_string())),
            (n, c) if well_formed(n) => Ok(Driver::Registered {
                name: DriverName::new(n),
                workers: c.map(workers).transpose()?,
            }),
            _ => Err(DriverError::Unknown(
                LookupError::new(Thing::Driver, s, Driver::NAMES)
                    .note("drivers: threads, tokio-current, tokio-multi[:N], or a registered driver's name (`handoff list`)"),
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
    /// The watchdog interval, milliseconds: a sample during which no message is delivered for
    /// this long is declared hung (see [`TrialSpec::watchdog`]). A slow sample that keeps
    /// delivering is not.
    pub timeout_ms: u64,
    /// Pin threads to distinct cores where the machine has enough.
    pub pin: bool,
    /// Every sample (calibration, warm-up and timed) runs in a worker process of its own, so no
    /// sample inherits another's heap, caches, allocator state or a plugin's global state.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh_process: bool,
    /// Where the two sides run: threads of one process (the default), or the producers in one
    /// worker process and the consumers in another (`processes`).
    #[serde(default, skip_serializing_if = "Boundary::is_threads")]
    pub placement: Boundary,
    /// Open-loop pacing: closed loop for the streaming workloads, a fixed rate or a ramp for
    /// `paced`, `ramp` and `pipeline`.
    #[serde(default)]
    pub pacing: Pacing,
    /// How a paced producer waits for its next send time.
    #[serde(default)]
    pub pacer: PacerMode,
    /// The hops of a `pipeline`.
    #[serde(default)]
    pub pipeline: Option<PipelineSpec>,
    /// The placement of the sample being run (set per sample, never part of the trial's
    /// definition: see [`crate::layout`]).
    #[serde(skip)]
    pub layout: Option<crate::layout::SampleLayout>,
}

/// How messages are offered to the transport.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pacing {
    /// As fast as the transport takes them (closed loop).
    #[default]
    Closed,
    /// Open loop at this many messages per second in total (over every producer).
    Rate(u64),
    /// Open loop, rate stepped up to find the highest one sustained.
    Ramp(RampSpec),
}

impl Pacing {
    /// The fixed rate, if any.
    pub fn rate(&self) -> Option<u64> {
        match self {
            Pacing::Rate(r) => Some(*r),
            _ => None,
        }
    }
}

/// The rate search of a ramp (see `handoff::open_loop::ramp`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RampSpec {
    /// First rate tried, messages per second.
    pub start: u64,
    /// Highest rate tried.
    pub max: u64,
    /// Each coarse step multiplies the rate by this.
    pub factor: u64,
    /// Bisection steps between the last rate sustained and the first one not sustained.
    pub refine: u32,
    /// A step is sustained only if its p99 latency (from the intended send) is at most this.
    pub p99_bound_ns: Option<u64>,
    /// How long one step runs, milliseconds (its message count is rate × this).
    pub step_ms: u64,
}

impl Default for RampSpec {
    fn default() -> Self {
        RampSpec {
            start: 1_000,
            max: 1_000_000_000,
            factor: 2,
            refine: 3,
            p99_bound_ns: None,
            step_ms: 200,
        }
    }
}

/// How a paced producer waits until a message is due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PacerMode {
    /// `spin` when every thread of the trial has a core of its own, `yield` otherwise.
    #[default]
    Auto,
    /// Spin on the calibrated clock.
    Spin,
    /// Spin on the calibrated clock, yielding the core between reads.
    Yield,
}

impl PacerMode {
    /// The name used in suites and reports.
    pub fn name(self) -> &'static str {
        match self {
            PacerMode::Auto => "auto",
            PacerMode::Spin => "spin",
            PacerMode::Yield => "yield",
        }
    }
}

impl fmt::Display for PacerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PacerMode {
    type Err = LookupError;
    fn from_str(s: &str) -> Result<Self, LookupError> {
        let all = [PacerMode::Auto, PacerMode::Spin, PacerMode::Yield];
        all.into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| LookupError::listing(Thing::Pacer, s, all.iter().map(|m| m.name())))
    }
}

/// What reaches the sink of a pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Delivery {
    /// Every event, in order.
    #[default]
    Sequential,
    /// A conflating hop keeps only the newest value: delivered sequence numbers only increase,
    /// and the final event is always delivered.
    Latest,
}

impl Delivery {
    /// The name used in suites and reports.
    pub fn name(self) -> &'static str {
        match self {
            Delivery::Sequential => "sequential",
            Delivery::Latest => "latest",
        }
    }
}

impl fmt::Display for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Delivery {
    type Err = LookupError;
    fn from_str(s: &str) -> Result<Self, LookupError> {
        let all = [Delivery::Sequential, Delivery::Latest];
        all.into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| LookupError::listing(Thing::Delivery, s, all.iter().map(|m| m.name())))
    }
}

/// One hop of a pipeline: a transport and its capacity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hop {
    /// Transport name.
    pub transport: String,
    /// Capacity in messages.
    pub capacity: usize,
}

/// How the last stage of a pipeline (the reactor) takes what its hop delivers.
///
/// Either way the reactor receives, and the verifier checks, every event the last hop delivers;
/// the strategy decides which of them *fire* (run the reactor's work and are timed) and how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reactor {
    /// Every event fires, in order.
    #[default]
    Sequential,
    /// The reactor drains what has arrived while it was busy, keeps the newest and fires once:
    /// fired sequence numbers only increase, and the final event always fires.
    Latest,
    /// The reactor accumulates what has arrived while it was busy and fires once on the whole
    /// batch (one run of its work per batch): every event is timed, at the end of the run that
    /// took it.
    Batch,
}

impl Reactor {
    /// The name used in suites and reports.
    pub fn name(self) -> &'static str {
        match self {
            Reactor::Sequential => "sequential",
            Reactor::Latest => "latest",
            Reactor::Batch => "batch",
        }
    }

    /// Whether this is the default strategy (left out of labels and serialized specs).
    pub fn is_default(&self) -> bool {
        *self == Reactor::Sequential
    }
}

impl fmt::Display for Reactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Reactor {
    type Err = LookupError;
    fn from_str(s: &str) -> Result<Self, LookupError> {
        let all = [Reactor::Sequential, Reactor::Latest, Reactor::Batch];
        all.into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| LookupError::listing(Thing::Reactor, s, all.iter().map(|m| m.name())))
    }
}

/// The boundary a trial's hand-off crosses: between threads of one process, or between two
/// processes (the producers in one worker process, the consumers in another).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Boundary {
    /// Producers and consumers are threads of one process.
    #[default]
    Threads,
    /// Producers run in one process, consumers in another.
    Processes,
}

impl Boundary {
    /// The name used in suites and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Boundary::Threads => "threads",
            Boundary::Processes => "processes",
        }
    }

    /// Whether this is the default, threads of one process (left out of serialized specs).
    pub fn is_threads(&self) -> bool {
        *self == Boundary::Threads
    }
}

impl fmt::Display for Boundary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Boundary {
    type Err = LookupError;
    fn from_str(s: &str) -> Result<Self, LookupError> {
        let all = [Boundary::Threads, Boundary::Processes];
        all.into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| LookupError::listing(Thing::Placement, s, all.iter().map(|m| m.name())))
    }
}

/// A second source feeding a hop in the middle of a pipeline: an event source beside the
/// stage that writes that hop, paced at its own rate (a merge point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeSource {
    /// The hop it feeds, counted from 1 (at least 2: the injectors feed hop 1).
    pub hop: usize,
    /// Its rate, events per second.
    pub rate: u64,
}

impl MergeSource {
    /// How many events it sends while the injectors send `injected` at `rate` in all: as many
    /// as its own rate gives over the same schedule, at least one.
    pub fn events(&self, injected: u64, rate: u64) -> u64 {
        ((injected as u128 * self.rate as u128) / rate.max(1) as u128).max(1) as u64
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The shape of a pipeline: injector -> hops\[0\] -> stage -> hops\[1\] -> ... -> sink.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineSpec {
    /// The hops, in order.
    pub hops: Vec<Hop>,
    /// Busy work each stage does per event, nanoseconds (spun on the clock).
    pub stage_work_ns: u64,
    /// What reaches the sink.
    pub delivery: Delivery,
    /// How the sink (the reactor) takes what reaches it.
    #[serde(default, skip_serializing_if = "Reactor::is_default")]
    pub reactor: Reactor,
    /// Busy work the reactor does per fire, nanoseconds (spun on the clock; the graph
    /// function of an event pipeline).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reactor_work_ns: u64,
    /// A second source feeding a middle hop, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeSource>,
}

impl PipelineSpec {
    /// A pipeline over `hops` with no stage work, sequential delivery and reactor, and no merge.
    pub fn over(hops: Vec<Hop>) -> PipelineSpec {
        PipelineSpec {
            hops,
            stage_work_ns: 0,
            delivery: Delivery::Sequential,
            reactor: Reactor::Sequential,
            reactor_work_ns: 0,
            merge: None,
        }
    }
}

impl TrialSpec {
    /// A short label identifying the trial in progress output and errors,
    /// e.g. `crossbeam-bounded spsc u64 cap=1024 p=1`.
    pub fn label(&self) -> String {
        let mut s = match &self.pipeline {
            Some(p) => {
                let names: Vec<&str> = p.hops.iter().map(|h| h.transport.as_str()).collect();
                let caps: Vec<String> = p.hops.iter().map(|h| h.capacity.to_string()).collect();
                let mut s = if names.iter().all(|n| *n == names[0]) {
                    format!("{}×{}", names[0], names.len())
                } else {
                    names.join(">")
                };
                s.push_str(&format!(
                    " {} {} cap={} {}",
                    self.workload,
                    self.payload,
                    caps.join("/"),
                    p.delivery.name()
                ));
                if p.stage_work_ns > 0 {
                    s.push_str(&format!(" work={}ns", p.stage_work_ns));
                }
                if !p.reactor.is_default() || p.reactor_work_ns > 0 {
                    s.push_str(&format!(" reactor={}", p.reactor));
                    if p.reactor_work_ns > 0 {
                        s.push_str(&format!("+{}ns", p.reactor_work_ns));
                    }
                }
                if let Some(m) = p.merge {
                    s.push_str(&format!(" merge=hop{}@{}/s", m.hop, m.rate));
                }
                s
            }
            None => format!(
                "{} {} {} cap={}",
                self.transport, self.workload, self.payload, self.capacity
            ),
        };
        match &self.pacing {
            Pacing::Closed => {}
            Pacing::Rate(r) => s.push_str(&format!(" rate={r}/s")),
            Pacing::Ramp(_) => s.push_str(" ramp"),
        }
        let single = matches!(self.workload, WorkloadKind::Spsc | WorkloadKind::PingPong)
            || (self.workload == WorkloadKind::Pipeline && self.producers == 1);
        if !single {
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

    /// The watchdog interval of a sample: a sample during which no message is delivered for this
    /// long is hung (see `handoff::engine::crew`); a slow one that keeps delivering runs to its
    /// end. It is `timeout_ms`, plus, for an open-loop trial, the gap between two scheduled
    /// messages at `rate` (or the trial's own rate), so that a slow schedule is never taken for
    /// a stall.
    pub fn watchdog(&self, rate: Option<u64>) -> Duration {
        let gap_ms = match rate.or(self.pacing.rate()) {
            Some(r) if self.workload.is_open_loop() => 1000u64.div_ceil(r.max(1)),
            _ => 0,
        };
        Duration::from_millis(self.timeout_ms.saturating_add(gap_ms))
    }

    /// Threads the workload runs (not counting threads a callback transport starts itself).
    pub fn threads(&self) -> usize {
        let tasks = match (self.workload, &self.pipeline) {
            (WorkloadKind::PingPong, _) => 2,
            // Injectors, one stage between each pair of hops, and the sinks (several in a
            // fan-out).
            (WorkloadKind::Pipeline, Some(p)) => {
                self.producers + p.hops.len().saturating_sub(1) + self.consumers
            }
            _ => self.producers + self.consumers,
        };
        self.driver.os_threads(tasks)
    }
}
