//! One clock for two processes: `CLOCK_MONOTONIC`, which every process of the machine reads on
//! the same scale (the kernel's one calibration of its clock source), so a moment one process
//! stamps means the same moment in the other.
//!
//! The engine times its samples with [`Instant`], which on Linux reads that same clock but
//! does not say its value; an [`Anchor`] takes both readings back to back once per process and
//! converts between them, off the timed path.

use std::time::{Duration, Instant};

use crate::open_loop::clock::monotonic_ns;

/// A moment read on both clocks, to convert [`Instant`]s to machine-wide nanoseconds and back.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Anchor {
    at: Instant,
    ns: u64,
}

impl Anchor {
    /// An anchor taken now.
    pub fn now() -> Anchor {
        let at = Instant::now();
        let ns = monotonic_ns();
        Anchor { at, ns }
    }

    /// `t` in machine-wide nanoseconds.
    pub fn ns_at(&self, t: Instant) -> u64 {
        if t >= self.at {
            self.ns
                .saturating_add(t.duration_since(self.at).as_nanos() as u64)
        } else {
            self.ns
                .saturating_sub(self.at.duration_since(t).as_nanos() as u64)
        }
    }

    /// The machine-wide moment `ns` as an [`Instant`] of this process.
    pub fn instant(&self, ns: u64) -> Instant {
        if ns >= self.ns {
            self.at + Duration::from_nanos(ns - self.ns)
        } else {
            self.at
                .checked_sub(Duration::from_nanos(self.ns - ns))
                .unwrap_or(self.at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_survives_the_round_trip_through_nanoseconds() {
        let a = Anchor::now();
        let later = Instant::now() + Duration::from_millis(3);
        let back = a.instant(a.ns_at(later));
        assert_eq!(back, later);
        let earlier = a.at - Duration::from_micros(5);
        assert_eq!(a.instant(a.ns_at(earlier)), earlier);
    }

    #[test]
    fn two_anchors_agree_on_the_machine_wide_clock() {
        // Both anchors read the same clock: a moment converted by one and read back by the
        // other lands within the two readings' gap (an anchor's two reads are back to back, so
        // a microsecond is a wide margin even on a busy machine, where only preemption between
        // the two reads could widen it; it is retried once for that).
        let close = (0..3).any(|_| {
            let a = Anchor::now();
            let b = Anchor::now();
            let t = Instant::now();
            let there = b.instant(a.ns_at(t));
            let gap = if there > t { there - t } else { t - there };
            gap < Duration::from_micros(1)
        });
        assert!(close);
    }
}
