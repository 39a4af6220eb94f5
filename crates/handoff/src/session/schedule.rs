//! Scheduling a session's trials: in groups of live workers (see [`crate::groups`]), each
//! group's trials calibrated and warmed up, then their timed samples interleaved in rounds (round
//! 1 of A, B, C, then round 2 …) so drift of a shared machine hits every transport alike, then
//! the ramps' searches; under consensus, one message count per stream.
//!
//! A trial's life is in [`trial`], its untimed samples in [`calibrate`], a ramp's search in
//! [`ramp`].

mod calibrate;
mod ramp;
mod trial;

use super::{Event, Isolation, TrialPlan};
use crate::consensus::{self, StreamKey};
use crate::groups;
use crate::workload::{Pacing, TrialSpec};
use std::ops::Range;
use std::time::Duration;

pub(super) use trial::{Launcher, Trial};

/// The order to run `specs` in (`order[i]` is the plan index of the `i`th trial run) and its
/// groups, as ranges of that order: one group when trials run in process, else groups of at most
/// [`groups::live_worker_limit`] workers, a table's trials together.
pub(super) fn groups(
    specs: &[TrialSpec],
    isolation: &Isolation,
) -> (Vec<usize>, Vec<Range<usize>>) {
    let limit = match isolation {
        Isolation::InProcess => specs.len(),
        Isolation::Subprocess(_) => groups::live_worker_limit(),
    };
    groups::plan(
        &specs.iter().map(groups::table_key).collect::<Vec<_>>(),
        limit,
    )
}

/// Closes the executors of `trials`.
pub(super) fn close_all(trials: &mut [Trial]) {
    trials.iter_mut().for_each(Trial::close);
}

/// Each trial's timed samples and their schedule, by trial index (a ramp's steps count as its
/// samples).
pub(super) fn planned(trials: &[Trial]) -> Vec<TrialPlan> {
    let mut plan = vec![TrialPlan::default(); trials.len()];
    for t in trials {
        let (samples, scheduled) = match (&t.spec.pacing, &t.ramp) {
            (Pacing::Ramp(r), done) => (
                done.as_ref()
                    .map_or_else(|| ramp::planned_ramp_steps(r), |d| d.steps.len()),
                Some(Duration::from_millis(r.step_ms)),
            ),
            (Pacing::Rate(rate), _) => (
                t.spec.samples,
                calibrate::paced_count(&t.spec)
                    .map(|n| Duration::from_secs_f64(n as f64 / (*rate).max(1) as f64)),
            ),
            (Pacing::Closed, _) => (t.spec.samples, None),
        };
        if let Some(p) = plan.get_mut(t.index) {
            *p = TrialPlan {
                samples,
                scheduled,
                ramp: t.is_ramp(),
            };
        }
    }
    plan
}

/// Calibrates every trial, in order; a trial that stops there is closed.
pub(super) fn calibrate_all(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        let i = t.index;
        let label = t.spec.label();
        on(Event::Preparing {
            trial: i,
            label: &label,
        });
        calibrate::calibrate(t, &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: false,
                outcome: o,
            })
        });
        if t.stop.is_some() {
            t.close();
        }
    }
}

/// Runs every trial's warm-up samples, in order; a trial that stops there is closed.
pub(super) fn warm_up_all(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        if t.stop.is_some() {
            continue;
        }
        let i = t.index;
        let label = t.spec.label();
        calibrate::warm_up(t, &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: false,
                outcome: o,
            })
        });
        if t.stop.is_some() {
            t.close();
        }
    }
}

/// Consensus: every trial of a stream runs the one count of [`consensus::count`] (the smallest
/// calibrated). Ramps and `latest` pipelines keep theirs: they are not compared.
pub(super) fn one_count_per_stream(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    let keys: Vec<(Option<StreamKey>, Option<u64>)> = trials
        .iter()
        .map(|t| {
            (
                StreamKey::of_spec(&t.spec).ok(),
                t.stop.is_none().then_some(t.messages),
            )
        })
        .collect();
    let counts = consensus::count::unify(&keys);
    let mut said: Vec<&StreamKey> = Vec::new();
    for ((t, n), (key, _)) in trials.iter_mut().zip(&counts).zip(&keys) {
        let (Some(n), Some(key)) = (n, key) else {
            continue;
        };
        t.messages = *n;
        if !said.contains(&key) {
            said.push(key);
            let members = counts
                .iter()
                .zip(&keys)
                .filter(|(c, (k, _))| c.is_some() && k.as_ref() == Some(key))
                .count();
            on(Event::CountFixed {
                stream: &key.to_string(),
                messages: *n,
                trials: members,
            });
        }
    }
}

/// The timed samples of every trial but the ramps, interleaved: round 1 of each trial, then
/// round 2 … A trial stops at its first sample that does not pass.
pub(super) fn run_rounds(trials: &mut [Trial], group: (usize, usize), on: &mut dyn FnMut(Event)) {
    let rounds = trials
        .iter()
        .filter(|t| !t.is_ramp())
        .map(|t| t.spec.samples)
        .max()
        .unwrap_or(0);
    for round in 0..rounds {
        for t in trials.iter_mut() {
            if t.stop.is_some() || round >= t.spec.samples || t.is_ramp() {
                continue;
            }
            let i = t.index;
            let o = t.sample(t.messages, None);
            let label = t.spec.label();
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: true,
                outcome: &o,
            });
            t.last_placement = o.placement.clone();
            if !o.status.is_pass() {
                t.stop = Some(o);
                t.close();
            } else {
                t.outcomes.push(o);
            }
        }
        on(Event::RoundDone {
            round: round + 1,
            rounds,
            group,
        });
    }
}

/// The ramps' searches: a search is sequential by nature, so each runs on its own after the
/// rounds.
pub(super) fn run_ramps(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        if !t.is_ramp() || t.stop.is_some() {
            continue;
        }
        let i = t.index;
        let label = t.spec.label();
        ramp::run_ramp(t, &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: true,
                outcome: o,
            })
        });
        t.close();
    }
}
