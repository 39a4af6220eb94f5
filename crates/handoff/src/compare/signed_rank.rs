//! The Wilcoxon signed-rank test, two-sided: are the differences within pairs centred on zero?
//!
//! A paired comparison (`handoff run --against`) has one figure of each build per pair, both
//! taken in the same round of an interleaved run, so the machine's drift between rounds cancels
//! within a pair. The test sees only the per-pair differences (here the logarithms of the
//! per-pair ratios, so a change is judged relative to its pair's level): it ranks their sizes and
//! asks whether the ranks of the positive ones sum to more or less than chance would give. It
//! assumes the differences are symmetric about their median under no change, which a log ratio
//! of two builds run alike is; it does not assume a shape.
//!
//! Zero differences are dropped (Wilcoxon's own rule, scipy's `zero_method="wilcox"`). The
//! p-value is computed
//! - **exactly** when at most [`EXACT_MAX`] differences remain: every assignment of signs to
//!   the ranks is counted (ties keep their midranks, counted on doubled ranks, which are
//!   integers), so no approximation enters where the samples are few;
//! - otherwise by the **normal approximation** with the tie correction of the variance and no
//!   continuity correction.
//!
//! Both agree with `scipy.stats.wilcoxon(d, zero_method="wilcox", correction=False)` (its
//! `method="auto"`); the tests hold the vectors.

use super::{mann_whitney, normal};
use serde::{Deserialize, Serialize};

/// The most non-zero differences for which the exact distribution is counted.
pub(crate) const EXACT_MAX: usize = 50;

/// How the p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Every sign assignment counted.
    Exact,
    /// The normal approximation with the tie correction.
    Normal,
}

/// The outcome of a test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignedRank {
    /// The smaller of the two rank sums (positive differences, negative differences).
    pub w: f64,
    /// Pairs whose difference was not zero (the ones ranked).
    pub n: usize,
    /// Two-sided p-value.
    pub p: f64,
    /// How `p` was computed.
    pub method: Method,
}

/// Tests whether the differences `d` are centred on zero; `None` when none is finite, and a
/// p-value of 1 when every difference is zero.
pub(crate) fn test(d: &[f64]) -> Option<SignedRank> {
    let d: Vec<f64> = d.iter().copied().filter(|x| x.is_finite()).collect();
    if d.is_empty() {
        return None;
    }
    let nonzero: Vec<f64> = d.into_iter().filter(|x| *x != 0.0).collect();
    let n = nonzero.len();
    if n == 0 {
        return Some(SignedRank {
            w: 0.0,
            n: 0,
            p: 1.0,
            method: Method::Exact,
        });
    }
    let (doubled, ties) = doubled_midranks(&nonzero);
    let plus: u64 = doubled
        .iter()
        .zip(&nonzero)
        .filter(|(_, x)| **x > 0.0)
        .map(|(r, _)| *r)
        .sum();
    let total: u64 = doubled.iter().sum();
    let low = plus.min(total - plus);
    let w = low as f64 / 2.0;
    if n <= EXACT_MAX {
        // counts[s]: sign assignments whose positive doubled ranks sum to s.
        let mut counts = vec![0f64; total as usize + 1];
        counts[0] = 1.0;
        let mut reach = 0usize;
        for &r in &doubled {
            let r = r as usize;
            for s in (0..=reach).rev() {
                if counts[s] != 0.0 {
                    counts[s + r] += counts[s];
                }
            }
            reach += r;
        }
        // 2^50 assignments at most: exact in an f64 (integers below 2^53).
        let all: f64 = counts.iter().sum();
        let tail: f64 = counts[..=low as usize].iter().sum();
        return Some(SignedRank {
            w,
            n,
            p: (2.0 * tail / all).min(1.0),
            method: Method::Exact,
        });
    }
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    let tie_term: f64 = ties
        .iter()
        .map(|&t| {
            let t = t as f64;
            t * t * t - t
        })
        .sum();
    let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    let p = if var <= 0.0 {
        1.0
    } else {
        let z = (w - mean) / var.sqrt();
        (2.0 * normal::upper_tail(z.abs())).min(1.0)
    };
    Some(SignedRank {
        w,
        n,
        p,
        method: Method::Normal,
    })
}

/// The smallest two-sided p-value `n` pairs can give: every difference of one sign.
pub(crate) fn min_p(n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    (2.0 / 2f64.powi(n.min(1023) as i32)).min(1.0)
}

/// The fewest pairs with which a difference can reach `alpha`.
pub(crate) fn pairs_needed(alpha: f64) -> usize {
    (1..).find(|&n| min_p(n) <= alpha).unwrap_or(usize::MAX)
}

/// Twice the midranks (1-based) of the absolute values of `d`, so that a tie's mean rank is an
/// integer too, and the size of every group of equal absolute values.
fn doubled_midranks(d: &[f64]) -> (Vec<u64>, Vec<usize>) {
    let (ranks, groups) = mann_whitney::midranks(d.iter().map(|x| x.abs()).collect());
    // A midrank is a whole number or a half: twice it is exact.
    (ranks.iter().map(|r| (2.0 * r) as u64).collect(), groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
    }

    /// Vectors from `scipy.stats.wilcoxon(d, zero_method="wilcox", correction=False)`, scipy
    /// 1.17.1, `method="auto"`: (differences, statistic, p-value).
    #[test]
    fn agrees_with_the_reference_implementation() {
        let cases: [(&[f64], f64, f64, Method); 4] = [
            (
                &[0.01, 0.02, 0.03, 0.04, 0.05, 0.06],
                0.0,
                0.03125,
                Method::Exact,
            ),
            (
                &[0.5, -1.2, 2.3, 0.8, -0.1, 1.7, 3.1, -0.4, 0.9, 1.1],
                10.0,
                0.083984375,
                Method::Exact,
            ),
            // Ties: counted exactly on their midranks.
            (
                &[1.0, -1.0, 2.0, 2.0, -3.0, 1.0, 4.0, 2.0],
                9.0,
                0.265625,
                Method::Exact,
            ),
            // Zeros are dropped before ranking.
            (
                &[0.0, 1.5, -0.5, 2.5, 0.0, 3.5, 1.0, -2.0, 4.5],
                5.0,
                0.15625,
                Method::Exact,
            ),
        ];
        for (d, w, p, method) in cases {
            let t = test(d).unwrap();
            assert!(close(t.w, w) && close(t.p, p), "{d:?}: {t:?}");
            assert_eq!(t.method, method);
        }
    }

    /// 60 draws of normal(0.3, 1), numpy default_rng(11), rounded to 4 places; one is -0.0,
    /// dropped, so 59 are ranked: past the exact limit.
    #[test]
    fn the_normal_approximation_agrees_on_the_large_case() {
        let d = [
            0.3342, 1.6597, 1.5247, -0.2103, 0.002, -0.2274, 0.8697, 0.2439, 1.0469, -1.5473,
            1.8665, 0.2036, 0.9804, 0.1634, -0.0791, 0.7631, 1.1245, 0.0975, 0.1472, 0.9857,
            -0.5703, -1.2144, 0.695, -0.3706, -1.6203, -0.5141, -0.1676, -0.8932, -1.1925, 0.3366,
            1.1972, 0.0669, -0.4436, 0.685, 1.0172, -0.0, 0.8447, 1.3429, 0.093, -0.5135, 0.6477,
            0.5475, 1.3988, -0.9846, -0.3616, -0.5382, -1.434, 0.4264, 0.8278, -0.4388, 1.6856,
            1.1219, 0.9274, 0.7017, 1.2557, -1.032, 0.9139, 0.9028, -1.4677, 0.647,
        ];
        let t = test(&d).unwrap();
        assert_eq!((t.n, t.method), (59, Method::Normal));
        assert!(close(t.w, 612.0), "{t:?}");
        assert!(close(t.p, 0.039_341_461_086_305_32), "{t:?}");
    }

    #[test]
    fn the_fewest_pairs_decide_what_can_be_shown() {
        assert!(close(min_p(5), 0.0625));
        assert!(close(min_p(6), 0.03125));
        assert_eq!(pairs_needed(0.05), 6);
        assert_eq!(pairs_needed(0.05 / 10.0), 9);
        // Six pairs all one way reach exactly the floor.
        let t = test(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]).unwrap();
        assert!(close(t.p, min_p(6)));
    }

    #[test]
    fn nothing_finite_gives_no_test_and_all_zero_gives_p_one() {
        assert!(test(&[]).is_none());
        assert!(test(&[f64::NAN]).is_none());
        let t = test(&[0.0, 0.0, 0.0]).unwrap();
        assert_eq!((t.n, t.p), (0, 1.0));
    }
}
