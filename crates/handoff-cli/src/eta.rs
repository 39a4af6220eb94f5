//! What remains of a run's samples, and how long it will take: the estimate the progress
//! display shows.
//!
//! Two kinds of sample go at two kinds of pace. An open-loop sample (a fixed rate, a ramp's
//! step, a soak) lasts as long as its schedule says, whatever the transport does, so the session
//! plans it before it runs (see [`TrialPlan`]): a paced trial's warm-ups and samples at its
//! messages over its rate, a soak's duration (and its warm-up of one window), a ramp's steps one
//! by one and the soak at the rate it sustained. A closed-loop sample lasts as long as the
//! transport takes, which only the samples so far can tell. So the time left is the schedule of
//! the open-loop samples left, plus the closed-loop samples left at the pace of those finished.
//! That pace is what the time since the first timed sample does not owe to schedules, per
//! closed-loop sample finished since. The clock starts at the first timed sample: calibration
//! and warm-ups, which come before, run at another pace. A run of open-loop trials only is known
//! from its plan from the start.

use handoff::session::TrialPlan;
use std::time::{Duration, Instant};

/// Each trial's plan, its samples finished, and what the clock has seen.
#[derive(Clone, Debug, Default)]
pub struct Pace {
    first: Option<Instant>,
    plans: Vec<TrialPlan>,
    /// Timed samples finished, by trial.
    done: Vec<usize>,
    /// Untimed samples (warm-ups) finished, by trial.
    warmed: Vec<usize>,
    /// Trials stopped: what remains of their plans will not run.
    stopped: Vec<bool>,
    /// Closed-loop samples finished after the first timed sample.
    counted_closed: usize,
    /// Open-loop timed samples finished after the first timed sample, and the scheduled time of
    /// every open-loop sample (timed or warm-up) finished since.
    counted_scheduled: (usize, Duration),
}

impl Pace {
    /// The session's plan, by trial index (updated as ramps settle their step counts).
    pub fn plan(&mut self, plans: &[TrialPlan]) {
        self.plans = plans.to_vec();
        self.done.resize(plans.len(), 0);
        self.warmed.resize(plans.len(), 0);
        self.stopped.resize(plans.len(), false);
    }

    /// The plan of `trial`, if the session gave one.
    pub fn trial(&self, trial: usize) -> Option<&TrialPlan> {
        self.plans.get(trial)
    }

    /// Trials planned.
    pub fn trials(&self) -> usize {
        self.plans.len()
    }

    /// The scheduled time left of an open-loop `trial` (`None` for a closed loop).
    fn scheduled_left(&self, trial: usize) -> Option<Duration> {
        let p = self.plans.get(trial)?;
        if self.stopped[trial] {
            return p.scheduled.map(|_| Duration::ZERO);
        }
        p.scheduled_left(self.warmed[trial], self.done[trial])
    }

    /// One timed sample of `trial` finished at `now`.
    pub fn sample(&mut self, trial: usize, now: Instant) {
        let before = self.scheduled_left(trial);
        if let Some(d) = self.done.get_mut(trial) {
            *d += 1;
        }
        if self.first.is_none() {
            self.first = Some(now);
            return;
        }
        match (before, self.scheduled_left(trial)) {
            (Some(before), Some(after)) => {
                self.counted_scheduled.0 += 1;
                self.counted_scheduled.1 += before.saturating_sub(after);
            }
            _ => self.counted_closed += 1,
        }
    }

    /// One untimed sample of `trial` (a warm-up, or a closed loop's calibration pilot) finished.
    pub fn untimed(&mut self, trial: usize) {
        let before = self.scheduled_left(trial);
        if let Some(w) = self.warmed.get_mut(trial) {
            *w += 1;
        }
        // A warm-up after the clock started (a later group's) is scheduled time too.
        if let (Some(_), Some(before), Some(after)) =
            (self.first, before, self.scheduled_left(trial))
        {
            self.counted_scheduled.1 += before.saturating_sub(after);
        }
    }

    /// `trial` stopped: what remains of its plan will not run.
    pub fn stop(&mut self, trial: usize) {
        if let Some(s) = self.stopped.get_mut(trial) {
            *s = true;
        }
    }

    /// Timed samples of `trial` finished.
    pub fn done_of(&self, trial: usize) -> usize {
        self.done.get(trial).copied().unwrap_or(0)
    }

    /// Timed samples finished in all.
    pub fn done(&self) -> usize {
        self.done.iter().sum()
    }

    /// The time left at `now`: known from the schedule alone when only open-loop samples
    /// remain, else once a sample after the first gives a pace.
    pub fn left(&self, now: Instant) -> Option<Duration> {
        let (mut closed_left, mut scheduled_left) = (0usize, Duration::ZERO);
        for (i, p) in self.plans.iter().enumerate() {
            match self.scheduled_left(i) {
                Some(s) => scheduled_left += s,
                None if !self.stopped[i] => closed_left += p.samples.saturating_sub(self.done[i]),
                None => {}
            }
        }
        // Before the clock starts, only a plan of open-loop samples tells anything.
        let planned = self.plans.iter().any(|p| p.scheduled.is_some());
        if closed_left == 0 && (self.first.is_some() || planned) {
            return Some(scheduled_left);
        }
        let elapsed = now.saturating_duration_since(self.first?);
        let (paced, scheduled) = self.counted_scheduled;
        let counted = self.counted_closed + paced;
        // The closed-loop pace: what the schedules do not explain, per closed-loop sample;
        // before any closed-loop sample after the first, the pace of every sample so far.
        let per_closed = if self.counted_closed > 0 {
            elapsed.saturating_sub(scheduled) / self.counted_closed as u32
        } else {
            remaining(elapsed, counted, 1)?
        };
        Some(per_closed * closed_left as u32 + scheduled_left)
    }
}

/// The time `remaining` more samples take at the pace of `counted` samples in `elapsed`; `None`
/// while nothing was counted.
pub fn remaining(elapsed: Duration, counted: usize, remaining: usize) -> Option<Duration> {
    if counted == 0 {
        return None;
    }
    let per = elapsed.as_secs_f64() / counted as f64;
    Some(Duration::from_secs_f64(per * remaining as f64))
}

/// A duration as a clock reads: `0:07`, `1:22`, `1:02:03` (rounded to the second).
pub fn clock(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    let (h, m, s) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_remains_goes_at_the_pace_so_far() {
        let s = Duration::from_secs;
        assert_eq!(remaining(s(10), 5, 15), Some(s(30)));
        assert_eq!(remaining(s(10), 5, 0), Some(s(0)));
        assert_eq!(remaining(s(10), 0, 15), None);
        assert_eq!(clock(s(7)), "0:07");
        assert_eq!(clock(s(82)), "1:22");
        assert_eq!(clock(Duration::from_millis(59_600)), "1:00");
        assert_eq!(clock(s(3723)), "1:02:03");
    }

    fn closed(samples: usize) -> TrialPlan {
        TrialPlan {
            samples,
            ..TrialPlan::default()
        }
    }

    fn paced(samples: usize, ms: u64) -> TrialPlan {
        TrialPlan {
            samples,
            scheduled: Some(Duration::from_millis(ms)),
            ..TrialPlan::default()
        }
    }

    #[test]
    fn closed_loop_samples_go_at_the_pace_since_the_first_and_stopped_trials_drop_out() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut p = Pace::default();
        p.plan(&[closed(5), closed(5)]);
        assert_eq!(p.left(at(0)), None);
        p.sample(0, at(1_000));
        // One sample gives a start, not a pace.
        assert_eq!(p.left(at(1_500)), None);
        p.sample(1, at(2_000));
        p.sample(0, at(3_000));
        // Two samples in 2 s since the first: 1 s each, 7 to go.
        assert_eq!(p.left(at(3_000)), Some(Duration::from_secs(7)));
        // Trial 1 stopped after 1 sample: its 4 others will not run.
        p.stop(1);
        assert_eq!(p.left(at(3_000)), Some(Duration::from_secs(3)));
        assert_eq!((p.done(), p.done_of(0), p.done_of(1)), (3, 2, 1));
    }

    #[test]
    fn open_loop_samples_take_their_schedule_and_do_not_speed_up_the_closed_loop_pace() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut p = Pace::default();
        // Interleaved: a closed loop of 10 ms samples and a 1 s paced trial, 5 samples each.
        p.plan(&[closed(5), paced(5, 1_000)]);
        p.sample(0, at(10));
        p.sample(1, at(1_010));
        // Only a paced sample since the first: the closed loop goes at the pace of both.
        assert_eq!(
            p.left(at(1_010)),
            Some(Duration::from_millis(4 * 1_000 + 4 * 1_000))
        );
        p.sample(0, at(1_020));
        // 1010 ms since the first, 1000 of it scheduled: 10 ms per closed-loop sample.
        assert_eq!(
            p.left(at(1_020)),
            Some(Duration::from_millis(3 * 10 + 4 * 1_000))
        );
        // At the last round only the schedule is left, however fast the closed loop went.
        for (i, ms) in [
            (1, 2_020),
            (0, 2_030),
            (1, 3_030),
            (0, 3_040),
            (1, 4_040),
            (0, 4_050),
        ] {
            p.sample(i, at(ms));
        }
        assert_eq!(p.left(at(4_050)), Some(Duration::from_millis(1_000)));
    }

    #[test]
    fn a_run_of_open_loop_samples_only_is_known_from_its_schedule() {
        let t0 = Instant::now();
        let mut p = Pace::default();
        p.plan(&[paced(3, 500), paced(3, 200)]);
        // Known from the plan before anything ran.
        assert_eq!(p.left(t0), Some(Duration::from_millis(3 * 500 + 3 * 200)));
        p.sample(0, t0);
        assert_eq!(p.left(t0), Some(Duration::from_millis(2 * 500 + 3 * 200)));
        // A ramp's search settled on fewer steps: the new plan counts.
        p.plan(&[paced(1, 500), paced(3, 200)]);
        assert_eq!(p.left(t0), Some(Duration::from_millis(600)));
    }

    /// Within this share of the planned time: the plan's durations are computed in floating
    /// point, and a ramp's steps are averaged.
    const TOLERANCE: f64 = 0.01;

    /// Whether `estimate` is within [`TOLERANCE`] of `planned` seconds.
    fn close_to(estimate: Option<Duration>, planned: f64) -> bool {
        estimate.is_some_and(|e| (e.as_secs_f64() - planned).abs() <= planned * TOLERANCE)
    }

    /// The plans of a suite's trials, as the session plans them before they run.
    fn plans(suite: &str) -> (Vec<handoff::workload::TrialSpec>, Vec<TrialPlan>) {
        let plan = handoff::plan::Plan::parse(suite, "eta.toml", &handoff_transports::builtin())
            .unwrap_or_else(|e| panic!("{e}"));
        let plans = plan.trials.iter().map(|t| TrialPlan::of(t, None)).collect();
        (plan.trials, plans)
    }

    fn estimate_at_start(suite: &str) -> Option<Duration> {
        let mut p = Pace::default();
        p.plan(&plans(suite).1);
        p.left(Instant::now())
    }

    /// Paced at 2000/s, 10 000 messages a sample: 5 s each, one warm-up and three timed.
    #[test]
    fn a_paced_trial_takes_its_messages_over_its_rate_warm_up_included() {
        let suite = r#"
            [[benchmark]]
            workload = "paced"
            transports = ["crossbeam-bounded"]
            rate = 2000
            messages = 10000
            samples = 3
            warmup = 1
        "#;
        let planned = 4.0 * 10_000.0 / 2_000.0;
        let estimate = estimate_at_start(suite);
        assert!(close_to(estimate, planned), "{estimate:?} for {planned} s");

        // After the warm-up and a timed sample, two samples are left.
        let t0 = Instant::now();
        let mut p = Pace::default();
        p.plan(&plans(suite).1);
        p.untimed(0);
        p.sample(0, t0);
        let left = p.left(t0 + Duration::from_secs(5));
        assert!(close_to(left, 10.0), "{left:?}");
    }

    /// A soak of 20 s in windows of 2 s: its warm-up is one window.
    #[test]
    fn a_soak_takes_its_duration_and_one_window_to_warm_up() {
        let suite = r#"
            [[benchmark]]
            workload = "paced"
            transports = ["crossbeam-bounded"]
            rate = 1000
            duration = "20s"
            window = "2s"
            samples = 1
            warmup = 1
        "#;
        let estimate = estimate_at_start(suite);
        assert!(close_to(estimate, 20.0 + 2.0), "{estimate:?}");
    }

    /// A ramp from 100/s doubling up to 1600/s in steps of 200 ms, each at least 200 messages:
    /// 2 s, 1 s, 0.5 s, 0.25 s and 0.2 s, after a warm-up of one step at 100/s (2 s).
    #[test]
    fn a_ramp_takes_the_sum_of_its_steps() {
        let suite = r#"
            [[benchmark]]
            workload = "ramp"
            transports = ["crossbeam-bounded"]
            ramp = { start = 100, factor = 2, refine = 0, step_ms = 200, max = 1600 }
            warmup = 1
        "#;
        let planned = 2.0 + (2.0 + 1.0 + 0.5 + 0.25 + 0.2);
        let estimate = estimate_at_start(suite);
        assert!(close_to(estimate, planned), "{estimate:?} for {planned} s");
        assert_eq!(plans(suite).1[0].samples, 5);
    }

    /// The ramp above, then a soak of 30 s at the rate it sustained. Once the search has ended,
    /// what is left is the soak, however short the steps were: a step's length for it was the
    /// estimate that said 0:13 where more than a minute was left.
    #[test]
    fn a_ramp_that_soaks_takes_its_steps_and_then_its_soak() {
        use handoff::open_loop::ramp::{RampOutcome, RampStep, StepFigures};
        let suite = r#"
            [[benchmark]]
            workload = "ramp"
            transports = ["crossbeam-bounded"]
            ramp = { start = 100, factor = 2, refine = 0, step_ms = 200, max = 1600 }
            duration = "30s"
            window = "3s"
            samples = 1
            warmup = 1
        "#;
        let steps = 2.0 + 1.0 + 0.5 + 0.25 + 0.2;
        let estimate = estimate_at_start(suite);
        assert!(close_to(estimate, 2.0 + steps + 30.0), "{estimate:?}");

        // The search sustained 200/s, not 400/s (tried twice): three steps of the five planned
        // have run when the search ends.
        let (specs, before) = plans(suite);
        let t0 = Instant::now();
        let mut p = Pace::default();
        p.plan(&before);
        p.untimed(0);
        let rates = [100, 200, 400, 400];
        for k in 0..rates.len() as u64 {
            p.sample(0, t0 + Duration::from_millis(500 * k));
        }
        // By the plan made before the search, a step may be left before the soak.
        let left = p.left(t0 + Duration::from_secs(2));
        assert!(close_to(left, steps / 5.0 + 30.0), "{left:?}");
        // The session plans again when the search ends: the steps are counted as run, the soak
        // is next and all that is left.
        let step = |requested: u64| RampStep {
            figures: StepFigures {
                requested,
                achieved: requested as f64,
                refused: u64::from(requested > 200),
                delivered: 200,
                p50: 1,
                p90: 1,
                p99: 1,
                p999: 1,
                max: 1,
                hop_fill: Vec::new(),
                hop_depth: Vec::new(),
            },
            sustained: requested <= 200,
            reason: None,
            refinement: false,
        };
        let search = RampOutcome {
            steps: rates.iter().map(|&r| step(r)).collect(),
            sustained: Some(200),
            not_sustained: Some(400),
            ended: String::new(),
        };
        let after = TrialPlan::of(&specs[0], Some(&search));
        assert_eq!((after.samples, after.searched), (5, true));
        p.plan(&[after]);
        assert_eq!(
            p.left(t0 + Duration::from_secs(2)),
            Some(Duration::from_secs(30))
        );
        // The soak done, nothing is left.
        p.sample(0, t0 + Duration::from_secs(32));
        assert_eq!(p.left(t0 + Duration::from_secs(32)), Some(Duration::ZERO));
    }

    /// The soak's scheduled time is not counted as the closed loop's: a closed-loop trial after
    /// it goes at its own pace.
    #[test]
    fn a_soak_finished_is_scheduled_time_not_closed_loop_pace() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let soak = TrialPlan {
            samples: 3,
            scheduled: Some(Duration::from_millis(100)),
            soaks: 1,
            soak: Duration::from_secs(30),
            ramp: true,
            searched: true,
            ..TrialPlan::default()
        };
        let mut p = Pace::default();
        p.plan(&[soak, closed(3)]);
        p.sample(1, at(0));
        p.sample(0, at(100));
        p.sample(0, at(200));
        // Two steps done, then the soak, then a closed-loop sample.
        p.sample(0, at(30_200));
        p.sample(1, at(30_210));
        // 30.21 s since the first, 30.2 s of it scheduled: 10 ms per closed-loop sample, one
        // left.
        assert_eq!(p.left(at(30_210)), Some(Duration::from_millis(10)));
    }
}
