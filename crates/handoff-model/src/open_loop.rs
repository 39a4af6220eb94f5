//! Open-loop figures as a result records them: the harness's own timing cost, each hop's
//! queue depth, and a rate ramp's steps and outcome.

use serde::{Deserialize, Serialize};

/// What the harness's own timing costs, measured on the calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// One clock read, nanoseconds.
    pub clock_read_ns: f64,
    /// One clock read plus recording one value in each of two histograms (what the consumer
    /// does per message), nanoseconds.
    pub stamp_and_record_ns: f64,
}

/// One hop's queue depth, sampled during an open-loop run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HopFigures {
    /// Transport of the hop.
    pub transport: String,
    /// Its capacity (`None` if unbounded).
    pub capacity: Option<usize>,
    /// Depth samples taken.
    pub samples: u64,
    /// Mean depth (messages sent into the hop and not yet received from it).
    pub mean: f64,
    /// 99th percentile depth.
    pub p99: u64,
    /// Largest depth seen.
    pub max: u64,
    /// Messages the hop's reader received.
    pub received: u64,
    /// Receives of an async hop that had to wait and were woken (the task was suspended, then
    /// woken by the sender); `None` for a hop awaited by no task (a blocking transport's, whose
    /// waits the harness cannot see).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeups: Option<u64>,
}

impl HopFigures {
    /// Wake-ups per message received, where they were counted.
    pub fn wakeups_per_msg(&self) -> Option<f64> {
        self.wakeups.map(|w| {
            if self.received == 0 {
                0.0
            } else {
                w as f64 / self.received as f64
            }
        })
    }

    /// Mean depth as a fraction of capacity (`None` if unbounded).
    pub fn fill(&self) -> Option<f64> {
        self.capacity.map(|c| self.mean / c.max(1) as f64)
    }
}

/// Fraction of the requested rate a step must achieve.
pub const MIN_ACHIEVED: f64 = 0.99;

/// What one step measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepFigures {
    /// Requested rate, messages per second.
    pub requested: u64,
    /// Achieved rate.
    pub achieved: f64,
    /// Refused sends.
    pub refused: u64,
    /// Messages delivered.
    pub delivered: u64,
    /// Latency from the intended send, nanoseconds.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
    /// Mean depth of each hop as a fraction of its capacity (`None` for an unbounded hop).
    pub hop_fill: Vec<Option<f64>>,
    /// Mean depth of each hop, messages.
    pub hop_depth: Vec<f64>,
}

/// One step of the search and its judgement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RampStep {
    /// The figures.
    #[serde(flatten)]
    pub figures: StepFigures,
    /// Whether the step was sustained.
    pub sustained: bool,
    /// Why not, if not.
    pub reason: Option<String>,
    /// Whether this was a refinement (bisection) step.
    pub refinement: bool,
}

/// The search's result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RampOutcome {
    /// Every step run, in order (a repeated step appears twice).
    pub steps: Vec<RampStep>,
    /// Highest rate sustained.
    pub sustained: Option<u64>,
    /// Lowest rate found not sustained (the knee lies between the two).
    pub not_sustained: Option<u64>,
    /// Why the search ended.
    pub ended: String,
}

impl RampOutcome {
    /// The figures of the step that sustained [`Self::sustained`] (the last run at that rate
    /// that was sustained: a retried step's second run), if the search kept its steps.
    pub fn sustained_step(&self) -> Option<&StepFigures> {
        let rate = self.sustained?;
        self.steps
            .iter()
            .rev()
            .find(|s| s.sustained && s.figures.requested == rate)
            .map(|s| &s.figures)
    }
}

/// One window of a soak (an open-loop sample measured over a duration, see
/// [`crate::workload::Messages::Soak`]): what was sent and delivered in it, the latency of the
/// events that fired in it, and what was in flight and resident at its end.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SoakWindow {
    /// When the window began, milliseconds after the first send was due.
    pub start_ms: f64,
    /// Its length, milliseconds (the last window of a sample may be shorter).
    pub length_ms: f64,
    /// Events the producers sent in it.
    pub sent: u64,
    /// Events the consumer received in it (the first sink's count).
    pub delivered: u64,
    /// Events fired in it whose latency was recorded.
    pub fired: u64,
    /// Median latency from the intended send of the events fired in it, nanoseconds (0 if
    /// none fired).
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Largest.
    pub max: u64,
    /// Events sent and not yet received at its end, over every hop (the backlog: for a broker,
    /// what the consumer lags behind the producers).
    pub backlog: u64,
    /// The worker's resident set at its end, bytes (`None` where the system does not show it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    /// What the brokers of the hops held for their consumers uncommitted (or unacknowledged) at
    /// its end, as the brokers themselves told it: the backlog plus what was received and not
    /// yet committed. `None` for a chain without a broker that keeps such an account, or when
    /// one did not answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncommitted: Option<u64>,
}

impl SoakWindow {
    /// Events delivered per second in this window.
    pub fn rate(&self) -> f64 {
        if self.length_ms <= 0.0 {
            0.0
        } else {
            self.delivered as f64 * 1000.0 / self.length_ms
        }
    }

    /// Whether the window lasted at least half its nominal `window_ms` (a sample's short last
    /// window is shown, but not judged for drift).
    pub fn is_whole(&self, window_ms: f64) -> bool {
        self.length_ms >= window_ms / 2.0
    }
}
