//! The lint itself: one warning attached to a result, with its code and its words.

use crate::fmt;
use serde::{Deserialize, Serialize};
use std::fmt as sfmt;

/// A methodology warning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "code")]
pub enum Lint {
    /// More threads than cores: the figure includes scheduler time slicing.
    Oversubscribed {
        /// Threads run.
        threads: usize,
        /// Cores available.
        cores: usize,
    },
    /// Pinning was requested but not obtained.
    PinningFailed {
        /// Why.
        detail: String,
    },
    /// Threads were not pinned because the user asked so.
    Unpinned,
    /// A same-thread transport appears in a table with cross-thread ones.
    SameThread,
    /// The producer and consumer ran as tasks on one current-thread async runtime: they took
    /// turns on a single OS thread, so no cross-core hand-off happened.
    SameThreadCooperative,
    /// The queue can hold every message of the sample: it never fills, backpressure is never
    /// exercised.
    CapacityNeverFills {
        /// Capacity.
        capacity: usize,
        /// Messages per sample (per producer shard where it applies).
        messages: u64,
    },
    /// Relative dispersion above the noisy threshold.
    Noisy {
        /// Relative MAD.
        spread: f64,
        /// Threshold.
        threshold: f64,
    },
    /// A percentile is shown from too few observations.
    TooFewForPercentile {
        /// The percentile (e.g. 99.9).
        percentile: f64,
        /// Observations recorded.
        observations: u64,
        /// Observations needed.
        needed: u64,
    },
    /// Fewer timed samples than a median with a spread needs.
    FewSamples {
        /// Samples taken.
        samples: usize,
    },
    /// A batch size was requested but the transport has no native batch operations.
    BatchEmulated,
    /// Not an optimised build: figures are not representative.
    DebugBuild,
    /// The result beats the machine's measured limit. Either the limit probe was disturbed (its
    /// repetitions disagree), so every distance to the limit in this run is suspect, or the
    /// probe was stable and the transport does something the probe does not ([`BeyondCause`]).
    BeyondLimit {
        /// The result as a multiple of the limit.
        ratio: f64,
        /// Whether the limit is a round trip (a time: lower is better) rather than a rate.
        #[serde(default)]
        round_trip: bool,
        /// Which of the two it is; reports written before it was judged read as
        /// [`BeyondCause::Unjudged`].
        #[serde(default)]
        cause: BeyondCause,
    },
    /// An open-loop run achieved less than 99% of the rate it asked for: the producers could not
    /// keep the schedule (the transport blocked them, or the machine is too busy).
    RateMissed {
        /// Requested messages per second.
        requested: u64,
        /// Achieved (median over samples).
        achieved: f64,
    },
    /// The transport has no non-blocking send, so a full transport cannot be seen as refused
    /// sends; only latency shows saturation.
    RefusalsUnobservable,
    /// The harness's own per-message timing cost is not small against the latency reported.
    TimingOverhead {
        /// Clock reads and histogram records per message, ns.
        overhead_ns: f64,
        /// Median latency, ns.
        p50_ns: u64,
    },
    /// The timer that stamps latencies advances in steps that are not small against the p50
    /// (see `round_trip_timer`): percentiles are quantised to that step, and differences
    /// smaller than one step are not resolved.
    ClockStep {
        /// The timer's step, ns.
        step_ns: f64,
        /// Median latency, ns.
        p50_ns: u64,
    },
    /// A ramp reached its highest rate without finding one it could not sustain.
    RampCeiling {
        /// The highest rate tried.
        max: u64,
    },
    /// A ramp soaked at the highest rate its steps sustained, and the soak, judged as a step is
    /// (no refused send, the rate achieved, the p99 within the ramp's bound), did not sustain
    /// it: a step runs for its `step_ms`, the soak for minutes, and what builds up slowly (a
    /// backlog, a broker's uncommitted offsets, a growing heap) shows only in the soak. The
    /// ramp's sustained rate and latency are its step's; the soak's are in its windows.
    SoakNotSustained {
        /// The rate soaked at, messages per second.
        rate: u64,
        /// How long the step that sustained it ran, ms.
        step_ms: u64,
        /// How long the soak ran, ms.
        soak_ms: u64,
        /// What the soak missed, in the words a step's judgement uses.
        reason: String,
    },
    /// Some samples ran far slower than the median: the transport ran in two regimes in one
    /// trial (a thread lost its core, or the two sides fell into a slot-by-slot chase at the
    /// full or empty edge). The median shows the common regime; the spread can look small.
    Outliers {
        /// Samples below `OUTLIER_FRACTION` of the median.
        slow: usize,
        /// Samples in all.
        samples: usize,
        /// The slowest sample as a fraction of the median.
        slowest: f64,
    },
    /// Some repetitions of a limit probe disagree with the rest (see
    /// [`crate::repetitions`]): they were set aside, and the limit is the median of the
    /// others. Said on each result measured against that probe.
    ProbeUnstable {
        /// The probe (`cacheline-rtt`, `cacheline-rtt-stamped`, `stream-bandwidth`).
        probe: String,
        /// The repetitions set aside (ns per round trip, or bytes per second).
        set_aside: Vec<f64>,
        /// The median of the repetitions kept: the limit.
        median: f64,
        /// Repetitions run.
        repetitions: usize,
    },
    /// The timed samples fell into two regimes (see [`crate::stats::modes`]): the median
    /// describes neither. Both are named, lower value first.
    Bimodal {
        /// The lower regime's median (messages per second, or ns per round trip).
        low: f64,
        /// Its share of the samples (0 to 1).
        low_share: f64,
        /// The higher regime's median.
        high: f64,
        /// Its share of the samples.
        high_share: f64,
        /// Whether the figures are round trips (ns) rather than rates.
        #[serde(default)]
        round_trip: bool,
    },
    /// An open-loop run at a fixed rate had sends refused: the transport was full when they were
    /// due, so the rate was not sustained throughout (a ramp counts a single refusal as not
    /// sustained). Each refused send was then made blocking, and its wait is in the latency.
    Refused {
        /// Sends refused over the timed samples.
        refused: u64,
        /// The rate asked for, messages per second.
        rate: u64,
        /// The longest a refused send waited for room, ns (0 if not measured: older reports).
        #[serde(default)]
        max_wait_ns: u64,
        /// The largest latency from intended send, ns, if measured.
        max_latency_ns: Option<u64>,
    },
    /// The median timed sample of a closed-loop trial ran longer than the watchdog interval: the
    /// transport kept delivering, so it finished and is not hung, but it is far slower than a
    /// sample is meant to be (see `lints/duration.rs` for why the interval is the yardstick).
    Slow {
        /// The median sample's duration, ms.
        median_ms: f64,
        /// The watchdog interval, ms.
        watchdog_ms: u64,
    },
    /// The median timed sample of a calibrated (`auto`) closed-loop trial ran under a quarter
    /// of the target it was calibrated for: start-up and wake-ups weigh in it as much as the
    /// hand-offs do (a stalled pilot, or the count's upper bound, fixed the count too low).
    ShortSamples {
        /// The median sample's duration, ms.
        median_ms: f64,
        /// The target a sample was calibrated for, ms.
        target_ms: u64,
        /// Messages per sample, as run.
        messages: u64,
    },
    /// Most hand-offs stayed on one worker thread of a multi-thread runtime: the scheduler ran
    /// the woken task on the thread that woke it, so the two sides mostly took turns on one
    /// thread and the figure is not a cross-thread one.
    SameWorker {
        /// The share of hand-offs received on the thread their sender ran on (0 to 1).
        share: f64,
    },
    /// The worker's resident set grew sample after sample (see `lints/memory.rs`): the
    /// transport keeps memory it no longer needs.
    MemoryGrowth {
        /// The least-squares growth, bytes per sample.
        per_sample_bytes: f64,
        /// The resident set after the first timed sample, bytes.
        first_bytes: u64,
        /// The resident set after the last timed sample, bytes.
        last_bytes: u64,
        /// Timed samples.
        samples: usize,
    },
    /// The timed samples took page faults (see `lints/memory.rs`): the transport mapped fresh
    /// memory while it was measured (a new ring's first lap, memory allocated as messages
    /// arrive), and the figure includes the kernel's work.
    PageFaults {
        /// Page faults per message, the median over the timed samples.
        per_msg: f64,
        /// Messages per timed sample.
        messages: u64,
    },
    /// An at-least-once transport delivered messages again in a run without a fault: its
    /// consumer or the broker took a message as not acknowledged, and the figures include the
    /// repeated deliveries' work.
    Redelivered {
        /// Messages delivered again over the timed samples.
        messages: u64,
        /// Their share of the messages delivered (0 to 1).
        share: f64,
    },
    /// An at-most-once transport lost messages: the figures count only what arrived.
    Lost {
        /// Messages never delivered over the timed samples.
        messages: u64,
        /// Their share of the messages sent (0 to 1).
        share: f64,
    },
    /// The broker runs on this machine and shares its cores with the producer and the consumer:
    /// the figure includes the broker's own work competing with them for the cores
    /// (oversubscribed), which a broker on a machine of its own would not.
    BrokerSharesCores {
        /// The harness's threads.
        threads: usize,
        /// Cores available.
        cores: usize,
    },
    /// Over a soak's windows, a figure trended worse: late windows are significantly worse than
    /// early ones by a trend test over every window (Mann–Kendall), not by a threshold on one.
    Drift {
        /// Which figure.
        figure: DriftFigure,
        /// Its median over the first third of the windows.
        early: f64,
        /// Its median over the last third.
        late: f64,
        /// Whole windows judged.
        windows: usize,
        /// The trend test's one-sided p-value.
        p: f64,
    },
    /// The transport printed while it ran (kept with the result as `printed`).
    Printed {
        /// Lines printed.
        lines: u64,
        /// Bytes printed.
        bytes: u64,
        /// The first line.
        first: String,
    },
}

/// A figure of a soak's windows that can drift (see [`Lint::Drift`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriftFigure {
    /// Median latency: growing.
    P50,
    /// 99th-percentile latency: growing.
    P99,
    /// Events in flight at a window's end: growing.
    Backlog,
    /// The worker's resident memory: growing.
    Memory,
    /// Events delivered per second: falling.
    Rate,
    /// What the brokers hold uncommitted for their consumers: growing (commits falling
    /// behind, or the consumer).
    Uncommitted,
}

impl DriftFigure {
    /// Every figure, in the order they are judged.
    pub const ALL: [DriftFigure; 6] = [
        DriftFigure::Rate,
        DriftFigure::P50,
        DriftFigure::P99,
        DriftFigure::Backlog,
        DriftFigure::Uncommitted,
        DriftFigure::Memory,
    ];

    /// What it is called.
    pub fn name(self) -> &'static str {
        match self {
            DriftFigure::P50 => "p50 latency",
            DriftFigure::P99 => "p99 latency",
            DriftFigure::Backlog => "backlog",
            DriftFigure::Memory => "resident memory",
            DriftFigure::Rate => "delivered rate",
            DriftFigure::Uncommitted => "uncommitted at the broker",
        }
    }

    /// Whether worse means larger (every figure but the rate).
    pub fn worse_is_up(self) -> bool {
        self != DriftFigure::Rate
    }

    /// A value of this figure as text.
    pub fn show(self, v: f64) -> String {
        match self {
            DriftFigure::P50 | DriftFigure::P99 => fmt::duration(v),
            DriftFigure::Backlog | DriftFigure::Uncommitted => format!("{v:.0} events"),
            DriftFigure::Memory => fmt::memory(v),
            DriftFigure::Rate => fmt::rate(v),
        }
    }
}

/// Why a result is beyond the machine's measured limit (see [`Lint::BeyondLimit`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BeyondCause {
    /// The probe's repetitions were not kept (a report from before they were), so it cannot be
    /// said; such reports blamed the probe.
    #[default]
    Unjudged,
    /// The probe was disturbed: some repetitions were set aside, or the rest spread more than a
    /// quiet result may.
    Disturbed,
    /// The probe was stable: the result is genuinely beyond what the probe's geometry measures.
    ProbeGeometry,
}

impl Lint {
    /// The lint's short code, e.g. `oversubscribed`.
    pub fn code(&self) -> &'static str {
        match self {
            Lint::Oversubscribed { .. } => "oversubscribed",
            Lint::PinningFailed { .. } => "pinning-failed",
            Lint::Unpinned => "unpinned",
            Lint::SameThread => "same-thread",
            Lint::SameThreadCooperative => "same-thread-cooperative",
            Lint::CapacityNeverFills { .. } => "capacity-never-fills",
            Lint::Noisy { .. } => "noisy",
            Lint::TooFewForPercentile { .. } => "too-few-for-percentile",
            Lint::FewSamples { .. } => "few-samples",
            Lint::BatchEmulated => "batch-emulated",
            Lint::DebugBuild => "debug-build",
            Lint::BeyondLimit { .. } => "beyond-limit",
            Lint::RateMissed { .. } => "rate-missed",
            Lint::RefusalsUnobservable => "refusals-unobservable",
            Lint::TimingOverhead { .. } => "timing-overhead",
            Lint::ClockStep { .. } => "clock-step",
            Lint::RampCeiling { .. } => "ramp-ceiling",
            Lint::SoakNotSustained { .. } => "soak-not-sustained",
            Lint::Outliers { .. } => "outliers",
            Lint::ProbeUnstable { .. } => "probe-unstable",
            Lint::Bimodal { .. } => "bimodal",
            Lint::Refused { .. } => "refused",
            Lint::Slow { .. } => "slow",
            Lint::ShortSamples { .. } => "short-samples",
            Lint::SameWorker { .. } => "same-worker",
            Lint::MemoryGrowth { .. } => "memory-growth",
            Lint::PageFaults { .. } => "page-faults",
            Lint::Drift { .. } => "drift",
            Lint::Printed { .. } => "printed",
            Lint::Redelivered { .. } => "redelivered",
            Lint::Lost { .. } => "lost",
            Lint::BrokerSharesCores { .. } => "broker-shares-cores",
        }
    }
}

impl sfmt::Display for Lint {
    fn fmt(&self, f: &mut sfmt::Formatter<'_>) -> sfmt::Result {
        match self {
            Lint::Oversubscribed { threads, cores } => {
                write!(f, "oversubscribed: {threads} threads on {cores} cores; includes scheduler time slicing")
            }
            Lint::PinningFailed { detail } => write!(f, "pinning requested but not obtained: {detail}"),
            Lint::Unpinned => write!(f, "threads not pinned (--no-pin)"),
            Lint::SameThread => {
                write!(f, "same-thread: the consumer runs on the producer's thread; no cross-core hand-off happens")
            }
            Lint::SameThreadCooperative => write!(
                f,
                "same-thread-cooperative: producer and consumer tasks took turns on one thread (tokio current-thread runtime); no cross-core hand-off happens"
            ),
            Lint::CapacityNeverFills { capacity, messages } => write!(
                f,
                "capacity {capacity} >= {messages} messages: the queue never fills, backpressure is not exercised"
            ),
            Lint::Noisy { spread, threshold } => write!(
                f,
                "noisy: relative MAD {:.1}% > {:.0}%; compare with care or take more samples",
                spread * 100.0,
                threshold * 100.0
            ),
            Lint::TooFewForPercentile { percentile, observations, needed } => write!(
                f,
                "p{percentile} from {observations} observations (needs >= {needed}); treat it as the maximum"
            ),
            Lint::FewSamples { samples } => {
                write!(f, "only {samples} timed sample(s): no meaningful median or spread")
            }
            Lint::BatchEmulated => {
                write!(f, "batch-emulated: the transport has no native batch operations, so the batch was sent and received one message at a time")
            }
            Lint::DebugBuild => write!(f, "debug build: figures are not representative; build with --release"),
            Lint::BeyondLimit { ratio, round_trip, cause } => {
                if *round_trip {
                    write!(f, "{ratio:.2}× the measured round trip")?;
                } else {
                    write!(f, "{:.0}% of the measured limit", ratio * 100.0)?;
                }
                match (cause, round_trip) {
                    (BeyondCause::Unjudged, true) => write!(
                        f,
                        ", faster than the machine allows: the limit probe was disturbed (a busy machine?); distances to the limit in this run are suspect"
                    ),
                    (BeyondCause::Unjudged, false) => write!(
                        f,
                        ": the limit probe was disturbed (a busy machine?); distances to the limit in this run are suspect"
                    ),
                    (BeyondCause::Disturbed, _) => write!(
                        f,
                        ": the limit probe was disturbed (its repetitions disagree; see the limits line); distances to the limit in this run are suspect"
                    ),
                    (BeyondCause::ProbeGeometry, false) => write!(
                        f,
                        ", against a stable probe: the transport moves data in a way the probe does not (more than 2 KiB per position store, fewer bytes per message than declared, a ring that stays in a nearer cache); the limit is the probe's geometry, not the machine's"
                    ),
                    (BeyondCause::ProbeGeometry, true) => write!(
                        f,
                        ", against a stable probe: the transport's round trip does less than one cache line's, or its threads ran on a closer pair of cores than the probe's; the limit is the probe's, not the machine's"
                    ),
                }
            }
            Lint::RateMissed { requested, achieved } => write!(
                f,
                "achieved {} of {} requested ({:.1}%): the schedule was not kept",
                fmt::rate(*achieved),
                fmt::rate(*requested as f64),
                100.0 * achieved / (*requested).max(1) as f64
            ),
            Lint::RefusalsUnobservable => write!(
                f,
                "the transport has no non-blocking send: refused sends cannot be counted; saturation shows only in latency and achieved rate"
            ),
            Lint::TimingOverhead { overhead_ns, p50_ns } => write!(
                f,
                "the harness's stamping and recording cost {overhead_ns:.0} ns per message, over 10% of the p50 of {p50_ns} ns"
            ),
            Lint::ClockStep { step_ns, p50_ns } => write!(
                f,
                "the timer advances in steps of {step_ns:.1} ns, {:.0}% of the p50 of {p50_ns} ns: percentiles are quantised to that step",
                100.0 * step_ns / (*p50_ns).max(1) as f64
            ),
            Lint::RampCeiling { max } => write!(
                f,
                "the ramp reached its highest rate ({}) without finding a knee; raise `ramp.max`",
                fmt::rate(*max as f64)
            ),
            Lint::SoakNotSustained { rate, step_ms, soak_ms, reason } => write!(
                f,
                "soak-not-sustained: a soak of {} at {}, the highest rate a ramp step of {} sustained, did not sustain it: {reason}; the row's latency is the step's, the soak's is in its windows",
                fmt::duration(*soak_ms as f64 * 1e6),
                fmt::rate(*rate as f64),
                fmt::duration(*step_ms as f64 * 1e6),
            ),
            Lint::Outliers { slow, samples, slowest } => write!(
                f,
                "outliers: {slow} of {samples} samples below a third of the median (slowest {:.0}% of it): two regimes in one trial; the median shows the common one",
                slowest * 100.0
            ),
            Lint::ProbeUnstable { probe, set_aside, median, repetitions } => {
                let figure = |v: f64| {
                    if probe == crate::limits::STREAM {
                        fmt::bandwidth(v)
                    } else {
                        fmt::duration(v)
                    }
                };
                let aside: Vec<String> = set_aside.iter().map(|v| figure(*v)).collect();
                write!(
                    f,
                    "probe {probe}: {} {} {} with the median {} of {repetitions} repetitions; set aside, the limit is the median",
                    if aside.len() == 1 { "repetition" } else { "repetitions" },
                    aside.join(", "),
                    if aside.len() == 1 { "disagrees" } else { "disagree" },
                    figure(*median),
                )
            }
            Lint::Bimodal { low, low_share, high, high_share, round_trip } => {
                let figure = |v: f64| {
                    if *round_trip {
                        fmt::duration(v)
                    } else {
                        fmt::rate(v)
                    }
                };
                write!(
                    f,
                    "two regimes: {} ({:.0}% of samples) and {} ({:.0}%){}; the median describes neither: compare the modes or the range, not medians, and take more samples to see how often each occurs",
                    figure(*low),
                    low_share * 100.0,
                    figure(*high),
                    high_share * 100.0,
                    if *round_trip { " per round trip" } else { "" }
                )
            }
            Lint::Refused { refused, rate, max_wait_ns, max_latency_ns } => {
                write!(
                    f,
                    "{} {} refused at {}: the transport was full when {} due",
                    fmt::si(*refused as f64),
                    if *refused == 1 { "send" } else { "sends" },
                    fmt::rate(*rate as f64),
                    if *refused == 1 { "it was" } else { "they were" },
                )?;
                if *max_wait_ns > 0 {
                    write!(f, ", and the longest waited {} for room", fmt::duration(*max_wait_ns as f64))?;
                }
                if let Some(max) = max_latency_ns {
                    write!(f, " (max latency {})", fmt::duration(*max as f64))?;
                }
                write!(
                    f,
                    "; the rate was not sustained throughout (a ramp counts a single refusal as not sustained)"
                )
            }
            Lint::Slow { median_ms, watchdog_ms } => write!(
                f,
                "slow: the median sample ran {}, longer than the {} watchdog interval; it kept delivering, so it finished and is not hung, but a sample is meant to take a small part of that",
                seconds(*median_ms),
                seconds(*watchdog_ms as f64)
            ),
            Lint::ShortSamples {
                median_ms,
                target_ms,
                messages,
            } => write!(
                f,
                "short-samples: the median sample ran {}, under a quarter of the {target_ms} ms it was calibrated for ({} messages): start-up and wake-ups weigh in it as much as the hand-offs; give `messages` (or a higher `min_messages`) to run longer samples",
                short_ms(*median_ms),
                fmt::si(*messages as f64)
            ),
            Lint::SameWorker { share } => write!(
                f,
                "same-worker: {:.0}% of hand-offs stayed on one worker thread (the runtime ran the woken task where it was woken): most messages crossed no core",
                share * 100.0
            ),
            Lint::MemoryGrowth { per_sample_bytes, first_bytes, last_bytes, samples } => write!(
                f,
                "memory-growth: the worker's resident set grew {} per sample, from {} after the first of {samples} timed samples to {}, with each channel dropped: the transport keeps memory it no longer needs",
                fmt::memory(*per_sample_bytes),
                fmt::memory(*first_bytes as f64),
                fmt::memory(*last_bytes as f64)
            ),
            Lint::PageFaults { per_msg, messages } => write!(
                f,
                "page-faults: {} page faults per 1000 messages (about {} in a sample of {}): the transport mapped fresh memory while it was measured (a new ring's first lap, or memory allocated as messages arrive), so the figure includes the kernel's work of mapping it; a transport that writes its memory when it is created pays that before the samples start",
                fmt::si(per_msg * 1000.0),
                fmt::si((per_msg * *messages as f64).round()),
                fmt::si(*messages as f64),
            ),
            Lint::Redelivered { messages, share } => write!(
                f,
                "redelivered: {} message{} ({}) delivered again in a run without a fault: something took them as unacknowledged, and the figures include the repeated work",
                fmt::si(*messages as f64),
                if *messages == 1 { "" } else { "s" },
                percent(*share)
            ),
            Lint::Lost { messages, share } => write!(
                f,
                "lost {}: {} message{} never delivered (the transport delivers at most once): the figures count only what arrived",
                percent(*share),
                fmt::si(*messages as f64),
                if *messages == 1 { "" } else { "s" },
            ),
            Lint::BrokerSharesCores { threads, cores } => write!(
                f,
                "broker-shares-cores: the broker runs on this machine, beside {threads} harness thread{} on {cores} core{} (oversubscribed): the figure includes the broker competing with producer and consumer for the cores",
                if *threads == 1 { "" } else { "s" },
                if *cores == 1 { "" } else { "s" },
            ),
            Lint::Drift { figure, early, late, windows, p } => write!(
                f,
                "drift: {} {} from {} in the first third of the soak's windows to {} in the last (Mann-Kendall trend over {windows} windows, p {}): the trial gets worse the longer it runs",
                figure.name(),
                if figure.worse_is_up() { "grew" } else { "fell" },
                figure.show(*early),
                figure.show(*late),
                p_value(*p)
            ),
            Lint::Printed { lines, bytes, first } => write!(
                f,
                "printed: the transport printed {lines} line{} ({}) while it ran, paid for on its hot path; first: {first}",
                if *lines == 1 { "" } else { "s" },
                fmt::memory(*bytes as f64)
            ),
        }
    }
}

/// A share as a percentage with the precision a small one needs: `0.3%`, `0.012%`, `12%`.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 10.0 {
        format!("{p:.0}%")
    } else if p >= 0.1 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

/// A p-value after its `p`: `= 0.003`, `< 0.0001`.
fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "< 0.0001".into()
    } else if p < 0.01 {
        format!("= {p:.4}")
    } else {
        format!("= {p:.3}")
    }
}

/// Milliseconds as a short duration: `850 ms`, `12.4 s`.
/// A duration under a second, with the precision a short one needs: `0.12 ms`, `3.4 ms`.
fn short_ms(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

fn seconds(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}
