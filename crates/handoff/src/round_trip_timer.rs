//! The timer that stamps round trips: one instrument for the ping-pong workload and for the
//! cache-line round-trip probe, so that a transport's round trip and the machine's are measured
//! the same way and their ratio compares like with like.
//!
//! It reads the CPU's time-stamp counter through `quanta` (calibrated once against the OS clock;
//! the OS monotonic clock where the counter is not reliable). Two properties of that counter
//! shape every percentile it produces, and both are measured, not assumed:
//!
//! * **cost** — each interval contains about one read of the counter, so a stamped round trip is
//!   longer than the same round trip timed in bulk;
//! * **step** — some processors advance the counter in coarse increments (on some AMD parts it
//!   moves once per ~10 ns, by 20–40 ticks), and then no interval is resolved more finely than
//!   that step: a 50 ns round trip reads 50 or 60, never 55.

/// Stamps the start and end of round trips.
#[derive(Clone, Debug)]
pub struct RoundTripTimer {
    clock: quanta::Clock,
}

impl Default for RoundTripTimer {
    fn default() -> Self {
        Self::new()
    }
}

impl RoundTripTimer {
    /// A timer (calibrates the counter on first use in the process).
    pub fn new() -> RoundTripTimer {
        RoundTripTimer {
            clock: quanta::Clock::new(),
        }
    }

    /// A raw reading, taken just before a round trip starts.
    #[inline(always)]
    pub fn stamp(&self) -> u64 {
        self.clock.raw()
    }

    /// Nanoseconds from `start` (a [`stamp`](Self::stamp)) to now.
    #[inline(always)]
    pub fn elapsed_ns(&self, start: u64) -> u64 {
        self.clock.delta_as_nanos(start, self.clock.raw())
    }

    /// The counter's step in nanoseconds: the largest amount that divides every difference
    /// between two readings (taken `pairs` times, with varying short delays between the two
    /// readings of a pair). No interval is resolved more finely than this. A counter that ticks
    /// in single cycles gives a fraction of a nanosecond; one that advances in coarse increments
    /// gives the increment. `None` if the readings never moved.
    pub fn step_ns(&self, pairs: u32) -> Option<f64> {
        let mut step = 0u64;
        for i in 0..pairs.max(1) {
            let a = self.clock.raw();
            for _ in 0..i % 64 {
                std::hint::spin_loop();
            }
            let b = self.clock.raw();
            step = gcd(step, b.wrapping_sub(a));
        }
        // Nanoseconds per raw unit, from a span long enough for the conversion to be exact.
        const SPAN: u64 = 1 << 30;
        let ns_per_unit = self.clock.delta_as_nanos(0, SPAN) as f64 / SPAN as f64;
        (step > 0).then_some(step as f64 * ns_per_unit)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_cover_what_happened_between_the_stamps() {
        let t = RoundTripTimer::new();
        let start = t.stamp();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let ns = t.elapsed_ns(start);
        assert!(ns >= 2_000_000, "{ns}");
    }

    #[test]
    fn gcd_finds_the_common_step() {
        assert_eq!(gcd(0, 52), 52);
        assert_eq!(gcd(52, 26), 26);
        assert_eq!(gcd(26, 78), 26);
        assert_eq!(gcd(26, 27), 1);
    }

    #[test]
    fn the_step_is_positive_and_small() {
        let step = RoundTripTimer::new()
            .step_ns(1000)
            .expect("a clock that moves");
        // A counter (or OS clock) that resolves nothing below a millisecond would make every
        // round-trip percentile meaningless; no supported clock is that coarse.
        assert!(step > 0.0 && step < 1_000_000.0, "{step}");
    }
}
