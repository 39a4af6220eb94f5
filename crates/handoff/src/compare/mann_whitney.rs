//! The Mann–Whitney U test (Wilcoxon rank-sum), two-sided: do two sets of per-sample figures
//! come from the same distribution?
//!
//! It is the test benchstat uses on benchmark samples: it assumes no shape for the
//! distribution (sample figures are skewed and often bimodal), only that the samples are
//! independent. The p-value is computed
//! - **exactly** when no figure is tied and the two sides have at most [`EXACT_MAX_TOTAL`]
//!   samples together: the null distribution of U is counted (the coefficients of a Gaussian
//!   binomial), in exact integer arithmetic;
//! - otherwise by the **normal approximation** with the tie correction of the variance and a
//!   continuity correction of ½.
//!
//! Both agree with `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=…)`; the
//! tests hold the vectors.

use super::normal;
use serde::{Deserialize, Serialize};

/// The largest total sample count for which the exact distribution is counted (its counts fit
/// an `i128` well past this).
pub(crate) const EXACT_MAX_TOTAL: usize = 100;

/// How the p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The exact null distribution (no ties, small samples).
    Exact,
    /// The normal approximation with tie and continuity corrections.
    Normal,
}

/// The outcome of a test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the first sample: the number of pairs (x, y) with x > y, ties counting ½.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// How `p` was computed.
    pub method: Method,
}

/// Tests `x` against `y`; `None` when either is empty.
pub(crate) fn test(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let (ranks, tie_groups) = midranks(x.iter().chain(y).copied().collect());
    let r1: f64 = ranks[..n1].iter().sum();
    let u1 = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let u2 = (n1 * n2) as f64 - u1;
    let big = u1.max(u2);
    let ties = tie_groups.iter().any(|&t| t > 1);
    if !ties && n1 + n2 <= EXACT_MAX_TOTAL {
        let dist = exact_counts(n1, n2);
        let total: i128 = dist.iter().sum();
        // P(U >= big): U is an integer without ties.
        let tail: i128 = dist[big as usize..].iter().sum();
        let p = (2.0 * tail as f64 / total as f64).min(1.0);
        return Some(MannWhitney {
            u: u1,
            p,
            method: Method::Exact,
        });
    }
    let n = (n1 + n2) as f64;
    let mu = (n1 * n2) as f64 / 2.0;
    let tie_term: f64 = tie_groups
        .iter()
        .map(|&t| {
            let t = t as f64;
            t * t * t - t
        })
        .sum();
    let var = (n1 * n2) as f64 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    let p = if var <= 0.0 {
        1.0
    } else {
        let z = (big - mu - 0.5) / var.sqrt();
        (2.0 * normal::upper_tail(z)).min(1.0)
    };
    Some(MannWhitney {
        u: u1,
        p,
        method: Method::Normal,
    })
}

/// The smallest two-sided p-value any data can give with `n1` and `n2` samples: every sample of
/// one side above every sample of the other.
pub(crate) fn min_p(n1: usize, n2: usize) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    // 2 / C(n1 + n2, n1), computed in floating point to stay finite for any count.
    let (k, n) = (n1.min(n2), n1 + n2);
    let mut c = 1.0f64;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    (2.0 / c).min(1.0)
}

/// The fewest samples per side (equal counts) with which a difference can reach `alpha`.
pub(crate) fn samples_needed(alpha: f64) -> usize {
    (1..).find(|&n| min_p(n, n) <= alpha).unwrap_or(usize::MAX)
}

/// Midranks (1-based, ties sharing their mean rank) of `v` in its order, and the size of every
/// group of equal values; the signed-rank test ranks its differences' sizes with it too.
pub(super) fn midranks(v: Vec<f64>) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut groups = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && v[order[j]] == v[order[i]] {
            j += 1;
        }
        // Positions i..j (0-based) hold equal values: ranks i+1..=j, mean (i + 1 + j) / 2.
        let rank = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = rank;
        }
        groups.push(j - i);
        i = j;
    }
    (ranks, groups)
}

/// How many of the C(m+n, m) orderings of the two samples give each U = 0..=m·n: the
/// coefficients of the Gaussian binomial ∏_{i=1..m} (1 − q^{n+i}) / (1 − q^i). After each
/// factor the polynomial is again a Gaussian binomial, so every intermediate count is exact.
fn exact_counts(m: usize, n: usize) -> Vec<i128> {
    let mut p = vec![0i128; m * n + 1];
    p[0] = 1;
    for i in 1..=m {
        // Multiply by (1 − q^{n+i}): descending so each coefficient uses the old values.
        let s = n + i;
        for k in (s..p.len()).rev() {
            p[k] -= p[k - s];
        }
        // Divide by (1 − q^i): the running sum with stride i.
        for k in i..p.len() {
            p[k] += p[k - i];
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1e-12)
    }

    /// Vectors from `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=M)`,
    /// scipy 1.17.1; `statistic` is U of x.
    #[test]
    fn agrees_with_the_reference_implementation() {
        let cases: [(&[f64], &[f64], f64, f64, Method); 8] = [
            // method="exact"
            (
                &[1., 2., 3., 4., 5.],
                &[6., 7., 8., 9., 10.],
                0.0,
                0.007936507936507936,
                Method::Exact,
            ),
            (
                &[3.1, 1.2, 5.5, 4.4],
                &[2.0, 6.1, 7.3, 0.5, 8.8],
                7.0,
                0.5555555555555556,
                Method::Exact,
            ),
            (
                &[10.0, 11.5, 9.8, 12.1, 10.7, 11.0, 10.2],
                &[9.1, 9.9, 10.05, 8.7, 9.5, 10.3, 9.0, 8.8],
                50.0,
                0.009324009324009324,
                Method::Exact,
            ),
            (&[1., 2., 3.], &[4., 5., 6.], 0.0, 0.1, Method::Exact),
            (&BIG_X, &BIG_Y, 125.0, 0.0037409693976484942, Method::Exact),
            // Ties: method="asymptotic" (use_continuity=True, the default).
            (
                &[1., 2., 2., 3., 3., 3.],
                &[2., 3., 4., 4., 5.],
                5.5,
                0.08871369199677616,
                Method::Normal,
            ),
            (&[1., 2., 3.], &[1., 2., 3.], 4.5, 1.0, Method::Normal),
            (&[5., 5., 5.], &[5., 5.], 3.0, 1.0, Method::Normal),
        ];
        for (x, y, u, p, method) in cases {
            let r = test(x, y).unwrap();
            assert_eq!(r.method, method, "{x:?} vs {y:?}");
            assert!(close(r.u, u), "U {} vs {u} for {x:?}", r.u);
            assert!(close(r.p, p), "p {} vs {p} for {x:?} vs {y:?}", r.p);
        }
    }

    /// 20 and 25 draws of normal(100, 5) and normal(104, 5), numpy default_rng(7), rounded.
    const BIG_X: [f64; 20] = [
        100.006, 101.494, 98.629, 95.547, 97.727, 95.042, 100.301, 106.701, 97.539, 96.898,
        102.449, 101.784, 100.527, 95.348, 99.854, 103.477, 93.279, 97.712, 90.494, 93.552,
    ];
    const BIG_Y: [f64; 25] = [
        94.791, 102.825, 97.663, 105.356, 104.784, 103.065, 91.416, 101.307, 103.757, 104.567,
        96.349, 101.611, 99.107, 99.956, 109.304, 99.962, 103.837, 108.422, 101.082, 103.441,
        104.552, 104.319, 97.875, 104.381, 110.794,
    ];

    #[test]
    fn the_normal_approximation_agrees_on_the_large_case() {
        // scipy method="asymptotic" on the 20 vs 25 samples with x[0] repeated (one tie forces
        // the approximation): U = 133, p = 0.004442706740616746.
        let mut x = BIG_X.to_vec();
        x.push(x[0]);
        let r = test(&x, &BIG_Y).unwrap();
        assert_eq!(r.method, Method::Normal);
        assert!(close(r.u, 133.0), "{}", r.u);
        assert!(close(r.p, 0.004442706740616746), "{}", r.p);
    }

    #[test]
    fn exact_counts_are_the_binomial_total_and_symmetric() {
        let c = exact_counts(6, 9);
        assert_eq!(c.iter().sum::<i128>(), 5005); // C(15, 6)
        for u in 0..c.len() {
            assert_eq!(c[u], c[c.len() - 1 - u]);
            assert!(c[u] > 0);
        }
        let big = exact_counts(50, 50);
        let total: i128 = big.iter().sum();
        assert_eq!(total, 100_891_344_545_564_193_334_812_497_256); // C(100, 50)
    }

    #[test]
    fn the_smallest_p_decides_how_many_samples_are_needed() {
        assert!(close(min_p(3, 3), 0.1));
        assert!(close(min_p(4, 4), 2.0 / 70.0));
        assert_eq!(samples_needed(0.05), 4);
        assert_eq!(samples_needed(0.01), 5);
        assert_eq!(min_p(0, 5), 1.0);
        // What the exact test reaches when every sample of one side is above the other's.
        let r = test(&[1., 2., 3., 4.], &[5., 6., 7., 8.]).unwrap();
        assert!(close(r.p, min_p(4, 4)));
    }

    #[test]
    fn empty_sides_give_no_test() {
        assert!(test(&[], &[1.0]).is_none());
        assert!(test(&[1.0], &[]).is_none());
    }
}
