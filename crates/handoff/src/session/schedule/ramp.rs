//! A ramp's search for the highest rate sustained, run step by step through its trial, and the
//! message counts of its steps.

use super::trial::Trial;
use crate::histogram;
use crate::open_loop::ramp::{self, StepFigures};
use crate::outcome::SampleOutcome;
use crate::workload::{Messages, Pacing, RampSpec};

/// Fewest messages in one step of a ramp.
const MIN_STEP_MESSAGES: u64 = 200;

/// Steps planned for a ramp before it runs (for the progress display).
pub(super) fn planned_ramp_steps(r: &RampSpec) -> usize {
    let coarse = ((r.max as f64 / r.start.max(1) as f64).ln() / (r.factor.max(2) as f64).ln())
        .ceil()
        .clamp(1.0, 40.0) as usize;
    coarse.min(12) + r.refine as usize
}

/// Messages in one step of a ramp at `rate`.
pub(super) fn step_messages(r: &RampSpec, rate: u64) -> u64 {
    (rate.saturating_mul(r.step_ms) / 1000).max(MIN_STEP_MESSAGES)
}

/// Runs a ramp's search; the samples of the highest rate sustained become the trial's timed
/// samples, so its figures are the ones reported. A ramp with a soak's `duration` then soaks at
/// that rate: the soak's one sample is the trial's timed sample.
pub(super) fn run_ramp(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
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
    if let (Messages::Soak { duration_ms, .. }, Some(best), None) =
        (t.spec.messages, search.sustained, &t.stop)
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
    t.ramp = Some(search);
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
