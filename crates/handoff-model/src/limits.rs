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
}

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

    /// The most messages per second a 1->1 stream of `bytes`-byte messages could move.
    pub fn stream_msgs_per_s(&self, bytes: usize) -> f64 {
        self.stream_bytes() / bytes.max(1) as f64
    }
}
