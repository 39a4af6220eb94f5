//! The memory a worker process used, as a result records it: each sample's resident set and
//! peak, and how the resident set moved over a trial's timed samples.

use serde::{Deserialize, Serialize};

/// Memory figures of one sample, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleMemory {
    /// The process's highest resident set during the sample.
    pub peak: u64,
    /// The process's resident set once the sample ended and its channel was dropped.
    pub after: u64,
    /// The peak could not be reset before the sample: `peak` is the process's highest so far.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub peak_is_lifetime: bool,
}

/// How memory moved over a trial's timed samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryFigures {
    /// The highest peak of any timed sample, bytes.
    pub peak: u64,
    /// The resident set after the first timed sample, bytes.
    pub first_after: u64,
    /// The resident set after the last timed sample, bytes.
    pub last_after: u64,
    /// The least-squares slope of the resident set after each timed sample, bytes per sample.
    pub growth_per_sample: f64,
    /// Of the steps from one timed sample to the next, how many raised the resident set by
    /// more than [`STEP_NOISE`].
    pub rising_steps: usize,
    /// Steps in all (timed samples − 1).
    pub steps: usize,
}

/// A rise in the resident set from one sample to the next smaller than this is allocator
/// noise, not growth: 1 MiB.
pub const STEP_NOISE: u64 = 1 << 20;

impl MemoryFigures {
    /// The figures of `samples` (each timed sample's memory, in order); `None` when no sample
    /// has any.
    pub fn of(samples: &[SampleMemory]) -> Option<MemoryFigures> {
        let first = samples.first()?;
        let last = samples.last()?;
        let n = samples.len() as f64;
        let mean_x = (n - 1.0) / 2.0;
        let mean_y = samples.iter().map(|s| s.after as f64).sum::<f64>() / n;
        let (mut num, mut den) = (0.0, 0.0);
        for (i, s) in samples.iter().enumerate() {
            let dx = i as f64 - mean_x;
            num += dx * (s.after as f64 - mean_y);
            den += dx * dx;
        }
        let rising_steps = samples
            .windows(2)
            .filter(|w| w[1].after > w[0].after.saturating_add(STEP_NOISE))
            .count();
        Some(MemoryFigures {
            peak: samples.iter().map(|s| s.peak).max().unwrap_or(0),
            first_after: first.after,
            last_after: last.after,
            growth_per_sample: if den > 0.0 { num / den } else { 0.0 },
            rising_steps,
            steps: samples.len() - 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mem(after: u64) -> SampleMemory {
        SampleMemory {
            peak: after + 5,
            after,
            peak_is_lifetime: false,
        }
    }

    #[test]
    fn a_steady_resident_set_has_no_growth() {
        let f = MemoryFigures::of(&[mem(100 << 20), mem(101 << 20), mem(100 << 20)]).unwrap();
        assert_eq!(f.rising_steps, 0);
        assert!(f.growth_per_sample.abs() < (1 << 20) as f64);
        assert_eq!(f.peak, (101 << 20) + 5);
    }

    #[test]
    fn a_leak_grows_every_step() {
        let f = MemoryFigures::of(
            &(0..5)
                .map(|i| mem((i + 1) * (64 << 20)))
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!((f.rising_steps, f.steps), (4, 4));
        assert!((f.growth_per_sample - (64 << 20) as f64).abs() < 1.0);
        assert_eq!(f.last_after - f.first_after, 4 * (64 << 20));
    }

    #[test]
    fn no_samples_no_figures() {
        assert_eq!(MemoryFigures::of(&[]), None);
    }
}
