//! The result model: one structure that every output format renders. No output recomputes a
//! statistic; everything shown is here.

use crate::environment::Environment;
use crate::limits::Limits;
use crate::lint::Lint;
use crate::payload::PayloadKind;
use crate::placement::Placement;
use crate::semantics::{Locality, Semantics};
use crate::stats::Summary;
use crate::workload::WorkloadKind;
use serde::{Deserialize, Serialize};

pub use crate::code::{CodeIdentity, CodeMatch};
use std::collections::BTreeMap;
use std::fmt;

/// Version of the JSON schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// Wall-clock duration of the run, seconds.
    pub duration_s: f64,
    /// The suite that was run (file path or `default`).
    pub suite: String,
    /// Machine and build fingerprint.
    pub environment: Environment,
    /// The limits probed before the trials.
    pub limits: Option<Limits>,
    /// The limits probed again after each group of trials, in order (see
    /// [`LimitDistance::reprobe`]); empty when probed once, and in older reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reprobes: Vec<Limits>,
    /// How samples were placed: `fixed`, or `random` with the run's seed (`--layout-seed`
    /// reproduces it). Absent in reports written before layouts were randomised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<crate::layout::LayoutMode>,
    /// One result per trial, in suite order.
    pub results: Vec<TrialResult>,
    /// Whether every transport delivered the same stream as the others of its stream, in a run
    /// that asked for consensus (see [`crate::consensus`]); `None` otherwise, and in reports
    /// written before consensus existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consensus: Option<crate::consensus::Consensus>,
    /// Results whose two regimes followed the same rounds: the machine changed regime during the
    /// run, not each transport (see [`crate::stats::shared_regimes`]). Absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_regimes: Option<SharedRegimes>,
    /// The suite's gates (and `--max-regression` against `--baseline`), checked when the run
    /// ended; empty when none was declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<crate::gate::GateOutcome>,
    /// In a paired run (`handoff run --against`), the other build and its results; absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairedBuild>,
}

/// The other build of a paired run (`handoff run --against OTHER`): every trial ran on both
/// builds' workers, their timed samples alternating within each round (this build first in odd
/// rounds, the other first in even ones) under the same layout seeds, so sample `k` of a result
/// here and sample `k` of the other build's result form a pair that the machine's drift hit
/// alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedBuild {
    /// What was named: an executable, or a git revision built for the run.
    pub label: String,
    /// The commit it was built from, when it is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Its results, one per result of this run, in the same order.
    pub results: Vec<TrialResult>,
    /// In how many function orders each side was linked (`--link-orders`): timed sample `k`
    /// of both sides ran on order `k mod link_orders`. 0 when each side was one build.
    #[serde(default, skip_serializing_if = "is_no_orders")]
    pub link_orders: usize,
}

fn is_no_orders(n: &usize) -> bool {
    *n == 0
}

/// Results whose regimes followed the same rounds (found by
/// [`crate::stats::shared_regimes::detect`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SharedRegimes {
    /// Indices (into the run's results) of the results that moved together, in run order.
    pub results: Vec<usize>,
    /// Their labels (transport and workload), for display.
    pub labels: Vec<String>,
    /// Rounds compared (the fewest samples among them).
    pub rounds: usize,
    /// The rounds (0-based) in which the first of them was in its slow regime.
    pub slow_rounds: Vec<usize>,
    /// The lowest agreement between any two of them: the share of rounds in which both were in
    /// the same regime.
    pub agreement: f64,
}

/// How a trial ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every sample verified.
    Pass,
    /// A sample had a verification violation.
    Fail,
    /// A sample delivered nothing for a whole watchdog interval.
    Hung,
    /// A thread panicked or the process died.
    Crashed,
    /// The transport cannot run this workload.
    Unsupported,
    /// The parameters are invalid for this transport.
    Invalid,
}

impl Verdict {
    /// Whether this verdict makes the run fail (fail, hung, crashed).
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::Hung | Verdict::Crashed)
    }

    /// Whether the trial ran at all: an `unsupported` or `invalid` trial was refused before its
    /// first sample, so it has no sample counts, figures or lints.
    pub fn ran(self) -> bool {
        !matches!(self, Verdict::Unsupported | Verdict::Invalid)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::Hung => "HUNG",
            Verdict::Crashed => "CRASHED",
            Verdict::Unsupported => "unsupported",
            Verdict::Invalid => "invalid",
        })
    }
}

/// Every effective parameter of a trial, echoed with its result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Capacity in messages; `None` for an unbounded transport (the requested capacity is ignored).
    pub capacity: Option<usize>,
    /// Messages (round trips for ping-pong) per timed sample, as run.
    pub messages: u64,
    /// Messages as requested (`auto(40 ms)` or a number).
    pub messages_requested: String,
    /// The duration a sample was calibrated for, ms, when the count was `auto` in a closed
    /// loop (absent otherwise, and in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ms: Option<u64>,
    /// Producer threads.
    pub producers: usize,
    /// Consumer threads.
    pub consumers: usize,
    /// What ran the producers and consumers (`threads`, `tokio-current`, `tokio-multi:N`);
    /// reports written before drivers existed read as `threads`.
    #[serde(default)]
    pub driver: crate::workload::Driver,
    /// Payload shape.
    pub payload: PayloadKind,
    /// Bytes per message moved through the transport.
    pub payload_bytes: usize,
    /// Batch size, if batched.
    pub batch: Option<usize>,
    /// Transport options.
    pub options: BTreeMap<String, String>,
    /// The transport's options this trial did not give, at the default it ran with: with
    /// `options`, every setting of the transport (absent when it has no other option, and in
    /// reports written before defaults were echoed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, String>,
    /// Timed samples requested.
    pub samples: usize,
    /// Warm-up samples.
    pub warmup: usize,
    /// The watchdog interval, ms: a sample that delivered nothing for this long was hung.
    pub timeout_ms: u64,
    /// Pacing (closed loop, a rate, or a ramp).
    #[serde(default)]
    pub pacing: crate::workload::Pacing,
    /// The pipeline's hops, delivery and stage work.
    #[serde(default)]
    pub pipeline: Option<crate::workload::PipelineSpec>,
    /// Every sample ran in a worker process of its own (`fresh_process`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh_process: bool,
}

/// Latency percentiles in nanoseconds, from a full histogram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// What is measured (`round-trip`).
    pub kind: String,
    /// Observations.
    pub count: u64,
    /// Minimum.
    pub min: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 95th percentile; absent in reports written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95: Option<u64>,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// 99.99th percentile.
    #[serde(default)]
    pub p9999: u64,
    /// Maximum.
    pub max: u64,
    /// Mean.
    pub mean: f64,
    /// The merged histogram of every timed sample (HdrHistogram V2 + deflate, base64).
    pub histogram: String,
}

/// A result's distance to the machine's limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitDistance {
    /// Which probe: `stream-bandwidth`, `cacheline-rtt-stamped` (the round trip stamped per trip
    /// by the timer the ping-pong workload uses) or, in older reports, `cacheline-rtt` (the
    /// bulk-timed round trip).
    pub probe: String,
    /// The limit in the result's own unit (messages/s for streams, ns for round trips).
    pub limit: f64,
    /// The result divided by the limit: the fraction of the limit reached (streams) or how many
    /// cache-line round trips one round trip costs (ping-pong).
    pub ratio: f64,
    /// Which probe of the run the result is judged against, the one nearest in time to its
    /// timed samples: `None` the probe before the trials ([`RunReport::limits`]), `Some(i)` the
    /// re-probe `RunReport::reprobes[i]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reprobe: Option<usize>,
}

/// One sample's raw figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RawSample {
    /// Messages delivered.
    pub messages: u64,
    /// Elapsed nanoseconds.
    pub elapsed_ns: u64,
    /// Messages per second.
    pub msgs_per_s: f64,
    /// Nanoseconds per message.
    pub ns_per_msg: f64,
    /// Failed send attempts.
    pub failed_sends: u64,
    /// Failed receive attempts.
    pub failed_recvs: u64,
    /// The placement the sample ran under, when layouts were randomised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<crate::layout::LayoutRecord>,
    /// This sample's median latency, ns, from its own histogram (ping-pong round trips, an
    /// open-loop run's latency from the intended send time); absent where no latency is
    /// measured and in older reports. Comparisons test latency on these per-sample figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ns: Option<u64>,
    /// This sample's 99th-percentile latency, ns, as `p50_ns`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ns: Option<u64>,
    /// The worker's memory during and after this sample (see [`crate::memory`]); absent in
    /// process, where the system does not show it, and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<crate::memory::SampleMemory>,
    /// Nanoseconds from the start until every producer's last send returned (streams on
    /// threads, callback streams, async streams); absent elsewhere and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit_ns: Option<u64>,
    /// The CPU time this sample's producer and consumer threads spent (see [`crate::cpu`]);
    /// absent where it was not measured and in older reports. Comparisons test CPU cost per
    /// message on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::cpu::SampleCpu>,
    /// Messages an at-least-once transport delivered again in this sample (not in `messages`);
    /// absent when none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redelivered: u64,
    /// Messages an at-most-once transport never delivered in this sample; absent when none
    /// were lost.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
    /// A soak's windows, in order (see [`crate::open_loop::SoakWindow`]); absent for a sample
    /// measured as a whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<crate::open_loop::SoakWindow>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RunReport {
    /// The limits a result with distance `d` was judged against (see
    /// [`LimitDistance::reprobe`]).
    pub fn limits_of(&self, d: &LimitDistance) -> Option<&Limits> {
        match d.reprobe {
            None => self.limits.as_ref(),
            Some(i) => self.reprobes.get(i),
        }
    }

    /// Whether the machine changed state during the run: some probe differs from another by
    /// [`crate::limits::STATE_CHANGE`] or more.
    pub fn state_changed(&self) -> bool {
        let all: Vec<&Limits> = self.limits.iter().chain(&self.reprobes).collect();
        all.iter()
            .enumerate()
            .any(|(i, a)| all[i + 1..].iter().any(|b| a.other_state(b)))
    }
}

impl RawSample {
    /// Both sides' CPU time per message delivered, ns; `None` where CPU time was not recorded.
    pub fn cpu_per_msg(&self) -> Option<f64> {
        self.cpu.and_then(|c| c.ns_per_msg(self.messages))
    }

    /// Messages submitted per second: the messages over the time until every producer's last
    /// send returned; `None` where that was not recorded.
    pub fn submit_per_s(&self) -> Option<f64> {
        self.submit_ns
            .map(|ns| self.messages as f64 / (ns.max(1) as f64 / 1e9))
    }
}

/// The result of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialResult {
    /// Transport name.
    pub transport: String,
    /// Workload.
    pub workload: WorkloadKind,
    /// Effective parameters.
    pub params: Params,
    /// Declared semantics.
    pub semantics: Semantics,
    /// Placement of the last sample run.
    pub placement: Placement,
    /// Verdict.
    pub verdict: Verdict,
    /// The first violation or the reason for a non-pass verdict.
    pub violation: Option<String>,
    /// Messages (round trips) per second over the timed samples.
    pub throughput: Option<Summary>,
    /// Messages submitted per second over the timed samples (see [`RawSample::submit_per_s`]):
    /// with many producers, what each producer's sends achieved together, which a single
    /// consumer does not cap; absent where not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submit: Option<Summary>,
    /// Nanoseconds per message (round trip) over the timed samples.
    pub ns_per_msg: Option<Summary>,
    /// Latency percentiles, where measured.
    pub latency: Option<Latency>,
    /// Failed non-blocking send attempts over the timed samples (never counted as throughput).
    pub failed_sends: u64,
    /// Failed non-blocking receive attempts over the timed samples.
    pub failed_recvs: u64,
    /// Messages an at-least-once transport delivered again, over the timed samples (see
    /// [`crate::semantics::Delivery`]); absent when none were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redelivered: u64,
    /// Messages an at-most-once transport never delivered, over the timed samples; absent when
    /// none were lost.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lost: u64,
    /// Digest of the delivered stream (hex), equal for every transport that delivered the same
    /// messages.
    pub digest: Option<String>,
    /// Distance to the machine's limit.
    pub limit: Option<LimitDistance>,
    /// Methodology warnings.
    pub lints: Vec<Lint>,
    /// Raw figures of every timed sample, in the order run.
    pub samples: Vec<RawSample>,
    /// Open-loop figures (`paced`, `pipeline` at a rate; a ramp's highest sustained step).
    #[serde(default)]
    pub paced: Option<PacedResult>,
    /// The rate search of a ramp.
    #[serde(default)]
    pub ramp: Option<RampResult>,
    /// Two regimes in the timed samples of a closed-loop result, if they fell into two (see
    /// [`crate::stats::modes`]): messages per second for a stream, nanoseconds per round trip
    /// for ping-pong. The median then describes neither. Absent from older reports.
    #[serde(default)]
    pub modes: Option<crate::stats::modes::Modes>,
    /// The share of hand-offs whose receiver ran on the OS thread its sender last ran on, over
    /// the timed samples (async transports, every driver); absent where not recorded, and in
    /// reports written before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_worker: Option<f64>,
    /// How the worker's memory moved over the timed samples (see [`crate::memory`]): the
    /// highest peak and the growth from sample to sample; absent in process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<crate::memory::MemoryFigures>,
    /// The CPU cost of the timed samples (see [`crate::cpu`]): cores busy per side and CPU time
    /// per message, medians; absent where not measured (async drivers, systems without a
    /// per-thread CPU clock), and in reports written before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<crate::cpu::CpuFigures>,
    /// What the trial's workers printed, on either standard stream: the first and last lines
    /// (see [`crate::printed::Printed`]); absent when nothing was printed, and in process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<crate::printed::Printed>,
    /// Where the transport comes from (its language, its plugin); absent for a Rust transport
    /// compiled into handoff, and in reports written before it was recorded.
    #[serde(default, skip_serializing_if = "crate::origin::Origin::is_default")]
    pub origin: crate::origin::Origin,
    /// The identity of the machine code this transport's trials ran in the build that measured
    /// it (see [`crate::code`]); absent where the build did not digest it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<crate::code::CodeIdentity>,
}

/// Above this share of hand-offs that stayed on one worker thread, a result is a *same-worker*
/// one: more than half means the median hand-off crossed no core, so the figure a table ranks by
/// (the median throughput, the p50 round trip) describes tasks taking turns on one thread, not a
/// cross-thread hand-off.
pub const MOSTLY_SAME_WORKER: f64 = 0.5;

impl TrialResult {
    /// Whether most hand-offs stayed on one worker thread of a multi-thread runtime (more than
    /// [`MOSTLY_SAME_WORKER`]). A same-thread result (a same-thread transport, a current-thread
    /// runtime) is not one: it is labelled as what it is.
    pub fn stayed_on_one_worker(&self) -> bool {
        self.semantics.locality == Locality::CrossThread
            && self.same_worker.is_some_and(|s| s > MOSTLY_SAME_WORKER)
    }

    /// The share of the messages sent over the timed samples that an at-most-once transport
    /// never delivered, if it lost any.
    pub fn lost_share(&self) -> Option<f64> {
        let delivered: u64 = self.samples.iter().map(|s| s.messages).sum();
        (self.lost > 0).then(|| self.lost as f64 / (delivered + self.lost) as f64)
    }

    /// Whether a batch was asked of a transport without native batch operations: the harness
    /// then sent and received the messages one by one.
    pub fn batch_emulated(&self) -> bool {
        self.params.batch.is_some() && !self.semantics.batch
    }
}

/// Open-loop figures over the timed samples. The trial's `latency` is the latency from each
/// message's intended send time (corrected for coordinated omission).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PacedResult {
    /// Requested rate, messages per second (in total).
    pub requested_rate: u64,
    /// Achieved rate over the samples.
    pub achieved_rate: Option<Summary>,
    /// Sends refused (transport full when due) over the samples.
    pub refused: u64,
    /// The longest a refused send then waited for room, ns, over the samples (0 if none was
    /// refused, or in reports written before it was measured).
    #[serde(default)]
    pub refused_wait_max_ns: u64,
    /// Whether the transport can refuse a send at all.
    pub refusals_observable: bool,
    /// How the pacer waited.
    pub pacer: String,
    /// Latency from each message's actual send (not corrected).
    pub uncorrected: Option<Latency>,
    /// The harness's own timing cost per message (median over samples).
    pub overhead: crate::open_loop::Overhead,
    /// Messages sent over the samples.
    pub sent: u64,
    /// Messages delivered over the samples (fewer than sent in `latest` delivery).
    pub delivered: u64,
    /// Times the sinks fired (ran their work and timed an event) over the samples: as many as
    /// delivered, fewer under a `latest` reactor, which fires once for what arrived while it
    /// was busy. `None` in reports written before fires were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fires: Option<u64>,
    /// Depth of each hop, merged over the samples (mean of means, largest p99 and max).
    pub hops: Vec<crate::open_loop::HopFigures>,
}

/// A ramp's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RampResult {
    /// The search: every step, the highest rate sustained and the lowest not sustained.
    #[serde(flatten)]
    pub search: crate::open_loop::RampOutcome,
    /// The hop that was fullest (mean depth over capacity) at the first rate not sustained: the
    /// one that saturates first.
    pub saturating_hop: Option<String>,
}

impl RunReport {
    /// The report of a run of `suite` as it begins, without results: now, in `environment`.
    pub fn begun(suite: &str, environment: Environment) -> RunReport {
        RunReport {
            reprobes: Vec::new(),
            schema_version: SCHEMA_VERSION,
            started_at: crate::time::now_rfc3339(),
            duration_s: 0.0,
            suite: suite.to_string(),
            environment,
            limits: None,
            layout: None,
            results: Vec::new(),
            consensus: None,
            shared_regimes: None,
            gates: Vec::new(),
            paired: None,
        }
    }

    /// Whether a gate failed.
    pub fn gates_failed(&self) -> bool {
        self.gates
            .iter()
            .any(|g| g.status == crate::gate::GateStatus::Failed)
    }

    /// Whether any trial failed, hung or crashed, or (in a run that asked for consensus) a
    /// transport delivered another stream than the others of its stream.
    pub fn has_failures(&self) -> bool {
        self.results.iter().any(|r| r.verdict.is_failure()) || self.consensus_failed()
    }

    /// Whether the run asked for consensus and some transport delivered another stream than
    /// the others of its stream.
    pub fn consensus_failed(&self) -> bool {
        self.consensus.as_ref().is_some_and(|c| c.failed())
    }
}
