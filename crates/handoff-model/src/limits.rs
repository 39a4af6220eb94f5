//! The machine's limits as a run records them: the cache-line round trip and the streaming
//! bandwidth between two cores, each over its repetitions (measured by `handoff::probes`).

use crate::repetitions::Repetitions;
use crate::stats::Summary;
use serde::{Deserialize, Serialize};

/// The probe of the cache-line round trip timed in bulk.
pub const RTT: &str = "cacheline-rtt";
/// The probe of the cache-line round trip stamped per trip as the ping-pong workload stamps it.
pub const RTT_STAMPED: &str = "cacheline-rtt-stamped";
/// The probe of the streaming bandwidth.
pub const STREAM: &str = "stream-bandwidth";

/// The limits measured in a run.
///
/// Each figure is summarised over the repetitions *kept* (in reports written before
/// repetitions were kept, over all of them); its median is the limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Cache-line round trip between two cores, nanoseconds (per repetition), timed in bulk.
    pub cacheline_rtt_ns: Summary,
    /// The same round trip with each one stamped by the round-trip timer, as the ping-pong
    /// workload stamps its round trips: the median round trip of each repetition, nanoseconds.
    /// Absent from reports written before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cacheline_rtt_stamped_ns: Option<Summary>,
    /// The round-trip timer's step, nanoseconds (`RoundTripTimer::step_ns`): latency
    /// percentiles are not resolved more finely.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_step_ns: Option<f64>,
    /// Streaming bandwidth between two cores, bytes per second (per repetition).
    pub stream_bytes_per_s: Summary,
    /// Cores the probes ran on.
    pub cores: Vec<usize>,
    /// Whether the two probe threads were pinned to distinct cores.
    pub pinned: bool,
    /// Anything that weakens the figures (e.g. only one core available).
    pub note: Option<String>,
    /// Every probe's repetitions in the order run, with those set aside. Empty in reports
    /// written before they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repetitions: Vec<Repetitions>,
    /// Seconds from the run's start to the middle of this probe. Absent in reports written
    /// before the limits were probed more than once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_s: Option<f64>,
}

/// The factor by which two probes of one run must differ, on the round trip or the bandwidth,
/// for the machine to be said to have changed state between them. A VM's fast and slow states
/// differ two- to four-fold on both, while probes of one state agree within a few per cent; a
/// factor of 1.5 sits between the two.
pub const STATE_CHANGE: f64 = 1.5;

impl Limits {
    /// The limit on a round trip: the median repetition kept (see [`crate::repetitions`]).
    pub fn rtt_ns(&self) -> f64 {
        self.cacheline_rtt_ns.median
    }

    /// The limit a stamped round-trip percentile is compared with: the median over the kept
    /// repetitions of each one's median stamped round trip, if it was measured.
    pub fn rtt_stamped_ns(&self) -> Option<f64> {
        self.cacheline_rtt_stamped_ns.as_ref().map(|s| s.median)
    }

    /// The limit on streaming: the median repetition kept, in bytes per second.
    pub fn stream_bytes(&self) -> f64 {
        self.stream_bytes_per_s.median
    }

    /// The repetitions of `probe` ([`RTT`], [`RTT_STAMPED`], [`STREAM`]), if they were kept.
    pub fn repetitions_of(&self, probe: &str) -> Option<&Repetitions> {
        self.repetitions.iter().find(|r| r.probe == probe)
    }

    /// Whether `other` finds the machine in another state than this probe: its round trip or
    /// its bandwidth differs by [`STATE_CHANGE`] or more, either way.
    pub fn other_state(&self, other: &Limits) -> bool {
        let apart = |a: f64, b: f64| {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            lo > 0.0 && hi / lo >= STATE_CHANGE
        };
        apart(self.rtt_ns(), other.rtt_ns()) || apart(self.stream_bytes(), other.stream_bytes())
    }

    /// The most messages per second a 1->1 stream of `bytes`-byte messages could move.
    pub fn stream_msgs_per_s(&self, bytes: usize) -> f64 {
        self.stream_bytes() / bytes.max(1) as f64
    }
}
