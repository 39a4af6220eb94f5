//! Judging a paired run's change against the spread between link orders of one source.
//!
//! Where a change reaches the code of a transport, two builds differ in more than the edit: the
//! linker places every function anew, and a spinning loop's speed can depend on where it sits
//! (its alignment, what shares its cache lines and branch-predictor slots). One build per side
//! is then one draw of that placement, and a paired test over one draw mistakes the draw for
//! the change. So a paired run can link each side in K function orders
//! (`handoff run --against OTHER --link-orders K`; the session runs timed sample `k` of both
//! sides on order `k mod K`), the same sources each time, making the placement part of what is
//! sampled (setup randomisation: Mytkowicz et al., ASPLOS 2009; Curtsinger and Berger's
//! Stabilizer, ASPLOS 2013, does it at run time).
//!
//! The unit of the test is then the order, not the pair: for each order, the mean log ratio of
//! its pairs (this build over the other, each pair still cancelling the machine's drift); the
//! change is the mean of those K means, judged by a one-sample t-test with K − 1 degrees of
//! freedom against their spread. A difference that one placement gave and another took away is
//! inside that spread, and not called a change.

use super::bootstrap::Interval;
use super::student_t;
use serde::{Deserialize, Serialize};

/// The test over link orders.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkOrders {
    /// Orders judged (each with at least one pair).
    pub orders: usize,
    /// Pairs over all orders.
    pub pairs: usize,
    /// The change: exp of the mean over orders of each order's mean log ratio (after / before).
    pub ratio: f64,
    /// The spread between orders: the standard deviation of their mean log ratios (about the
    /// relative spread of one order's ratio).
    pub spread: f64,
    /// t statistic, with `orders − 1` degrees of freedom.
    pub t: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Judges `before[k]`, `after[k]` (timed sample `k` of each side, run on order `k mod
/// orders`) over the orders; `None` when fewer than two orders have a pair with a ratio, or
/// the sides' sample counts differ (the order of a sample is then not known).
pub(crate) fn judge(before: &[f64], after: &[f64], orders: usize) -> Option<LinkOrders> {
    if orders < 2 || before.len() != after.len() {
        return None;
    }
    let mut sums = vec![(0.0_f64, 0_usize); orders];
    for (k, (b, a)) in before.iter().zip(after).enumerate() {
        if *b > 0.0 && *a > 0.0 && b.is_finite() && a.is_finite() {
            let s = &mut sums[k % orders];
            s.0 += (a / b).ln();
            s.1 += 1;
        }
    }
    let means: Vec<f64> = sums
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| s / *n as f64)
        .collect();
    let m = means.len();
    if m < 2 {
        return None;
    }
    let mean = means.iter().sum::<f64>() / m as f64;
    let var = means.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (m - 1) as f64;
    let spread = var.sqrt();
    let se = spread / (m as f64).sqrt();
    let t = if se > 0.0 {
        mean / se
    } else if mean == 0.0 {
        0.0
    } else {
        f64::INFINITY.copysign(mean)
    };
    let df = u32::try_from(m - 1).unwrap_or(u32::MAX);
    Some(LinkOrders {
        orders: m,
        pairs: sums.iter().map(|(_, n)| n).sum(),
        ratio: mean.exp(),
        spread,
        t,
        p: student_t::two_sided(t, df),
    })
}

impl LinkOrders {
    /// The (1 − `alpha`) interval of the ratio: the mean log ratio ± the t critical value times
    /// its standard error, back on the ratio's scale.
    pub(crate) fn interval(&self, alpha: f64) -> Interval {
        let df = u32::try_from(self.orders.saturating_sub(1).max(1)).unwrap_or(u32::MAX);
        let half = student_t::critical(alpha, df) * self.spread / (self.orders as f64).sqrt();
        let centre = self.ratio.ln();
        Interval {
            low: (centre - half).exp(),
            high: (centre + half).exp(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs over `orders` orders: order `i` shifts this build by `offsets[i]` (its placement),
    /// and every pair by the change.
    fn pairs(n: usize, change: f64, offsets: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let before: Vec<f64> = (0..n)
            .map(|k| 100.0 * (1.0 + 0.3 * ((k * 5 % 7) as f64 / 7.0)))
            .collect();
        let after = before
            .iter()
            .enumerate()
            .map(|(k, b)| {
                let jitter = 1.0 + 0.001 * ((k % 3) as f64 - 1.0);
                b * change * (1.0 + offsets[k % offsets.len()]) * jitter
            })
            .collect();
        (before, after)
    }

    #[test]
    fn a_difference_one_order_gave_and_another_took_is_within_the_spread() {
        // No change; the placements move this build by +8 %, −6 %, +1 %, −3 %. Every pair is
        // clean, so a test over pairs calls it a change; over orders it is not one.
        let (b, a) = pairs(32, 1.0, &[0.08, -0.06, 0.01, -0.03]);
        let l = judge(&b, &a, 4).unwrap();
        assert_eq!((l.orders, l.pairs), (4, 32));
        assert!(l.p > 0.5, "{l:?}");
        assert!(l.spread > 0.04, "{l:?}");
        assert!(l.interval(0.05).contains(1.0), "{l:?}");
    }

    #[test]
    fn a_change_beyond_the_spread_is_found_with_its_size() {
        // A 10 % slowdown under placements that move by about ±1 %.
        let (b, a) = pairs(32, 0.90, &[0.01, -0.01, 0.005, -0.005]);
        let l = judge(&b, &a, 4).unwrap();
        assert!(l.p < 0.001, "{l:?}");
        assert!((l.ratio - 0.90).abs() < 0.005, "{l:?}");
        let i = l.interval(0.05);
        assert!(i.contains(0.90) && i.high < 0.95, "{i:?}");
    }

    #[test]
    fn too_few_orders_or_unaligned_sides_are_not_judged() {
        let (b, a) = pairs(8, 0.9, &[0.0]);
        assert!(judge(&b, &a, 1).is_none());
        assert!(judge(&b, &a[..7], 4).is_none());
        // Only order 0 has a pair with a ratio.
        let b2 = [100.0, 0.0, 0.0, 0.0];
        assert!(judge(&b2, &[90.0, 90.0, 90.0, 90.0], 4).is_none());
        // Identical sides: no change, no spread, p of 1.
        let l = judge(&b, &b, 4).unwrap();
        assert_eq!((l.t, l.p, l.ratio), (0.0, 1.0, 1.0));
    }
}
