//! A limit probe's repetitions, the ones set aside as disagreeing with the rest, and the
//! yardstick drawn from the others.
//!
//! **The yardstick is the median** of the repetitions kept, not the best one. Noise on a shared
//! machine does not only slow a repetition down: a virtual CPU that migrates can put both probe
//! threads on one physical core for a moment, and a single repetition then reads a 17.8 ns round
//! trip among 124 ns ones, or 48 GB/s among 8.6 GB/s. The best repetition was that anomaly, and
//! every result's distance to the limit collapsed against it. The median moves only if half the
//! repetitions move (three of the default seven), and with three to seven repetitions it is what
//! a trimmed mean would be, without choosing how much to trim.
//!
//! **A repetition is set aside** ([`outlying`]) when it lies both more than
//! [`OUTLIER_MADS`] scaled median absolute deviations from the median (the modified z-score of
//! Iglewicz and Hoaglin, `|x - median| / (1.4826 MAD) > 3.5`, a standard cut for a handful of
//! values) and at least a factor [`OUTLIER_RATIO`] away from it. The ratio floor keeps a very
//! steady probe (a MAD of a fraction of a percent) from having its harmless jitter flagged; the
//! MAD test keeps a probe that is noisy throughout from having its ordinary spread flagged
//! repetition by repetition. A repetition set aside never becomes the limit, and is said
//! (`probe-unstable` on the results measured against that probe).
//!
//! **A probe is stable** ([`Repetitions::is_stable`]) when nothing was set aside and its kept
//! repetitions spread no more than a result may before it is called noisy
//! ([`crate::stats::NOISY_SPREAD`], a relative MAD of 5%). A result beyond the limit of a stable
//! probe is beyond what the probe's geometry measures; beyond an unstable one, the probe was
//! disturbed (see `beyond-limit`).

use crate::stats::{Summary, NOISY_SPREAD};
use serde::{Deserialize, Serialize};

/// Scaled MADs from the median beyond which a repetition may be set aside.
pub const OUTLIER_MADS: f64 = 3.5;
/// Factor from the median (either way) a repetition must also lie beyond to be set aside.
pub const OUTLIER_RATIO: f64 = 1.2;
/// The MAD times this estimates the standard deviation of normally distributed values.
const MAD_TO_SD: f64 = 1.4826;

/// One probe's repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repetitions {
    /// The probe (`cacheline-rtt`, `cacheline-rtt-stamped`, `stream-bandwidth`).
    pub probe: String,
    /// Each repetition's figure, in the order run: ns per round trip, or bytes per second.
    pub values: Vec<f64>,
    /// Indices into `values` of the repetitions set aside (see [`outlying`]).
    pub outlying: Vec<usize>,
}

impl Repetitions {
    /// The repetitions of `probe`, with those that disagree with the rest set aside.
    pub fn new(probe: &str, values: Vec<f64>) -> Repetitions {
        Repetitions {
            probe: probe.to_string(),
            outlying: outlying(&values),
            values,
        }
    }

    /// The repetitions kept, in the order run.
    pub fn kept(&self) -> Vec<f64> {
        self.values
            .iter()
            .enumerate()
            .filter(|(i, _)| !self.outlying.contains(i))
            .map(|(_, v)| *v)
            .collect()
    }

    /// The repetitions set aside, in the order run.
    pub fn set_aside(&self) -> Vec<f64> {
        self.outlying.iter().map(|&i| self.values[i]).collect()
    }

    /// The summary of the repetitions kept: its median is the yardstick.
    pub fn summary(&self) -> Option<Summary> {
        Summary::of(&self.kept())
    }

    /// Whether nothing was set aside and the kept repetitions spread no more than a quiet result
    /// may ([`NOISY_SPREAD`]).
    pub fn is_stable(&self) -> bool {
        self.outlying.is_empty() && self.summary().is_some_and(|s| s.spread <= NOISY_SPREAD)
    }
}

/// Indices of the values that disagree with the rest: beyond [`OUTLIER_MADS`] scaled MADs of
/// the median *and* a factor [`OUTLIER_RATIO`] from it. At least half the values are always
/// kept (those within one MAD of the median).
pub fn outlying(values: &[f64]) -> Vec<usize> {
    let Some(s) = Summary::of(values) else {
        return Vec::new();
    };
    if s.median <= 0.0 {
        return Vec::new();
    }
    let scaled_mad = MAD_TO_SD * s.mad;
    values
        .iter()
        .enumerate()
        .filter(|(_, &x)| {
            let far = (x - s.median).abs() > OUTLIER_MADS * scaled_mad;
            let factor = if x > 0.0 {
                (x / s.median).max(s.median / x)
            } else {
                f64::INFINITY
            };
            far && factor >= OUTLIER_RATIO
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anomalous_repetition_is_set_aside_and_not_the_yardstick() {
        // The round trip seen on a busy two-core guest: one repetition far faster than the rest.
        let r = Repetitions::new(
            "cacheline-rtt-stamped",
            vec![124.0, 121.0, 17.8, 126.0, 123.0, 125.0, 122.0],
        );
        assert_eq!(r.outlying, vec![2]);
        assert_eq!(r.set_aside(), vec![17.8]);
        let s = r.summary().unwrap();
        assert_eq!((s.median, s.min, s.n), (123.5, 121.0, 6));
        assert!(!r.is_stable());
        // And a bandwidth far above the rest.
        let bw = Repetitions::new(
            "stream-bandwidth",
            vec![8.6e9, 8.5e9, 8.7e9, 48e9, 8.6e9, 8.4e9, 8.8e9],
        );
        assert_eq!(bw.set_aside(), vec![48e9]);
        assert_eq!(bw.summary().unwrap().median, 8.6e9);
    }

    #[test]
    fn steady_repetitions_are_all_kept_and_stable() {
        let r = Repetitions::new("cacheline-rtt", vec![50.0, 50.5, 49.8, 51.0, 50.2]);
        assert!(r.outlying.is_empty());
        assert!(r.is_stable());
        // Identical but one: a MAD of zero, yet a 2% step is jitter, not an anomaly.
        assert_eq!(
            outlying(&[50.0, 50.0, 50.0, 51.0, 50.0]),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn a_probe_noisy_throughout_keeps_its_repetitions_but_is_not_stable() {
        let r = Repetitions::new("stream-bandwidth", vec![6.5e9, 9e9, 12e9, 15e9, 21e9]);
        assert!(r.outlying.is_empty(), "{:?}", r.outlying);
        assert!(!r.is_stable());
    }

    #[test]
    fn three_repetitions_can_lose_one_two_cannot() {
        assert_eq!(outlying(&[124.0, 125.0, 17.8]), vec![2]);
        assert_eq!(outlying(&[124.0, 17.8]), Vec::<usize>::new());
        assert_eq!(outlying(&[]), Vec::<usize>::new());
    }
}
