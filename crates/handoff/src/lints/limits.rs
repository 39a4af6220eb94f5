//! Rules on a result's distance to the machine's limit.

use super::Lint;
use crate::report::TrialResult;

/// The probe whose limit is a rate (messages per second); every other probe is a round trip.
const STREAM_PROBE: &str = "stream-bandwidth";

/// Share of a round trip a result may beat it by before [`Lint::BeyondLimit`] is said: timer
/// resolution blurs a round trip by a few ns.
const ROUND_TRIP_TOLERANCE: f64 = 0.95;

/// [`Lint::BeyondLimit`]: a result faster than the machine's measured limit.
pub(super) fn beyond_limit(r: &TrialResult) -> Option<Lint> {
    let l = r.limit.as_ref()?;
    let round_trip = l.probe != STREAM_PROBE;
    let beyond = if round_trip {
        l.ratio < ROUND_TRIP_TOLERANCE
    } else {
        l.ratio > 1.0
    };
    beyond.then_some(Lint::BeyondLimit {
        ratio: l.ratio,
        round_trip,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::stream;
    use crate::report::LimitDistance;

    fn with_limit(probe: &str, ratio: f64) -> TrialResult {
        let mut r = stream();
        r.limit = Some(LimitDistance {
            probe: probe.into(),
            limit: 100.0,
            ratio,
        });
        r
    }

    #[test]
    fn a_rate_above_the_streaming_limit_is_beyond_it() {
        assert_eq!(beyond_limit(&with_limit(STREAM_PROBE, 0.99)), None);
        assert_eq!(
            beyond_limit(&with_limit(STREAM_PROBE, 1.2)),
            Some(Lint::BeyondLimit {
                ratio: 1.2,
                round_trip: false
            })
        );
        assert_eq!(beyond_limit(&stream()), None);
    }

    #[test]
    fn a_round_trip_may_beat_the_probe_by_five_percent() {
        for probe in ["cacheline-rtt-stamped", "cacheline-rtt"] {
            assert_eq!(beyond_limit(&with_limit(probe, 0.96)), None, "{probe}");
            assert_eq!(
                beyond_limit(&with_limit(probe, 0.9)),
                Some(Lint::BeyondLimit {
                    ratio: 0.9,
                    round_trip: true
                }),
                "{probe}"
            );
        }
    }
}
