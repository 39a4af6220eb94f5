//! Rules on open-loop runs: whether the schedule was kept, whether saturation could be seen (and
//! was, as refused sends), whether the harness's own timing is small against the latency,
//! whether a ramp found its knee, and whether a ramp's soak held the rate its step sustained.

use super::Lint;
use crate::open_loop::ramp::{self, StepFigures, MIN_ACHIEVED};
use crate::report::TrialResult;
use crate::workload::Pacing;

/// Share of the p50 the harness's own stamping and recording may cost before
/// [`Lint::TimingOverhead`] is said.
const TIMING_OVERHEAD_SHARE: f64 = 0.1;

/// [`Lint::RateMissed`] (not for a ramp, whose steps judge the rate themselves),
/// [`Lint::RefusalsUnobservable`] and [`Lint::TimingOverhead`], in that order.
pub(super) fn paced(r: &TrialResult) -> Vec<Lint> {
    let mut lints = Vec::new();
    let Some(p) = &r.paced else {
        return lints;
    };
    if let (Some(a), None) = (&p.achieved_rate, &r.ramp) {
        if a.median < p.requested_rate as f64 * MIN_ACHIEVED {
            lints.push(Lint::RateMissed {
                requested: p.requested_rate,
                achieved: a.median,
            });
        }
    }
    if !p.refusals_observable {
        lints.push(Lint::RefusalsUnobservable);
    }
    if let Some(l) = &r.latency {
        if p.overhead.stamp_and_record_ns > TIMING_OVERHEAD_SHARE * l.p50 as f64 {
            lints.push(Lint::TimingOverhead {
                overhead_ns: p.overhead.stamp_and_record_ns,
                p50_ns: l.p50,
            });
        }
    }
    lints
}

/// [`Lint::Refused`]: a run at a fixed rate (not a ramp, whose steps judge refusals
/// themselves) had sends refused.
pub(super) fn refused(r: &TrialResult) -> Option<Lint> {
    let (Some(p), Pacing::Rate(rate), None) = (&r.paced, &r.params.pacing, &r.ramp) else {
        return None;
    };
    (p.refused > 0).then(|| Lint::Refused {
        refused: p.refused,
        rate: *rate,
        max_wait_ns: p.refused_wait_max_ns,
        max_latency_ns: r.latency.as_ref().map(|l| l.max),
    })
}

/// [`Lint::RampCeiling`]: a ramp sustained every rate up to its highest.
pub(super) fn ramp_ceiling(r: &TrialResult) -> Option<Lint> {
    let (Some(ramp), Pacing::Ramp(spec)) = (&r.ramp, &r.params.pacing) else {
        return None;
    };
    (ramp.search.not_sustained.is_none() && ramp.search.sustained.is_some())
        .then_some(Lint::RampCeiling { max: spec.max })
}

/// [`Lint::SoakNotSustained`]: a ramp that soaked at the rate it sustained (its timed sample is
/// then the soak, measured in windows), whose soak does not pass the judgement its steps passed.
/// A ramp without a soak keeps the samples of its sustained step, which passed it.
pub(super) fn soak_not_sustained(r: &TrialResult) -> Option<Lint> {
    let (Some(search), Pacing::Ramp(spec), Some(p), Some(l)) =
        (&r.ramp, &r.params.pacing, &r.paced, &r.latency)
    else {
        return None;
    };
    let rate = search.search.sustained?;
    let soak_ms = r
        .samples
        .iter()
        .map(|s| s.windows.iter().map(|w| w.length_ms).sum::<f64>())
        .fold(0.0, f64::max);
    if soak_ms <= 0.0 {
        return None;
    }
    let soaked = StepFigures {
        requested: rate,
        achieved: p.achieved_rate.as_ref().map_or(0.0, |a| a.median),
        refused: p.refused,
        delivered: p.delivered,
        p50: l.p50,
        p90: l.p90,
        p99: l.p99,
        p999: l.p999,
        max: l.max,
        hop_fill: Vec::new(),
        hop_depth: Vec::new(),
    };
    let missed = ramp::judge(spec, &soaked).err()?;
    Some(Lint::SoakNotSustained {
        rate,
        step_ms: spec.step_ms,
        soak_ms: soak_ms.round() as u64,
        reason: missed.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{latency, paced as paced_result, soaked_ramp, stream};
    use crate::open_loop::ramp::RampOutcome;
    use crate::report::RampResult;
    use crate::workload::RampSpec;

    #[test]
    fn a_closed_loop_result_has_no_open_loop_lints() {
        assert_eq!(paced(&stream()), vec![]);
        assert_eq!(ramp_ceiling(&stream()), None);
    }

    #[test]
    fn a_missed_schedule_is_flagged_below_99_percent() {
        let mut r = paced_result(10_000, 9_901.0);
        assert_eq!(paced(&r), vec![]);
        r = paced_result(10_000, 9_899.0);
        assert_eq!(
            paced(&r),
            vec![Lint::RateMissed {
                requested: 10_000,
                achieved: 9_899.0
            }]
        );
        // A ramp's steps are judged by the search, not by this lint.
        r.ramp = Some(RampResult {
            search: RampOutcome::default(),
            saturating_hop: None,
        });
        assert_eq!(paced(&r), vec![]);
    }

    #[test]
    fn unobservable_refusals_and_a_costly_harness_are_said_in_order() {
        let mut r = paced_result(10_000, 9_000.0);
        r.paced.as_mut().unwrap().refusals_observable = false;
        r.paced.as_mut().unwrap().overhead.stamp_and_record_ns = 25.0;
        r.latency = Some(latency(200, 100_000));
        assert_eq!(
            paced(&r),
            vec![
                Lint::RateMissed {
                    requested: 10_000,
                    achieved: 9_000.0
                },
                Lint::RefusalsUnobservable,
                Lint::TimingOverhead {
                    overhead_ns: 25.0,
                    p50_ns: 200
                }
            ]
        );
        // 25 ns is not 10% of 300 ns.
        r.latency = Some(latency(300, 100_000));
        assert!(!paced(&r)
            .iter()
            .any(|l| matches!(l, Lint::TimingOverhead { .. })));
    }

    #[test]
    fn a_ramp_that_never_failed_hit_its_ceiling() {
        let mut r = paced_result(10_000, 10_000.0);
        let spec = RampSpec {
            max: 4_000_000,
            ..RampSpec::default()
        };
        r.params.pacing = Pacing::Ramp(spec);
        let with = |sustained, not_sustained| {
            Some(RampResult {
                search: RampOutcome {
                    sustained,
                    not_sustained,
                    ..RampOutcome::default()
                },
                saturating_hop: None,
            })
        };
        r.ramp = with(Some(4_000_000), None);
        assert_eq!(ramp_ceiling(&r), Some(Lint::RampCeiling { max: 4_000_000 }));
        // A knee was found, or nothing was sustained at all: no ceiling.
        r.ramp = with(Some(1_000_000), Some(2_000_000));
        assert_eq!(ramp_ceiling(&r), None);
        r.ramp = with(None, Some(1_000));
        assert_eq!(ramp_ceiling(&r), None);
    }

    /// A ramp sustained 128 k/s in a step of 500 ms within its p99 bound of 20 ms; its soak of
    /// 20 s at that rate had a p99 of 40.6 ms: the soak is said not to have sustained it.
    #[test]
    fn a_soak_over_the_bound_its_step_kept_is_said() {
        let r = soaked_ramp(12_000_000, 40_600_000);
        let lint = soak_not_sustained(&r).expect("the soak missed the bound");
        assert_eq!(
            lint,
            Lint::SoakNotSustained {
                rate: 128_000,
                step_ms: 500,
                soak_ms: 20_000,
                reason: "p99 40.6 ms above the bound of 20.0 ms".into(),
            }
        );
        assert_eq!(
            lint.to_string(),
            "soak-not-sustained: a soak of 20.0 s at 128 k/s, the highest rate a ramp step of 500 ms sustained, did not sustain it: p99 40.6 ms above the bound of 20.0 ms; the row's latency is the step's, the soak's is in its windows"
        );
        // The soak is judged as a step is: a refused send is enough, within the bound too.
        let mut refusing = soaked_ramp(12_000_000, 15_000_000);
        assert_eq!(soak_not_sustained(&refusing), None);
        refusing.paced.as_mut().unwrap().refused = 2;
        assert!(
            matches!(&soak_not_sustained(&refusing), Some(Lint::SoakNotSustained { reason, .. }) if reason == "2 sends refused"),
            "{:?}",
            soak_not_sustained(&refusing)
        );
    }

    #[test]
    fn a_ramp_without_a_soak_or_a_bound_has_nothing_to_say_of_one() {
        // Without windows the timed sample is the sustained step's, which its search judged.
        let mut r = soaked_ramp(12_000_000, 40_600_000);
        r.samples[0].windows.clear();
        assert_eq!(soak_not_sustained(&r), None);
        // Without a bound, latency alone sustains nothing and fails nothing.
        let mut r = soaked_ramp(12_000_000, 40_600_000);
        if let Pacing::Ramp(spec) = &mut r.params.pacing {
            spec.p99_bound_ns = None;
        }
        assert_eq!(soak_not_sustained(&r), None);
        // Nothing sustained, nothing soaked.
        let mut r = soaked_ramp(12_000_000, 40_600_000);
        r.ramp.as_mut().unwrap().search.sustained = None;
        assert_eq!(soak_not_sustained(&r), None);
        assert_eq!(soak_not_sustained(&stream()), None);
    }

    #[test]
    fn refused_sends_at_a_fixed_rate_are_said_with_their_wait() {
        let mut r = paced_result(1_000, 1_000.0);
        r.workload = crate::workload::WorkloadKind::Pipeline;
        r.latency = Some(latency(20_000, 10_000));
        r.latency.as_mut().unwrap().max = 99_900_000;
        let p = r.paced.as_mut().unwrap();
        p.refused = 2;
        p.refused_wait_max_ns = 99_800_000;
        let lint = refused(&r).expect("refusals said");
        assert_eq!(
            lint,
            Lint::Refused {
                refused: 2,
                rate: 1_000,
                max_wait_ns: 99_800_000,
                max_latency_ns: Some(99_900_000),
            }
        );
        assert!(
            lint.to_string().starts_with(
                "2 sends refused at 1.00 k/s: the transport was full when they were due, and the longest waited 99.8 ms for room (max latency 99.9 ms); the rate was not sustained throughout"
            ),
            "{lint}"
        );
    }

    #[test]
    fn no_refusal_or_a_ramp_says_nothing_of_refusals() {
        // None refused.
        assert_eq!(refused(&paced_result(1_000, 1_000.0)), None);
        // A closed-loop result has no schedule to refuse.
        assert_eq!(refused(&stream()), None);
        // A ramp judges its steps by their refusals itself.
        let mut r = paced_result(1_000, 1_000.0);
        r.paced.as_mut().unwrap().refused = 3;
        assert!(refused(&r).is_some());
        r.params.pacing = Pacing::Ramp(RampSpec::default());
        r.ramp = Some(RampResult {
            search: RampOutcome::default(),
            saturating_hop: None,
        });
        assert_eq!(refused(&r), None);
    }
}
