//! How long the timed samples ran: [`Lint::Slow`].
//!
//! The yardstick is the watchdog interval, the one duration the result holds that says what was
//! expected of a sample: it is the longest the run waits for a *single* delivery, so a sample
//! that takes longer than that *in all* is far beyond what a sample is meant to take
//! (calibrated samples aim at tens of milliseconds; a fixed count is chosen to run for a few
//! seconds at most). Such a sample is exactly the one a fixed deadline would have called hung;
//! the watchdog judges progress instead, so it finishes, and this lint says that it was slow.
//!
//! Open-loop trials are left out: their duration is set by their schedule (messages ÷ rate),
//! and a schedule not kept is `rate-missed`.

use super::Lint;
use crate::report::TrialResult;
use crate::stats::Summary;

/// [`Lint::Slow`]: the median timed sample of a closed-loop trial ran longer than its watchdog
/// interval.
pub(super) fn slow(r: &TrialResult) -> Option<Lint> {
    if r.workload.is_open_loop() {
        return None;
    }
    let elapsed: Vec<f64> = r.samples.iter().map(|s| s.elapsed_ns as f64).collect();
    let median_ns = Summary::of(&elapsed)?.median;
    let watchdog_ns = r.params.timeout_ms as f64 * 1e6;
    (median_ns > watchdog_ns).then_some(Lint::Slow {
        median_ms: median_ns / 1e6,
        watchdog_ms: r.params.timeout_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{paced, stream, with_rates};
    use crate::workload::WorkloadKind;

    /// The fixture's stream (1 000 000 messages per sample, a 10 s watchdog) at these rates.
    fn at(rates: &[f64]) -> TrialResult {
        with_rates(stream(), rates)
    }

    #[test]
    fn a_clean_stream_is_not_slow() {
        // 1 000 000 messages at 100 M/s: 10 ms per sample.
        assert_eq!(slow(&stream()), None);
    }

    #[test]
    fn a_median_sample_over_the_watchdog_interval_is_slow() {
        // 1 000 000 messages at 50 000/s: 20 s per sample, twice the 10 s interval.
        let r = at(&[50_000.0, 50_000.0, 50_000.0]);
        assert_eq!(
            slow(&r),
            Some(Lint::Slow {
                median_ms: 20_000.0,
                watchdog_ms: 10_000
            })
        );
        assert_eq!(
            slow(&r).unwrap().to_string(),
            "slow: the median sample ran 20.0 s, longer than the 10.0 s watchdog interval; it kept delivering, so it finished and is not hung, but a sample is meant to take a small part of that"
        );
        // Ping-pong round trips count the same way.
        let mut pp = r.clone();
        pp.workload = WorkloadKind::PingPong;
        assert!(slow(&pp).is_some());
    }

    #[test]
    fn the_median_decides_not_one_slow_sample() {
        // One 20 s sample among 10 ms ones.
        let r = at(&[100e6, 50_000.0, 100e6]);
        assert_eq!(slow(&r), None);
        // Just under the interval is not slow.
        assert_eq!(slow(&at(&[100_001.0])), None);
    }

    #[test]
    fn open_loop_runs_and_results_without_samples_are_never_slow() {
        // A paced run's duration is its schedule's.
        let r = with_rates(paced(10_000, 10_000.0), &[10_000.0, 10_000.0, 10_000.0]);
        assert!(r.samples[0].elapsed_ns > 10_000_000_000);
        assert_eq!(slow(&r), None);
        assert_eq!(slow(&at(&[])), None);
    }
}
