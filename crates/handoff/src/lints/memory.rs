//! The worker process around the transport: [`Lint::MemoryGrowth`] and [`Lint::Printed`].
//!
//! **memory-growth.** After each timed sample the worker's resident set is read with the
//! sample's channel already dropped (see [`crate::memory`]). A transport in a steady state
//! returns to the same level after every sample; one that leaks climbs sample after sample.
//! The lint asks for both a trend and a size: at least two thirds of the steps from one sample to
//! the next rise by more than allocator noise ([`crate::memory::STEP_NOISE`]), and the resident
//! set after the last sample exceeds the one after the first by at least [`GROWTH_MIN`] and by
//! at least [`GROWTH_SHARE`] of it. With fewer than three timed samples there is no trend to
//! judge.
//!
//! **printed.** A transport that prints while it runs pays for the formatting and the write on
//! its hot path, and what it prints is usually a leftover. What it printed is kept with the
//! result; the lint says how much and shows the first line.

use super::Lint;
use crate::report::TrialResult;

/// Growth from the first timed sample to the last below this is not judged: 8 MiB.
pub(crate) const GROWTH_MIN: u64 = 8 << 20;

/// Growth below this share of the resident set after the first sample is not judged.
pub(crate) const GROWTH_SHARE: f64 = 0.10;

/// [`Lint::MemoryGrowth`]: the worker's resident set grew sample after sample.
pub(super) fn growth(r: &TrialResult) -> Option<Lint> {
    let m = r.memory.as_ref()?;
    if m.steps < 2 || m.rising_steps * 3 < m.steps * 2 {
        return None;
    }
    let grown = m.last_after.checked_sub(m.first_after)?;
    if grown < GROWTH_MIN || (grown as f64) < GROWTH_SHARE * m.first_after as f64 {
        return None;
    }
    Some(Lint::MemoryGrowth {
        per_sample_bytes: m.growth_per_sample,
        first_bytes: m.first_after,
        last_bytes: m.last_after,
        samples: m.steps + 1,
    })
}

/// [`Lint::Printed`]: the transport printed while the trial ran.
pub(super) fn printed(r: &TrialResult) -> Option<Lint> {
    let p = r.printed.as_ref().filter(|p| !p.is_empty())?;
    Some(Lint::Printed {
        lines: p.lines,
        bytes: p.bytes,
        first: p.head.first().cloned().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::Printed;
    use crate::lints::fixture::stream;
    use crate::memory::{MemoryFigures, SampleMemory};

    fn with_memory(after_mib: &[u64]) -> TrialResult {
        let mut r = stream();
        let samples: Vec<SampleMemory> = after_mib
            .iter()
            .map(|m| SampleMemory {
                peak: (m + 2) << 20,
                after: m << 20,
                peak_is_lifetime: false,
            })
            .collect();
        r.memory = MemoryFigures::of(&samples);
        r
    }

    #[test]
    fn a_leak_is_named() {
        let lint = growth(&with_memory(&[40, 60, 80, 100, 120])).expect("a leak");
        let Lint::MemoryGrowth {
            per_sample_bytes,
            samples,
            ..
        } = &lint
        else {
            panic!("{lint:?}")
        };
        assert_eq!(*samples, 5);
        assert!((per_sample_bytes - (20 << 20) as f64).abs() < 1.0);
        assert!(lint.to_string().contains("20.0 MiB per sample"), "{lint}");
    }

    #[test]
    fn a_steady_or_small_or_short_record_is_not() {
        assert_eq!(growth(&with_memory(&[40, 41, 40, 41, 40])), None);
        // Rising every time, but by too little in all.
        assert_eq!(growth(&with_memory(&[100, 102, 104, 106, 107])), None);
        // A single jump is not a trend.
        assert_eq!(growth(&with_memory(&[40, 40, 40, 40, 200])), None);
        assert_eq!(growth(&with_memory(&[40, 200])), None);
        assert_eq!(growth(&stream()), None);
    }

    #[test]
    fn printing_is_named_with_its_first_line() {
        let mut r = stream();
        assert_eq!(printed(&r), None);
        let mut p = Printed::default();
        p.push("got message 1");
        p.push("got message 2");
        r.printed = Some(p);
        let lint = printed(&r).expect("printed");
        assert_eq!(lint.code(), "printed");
        assert!(lint.to_string().contains("2 lines"), "{lint}");
        assert!(lint.to_string().contains("got message 1"), "{lint}");
    }
}
