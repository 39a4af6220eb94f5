//! A trial's untimed samples: the pilots that calibrate an `auto` message count (doubling as
//! warm-up), and the warm-up samples at the count it will run.
//!
//! Calibration grows the count from `min` until a pilot lasts at least a quarter of the target,
//! then settles only when two such pilots in a row agree on the time per message (within a
//! factor of two), at the faster of the two: a pilot that stalled (a park, a late wake-up, a
//! descheduled thread) only ever looks slower, so one stall can neither settle the count nor
//! make it small. Without agreement after [`MAX_PILOTS`], the fastest long pilot decides.

use super::ramp::step_messages;
use super::trial::Trial;
use crate::outcome::SampleOutcome;
use crate::workload::{Messages, Pacing, TrialSpec};

/// Pilot samples allowed while calibrating an `auto` message count.
const MAX_PILOTS: usize = 10;
/// A pilot that lasts this share of the target measures the time per message.
const LONG_ENOUGH: f64 = 0.25;
/// Two long pilots agree when their times per message are within this factor.
const AGREE: f64 = 2.0;
/// The most a count grows from one pilot to the next, so a noisy small pilot cannot overshoot.
const MAX_GROWTH: u64 = 50;

/// The rate of a ramp's first step, at which it calibrates and warms up.
fn ramp_start(t: &Trial) -> Option<u64> {
    match &t.spec.pacing {
        Pacing::Ramp(r) => Some(r.start),
        _ => None,
    }
}

/// Runs one untimed sample of `n` messages; a sample that does not pass stops the trial.
fn untimed(t: &mut Trial, n: u64, on: &mut dyn FnMut(&SampleOutcome)) -> Option<SampleOutcome> {
    let o = t.sample(n, ramp_start(t));
    on(&o);
    t.last_placement = o.placement.clone();
    if o.status.is_pass() {
        Some(o)
    } else {
        t.stop = Some(o);
        None
    }
}

/// The message count of a trial paced at a fixed rate: as given, or `auto`'s target duration
/// at that rate (no pilot needed: a sample lasts as long as its schedule); `None` for other
/// pacing.
pub(super) fn paced_count(spec: &TrialSpec) -> Option<u64> {
    let Pacing::Rate(rate) = spec.pacing else {
        return None;
    };
    Some(match spec.messages {
        Messages::Fixed(n) => n,
        Messages::Auto {
            target_ms,
            min,
            max,
        } => round_count((rate.saturating_mul(target_ms) / 1000).clamp(min.max(1), max)),
        Messages::Soak { duration_ms, .. } => Messages::over(rate, duration_ms),
    })
}

/// Runs the warm-up samples at the trial's count; a soak's last one window each (at the rate of
/// its first timed sample: its own, or a ramp's first step).
pub(super) fn warm_up(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    let n = match (t.spec.messages, t.spec.pacing.rate()) {
        (Messages::Soak { window_ms, .. }, Some(rate)) => Messages::over(rate, window_ms),
        _ => t.messages,
    };
    for _ in 0..t.spec.warmup {
        if untimed(t, n, on).is_none() {
            return;
        }
    }
}

/// Calibrates the message count (the pilots double as warm-up).
pub(super) fn calibrate(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    let mut run = |t: &mut Trial, n: u64| untimed(t, n, on);
    t.messages = match (&t.spec.pacing, t.spec.messages) {
        // Open loop: a sample lasts as long as its schedule, so no pilot is needed.
        (Pacing::Ramp(r), _) => step_messages(r, r.start),
        (Pacing::Rate(_), _) => paced_count(&t.spec).unwrap_or(1),
        (Pacing::Closed, Messages::Fixed(n)) => n,
        // The plan gives a soak only to open-loop trials.
        (Pacing::Closed, Messages::Soak { .. }) => 1,
        (
            Pacing::Closed,
            Messages::Auto {
                target_ms,
                min,
                max,
            },
        ) => {
            let mut pilots = Pilots::new(target_ms, min, max);
            let mut n = min.max(1);
            loop {
                let Some(o) = run(t, n) else { return };
                match pilots.next(n, o.elapsed_ns) {
                    Step::Run(next) => n = next,
                    Step::Settle(count) => break count,
                }
            }
        }
    };
}

/// What calibration does after a pilot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Run another pilot of this many messages.
    Run(u64),
    /// The count is settled.
    Settle(u64),
}

/// The pilots of one calibration so far (see the module docs).
struct Pilots {
    target_ns: f64,
    min: u64,
    max: u64,
    run: usize,
    /// The time per message of the last pilot, if it was long enough.
    last_long: Option<f64>,
    /// The fastest time per message of any long pilot.
    fastest_long: Option<f64>,
}

impl Pilots {
    fn new(target_ms: u64, min: u64, max: u64) -> Pilots {
        Pilots {
            target_ns: target_ms as f64 * 1e6,
            min,
            max,
            run: 0,
            last_long: None,
            fastest_long: None,
        }
    }

    /// The count whose sample lasts the target at `per_msg_ns`.
    fn count_for(&self, per_msg_ns: f64) -> u64 {
        round_count(((self.target_ns / per_msg_ns) as u64).clamp(self.min.max(1), self.max))
    }

    /// After a pilot of `n` messages that took `elapsed_ns`.
    fn next(&mut self, n: u64, elapsed_ns: u64) -> Step {
        self.run += 1;
        let n = n.max(1);
        let per_msg = elapsed_ns.max(1) as f64 / n as f64;
        let long = elapsed_ns as f64 >= self.target_ns * LONG_ENOUGH;
        if long {
            if let Some(prev) = self.last_long {
                if per_msg.max(prev) <= AGREE * per_msg.min(prev) {
                    return Step::Settle(self.count_for(per_msg.min(prev)));
                }
            }
            self.fastest_long = Some(self.fastest_long.map_or(per_msg, |f| f.min(per_msg)));
        }
        self.last_long = long.then_some(per_msg);
        if n >= self.max || self.run >= MAX_PILOTS {
            return Step::Settle(self.count_for(self.fastest_long.unwrap_or(per_msg)));
        }
        let next = self.count_for(per_msg).min(n.saturating_mul(MAX_GROWTH));
        // A long pilot is followed by one at the target's count, even if it rounds to itself.
        Step::Run(next.max(1))
    }
}

/// Rounds a calibrated count to two significant digits, so echoed parameters read cleanly.
fn round_count(n: u64) -> u64 {
    if n < 100 {
        return n.max(1);
    }
    let mag = 10u64.pow((n as f64).log10().floor() as u32 - 1);
    (n / mag) * mag
}

#[cfg(test)]
mod tests {
    use super::{Pilots, Step};

    const MS: u64 = 1_000_000;

    /// Runs calibration against a transport that takes `cost(n, pilot)` ns for `n` messages.
    fn calibrate(
        target_ms: u64,
        min: u64,
        max: u64,
        cost: impl Fn(u64, usize) -> u64,
    ) -> (u64, usize) {
        let mut p = Pilots::new(target_ms, min, max);
        let mut n = min;
        for pilot in 0.. {
            match p.next(n, cost(n, pilot)) {
                Step::Run(next) => n = next,
                Step::Settle(count) => return (count, pilot + 1),
            }
        }
        unreachable!()
    }

    #[test]
    fn a_steady_transport_settles_at_its_target_once_two_long_pilots_agree() {
        // 10 ns per message, 25 ms target: 2.5 M messages.
        let (count, pilots) = calibrate(25, 1_000, 50_000_000, |n, _| n * 10);
        assert_eq!(count, 2_500_000);
        assert!(pilots <= 6, "{pilots} pilots");
    }

    #[test]
    fn one_stalled_pilot_neither_settles_the_count_nor_shrinks_it() {
        // 10 ns per message, but the third pilot stalls for 20 ms (a park and a late wake-up):
        // on its own it would pass for a long pilot at 200x the real cost.
        let (count, _) = calibrate(25, 1_000, 50_000_000, |n, pilot| {
            n * 10 + if pilot == 2 { 20 * MS } else { 0 }
        });
        assert_eq!(count, 2_500_000);
        // A stall in the last of two long pilots: the faster one decides.
        let (count, _) = calibrate(25, 1_000, 50_000_000, |n, pilot| {
            n * 10
                + if pilot >= 4 && pilot % 2 == 0 {
                    3 * n * 10
                } else {
                    0
                }
        });
        assert_eq!(count, 2_500_000);
    }

    #[test]
    fn the_bounds_hold_and_disagreement_ends_at_the_fastest_long_pilot() {
        // So slow that `min` is already long: settles at `min`.
        assert_eq!(
            calibrate(25, 1_000, 50_000_000, |n, _| n * 1_000_000).0,
            1_000
        );
        // So fast that `max` cannot fill the target: `max`.
        assert_eq!(calibrate(25, 1_000, 20_000, |n, _| n).0, 20_000);
        // Two regimes 3x apart that never agree: the pilots run out, and the faster regime's
        // long pilots decide.
        let (count, pilots) = calibrate(25, 1_000, 50_000_000, |n, pilot| {
            n * if pilot % 2 == 0 { 10 } else { 30 }
        });
        assert_eq!((count, pilots), (2_500_000, 10));
    }

    #[test]
    fn counts_are_rounded_to_two_significant_digits() {
        assert_eq!(super::round_count(123_456), 120_000);
        assert_eq!(super::round_count(57), 57);
    }
}
