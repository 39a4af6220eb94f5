//! Summary statistics over samples: median with min and max, and a robust dispersion figure.
//!
//! Dispersion is the median absolute deviation relative to the median (`mad / median`), which,
//! unlike the coefficient of variation, is not dragged by one outlying sample on a shared machine.
//! A result whose relative MAD exceeds [`NOISY_SPREAD`] is flagged as noisy.
//!
//! A median is one number; samples that fall into two regimes are found apart, by [`modes`].

pub mod modes;
pub mod shared_regimes;

use serde::{Deserialize, Serialize};

/// Relative MAD above which a result is flagged noisy (5%).
pub const NOISY_SPREAD: f64 = 0.05;

/// Median, extremes and dispersion of a set of samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Median.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median absolute deviation from the median.
    pub mad: f64,
    /// `mad / median` (0 when the median is 0).
    pub spread: f64,
    /// Samples summarised.
    pub n: usize,
}

impl Summary {
    /// Summarises `xs`; `None` if it is empty.
    pub fn of(xs: &[f64]) -> Option<Summary> {
        if xs.is_empty() {
            return None;
        }
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        let median = median_sorted(&v);
        let mut dev: Vec<f64> = v.iter().map(|x| (x - median).abs()).collect();
        dev.sort_by(f64::total_cmp);
        let mad = median_sorted(&dev);
        Some(Summary {
            median,
            min: v[0],
            max: v[v.len() - 1],
            mean: v.iter().sum::<f64>() / v.len() as f64,
            mad,
            spread: if median != 0.0 { mad / median } else { 0.0 },
            n: v.len(),
        })
    }

    /// Whether the dispersion is above the noisy threshold.
    pub fn is_noisy(&self) -> bool {
        self.spread > NOISY_SPREAD
    }
}

/// The median of `xs` (`NaN` when empty).
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    median_sorted(&v)
}

fn median_sorted(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_mad_and_extremes() {
        let s = Summary::of(&[10.0, 12.0, 11.0, 50.0, 9.0]).unwrap();
        assert_eq!(s.median, 11.0);
        assert_eq!((s.min, s.max), (9.0, 50.0));
        assert_eq!(s.mad, 1.0);
        assert!(!s.is_noisy() || s.spread > NOISY_SPREAD);
        assert_eq!(Summary::of(&[1.0, 3.0]).unwrap().median, 2.0);
        assert!(Summary::of(&[]).is_none());
    }
}
