//! The pace of a run's timed samples, and what remains of it: the estimate the progress display
//! shows during interleaved rounds.
//!
//! The clock starts at the first timed sample (calibration and warm-ups, which come before, run
//! at another pace), and the estimate is the time per timed sample since then times the timed
//! samples left. In an interleaved run every round takes one sample of every trial, so after
//! the first round the pace covers every transport of the run.

use std::time::{Duration, Instant};

/// Timed samples done and planned, and when the first one finished.
#[derive(Clone, Debug, Default)]
pub struct Pace {
    first: Option<Instant>,
    done: usize,
    planned: usize,
    skipped: usize,
}

impl Pace {
    /// Timed samples planned in all (updated as ramps settle their step counts).
    pub fn plan(&mut self, timed_samples: usize) {
        self.planned = timed_samples;
    }

    /// One timed sample finished at `now`.
    pub fn sample(&mut self, now: Instant) {
        self.first.get_or_insert(now);
        self.done += 1;
    }

    /// `n` planned samples will not run (their trial stopped).
    pub fn skip(&mut self, n: usize) {
        self.skipped += n;
    }

    /// Timed samples finished.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The time left at `now`, once the pace is known (two samples finished).
    pub fn left(&self, now: Instant) -> Option<Duration> {
        let first = self.first?;
        remaining(
            now.saturating_duration_since(first),
            self.done.saturating_sub(1),
            self.planned.saturating_sub(self.skipped + self.done),
        )
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

    #[test]
    fn the_pace_starts_at_the_first_timed_sample_and_forgets_skipped_ones() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut p = Pace::default();
        p.plan(10);
        assert_eq!(p.left(at(0)), None);
        p.sample(at(1_000));
        // One sample gives a start, not a pace.
        assert_eq!(p.left(at(1_500)), None);
        p.sample(at(2_000));
        p.sample(at(3_000));
        // Two samples in 2 s since the first: 1 s each, 7 to go.
        assert_eq!(p.left(at(3_000)), Some(Duration::from_secs(7)));
        // A trial stopped: 4 of its samples will not run.
        p.skip(4);
        assert_eq!(p.left(at(3_000)), Some(Duration::from_secs(3)));
        // A new plan (a ramp settled its steps) keeps the skipped ones out.
        p.plan(12);
        assert_eq!(p.left(at(3_000)), Some(Duration::from_secs(5)));
        assert_eq!(p.done(), 3);
    }
}
