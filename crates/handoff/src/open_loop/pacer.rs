//! The pacer: sends on a schedule without coarse sleeps.
//!
//! Message `i` of a producer is due at `first + i × interval`, fixed before the run; the pacer
//! waits for that instant by reading the calibrated [`Clock`] in a loop (spinning, or yielding
//! the core between reads), never by sleeping on an OS timer whose granularity (often a
//! millisecond) would cap the rate at about a thousand messages per second and blame the
//! transport for it. A producer that falls behind (the transport blocked it) does not shift the
//! schedule: it sends the late messages at once, and their latency is measured from when they
//! were due.

use super::Clock;

/// How the pacer waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// Read the clock in a tight loop.
    Spin,
    /// Yield the core between reads (for oversubscribed trials).
    Yield,
}

/// One producer's schedule.
#[derive(Clone, Debug)]
pub(crate) struct Pacer {
    clock: Clock,
    first_ns: u64,
    interval_ns: f64,
    wait: Wait,
}

impl Pacer {
    /// A schedule of one message every `interval_ns`, the first due at `first_ns`.
    pub fn new(clock: Clock, first_ns: u64, interval_ns: f64, wait: Wait) -> Pacer {
        Pacer {
            clock,
            first_ns,
            interval_ns,
            wait,
        }
    }

    /// The interval for `producers` producers sharing a total `rate` (messages per second).
    pub(crate) fn interval_ns(rate: u64, producers: usize) -> f64 {
        1e9 * producers.max(1) as f64 / rate.max(1) as f64
    }

    /// When message `i` is due.
    #[inline(always)]
    pub fn due(&self, i: u64) -> u64 {
        self.first_ns + (i as f64 * self.interval_ns) as u64
    }

    /// Waits until `due` and returns the time read when it had come (or at once, with the
    /// current time, if it is already past).
    #[inline]
    pub(crate) fn wait_until(&self, due: u64) -> u64 {
        loop {
            let now = self.clock.now_ns();
            if now >= due {
                return now;
            }
            match self.wait {
                Wait::Spin => std::hint::spin_loop(),
                Wait::Yield => std::thread::yield_now(),
            }
        }
    }
}

/// The rate a producer achieved: `sent` messages, the first due at `first_ns`, the last sent at
/// `last_sent_ns`, on a schedule of `interval_ns`. On schedule this equals the requested rate.
pub(crate) fn achieved_rate(sent: u64, first_ns: u64, last_sent_ns: u64, interval_ns: f64) -> f64 {
    if sent == 0 {
        return 0.0;
    }
    let span = last_sent_ns.saturating_sub(first_ns) as f64 + interval_ns;
    sent as f64 * 1e9 / span.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_fixed_in_advance() {
        let p = Pacer::new(Clock::start(), 1000, 2.5, Wait::Spin);
        assert_eq!(p.due(0), 1000);
        assert_eq!(p.due(4), 1010);
    }

    #[test]
    fn on_schedule_achieves_the_request() {
        let interval = Pacer::interval_ns(1_000_000, 1);
        let r = achieved_rate(1000, 0, (999.0 * interval) as u64, interval);
        assert!((r - 1e6).abs() < 1e3, "{r}");
    }

    /// Generous bounds: the pacer is checked for reaching its rate, not for timing precision.
    #[test]
    fn pacer_reaches_its_requested_rate() {
        for wait in [Wait::Spin, Wait::Yield] {
            let clock = Clock::start();
            let rate = 200_000;
            let interval = Pacer::interval_ns(rate, 1);
            let first = clock.now_ns() + 1000;
            let p = Pacer::new(clock, first, interval, wait);
            let n = 20_000;
            let mut last = 0;
            for i in 0..n {
                last = p.wait_until(p.due(i));
            }
            let achieved = achieved_rate(n, first, last, interval);
            assert!(
                achieved > rate as f64 * 0.9 && achieved < rate as f64 * 1.02,
                "{wait:?}: requested {rate}/s, achieved {achieved:.0}/s"
            );
        }
    }
}
