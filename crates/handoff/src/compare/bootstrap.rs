//! A bootstrap confidence interval for the ratio of two medians.
//!
//! Each side is resampled with replacement, independently, [`RESAMPLES`] times; the interval is
//! the 2.5th to 97.5th percentile of the resampled ratios (the percentile bootstrap). The
//! generator is seeded from the data, so the same two sets of samples always print the same
//! interval. With few samples the interval is coarse (a median of 5 resampled values can take
//! only 5 values): it is shown, never used alone to declare a change; the rank test decides.

use crate::stats::median;
use serde::{Deserialize, Serialize};

/// Resamples drawn.
pub(crate) const RESAMPLES: usize = 2000;

/// A confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies in the interval.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// The 95% interval of median(after) / median(before); `None` when a side is empty or a
/// resampled median of `before` is 0.
pub(crate) fn ratio_of_medians(before: &[f64], after: &[f64]) -> Option<Interval> {
    if before.is_empty() || after.is_empty() {
        return None;
    }
    let mut rng = SplitMix(seed(before, after));
    let mut ratios = Vec::with_capacity(RESAMPLES);
    let (mut a, mut b) = (vec![0.0; before.len()], vec![0.0; after.len()]);
    for _ in 0..RESAMPLES {
        for x in a.iter_mut() {
            *x = before[rng.below(before.len())];
        }
        for x in b.iter_mut() {
            *x = after[rng.below(after.len())];
        }
        let m = median(&a);
        if m == 0.0 {
            return None;
        }
        ratios.push(median(&b) / m);
    }
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    Some(Interval {
        low: at(0.025),
        high: at(0.975),
    })
}

/// The 95% interval of the median of per-pair ratios (`ratios`, after / before of each pair
/// of a paired run): the pairs are resampled with replacement, as pairs, so what the machine's
/// drift did to both sides of a pair stays in it. `None` when there is no ratio.
pub(crate) fn median_of_ratios(ratios: &[f64]) -> Option<Interval> {
    if ratios.is_empty() {
        return None;
    }
    let mut rng = SplitMix(seed(ratios, &[]));
    let mut medians = Vec::with_capacity(RESAMPLES);
    let mut pick = vec![0.0; ratios.len()];
    for _ in 0..RESAMPLES {
        for x in pick.iter_mut() {
            *x = ratios[rng.below(ratios.len())];
        }
        medians.push(median(&pick));
    }
    medians.sort_by(f64::total_cmp);
    let at = |q: f64| medians[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    Some(Interval {
        low: at(0.025),
        high: at(0.975),
    })
}

/// A seed from the figures themselves: reproducible for the same data, different for other data.
fn seed(before: &[f64], after: &[f64]) -> u64 {
    before
        .iter()
        .chain(after)
        .fold(0x9e37_79b9_7f4a_7c15u64, |h, x| {
            (h ^ x.to_bits())
                .wrapping_mul(0x0100_0000_01b3)
                .rotate_left(29)
        })
}

/// SplitMix64: a small, well-distributed generator; enough for resampling indices.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (multiply-shift; the bias is negligible for sample counts).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_holds_the_ratio_of_medians_and_is_reproducible() {
        let before: Vec<f64> = (0..20).map(|i| 100.0 + (i % 7) as f64).collect();
        let after: Vec<f64> = before.iter().map(|x| x * 0.8).collect();
        let ci = ratio_of_medians(&before, &after).unwrap();
        assert!(ci.contains(0.8), "{ci:?}");
        assert!(ci.high < 0.9, "{ci:?}");
        assert_eq!(ratio_of_medians(&before, &after), Some(ci));
    }

    #[test]
    fn identical_sides_give_an_interval_around_one() {
        let v: Vec<f64> = (0..15).map(|i| 50.0 + (i * 37 % 11) as f64).collect();
        let ci = ratio_of_medians(&v, &v).unwrap();
        assert!(ci.contains(1.0), "{ci:?}");
        assert!(ci.low > 0.85 && ci.high < 1.15, "{ci:?}");
    }

    #[test]
    fn the_interval_of_paired_ratios_holds_their_median() {
        let ratios: Vec<f64> = (0..12).map(|i| 0.95 + (i % 5) as f64 * 0.005).collect();
        let ci = median_of_ratios(&ratios).unwrap();
        assert!(ci.contains(crate::stats::median(&ratios)), "{ci:?}");
        assert!(ci.low >= 0.95 && ci.high <= 0.97, "{ci:?}");
        assert_eq!(median_of_ratios(&ratios), Some(ci));
        assert_eq!(median_of_ratios(&[]), None);
    }

    #[test]
    fn empty_or_zero_sides_give_none() {
        assert_eq!(ratio_of_medians(&[], &[1.0]), None);
        assert_eq!(ratio_of_medians(&[0.0, 0.0], &[1.0]), None);
    }

    #[test]
    fn indices_stay_in_range() {
        let mut r = SplitMix(1);
        for n in [1, 2, 3, 7, 30] {
            for _ in 0..1000 {
                assert!(r.below(n) < n);
            }
        }
    }
}
