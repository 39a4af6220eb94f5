//! Rules on latency percentiles: whether the timer resolves them, and whether enough
//! observations lie beyond the tail percentiles shown.

use super::Lint;
use crate::probes::Limits;
use crate::report::{Latency, TrialResult};

/// Percentiles need enough observations to be more than the maximum in disguise: a percentile
/// `q` is shown without a lint only if at least `MIN_TAIL_OBSERVATIONS / (1 - q)` values were
/// recorded (so at least this many lie beyond it): 1,000 for p99, 10,000 for p99.9 and 100,000
/// for p99.99.
pub(crate) const MIN_TAIL_OBSERVATIONS: f64 = 10.0;

/// A latency is flagged ([`Lint::ClockStep`]) when the timer's step is over this share of its p50.
const CLOCK_STEP_SHARE: f64 = 0.1;

/// [`Lint::ClockStep`] when the timer's step (measured with the limits) is not small against the
/// p50 of a latency.
pub(super) fn clock_step(limits: Option<&Limits>, latency: Option<&Latency>) -> Option<Lint> {
    let step = limits?.clock_step_ns?;
    let p50 = latency?.p50;
    (step > CLOCK_STEP_SHARE * p50 as f64).then_some(Lint::ClockStep {
        step_ns: step,
        p50_ns: p50,
    })
}

/// The tail percentiles a result's latency carries (and the views print: the open-loop tables
/// all three, ping-pong p99 and p99.9, JSON and CSV all three).
const TAIL_PERCENTILES: [f64; 3] = [0.99, 0.999, 0.9999];

/// [`Lint::TooFewForPercentile`] for the first of p99, p99.9 and p99.99 shown from too few
/// observations (a higher one is not flagged again: it is thinner still).
pub(super) fn too_few_for_percentile(r: &TrialResult) -> Option<Lint> {
    let l = r.latency.as_ref()?;
    TAIL_PERCENTILES.into_iter().find_map(|q| {
        let needed = (MIN_TAIL_OBSERVATIONS / (1.0 - q)).round() as u64;
        (l.count < needed).then_some(Lint::TooFewForPercentile {
            percentile: q * 100.0,
            observations: l.count,
            needed,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{latency, limits, stream};

    #[test]
    fn a_coarse_timer_is_flagged_against_a_short_p50_only() {
        let lim = limits(Some(70.0), Some(10.0));
        assert_eq!(
            clock_step(Some(&lim), Some(&latency(90, 1000))),
            Some(Lint::ClockStep {
                step_ns: 10.0,
                p50_ns: 90
            })
        );
        // 10 ns is 1% of a microsecond: not flagged.
        assert_eq!(clock_step(Some(&lim), Some(&latency(1000, 1000))), None);
        // No step measured, no limits, or no latency: nothing to say.
        let unmeasured = limits(Some(70.0), None);
        assert_eq!(
            clock_step(Some(&unmeasured), Some(&latency(90, 1000))),
            None
        );
        assert_eq!(clock_step(None, Some(&latency(90, 1000))), None);
        assert_eq!(clock_step(Some(&lim), None), None);
    }

    #[test]
    fn a_tail_percentile_needs_ten_observations_beyond_it() {
        let mut r = stream();
        assert_eq!(too_few_for_percentile(&r), None);
        r.latency = Some(latency(200, 999));
        // p99 needs 1000; p99.9 is not said again.
        assert_eq!(
            too_few_for_percentile(&r),
            Some(Lint::TooFewForPercentile {
                percentile: 99.0,
                observations: 999,
                needed: 1000
            })
        );
        r.latency = Some(latency(200, 5000));
        let Some(Lint::TooFewForPercentile {
            percentile,
            observations: 5000,
            needed: 10_000,
        }) = too_few_for_percentile(&r)
        else {
            panic!("p99.9 from 5000 observations not flagged");
        };
        assert!((percentile - 99.9).abs() < 1e-9, "{percentile}");
        // 10,000 observations hold p99.9 but not p99.99.
        r.latency = Some(latency(200, 10_000));
        let Some(Lint::TooFewForPercentile {
            percentile,
            observations: 10_000,
            needed: 100_000,
        }) = too_few_for_percentile(&r)
        else {
            panic!("p99.99 from 10,000 observations not flagged");
        };
        assert!((percentile - 99.99).abs() < 1e-9, "{percentile}");
        r.latency = Some(latency(200, 100_000));
        assert_eq!(too_few_for_percentile(&r), None);
    }
}
