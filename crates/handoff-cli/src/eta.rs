//! What remains of a run's timed samples, and how long it will take: the estimate the progress
//! display shows.
//!
//! Two kinds of sample go at two kinds of pace. An open-loop sample (a fixed rate, a ramp's
//! step) lasts as long as its schedule says, whatever the transport does; a closed-loop sample
//! lasts as long as the transport takes, which only the samples so far can tell. So the time
//! left is the schedule of the open-loop samples left, plus the closed-loop samples left at the
//! pace of those finished. That pace is what the time since the first timed sample does not
//! owe to schedules, per closed-loop sample finished since. The clock starts at the first timed
//! sample: calibration and warm-ups, which come before, run at another pace.

use handoff::session::TrialPlan;
use std::time::{Duration, Instant};

/// Each trial's plan, its timed samples finished or skipped, and what the clock has seen.
#[derive(Clone, Debug, Default)]
pub struct Pace {
    first: Option<Instant>,
    plans: Vec<TrialPlan>,
    done: Vec<usize>,
    skipped: Vec<usize>,
    /// Closed-loop samples finished after the first timed sample.
    counted_closed: usize,
    /// Open-loop samples finished after the first timed sample, and their scheduled time.
    counted_scheduled: (usize, Duration),
}

impl Pace {
    /// The session's plan, by trial index (updated as ramps settle their step counts).
    pub fn plan(&mut self, plans: &[TrialPlan]) {
        self.plans = plans.to_vec();
        self.done.resize(plans.len(), 0);
        self.skipped.resize(plans.len(), 0);
    }

    /// The plan of `trial`, if the session gave one.
    pub fn trial(&self, trial: usize) -> Option<&TrialPlan> {
        self.plans.get(trial)
    }

    /// Trials planned.
    pub fn trials(&self) -> usize {
        self.plans.len()
    }

    /// One timed sample of `trial` finished at `now`.
    pub fn sample(&mut self, trial: usize, now: Instant) {
        if let Some(d) = self.done.get_mut(trial) {
            *d += 1;
        }
        if self.first.is_none() {
            self.first = Some(now);
            return;
        }
        match self.plans.get(trial).and_then(|p| p.scheduled) {
            Some(s) => {
                self.counted_scheduled.0 += 1;
                self.counted_scheduled.1 += s;
            }
            None => self.counted_closed += 1,
        }
    }

    /// `trial` stopped: what remains of its plan will not run.
    pub fn stop(&mut self, trial: usize) {
        if let (Some(p), Some(&d), Some(s)) = (
            self.plans.get(trial),
            self.done.get(trial),
            self.skipped.get_mut(trial),
        ) {
            *s = p.samples.saturating_sub(d);
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
        let first = self.first?;
        let elapsed = now.saturating_duration_since(first);
        let (mut closed_left, mut scheduled_left) = (0usize, Duration::ZERO);
        for (i, p) in self.plans.iter().enumerate() {
            let left = p.samples.saturating_sub(self.done[i] + self.skipped[i]);
            match p.scheduled {
                Some(s) => scheduled_left += s * left as u32,
                None => closed_left += left,
            }
        }
        let (paced, scheduled) = self.counted_scheduled;
        let counted = self.counted_closed + paced;
        if closed_left == 0 {
            return Some(scheduled_left);
        }
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
            ramp: false,
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
        assert_eq!(p.left(t0), None);
        p.sample(0, t0);
        assert_eq!(p.left(t0), Some(Duration::from_millis(2 * 500 + 3 * 200)));
        // A ramp's search settled on fewer steps: the new plan counts.
        p.plan(&[paced(1, 500), paced(3, 200)]);
        assert_eq!(p.left(t0), Some(Duration::from_millis(600)));
    }
}
