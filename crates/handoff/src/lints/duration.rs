//! How long the timed samples ran: too long ([`Lint::Slow`]) or, for a calibrated count, too
//! short ([`Lint::ShortSamples`]).
//!
//! The yardstick is the watchdog interval, the one duration the result holds that says what was
//! expected of a sample: it is the longest the run waits for a *single* delivery, so a sample
//! that takes longer than that *in all* is far beyond what a sample is meant to take
//! (calibrated samples aim at tens of milliseconds; a fixed count is chosen to run for a few
//! seconds at most). Such a sample is exactly the one a fixed deadline would have called hung;
//! the watchdog judges progress instead, so it finishes, and this lint says that it was slow.
//!
//! A calibrated (`auto`) count aims at a target duration; a sample that ran under a quarter of it
//! (the median sample, so one fast sample does not decide) measured start-up and wake-ups as much
//! as hand-offs, whether a stalled pilot or the count's bounds set it so.
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

/// A sample under this share of its calibration target is short.
const SHORT_SHARE: f64 = 0.25;

/// [`Lint::ShortSamples`]: the median timed sample of a calibrated closed-loop trial ran under a
/// quarter of its target.
pub(super) fn short(r: &TrialResult) -> Option<Lint> {
    let target_ms = r.params.target_ms?;
    if r.workload.is_open_loop() {
        return None;
    }
    let elapsed: Vec<f64> = r.samples.iter().map(|s| s.elapsed_ns as f64).collect();
    let median_ms = Summary::of(&elapsed)?.median / 1e6;
    (median_ms < target_ms as f64 * SHORT_SHARE).then_some(Lint::ShortSamples {
        median_ms,
        target_ms,
        messages: r.params.messages,
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

    #[test]
    fn a_calibrated_sample_under_a_quarter_of_its_target_is_short() {
        // 1 000 000 messages at 100 M/s: 10 ms per sample.
        let mut r = stream();
        assert_eq!(short(&r), None, "a fixed count is never short");
        r.params.target_ms = Some(40);
        assert_eq!(short(&r), None, "10 ms is a quarter of 40 ms");
        r.params.target_ms = Some(41);
        let lint = short(&r).expect("10 ms is under a quarter of 41 ms");
        assert_eq!(
            lint,
            Lint::ShortSamples {
                median_ms: 10.0,
                target_ms: 41,
                messages: 1_000_000
            }
        );
        assert!(lint.to_string().starts_with(
            "short-samples: the median sample ran 10 ms, under a quarter of the 41 ms"
        ));
        // The median decides: one short sample among long ones is not.
        let r2 = with_rates(r.clone(), &[1e9, 1e7, 1e7]);
        assert_eq!(short(&r2), None);
        let r3 = with_rates(r, &[1e10, 1e10, 1e7]);
        assert!(short(&r3).unwrap().to_string().contains("ran 0.10 ms"));
    }
}
