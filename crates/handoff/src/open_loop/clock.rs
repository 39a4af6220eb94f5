//! The calibrated clock every thread of an open-loop sample shares.
//!
//! Reads the CPU's time-stamp counter where it is invariant (through `quanta`, which calibrates
//! it against the OS clock once and falls back to the OS monotonic clock where the counter is not
//! reliable), so a read costs a few nanoseconds instead of a system call. Every thread of a
//! sample uses clones of one `Clock`, hence one calibration and one epoch: a stamp taken on one
//! core and a read taken on another are on the same scale.

use crate::histogram;

/// A clock reading nanoseconds since an epoch shared by its clones.
#[derive(Clone, Debug)]
pub(crate) struct Clock {
    inner: quanta::Clock,
    epoch: u64,
}

impl Clock {
    /// A clock whose epoch is now.
    pub fn start() -> Clock {
        let inner = quanta::Clock::new();
        let epoch = inner.raw();
        Clock { inner, epoch }
    }

    /// Nanoseconds since the epoch.
    #[inline(always)]
    pub(crate) fn now_ns(&self) -> u64 {
        self.inner.delta_as_nanos(self.epoch, self.inner.raw())
    }
}

pub use handoff_model::open_loop::Overhead;

/// Measures [`Overhead`] with `iterations` back-to-back reads and records (outside any timed
/// region; about a millisecond for 20 000 iterations).
pub(crate) fn measure_overhead(clock: &Clock, iterations: u64) -> Overhead {
    let n = iterations.max(1);
    let t0 = clock.now_ns();
    let mut sink = 0u64;
    for _ in 0..n {
        sink = sink.wrapping_add(std::hint::black_box(clock.now_ns()));
    }
    let t1 = clock.now_ns();
    std::hint::black_box(sink);
    let mut a = histogram::new();
    let mut b = histogram::new();
    let mut prev = clock.now_ns();
    let t2 = prev;
    for _ in 0..n {
        let now = clock.now_ns();
        histogram::record(&mut a, now.wrapping_sub(prev) + 100);
        histogram::record(&mut b, now.wrapping_sub(prev) + 50);
        prev = now;
    }
    let t3 = clock.now_ns();
    std::hint::black_box((&a, &b));
    Overhead {
        clock_read_ns: t1.saturating_sub(t0) as f64 / n as f64,
        stamp_and_record_ns: t3.saturating_sub(t2) as f64 / n as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_monotonic_and_shared_by_clones() {
        let c = Clock::start();
        let d = c.clone();
        let a = c.now_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = d.now_ns();
        assert!(b >= a + 1_000_000, "{a} -> {b}");
    }

    #[test]
    fn overhead_is_measured() {
        // Both loops read the clock at least once per iteration, so neither can take zero time;
        // how they compare is a timing question, left to benchmarks (a preempted loop can take
        // any time at all).
        let o = measure_overhead(&Clock::start(), 1000);
        assert!(o.clock_read_ns > 0.0, "{o:?}");
        assert!(o.stamp_and_record_ns > 0.0, "{o:?}");
    }
}
