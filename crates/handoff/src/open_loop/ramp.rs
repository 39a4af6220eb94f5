//! The saturation search: the highest rate a transport sustains.
//!
//! Coarse steps multiply the rate by [`RampSpec::factor`] from [`RampSpec::start`] until a step
//! is not sustained (or [`RampSpec::max`] is passed); then [`RampSpec::refine`] bisection steps
//! (geometric means) between the last rate sustained and the first one not sustained narrow the
//! knee. A step is *sustained* when no send was refused, the achieved rate is at least
//! [`MIN_ACHIEVED`] of the requested one, and the p99 latency is within the bound if one is set.
//!
//! A shared machine can fail one step by accident (the consumer descheduled for a few
//! milliseconds fills any queue); a step that is not sustained is therefore run once more, and
//! the rate counts as not sustained only if the second run fails too. Both runs are kept.
//!
//! The search is a pure function of a step runner, so it is tested without threads.

use crate::workload::RampSpec;
use handoff_model::fmt;

pub use handoff_model::open_loop::{RampOutcome, RampStep, StepFigures, MIN_ACHIEVED};

/// Why a step was not sustained.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum NotSustained {
    /// Sends were refused (a full queue).
    #[error("{0} sends refused")]
    Refused(u64),
    /// The achieved rate fell short of [`MIN_ACHIEVED`] of the requested one.
    #[error(
        "achieved {} of {} requested ({:.1}%)",
        fmt::rate(*.achieved),
        fmt::rate(*.requested as f64),
        100.0 * .achieved / (*.requested).max(1) as f64
    )]
    TooSlow {
        /// The rate achieved, messages per second.
        achieved: f64,
        /// The rate requested.
        requested: u64,
    },
    /// The p99 latency exceeded the bound.
    #[error(
        "p99 {} above the bound of {}",
        fmt::duration(*.p99 as f64),
        fmt::duration(*.bound as f64)
    )]
    Latency {
        /// The p99 latency, nanoseconds.
        p99: u64,
        /// The bound, nanoseconds.
        bound: u64,
    },
}

/// Whether a step was sustained; `Err` says why not.
pub(crate) fn judge(spec: &RampSpec, f: &StepFigures) -> Result<(), NotSustained> {
    if f.refused > 0 {
        return Err(NotSustained::Refused(f.refused));
    }
    if f.achieved < f.requested as f64 * MIN_ACHIEVED {
        return Err(NotSustained::TooSlow {
            achieved: f.achieved,
            requested: f.requested,
        });
    }
    if let Some(bound) = spec.p99_bound_ns {
        if f.p99 > bound {
            return Err(NotSustained::Latency { p99: f.p99, bound });
        }
    }
    Ok(())
}

/// Runs the search. `step(rate)` runs one step at `rate`; an `Err` (the sample failed
/// verification, hung or crashed) ends the search at once and is returned with what was found.
pub(crate) fn search<E>(
    spec: &RampSpec,
    mut step: impl FnMut(u64) -> Result<StepFigures, E>,
) -> (RampOutcome, Option<E>) {
    let mut out = RampOutcome::default();
    // Runs a step (twice if the first is not sustained) and says whether it was sustained.
    let mut attempt = |rate: u64, refinement: bool, out: &mut RampOutcome| -> Result<bool, E> {
        for _ in 0..2 {
            let f = step(rate)?;
            let verdict = judge(spec, &f);
            let ok = verdict.is_ok();
            out.steps.push(RampStep {
                figures: f,
                sustained: ok,
                reason: verdict.err().map(|e| e.to_string()),
                refinement,
            });
            if ok {
                return Ok(true);
            }
        }
        Ok(false)
    };

    let factor = spec.factor.max(2);
    let mut rate = spec.start.max(1);
    loop {
        if rate > spec.max {
            out.ended = format!(
                "reached the highest rate to try ({})",
                fmt::rate(spec.max as f64)
            );
            return (out, None);
        }
        match attempt(rate, false, &mut out) {
            Err(e) => {
                out.ended = "a step did not pass verification".into();
                return (out, Some(e));
            }
            Ok(true) => {
                out.sustained = Some(rate);
                rate = rate.saturating_mul(factor);
            }
            Ok(false) => {
                out.not_sustained = Some(rate);
                break;
            }
        }
    }
    let Some(mut good) = out.sustained else {
        out.ended = format!(
            "the first rate tried ({}) was not sustained",
            fmt::rate(rate as f64)
        );
        return (out, None);
    };
    let mut bad = rate;
    for _ in 0..spec.refine {
        let mid = ((good as f64) * (bad as f64)).sqrt().round() as u64;
        if mid <= good || mid >= bad {
            break;
        }
        match attempt(mid, true, &mut out) {
            Err(e) => {
                out.ended = "a step did not pass verification".into();
                out.sustained = Some(good);
                out.not_sustained = Some(bad);
                return (out, Some(e));
            }
            Ok(true) => good = mid,
            Ok(false) => bad = mid,
        }
    }
    out.sustained = Some(good);
    out.not_sustained = Some(bad);
    out.ended = format!(
        "knee between {} and {} (×{:.3})",
        fmt::rate(good as f64),
        fmt::rate(bad as f64),
        bad as f64 / good as f64
    );
    (out, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(rate: u64, knee: u64) -> StepFigures {
        StepFigures {
            requested: rate,
            achieved: rate as f64,
            refused: if rate > knee { 3 } else { 0 },
            delivered: rate,
            p50: 100,
            p90: 100,
            p99: 100,
            p999: 100,
            max: 100,
            hop_fill: vec![],
            hop_depth: vec![],
        }
    }

    #[test]
    fn finds_a_knee_within_one_refinement_step() {
        let spec = RampSpec {
            start: 1000,
            factor: 2,
            refine: 3,
            ..RampSpec::default()
        };
        let knee = 50_000;
        let (out, err) = search::<()>(&spec, |r| Ok(figures(r, knee)));
        assert!(err.is_none());
        let (good, bad) = (out.sustained.unwrap(), out.not_sustained.unwrap());
        assert!(good <= knee && bad > knee, "{good} {bad}");
        // Three bisections of a factor-2 bracket leave a bracket of 2^(1/8).
        assert!(bad as f64 / good as f64 <= 2f64.powf(1.0 / 8.0) * 1.01);
    }

    #[test]
    fn a_failed_step_is_retried_once() {
        let spec = RampSpec {
            start: 1000,
            refine: 0,
            ..RampSpec::default()
        };
        let mut calls = 0;
        let (out, _) = search::<()>(&spec, |r| {
            calls += 1;
            // The very first attempt fails by accident; its retry passes.
            let mut f = figures(r, 4000);
            if calls == 1 {
                f.refused = 1;
            }
            Ok(f)
        });
        assert_eq!(out.sustained, Some(4000));
        assert_eq!(out.not_sustained, Some(8000));
        assert_eq!(out.steps.len(), 1 + 1 + 1 + 1 + 2);
    }

    #[test]
    fn p99_bound_and_achieved_rate_count() {
        let spec = RampSpec {
            p99_bound_ns: Some(50),
            ..RampSpec::default()
        };
        let f = figures(1000, u64::MAX);
        let e = judge(&spec, &f).unwrap_err();
        assert!(matches!(e, NotSustained::Latency { .. }), "{e:?}");
        assert!(e.to_string().contains("p99"), "{e}");
        let mut g = figures(1000, u64::MAX);
        g.achieved = 900.0;
        let e = judge(&RampSpec::default(), &g).unwrap_err();
        assert_eq!(
            e.to_string(),
            "achieved 900/s of 1.00 k/s requested (90.0%)"
        );
    }

    #[test]
    fn an_error_ends_the_search_and_keeps_the_steps() {
        let (out, err) = search(&RampSpec::default(), |r| {
            if r >= 4000 {
                Err("hung")
            } else {
                Ok(figures(r, u64::MAX))
            }
        });
        assert_eq!(err, Some("hung"));
        assert_eq!(out.steps.len(), 2);
        assert_eq!(out.sustained, Some(2000));
    }
}
