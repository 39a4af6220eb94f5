//! Scheduling a session's trials: in groups of live workers (see [`crate::groups`]), each
//! group's trials calibrated and warmed up, then their timed samples interleaved in rounds (round
//! 1 of A, B, C, then round 2 …) so drift of a shared machine hits every transport alike, then
//! the ramps' searches; under consensus, one message count per stream.
//!
//! In a paired run (see [`super::Against`]) every trial has a twin on the other build, right
//! after it in the group: only this build's trial calibrates, its twin takes up its count and
//! its next layout seed ([`pair_up`]), and in the rounds the two sides of a pair take turns
//! going first (this build first in odd rounds, the other in even ones: A B, B A, A B …), so
//! neither build always runs on the cache, clock and neighbours the other left behind.
//!
//! A trial's life is in [`trial`], its untimed samples in [`calibrate`], a ramp's search in
//! [`ramp`].

mod calibrate;
mod ramp;
mod trial;

use super::{Event, Isolation, TrialPlan};
use crate::consensus::{self, StreamKey};
use crate::groups;
use crate::open_loop::ramp::RampOutcome;
use crate::workload::{Messages, Pacing, TrialSpec};
use std::ops::Range;
use std::time::Duration;

pub(super) use trial::{Launcher, Side, Trial};

/// The order to run `specs` in (`order[i]` is the plan index of the `i`th trial run) and its
/// groups, as ranges of that order: one group when trials run in process, else groups of at most
/// [`groups::live_worker_limit`] workers, a table's trials together. A paired run has two
/// workers per trial, so half as many trials per group.
pub(super) fn groups(
    specs: &[TrialSpec],
    isolation: &Isolation,
    paired: bool,
) -> (Vec<usize>, Vec<Range<usize>>) {
    let limit = match isolation {
        Isolation::InProcess => specs.len(),
        Isolation::Subprocess(_) if paired => (groups::live_worker_limit() / 2).max(1),
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

/// Each trial's samples and their schedule, by trial index (a ramp's steps and soak count as its
/// timed samples; in a paired run, both sides' samples count).
pub(super) fn planned(trials: &[Trial]) -> Vec<TrialPlan> {
    let slots = trials.iter().map(|t| t.index + 1).max().unwrap_or(0);
    let mut plan = vec![TrialPlan::default(); slots];
    replan(&mut plan, trials);
    plan
}

/// Plans again the entries of `plan` that `trials` hold (both sides of a pair are in one group).
fn replan(plan: &mut [TrialPlan], trials: &[Trial]) {
    for t in trials {
        let this = plan_of(&t.spec, t.ramp.as_ref());
        if let Some(p) = plan.get_mut(t.index) {
            *p = match t.side {
                // The other build's twin comes after this build's trial: both sides count.
                Side::Other => TrialPlan {
                    samples: p.samples + this.samples,
                    soaks: p.soaks + this.soaks,
                    warmups: p.warmups + this.warmups,
                    searched: p.searched && this.searched,
                    ..this
                },
                Side::This => this,
            };
        }
    }
}

/// The plan of one trial of `spec` on one build (see [`TrialPlan`]), a ramp's as its `search`
/// left it if it has ended.
pub(super) fn plan_of(spec: &TrialSpec, search: Option<&RampOutcome>) -> TrialPlan {
    let soak = spec.messages.soak_window_ms().is_some();
    // The time `n` messages take at `rate`.
    let at = |n: u64, rate: u64| Duration::from_secs_f64(n as f64 / rate.max(1) as f64);
    match &spec.pacing {
        Pacing::Ramp(r) => {
            let (steps, each) = ramp::planned_steps(r);
            let soak_ms = match spec.messages {
                Messages::Soak { duration_ms, .. } => duration_ms,
                _ => 0,
            };
            TrialPlan {
                samples: search.map_or(steps, |d| d.steps.len()) + usize::from(soak),
                scheduled: Some(each),
                soaks: usize::from(soak),
                soak: Duration::from_millis(soak_ms),
                warmups: spec.warmup,
                warmup: Some(at(ramp::step_messages(r, r.start), r.start)),
                ramp: true,
                searched: search.is_some(),
            }
        }
        Pacing::Rate(rate) => {
            let each = calibrate::paced_count(spec).map(|n| at(n, *rate));
            let warmup = match spec.messages {
                // A soak warms up for one window.
                Messages::Soak { window_ms, .. } => {
                    Some(at(Messages::over(*rate, window_ms), *rate))
                }
                _ => each,
            };
            TrialPlan {
                samples: spec.samples,
                scheduled: each,
                warmups: spec.warmup,
                warmup,
                ..TrialPlan::default()
            }
        }
        Pacing::Closed => TrialPlan {
            samples: spec.samples,
            warmups: spec.warmup,
            ..TrialPlan::default()
        },
    }
}

/// Calibrates every trial of this build, in order; a trial that stops there is closed. (The
/// other build's trials take their twins' counts: [`pair_up`].)
pub(super) fn calibrate_all(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    for t in trials.iter_mut() {
        if t.side == Side::Other {
            continue;
        }
        let i = t.index;
        let label = t.label();
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
        let label = t.label();
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

/// In a paired run, each trial of the other build takes up where its twin on this build stands
/// (its count, its next layout seed; see [`Trial::follow`]). Nothing to do in a run of one build.
pub(super) fn pair_up(trials: &mut [Trial]) {
    for k in 0..trials.len() {
        if trials[k].side != Side::Other {
            continue;
        }
        let index = trials[k].index;
        let (head, tail) = trials.split_at_mut(k);
        if let Some(twin) = head
            .iter()
            .rev()
            .find(|t| t.index == index && t.side == Side::This)
        {
            tail[0].follow(twin);
        }
    }
}

/// Consensus: every trial of a stream runs the one count of [`consensus::count`] (the smallest
/// calibrated). Ramps and `latest` pipelines keep theirs: they are not compared. The other
/// build's trials of a paired run take their twins' counts afterwards ([`pair_up`]).
pub(super) fn one_count_per_stream(trials: &mut [Trial], on: &mut dyn FnMut(Event)) {
    let keys: Vec<(Option<StreamKey>, Option<u64>)> = trials
        .iter()
        .map(|t| {
            (
                StreamKey::of_spec(&t.spec)
                    .ok()
                    .filter(|_| t.side == Side::This),
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
/// round 2 … (in a paired run, the two sides of a pair in turns, see [`round_order`]). A trial
/// stops at its first sample that does not pass.
pub(super) fn run_rounds(trials: &mut [Trial], group: (usize, usize), on: &mut dyn FnMut(Event)) {
    let rounds = trials
        .iter()
        .filter(|t| !t.is_ramp())
        .map(|t| t.spec.samples)
        .max()
        .unwrap_or(0);
    let sides: Vec<Side> = trials.iter().map(|t| t.side).collect();
    for round in 0..rounds {
        for k in round_order(&sides, round) {
            let t = &mut trials[k];
            if t.stop.is_some() || round >= t.spec.samples || t.is_ramp() {
                continue;
            }
            let i = t.index;
            let o = t.timed_sample(t.messages);
            let label = t.label();
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

/// The order in which round `round` (from 0) visits the trials of these `sides`: their own
/// order, except that in rounds 1, 3, 5 … each pair (a trial of this build directly followed by
/// its twin on the other build) runs the twin first, so each pair runs A B, B A, A B …
fn round_order(sides: &[Side], round: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sides.len()).collect();
    if round % 2 == 1 {
        let mut k = 0;
        while k + 1 < sides.len() {
            if sides[k] == Side::This && sides[k + 1] == Side::Other {
                order.swap(k, k + 1);
                k += 2;
            } else {
                k += 1;
            }
        }
    }
    order
}

/// The ramps' searches: a search is sequential by nature, so each runs on its own after the
/// rounds.
pub(super) fn run_ramps(trials: &mut [Trial], plan: &mut [TrialPlan], on: &mut dyn FnMut(Event)) {
    for k in 0..trials.len() {
        if !trials[k].is_ramp() || trials[k].stop.is_some() {
            continue;
        }
        let i = trials[k].index;
        let label = trials[k].label();
        ramp::search_rates(&mut trials[k], &mut |o| {
            on(Event::Sample {
                trial: i,
                label: &label,
                timed: true,
                outcome: o,
            })
        });
        // The search has ended: its steps are counted as run, and its soak, if it has one, is
        // next.
        replan(plan, trials);
        on(Event::Planned {
            timed_samples: plan.iter().map(|p| p.samples).sum(),
            trials: plan,
        });
        let t = &mut trials[k];
        ramp::soak_at_sustained(t, &mut |o| {
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

#[cfg(test)]
mod tests {
    use super::{round_order, Side};

    #[test]
    fn the_two_sides_of_each_pair_take_turns_going_first() {
        use Side::{Other as B, This as A};
        let sides = [A, B, A, B];
        assert_eq!(round_order(&sides, 0), [0, 1, 2, 3]);
        assert_eq!(round_order(&sides, 1), [1, 0, 3, 2]);
        assert_eq!(round_order(&sides, 2), [0, 1, 2, 3]);
        // A run of one build keeps its order in every round.
        assert_eq!(round_order(&[A, A, A], 1), [0, 1, 2]);
        // A trial whose twin is not next to it is left where it is.
        assert_eq!(round_order(&[A, A, B], 3), [0, 2, 1]);
    }
}
