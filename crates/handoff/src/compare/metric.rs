//! What a comparison measures for each result, and the per-sample figures it tests.
//!
//! A closed-loop stream is compared on its messages per second (higher is better); a ping-pong
//! and an open-loop run at a fixed rate on the median and the 99th-percentile latency of each
//! sample (lower is better), from each sample's own histogram; a ramp on its highest sustained
//! rate, one figure per run, which no test can judge. Where every sample of a result recorded
//! its threads' CPU time, the CPU cost per message is judged besides (lower is better); a
//! result from a report that did not record it simply has no such figure, and a comparison with
//! it leaves the figure out rather than calling it not comparable.

use crate::report::{RawSample, TrialResult};
use crate::workload::{Pacing, WorkloadKind};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A figure compared between two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Messages (round trips) per second of each sample.
    Throughput,
    /// Each sample's median latency, ns.
    LatencyP50,
    /// Each sample's 99th-percentile latency, ns.
    LatencyP99,
    /// Each sample's mean round trip, ns (ping-pong reports written before per-sample
    /// percentiles were recorded).
    RoundTripMean,
    /// A ramp's highest sustained rate, messages per second (one figure per run).
    SustainedRate,
    /// Each sample's CPU time of both sides per message delivered, ns.
    CpuPerMsg,
}

impl Metric {
    /// Whether a larger figure is the better one.
    pub(crate) fn higher_is_better(self) -> bool {
        matches!(self, Metric::Throughput | Metric::SustainedRate)
    }

    /// The name shown in tables and exported.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Throughput => "msgs/s",
            Metric::LatencyP50 => "p50",
            Metric::LatencyP99 => "p99",
            Metric::RoundTripMean => "ns/round trip",
            Metric::SustainedRate => "sustained rate",
            Metric::CpuPerMsg => "cpu/msg",
        }
    }

    /// Whether the figure is judged only when both sides have it: CPU time, which older
    /// reports did not record. A side without it leaves the figure out of the comparison.
    pub(crate) fn optional(self) -> bool {
        matches!(self, Metric::CpuPerMsg)
    }

    /// Formats a figure of this metric.
    pub fn format(self, x: f64) -> String {
        use handoff_model::fmt;
        if self.higher_is_better() {
            fmt::rate(x)
        } else {
            fmt::duration(x)
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The metrics of `r` with their per-sample figures; empty when `r` measured nothing
/// comparable (it did not pass).
pub(crate) fn figures(r: &TrialResult) -> Vec<(Metric, Vec<f64>)> {
    if let Some(ramp) = &r.ramp {
        return ramp
            .search
            .sustained
            .map(|s| vec![(Metric::SustainedRate, vec![s as f64])])
            .unwrap_or_default();
    }
    if r.samples.is_empty() {
        return Vec::new();
    }
    let latency = r.workload == WorkloadKind::PingPong
        || r.workload.is_open_loop()
        || !matches!(r.params.pacing, Pacing::Closed);
    let mut main = if !latency {
        vec![(Metric::Throughput, per(&r.samples, |s| Some(s.msgs_per_s)))]
    } else {
        let p50 = per(&r.samples, |s| s.p50_ns.map(|x| x as f64));
        let p99 = per(&r.samples, |s| s.p99_ns.map(|x| x as f64));
        if p50.len() == r.samples.len() && p99.len() == r.samples.len() {
            vec![(Metric::LatencyP50, p50), (Metric::LatencyP99, p99)]
        } else if r.workload == WorkloadKind::PingPong {
            vec![(
                Metric::RoundTripMean,
                per(&r.samples, |s| Some(s.ns_per_msg)),
            )]
        } else {
            Vec::new()
        }
    };
    // CPU cost, after the result's own figures (a gate reads the first), and only where every
    // sample has it.
    let cpu = per(&r.samples, RawSample::cpu_per_msg);
    if !main.is_empty() && cpu.len() == r.samples.len() {
        main.push((Metric::CpuPerMsg, cpu));
    }
    main
}

fn per(samples: &[RawSample], f: impl Fn(&RawSample) -> Option<f64>) -> Vec<f64> {
    samples.iter().filter_map(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture;

    #[test]
    fn a_stream_is_compared_on_throughput_per_sample() {
        let r = fixture::with_rates(fixture::stream(), &[10.0, 12.0, 11.0]);
        let f = figures(&r);
        assert_eq!(f, vec![(Metric::Throughput, vec![10.0, 12.0, 11.0])]);
        assert!(Metric::Throughput.higher_is_better());
        assert!(!Metric::LatencyP99.higher_is_better());
    }

    #[test]
    fn cpu_per_message_is_a_figure_only_where_every_sample_has_it() {
        use handoff_model::cpu::SampleCpu;
        let mut r = fixture::with_rates(fixture::stream(), &[10.0, 12.0]);
        for (i, s) in r.samples.iter_mut().enumerate() {
            s.messages = 1000;
            s.cpu = Some(SampleCpu {
                producer_ns: 1000 * (i as u64 + 1),
                consumer_ns: 1000,
                runtime_ns: 0,
                page_faults: None,
            });
        }
        let f = figures(&r);
        assert_eq!(f[0].0, Metric::Throughput);
        assert_eq!(f[1], (Metric::CpuPerMsg, vec![2.0, 3.0]));
        assert!(!Metric::CpuPerMsg.higher_is_better() && Metric::CpuPerMsg.optional());
        r.samples[1].cpu = None;
        assert_eq!(figures(&r).len(), 1);
    }

    #[test]
    fn a_ping_pong_uses_per_sample_percentiles_or_falls_back_to_the_mean() {
        let mut r = fixture::with_rates(fixture::stream(), &[10.0, 12.0]);
        r.workload = WorkloadKind::PingPong;
        assert_eq!(figures(&r)[0].0, Metric::RoundTripMean);
        for (i, s) in r.samples.iter_mut().enumerate() {
            s.p50_ns = Some(100 + i as u64);
            s.p99_ns = Some(200 + i as u64);
        }
        let f = figures(&r);
        assert_eq!(f[0], (Metric::LatencyP50, vec![100.0, 101.0]));
        assert_eq!(f[1], (Metric::LatencyP99, vec![200.0, 201.0]));
    }
}
