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
pub(crate) struct RoundTripTimer {
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

    /// The counter's step in nanoseconds: no interval is resolved more finely than this.
    ///
    /// Takes `pairs` pairs of readings, with varying short delays between the two readings of a
    /// pair. The candidate step is the smallest nonzero difference seen. A counter that advances
    /// in coarse increments makes (nearly) every difference a multiple of it, and then it is
    /// the step; a counter that ticks in single cycles makes the differences vary freely (the
    /// smallest is only the cost of a reading), and then the step is one raw unit, a fraction of
    /// a nanosecond. `None` if the readings never moved.
    pub fn step_ns(&self, pairs: u32) -> Option<f64> {
        let deltas: Vec<u64> = (0..pairs.max(1))
            .map(|i| {
                let a = self.clock.raw();
                for _ in 0..i % 64 {
                    std::hint::spin_loop();
                }
                self.clock.raw().wrapping_sub(a)
            })
            .collect();
        let units = coarse_step(&deltas)?;
        // Nanoseconds per raw unit, from a span long enough for the conversion to be exact.
        const SPAN: u64 = 1 << 30;
        let ns_per_unit = self.clock.delta_as_nanos(0, SPAN) as f64 / SPAN as f64;
        Some(units as f64 * ns_per_unit)
    }
}

/// Share of the judged differences that must be multiples of the candidate step for it to be
/// the step (a hypervisor adjusting the counter now and then may break the pattern once or twice).
const STEP_AGREEMENT: f64 = 0.99;

/// Share of the differences a value must account for to be the candidate step: a counter that
/// moves in steps reads exactly one step between back-to-back readings in a good share of the
/// pairs, while a difference seen once (the counter adjusted, or the thread moved to a core whose
/// counter steps at another phase, between the two readings) can be any size, even 1.
const STEP_SHARE: f64 = 0.005;

/// The step of a counter, in raw units, from differences between pairs of readings: the
/// smallest difference that recurs (at least [`STEP_SHARE`] of the nonzero ones) if nearly all of
/// the shorter differences are multiples of it, else 1. `None` if no difference is nonzero.
fn coarse_step(deltas: &[u64]) -> Option<u64> {
    let mut nonzero: Vec<u64> = deltas.iter().copied().filter(|&d| d > 0).collect();
    nonzero.sort_unstable();
    let recurring = ((STEP_SHARE * nonzero.len() as f64).ceil() as usize).max(1);
    // The sorted differences come in runs of equal values; the first run long enough is the
    // candidate, and with too few pairs for any run to be, the smallest difference.
    let candidate = nonzero
        .chunk_by(|a, b| a == b)
        .find(|run| run.len() >= recurring)
        .or_else(|| nonzero.first().map(std::slice::from_ref))?[0];
    // A pair that an interrupt or a preemption fell into differs by an arbitrary amount, and a
    // busy host interrupts more than one pair in a hundred; such pairs are the longest, so only
    // the shortest nine tenths are judged.
    let judged = &nonzero[..nonzero.len() - nonzero.len() / 10];
    let multiples = judged.iter().filter(|&&d| d % candidate == 0).count();
    Some(
        if multiples as f64 >= STEP_AGREEMENT * judged.len() as f64 {
            candidate
        } else {
            1
        },
    )
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
    fn a_coarse_counter_steps_by_its_increment() {
        // Every difference a multiple of 26 units: the step is 26.
        let mut d: Vec<u64> = (0..1000).map(|i| 26 * (1 + i % 5)).collect();
        assert_eq!(coarse_step(&d), Some(26));
        // One odd difference in a thousand (the counter adjusted once) does not change that.
        d[500] = 27;
        assert_eq!(coarse_step(&d), Some(26));
        // Zero differences (two readings within one step) are ignored.
        d.extend([0, 0, 0]);
        assert_eq!(coarse_step(&d), Some(26));
        // Nor do the long pairs of a busy host: 5% of them interrupted, by arbitrary amounts.
        for (k, i) in (0..1000).step_by(20).enumerate() {
            d[i] = 1561 + 97 * k as u64;
        }
        assert_eq!(coarse_step(&d), Some(26));
        // Nor does a lone pair that the counter's adjustment shrank to a tick or a few.
        d[7] = 1;
        d[8] = 5;
        assert_eq!(coarse_step(&d), Some(26));
    }

    #[test]
    fn a_fine_counter_steps_by_one_unit() {
        // Differences that vary freely: the smallest is the cost of a reading, not a step.
        let d: Vec<u64> = (0..1000).map(|i| 18 + (i * 7) % 23).collect();
        assert_eq!(coarse_step(&d), Some(1));
        assert_eq!(coarse_step(&[0, 0]), None);
        assert_eq!(coarse_step(&[]), None);
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
