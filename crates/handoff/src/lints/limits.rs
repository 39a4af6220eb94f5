//! Rules on a result's distance to the machine's limit: whether the probe it is measured
//! against had repetitions set aside (`probe-unstable`), and whether the result beats the limit
//! (`beyond-limit`), and why.

use super::lint::BeyondCause;
use super::Lint;
use crate::probes::{self, Limits};
use crate::report::TrialResult;

/// Share of a round trip a result may beat it by before [`Lint::BeyondLimit`] is said: timer
/// resolution blurs a round trip by a few ns.
const ROUND_TRIP_TOLERANCE: f64 = 0.95;

/// Share of the streaming limit a result may exceed it by before [`Lint::BeyondLimit`] is said:
/// the limit is the median of the probe's repetitions, which a stable probe's own repetitions
/// scatter around by up to 5% (its relative MAD; see [`crate::probes::repetitions`]).
const STREAM_TOLERANCE: f64 = 1.05;

/// [`Lint::ProbeUnstable`]: the probe the result is measured against had repetitions set aside.
pub(super) fn probe_unstable(r: &TrialResult, limits: Option<&Limits>) -> Option<Lint> {
    let l = r.limit.as_ref()?;
    let reps = limits?.repetitions_of(&l.probe)?;
    if reps.outlying.is_empty() {
        return None;
    }
    Some(Lint::ProbeUnstable {
        probe: l.probe.clone(),
        set_aside: reps.set_aside(),
        median: reps.summary()?.median,
        repetitions: reps.values.len(),
    })
}

/// [`Lint::BeyondLimit`]: a result faster than the machine's measured limit; disturbed if the
/// probe's repetitions were not stable, beyond the probe's geometry if they were.
pub(super) fn beyond_limit(r: &TrialResult, limits: Option<&Limits>) -> Option<Lint> {
    let l = r.limit.as_ref()?;
    let round_trip = l.probe != probes::STREAM;
    let beyond = if round_trip {
        l.ratio < ROUND_TRIP_TOLERANCE
    } else {
        l.ratio > STREAM_TOLERANCE
    };
    let cause = match limits.and_then(|lim| lim.repetitions_of(&l.probe)) {
        None => BeyondCause::Unjudged,
        Some(reps) if reps.is_stable() => BeyondCause::ProbeGeometry,
        Some(_) => BeyondCause::Disturbed,
    };
    beyond.then_some(Lint::BeyondLimit {
        ratio: l.ratio,
        round_trip,
        cause,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{limits, stream};
    use crate::probes::Repetitions;
    use crate::report::LimitDistance;

    fn with_limit(probe: &str, ratio: f64) -> TrialResult {
        let mut r = stream();
        r.limit = Some(LimitDistance {
            reprobe: None,
            probe: probe.into(),
            limit: 100.0,
            ratio,
        });
        r
    }

    /// Limits whose streaming probe ran these repetitions (bytes per second).
    fn streamed(values: &[f64]) -> Limits {
        let mut lim = limits(Some(70.0), None);
        let reps = Repetitions::new(probes::STREAM, values.to_vec());
        lim.stream_bytes_per_s = reps.summary().unwrap();
        lim.repetitions = vec![reps];
        lim
    }

    const STEADY: [f64; 7] = [8.6e9, 8.5e9, 8.7e9, 8.6e9, 8.6e9, 8.4e9, 8.8e9];
    const ONE_WILD: [f64; 7] = [8.6e9, 8.5e9, 8.7e9, 48e9, 8.6e9, 8.4e9, 8.8e9];

    #[test]
    fn a_rate_above_the_streaming_limit_is_beyond_it() {
        assert_eq!(beyond_limit(&with_limit(probes::STREAM, 1.04), None), None);
        assert_eq!(
            beyond_limit(&with_limit(probes::STREAM, 1.2), None),
            Some(Lint::BeyondLimit {
                ratio: 1.2,
                round_trip: false,
                cause: BeyondCause::Unjudged,
            })
        );
        assert_eq!(beyond_limit(&stream(), None), None);
    }

    #[test]
    fn a_round_trip_may_beat_the_probe_by_five_percent() {
        for probe in [probes::RTT_STAMPED, probes::RTT] {
            assert_eq!(
                beyond_limit(&with_limit(probe, 0.96), None),
                None,
                "{probe}"
            );
            assert_eq!(
                beyond_limit(&with_limit(probe, 0.9), None),
                Some(Lint::BeyondLimit {
                    ratio: 0.9,
                    round_trip: true,
                    cause: BeyondCause::Unjudged,
                }),
                "{probe}"
            );
        }
    }

    #[test]
    fn beyond_a_stable_probe_is_beyond_its_geometry() {
        let lim = streamed(&STEADY);
        let lint = beyond_limit(&with_limit(probes::STREAM, 1.3), Some(&lim)).unwrap();
        assert!(
            matches!(
                lint,
                Lint::BeyondLimit {
                    cause: BeyondCause::ProbeGeometry,
                    ..
                }
            ),
            "{lint:?}"
        );
        assert!(
            lint.to_string().contains("against a stable probe"),
            "{lint}"
        );
        assert!(!lint.to_string().contains("disturbed"), "{lint}");
    }

    #[test]
    fn beyond_an_unstable_probe_blames_the_probe() {
        for values in [
            &ONE_WILD[..],
            // Nothing set aside, but spread over 5%.
            &[6.5e9, 9e9, 12e9, 15e9, 21e9],
        ] {
            let lim = streamed(values);
            let lint = beyond_limit(&with_limit(probes::STREAM, 1.3), Some(&lim)).unwrap();
            assert!(
                matches!(
                    lint,
                    Lint::BeyondLimit {
                        cause: BeyondCause::Disturbed,
                        ..
                    }
                ),
                "{values:?}: {lint:?}"
            );
            assert!(lint.to_string().contains("repetitions disagree"), "{lint}");
        }
    }

    #[test]
    fn an_anomalous_repetition_is_said_and_not_the_limit() {
        let lim = streamed(&ONE_WILD);
        assert_eq!(lim.stream_bytes(), 8.6e9);
        let lint = probe_unstable(&with_limit(probes::STREAM, 0.4), Some(&lim)).unwrap();
        assert_eq!(
            lint,
            Lint::ProbeUnstable {
                probe: probes::STREAM.into(),
                set_aside: vec![48e9],
                median: 8.6e9,
                repetitions: 7,
            }
        );
        assert_eq!(
            lint.to_string(),
            "probe stream-bandwidth: repetition 48.0 GB/s disagrees with the median 8.60 GB/s of 7 repetitions; set aside, the limit is the median"
        );
        // A result measured against another probe does not carry it.
        assert_eq!(
            probe_unstable(&with_limit(probes::RTT_STAMPED, 1.5), Some(&lim)),
            None
        );
    }

    #[test]
    fn steady_repetitions_say_nothing() {
        let lim = streamed(&STEADY);
        assert_eq!(
            probe_unstable(&with_limit(probes::STREAM, 0.4), Some(&lim)),
            None
        );
        // No limits, no distance, or repetitions not kept: nothing to say.
        assert_eq!(probe_unstable(&with_limit(probes::STREAM, 0.4), None), None);
        assert_eq!(probe_unstable(&stream(), Some(&lim)), None);
        let old = limits(Some(70.0), None);
        assert_eq!(
            probe_unstable(&with_limit(probes::STREAM, 0.4), Some(&old)),
            None
        );
    }
}
