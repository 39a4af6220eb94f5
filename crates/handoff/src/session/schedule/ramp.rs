//! A ramp's search for the highest rate sustained, run step by step through its trial, then its
//! soak at that rate if it has one; the message counts of its steps, and the steps and time a
//! plan counts on before the search runs.

use super::trial::Trial;
use crate::histogram;
use crate::open_loop::ramp::{self, StepFigures};
use crate::outcome::SampleOutcome;
use crate::workload::{Messages, Pacing, RampSpec};
use std::time::Duration;

/// Fewest messages in one step of a ramp.
const MIN_STEP_MESSAGES: u64 = 200;

/// Coarse steps a plan counts on at most: a search that goes further finds its knee late (from
/// 1000/s, doubling, past 2 M/s).
const MAX_PLANNED_COARSE: usize = 12;

/// Steps planned for a ramp before it runs, and how long one lasts on average: the coarse rates
/// up to its highest (at most [`MAX_PLANNED_COARSE`] of them), each for its step's count at its
/// rate (a slow step runs at least [`MIN_STEP_MESSAGES`]), then its refinements, between the last
/// two coarse rates. The search may stop sooner (at its knee) or run a step twice (a step not
/// sustained is tried again).
pub(super) fn planned_steps(r: &RampSpec) -> (usize, Duration) {
    let factor = r.factor.max(2);
    let mut rates = Vec::new();
    let mut rate = r.start.max(1);
    while rate <= r.max && rates.len() < MAX_PLANNED_COARSE {
        rates.push(rate);
        rate = rate.saturating_mul(factor);
    }
    let Some(&last) = rates.last() else {
        // Not even the first rate is tried: the search ends at once.
        return (1, step_time(r, r.start.max(1)));
    };
    let refine = r.refine as usize;
    let total = rates.iter().map(|&x| step_time(r, x)).sum::<Duration>()
        + step_time(r, last) * refine as u32;
    let steps = rates.len() + refine;
    (steps, total / steps as u32)
}

/// How long a step at `rate` lasts by its schedule.
fn step_time(r: &RampSpec, rate: u64) -> Duration {
    Duration::from_secs_f64(step_messages(r, rate) as f64 / rate.max(1) as f64)
}

/// Messages in one step of a ramp at `rate`.
pub(super) fn step_messages(r: &RampSpec, rate: u64) -> u64 {
    (rate.saturating_mul(r.step_ms) / 1000).max(MIN_STEP_MESSAGES)
}

/// Runs a ramp's search; the samples of the highest rate sustained become the trial's timed
/// samples, so its figures are the ones reported. A ramp with a soak's `duration` then soaks at
/// that rate ([`soak_at_sustained`]).
pub(super) fn search_rates(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    let Pacing::Ramp(spec) = t.spec.pacing.clone() else {
        return;
    };
    let mut kept: Vec<(u64, SampleOutcome)> = Vec::new();
    let mut last_placement = t.last_placement.clone();
    let (search, err) = ramp::search(&spec, |rate| {
        let o = t.sample(step_messages(&spec, rate), Some(rate));
        on(&o);
        last_placement = o.placement.clone();
        if !o.status.is_pass() {
            return Err(Box::new(o));
        }
        let f = step_figures(rate, &o);
        kept.push((rate, o));
        Ok(f)
    });
    t.last_placement = last_placement;
    if let Some(best) = search.sustained {
        t.outcomes = kept
            .into_iter()
            .filter(|(r, o)| *r == best && ramp_step_sustained(&spec, r, o))
            .map(|(_, o)| o)
            .collect();
        t.messages = step_messages(&spec, best);
    }
    t.stop = err.map(|o| *o);
    t.ramp = Some(search);
}

/// A ramp with a soak's `duration`, whose search sustained a rate, soaks at that rate: the soak's
/// one sample becomes the trial's timed sample (the search keeps the sustained step's figures).
pub(super) fn soak_at_sustained(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    let best = t.ramp.as_ref().and_then(|s| s.sustained);
    if let (Messages::Soak { duration_ms, .. }, Some(best), None) = (t.spec.messages, best, &t.stop)
    {
        let n = Messages::over(best, duration_ms);
        let o = t.sample(n, Some(best));
        on(&o);
        t.last_placement = o.placement.clone();
        if o.status.is_pass() {
            t.outcomes = vec![o];
            t.messages = n;
        } else {
            t.stop = Some(o);
        }
    }
}

fn ramp_step_sustained(spec: &RampSpec, rate: &u64, o: &SampleOutcome) -> bool {
    ramp::judge(spec, &step_figures(*rate, o)).is_ok()
}

/// The figures a ramp judges a step by.
fn step_figures(rate: u64, o: &SampleOutcome) -> StepFigures {
    let h = o.latency.as_deref().and_then(|e| histogram::decode(e).ok());
    let q = |q: f64| h.as_ref().map_or(0, |h| h.value_at_quantile(q));
    let paced = o.paced.as_deref();
    StepFigures {
        requested: rate,
        achieved: paced.map_or(0.0, |p| p.achieved_rate),
        refused: paced.map_or(0, |p| p.refused),
        delivered: o.messages,
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
        p999: q(0.999),
        max: h.as_ref().map_or(0, |h| h.max()),
        hop_fill: paced.map_or(Vec::new(), |p| p.hops.iter().map(|h| h.fill()).collect()),
        hop_depth: paced.map_or(Vec::new(), |p| p.hops.iter().map(|h| h.mean).collect()),
    }
}
