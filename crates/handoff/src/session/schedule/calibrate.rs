//! A trial's untimed samples: the pilots that calibrate an `auto` message count (doubling as
//! warm-up), and the warm-up samples at the count it will run.

use super::ramp::step_messages;
use super::trial::Trial;
use crate::outcome::SampleOutcome;
use crate::workload::{Messages, Pacing, TrialSpec};

/// Pilot samples allowed while calibrating an `auto` message count.
const MAX_PILOTS: usize = 6;

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
    })
}

/// Runs the warm-up samples at the trial's count.
pub(super) fn warm_up(t: &mut Trial, on: &mut dyn FnMut(&SampleOutcome)) {
    for _ in 0..t.spec.warmup {
        if untimed(t, t.messages, on).is_none() {
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
        (
            Pacing::Closed,
            Messages::Auto {
                target_ms,
                min,
                max,
            },
        ) => {
            let target = target_ms as f64 * 1e6;
            let mut n = min.max(1);
            let mut pilots = 0;
            loop {
                let Some(o) = run(t, n) else { return };
                pilots += 1;
                let elapsed = o.elapsed_ns.max(1) as f64;
                let scaled = ((n as f64 * target / elapsed) as u64).clamp(min, max);
                if elapsed >= target / 3.0 || pilots >= MAX_PILOTS || n >= max {
                    break round_count(scaled);
                }
                // Grow at most 50x per pilot so a noisy first pilot cannot overshoot wildly.
                n = scaled.min(n.saturating_mul(50));
            }
        }
    };
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
    #[test]
    fn counts_are_rounded_to_two_significant_digits() {
        assert_eq!(super::round_count(123_456), 120_000);
        assert_eq!(super::round_count(57), 57);
    }
}
