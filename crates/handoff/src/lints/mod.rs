//! Lints: warnings attached to a result where the methodology is at risk.
//!
//! A lint never changes a figure; it says why the figure may not mean what it seems to.
//!
//! Every rule is evaluated here, by [`evaluate`], over a summarised [`TrialResult`] and the
//! little the result does not hold ([`Context`]: whether pinning was asked for, the machine's
//! limits, the environment). The session summarises; it does not judge. One file per family of
//! rules:
//!
//! | file           | rules                                                                  |
//! |----------------|------------------------------------------------------------------------|
//! | `placement.rs` | threads and cores (`oversubscribed`, `unpinned`, `pinning-failed`), same-thread hand-offs, `batch-emulated`, `debug-build` |
//! | `samples.rs`   | the quality of the timed samples (`capacity-never-fills`, `noisy`, `outliers`, `few-samples`) |
//! | `latency.rs`   | latency percentiles (`clock-step`, `too-few-for-percentile`)            |
//! | `open_loop.rs` | paced runs and ramps (`rate-missed`, `refusals-unobservable`, `timing-overhead`, `ramp-ceiling`) |
//! | `limits.rs`    | the distance to the machine's limit (`beyond-limit`)                    |

mod latency;
mod limits;
mod open_loop;
mod placement;
mod samples;

#[cfg(test)]
pub(crate) mod fixture;

pub use latency::MIN_TAIL_OBSERVATIONS;
pub use samples::{outliers, OUTLIER_FRACTION};

use crate::environment::Environment;
use crate::probes::Limits;
use crate::report::TrialResult;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the lint rules need besides the result itself.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// Whether the trial asked for its threads to be pinned.
    pub pin_requested: bool,
    /// The machine's limits measured in the run, if they were.
    pub limits: Option<&'a Limits>,
    /// The machine and build the run ran on.
    pub environment: &'a Environment,
}

/// Every lint of `result`, in a fixed order: placement, locality, the samples, latency, batch,
/// build, open loop, the limit.
pub fn evaluate(result: &TrialResult, cx: &Context) -> Vec<Lint> {
    let mut lints = Vec::new();
    lints.extend(placement::threads(result, cx.pin_requested));
    lints.extend(placement::locality(result));
    lints.extend(samples::capacity_never_fills(result));
    lints.extend(samples::throughput(result));
    lints.extend(latency::clock_step(cx.limits, result.latency.as_ref()));
    lints.extend(latency::too_few_for_percentile(result));
    lints.extend(placement::batch_emulated(result));
    lints.extend(placement::debug_build(cx.environment));
    lints.extend(open_loop::paced(result));
    lints.extend(open_loop::ramp_ceiling(result));
    lints.extend(limits::beyond_limit(result));
    lints
}

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
    /// The result beats the machine's measured limit: the limit probe was disturbed (another
    /// process took a core while it ran), so every distance to the limit in this run is suspect.
    BeyondLimit {
        /// The result as a multiple of the limit.
        ratio: f64,
        /// Whether the limit is a round trip (a time: lower is better) rather than a rate.
        #[serde(default)]
        round_trip: bool,
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
    /// Some samples ran far slower than the median: the transport ran in two regimes in one
    /// trial (a thread lost its core, or the two sides fell into a slot-by-slot chase at the
    /// full or empty edge). The median shows the common regime; the spread can look small.
    Outliers {
        /// Samples below [`OUTLIER_FRACTION`] of the median.
        slow: usize,
        /// Samples in all.
        samples: usize,
        /// The slowest sample as a fraction of the median.
        slowest: f64,
    },
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
            Lint::Outliers { .. } => "outliers",
        }
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
                write!(f, "batch requested but the transport has no native batch operations; sent one by one")
            }
            Lint::DebugBuild => write!(f, "debug build: figures are not representative; build with --release"),
            Lint::BeyondLimit {
                ratio,
                round_trip: true,
            } => write!(
                f,
                "{ratio:.2}× the measured round trip, faster than the machine allows: the limit probe was disturbed (a busy machine?); distances to the limit in this run are suspect"
            ),
            Lint::BeyondLimit {
                ratio,
                round_trip: false,
            } => write!(
                f,
                "{:.0}% of the measured limit: the limit probe was disturbed (a busy machine?); distances to the limit in this run are suspect",
                ratio * 100.0
            ),
            Lint::RateMissed { requested, achieved } => write!(
                f,
                "achieved {achieved:.0}/s of {requested}/s requested ({:.1}%): the schedule was not kept",
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
                "the ramp reached its highest rate ({max}/s) without finding a knee; raise `ramp.max`"
            ),
            Lint::Outliers { slow, samples, slowest } => write!(
                f,
                "outliers: {slow} of {samples} samples below a third of the median (slowest {:.0}% of it): two regimes in one trial; the median shows the common one",
                slowest * 100.0
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{environment, latency, limits, paced, stream, with_rates};
    use super::*;
    use crate::report::LimitDistance;
    use crate::semantics::Locality;

    #[test]
    fn a_quiet_pinned_release_stream_has_no_lint() {
        let env = environment();
        let cx = Context {
            pin_requested: true,
            limits: Some(&limits(Some(70.0), Some(10.0))),
            environment: &env,
        };
        assert_eq!(evaluate(&stream(), &cx), vec![]);
    }

    #[test]
    fn closed_loop_lints_come_in_a_fixed_order() {
        let mut r = with_rates(stream(), &[100.0, 130.0, 70.0, 100.0, 20.0]);
        r.placement.oversubscribed = true;
        r.placement.threads = 3;
        r.placement.cores_available = 2;
        r.semantics.locality = Locality::SameThread;
        r.params.messages = 1000;
        r.latency = Some(latency(50, 500));
        r.params.batch = Some(16);
        r.limit = Some(LimitDistance {
            probe: "stream-bandwidth".into(),
            limit: 50.0,
            ratio: 2.0,
        });
        let mut env = environment();
        env.build_profile = "debug".into();
        let lim = limits(None, Some(10.0));
        let cx = Context {
            pin_requested: true,
            limits: Some(&lim),
            environment: &env,
        };
        let codes: Vec<&str> = evaluate(&r, &cx).iter().map(Lint::code).collect();
        assert_eq!(
            codes,
            [
                "oversubscribed",
                "same-thread",
                "capacity-never-fills",
                "noisy",
                "outliers",
                "clock-step",
                "too-few-for-percentile",
                "batch-emulated",
                "debug-build",
                "beyond-limit",
            ]
        );
    }

    #[test]
    fn open_loop_lints_follow_the_sample_and_latency_ones() {
        let mut r = with_rates(paced(10_000, 9_000.0), &[9_000.0, 9_000.0]);
        r.paced.as_mut().unwrap().refusals_observable = false;
        r.latency = Some(latency(100, 500));
        let env = environment();
        let cx = Context {
            pin_requested: false,
            limits: None,
            environment: &env,
        };
        let codes: Vec<&str> = evaluate(&r, &cx).iter().map(Lint::code).collect();
        assert_eq!(
            codes,
            [
                "unpinned",
                "few-samples",
                "too-few-for-percentile",
                "rate-missed",
                "refusals-unobservable",
                "timing-overhead",
            ]
        );
    }

    #[test]
    fn a_round_trip_beyond_its_limit_is_said_as_a_multiple() {
        let rtt = Lint::BeyondLimit {
            ratio: 0.8,
            round_trip: true,
        };
        assert!(
            rtt.to_string().starts_with("0.80× the measured round trip"),
            "{rtt}"
        );
        let rate = Lint::BeyondLimit {
            ratio: 1.2,
            round_trip: false,
        };
        assert!(
            rate.to_string().starts_with("120% of the measured limit"),
            "{rate}"
        );
        // Reports written before the field existed read as rates, as they were shown then.
        let old: Lint = serde_json::from_str(r#"{"code":"beyond-limit","ratio":1.2}"#).unwrap();
        assert_eq!(old, rate);
    }
}
