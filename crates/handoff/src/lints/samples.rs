//! Rules on the timed samples of a closed-loop trial: whether they exercised the queue, and
//! whether they agree with each other well enough for their median to mean something.

use super::Lint;
use crate::report::{TrialResult, Verdict};
use crate::stats::{Summary, NOISY_SPREAD};
use crate::workload::WorkloadKind;

/// A sample below this fraction of its trial's median is an outlier (see [`Lint::Outliers`]).
pub(crate) const OUTLIER_FRACTION: f64 = 1.0 / 3.0;

/// The [`Lint::Outliers`] of a trial's throughput samples, if any sample is one.
pub(crate) fn outliers(samples: &[f64]) -> Option<Lint> {
    let s = Summary::of(samples)?;
    if s.n < 3 || s.median <= 0.0 {
        return None;
    }
    let slow = samples
        .iter()
        .filter(|&&x| x < s.median * OUTLIER_FRACTION)
        .count();
    (slow > 0).then(|| Lint::Outliers {
        slow,
        samples: s.n,
        slowest: s.min / s.median,
    })
}

/// [`Lint::CapacityNeverFills`]: a bounded queue of a closed-loop stream that can hold every
/// message of a sample. (A ping-pong holds one message at a time whatever its capacity; an
/// open-loop run is paced, not flooded.)
pub(super) fn capacity_never_fills(r: &TrialResult) -> Option<Lint> {
    let cap = r.params.capacity.filter(|_| !r.workload.is_open_loop())?;
    let messages = r.params.messages;
    (r.workload != WorkloadKind::PingPong && messages > 0 && cap as u64 >= messages).then_some(
        Lint::CapacityNeverFills {
            capacity: cap,
            messages,
        },
    )
}

/// [`Lint::Noisy`], [`Lint::Outliers`] and [`Lint::FewSamples`], in that order, over the
/// throughput of the timed samples.
pub(super) fn throughput(r: &TrialResult) -> Vec<Lint> {
    let mut lints = Vec::new();
    let Some(s) = &r.throughput else {
        return lints;
    };
    if s.n >= 2 && s.is_noisy() {
        lints.push(Lint::Noisy {
            spread: s.spread,
            threshold: NOISY_SPREAD,
        });
    }
    // A ramp's samples are its steps, at rates that differ on purpose. Two regimes found by
    // the mode detector are said by [`bimodal`], with both their figures.
    if r.ramp.is_none() && !r.workload.is_open_loop() && r.modes.is_none() {
        let rates: Vec<f64> = r.samples.iter().map(|x| x.msgs_per_s).collect();
        lints.extend(outliers(&rates));
    }
    // A ramp keeps the samples of its highest sustained step; its steps are its samples. A
    // soak's windows are its repeated measurements (and the drift lint judges them).
    let soak = r.samples.iter().any(|x| !x.windows.is_empty());
    if s.n < 3 && r.verdict == Verdict::Pass && r.ramp.is_none() && !soak {
        lints.push(Lint::FewSamples { samples: s.n });
    }
    lints
}

/// [`Lint::Bimodal`]: the timed samples fell into two regimes (the result's `modes`).
pub(super) fn bimodal(r: &TrialResult) -> Option<Lint> {
    let m = r.modes.as_ref()?;
    Some(Lint::Bimodal {
        low: m.low.median,
        low_share: m.low.share,
        high: m.high.median,
        high_share: m.high.share,
        round_trip: r.workload == WorkloadKind::PingPong,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{stream, with_rates};
    use crate::report::RampResult;
    use crate::stats::modes;

    #[test]
    fn one_slow_sample_is_an_outlier() {
        let lint = outliers(&[560.0, 575.0, 70.0, 580.0, 566.0]).unwrap();
        assert_eq!(
            lint,
            Lint::Outliers {
                slow: 1,
                samples: 5,
                slowest: 70.0 / 566.0
            }
        );
        assert_eq!(
            lint.to_string(),
            "outliers: 1 of 5 samples below a third of the median (slowest 12% of it): two regimes in one trial; the median shows the common one"
        );
    }

    #[test]
    fn an_ordinary_spread_is_not() {
        assert_eq!(outliers(&[400.0, 560.0, 575.0, 590.0, 300.0]), None);
        // Too few samples to call one an outlier.
        assert_eq!(outliers(&[560.0, 70.0]), None);
        assert_eq!(outliers(&[]), None);
    }

    #[test]
    fn a_queue_that_holds_a_whole_sample_never_fills() {
        let mut r = stream();
        r.params.capacity = Some(1024);
        r.params.messages = 1000;
        assert_eq!(
            capacity_never_fills(&r),
            Some(Lint::CapacityNeverFills {
                capacity: 1024,
                messages: 1000
            })
        );
        r.params.messages = 1025;
        assert_eq!(capacity_never_fills(&r), None);
        // Unbounded: there is nothing to fill.
        r.params.messages = 1000;
        r.params.capacity = None;
        assert_eq!(capacity_never_fills(&r), None);
    }

    #[test]
    fn capacity_is_not_judged_for_ping_pong_or_open_loop() {
        let mut r = stream();
        r.params.capacity = Some(1024);
        r.params.messages = 1000;
        for w in [
            WorkloadKind::PingPong,
            WorkloadKind::Paced,
            WorkloadKind::Pipeline,
        ] {
            r.workload = w;
            assert_eq!(capacity_never_fills(&r), None, "{w}");
        }
        r.workload = WorkloadKind::Mpsc;
        assert!(capacity_never_fills(&r).is_some());
        // No message counted (the trial stopped before calibrating): nothing to compare.
        r.params.messages = 0;
        assert_eq!(capacity_never_fills(&r), None);
    }

    #[test]
    fn a_wide_spread_is_noisy_and_a_slow_sample_an_outlier() {
        let r = with_rates(stream(), &[100.0, 130.0, 70.0, 100.0, 20.0]);
        let lints = throughput(&r);
        let spread = r.throughput.unwrap().spread;
        assert!(spread > NOISY_SPREAD, "{spread}");
        assert_eq!(
            lints,
            vec![
                Lint::Noisy {
                    spread,
                    threshold: NOISY_SPREAD
                },
                Lint::Outliers {
                    slow: 1,
                    samples: 5,
                    slowest: 0.2
                }
            ]
        );
        assert_eq!(
            throughput(&with_rates(stream(), &[100.0, 101.0, 99.0])),
            vec![]
        );
    }

    #[test]
    fn fewer_than_three_samples_are_few_for_a_passing_closed_loop_trial_only() {
        let r = with_rates(stream(), &[100.0, 100.0]);
        assert_eq!(throughput(&r), vec![Lint::FewSamples { samples: 2 }]);
        // A failed trial says why it stopped; its samples are not the point.
        let mut failed = r.clone();
        failed.verdict = Verdict::Fail;
        assert_eq!(throughput(&failed), vec![]);
        // A ramp's samples are those of one step.
        let mut ramp = r.clone();
        ramp.ramp = Some(RampResult {
            search: Default::default(),
            saturating_hop: None,
        });
        assert_eq!(throughput(&ramp), vec![]);
        // No sample passed: no throughput, nothing to say of it.
        assert_eq!(throughput(&with_rates(stream(), &[])), vec![]);
    }

    #[test]
    fn open_loop_samples_are_not_outliers() {
        let mut r = with_rates(stream(), &[100.0, 60.0, 10.0, 140.0]);
        assert!(matches!(
            throughput(&r)[..],
            [Lint::Noisy { .. }, Lint::Outliers { .. }]
        ));
        r.workload = WorkloadKind::Paced;
        assert!(matches!(throughput(&r)[..], [Lint::Noisy { .. }]));
    }

    #[test]
    fn two_regimes_are_named_with_their_shares() {
        let rates = [
            41e6, 42e6, 40.5e6, 41.2e6, 41.8e6, 41.2e6, 283e6, 280e6, 285e6, 290e6, 279e6, 284e6,
            282e6, 286e6, 281e6,
        ];
        let mut r = with_rates(stream(), &rates);
        r.modes = modes::detect(&rates);
        let Some(Lint::Bimodal {
            low,
            low_share,
            high,
            high_share,
            round_trip: false,
        }) = bimodal(&r)
        else {
            panic!("two regimes not said: {:?}", r.modes);
        };
        assert!((low / 41.2e6 - 1.0).abs() < 0.01 && (high / 283e6 - 1.0).abs() < 0.01);
        assert!((low_share - 0.4).abs() < 1e-9 && (high_share - 0.6).abs() < 1e-9);
        let text = bimodal(&r).unwrap().to_string();
        assert!(
            text.starts_with("two regimes: 41.2 M/s (40% of samples) and 283 M/s (60%)"),
            "{text}"
        );
        // Said once: not again as outliers, though the slow regime is below a third of the
        // median.
        assert!(throughput(&r)
            .iter()
            .all(|l| !matches!(l, Lint::Outliers { .. })));
    }

    #[test]
    fn one_regime_is_not_bimodal() {
        let rates = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2];
        let mut r = with_rates(stream(), &rates);
        r.modes = modes::detect(&rates);
        assert_eq!(bimodal(&r), None);
        assert_eq!(bimodal(&stream()), None);
    }

    #[test]
    fn ping_pong_regimes_are_round_trips() {
        let mut r = stream();
        r.workload = WorkloadKind::PingPong;
        r.modes = modes::detect(&[
            95.0, 96.0, 94.0, 95.5, 94.5, 410.0, 400.0, 420.0, 405.0, 415.0,
        ]);
        let lint = bimodal(&r).expect("two regimes");
        assert!(matches!(
            lint,
            Lint::Bimodal {
                round_trip: true,
                ..
            }
        ));
        assert!(
            lint.to_string().starts_with(
                "two regimes: 95.0 ns (50% of samples) and 410 ns (50%) per round trip"
            ),
            "{lint}"
        );
    }
}
