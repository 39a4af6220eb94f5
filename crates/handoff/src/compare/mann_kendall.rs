//! The Mann–Kendall trend test: does a series tend to rise (or fall) over its order, more than
//! chance would make it? It compares every pair of points (S counts the later point larger minus
//! the later point smaller), so one outlying point moves S by at most n − 1 pairs of
//! n(n − 1)/2, and it assumes no shape of the trend (not a line) and no distribution of the
//! values. The p-value comes from the normal approximation of S with the variance corrected for
//! ties and a continuity correction, as in Kendall (1975), "Rank Correlation Methods"; it is
//! used here from 8 points up, where the approximation is already close.

use super::normal::upper_tail;

/// Fewest points the test is run on.
pub(crate) const MIN_POINTS: usize = 8;

/// The test of one series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Trend {
    /// Kendall's S: pairs rising minus pairs falling.
    pub s: i64,
    /// The one-sided p-value of a rising trend (small when the series rises).
    pub p_rising: f64,
    /// The one-sided p-value of a falling trend.
    pub p_falling: f64,
}

/// The test of `xs` in their order; `None` with fewer than [`MIN_POINTS`] points or none
/// finite and distinct.
pub(crate) fn test(xs: &[f64]) -> Option<Trend> {
    let n = xs.len();
    if n < MIN_POINTS || xs.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut s: i64 = 0;
    for i in 0..n {
        for j in i + 1..n {
            s += match xs[j].total_cmp(&xs[i]) {
                std::cmp::Ordering::Greater => 1,
                std::cmp::Ordering::Less => -1,
                std::cmp::Ordering::Equal => 0,
            };
        }
    }
    // Ties: each group of t equal values takes t(t − 1)(2t + 5) off the variance.
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mut ties = 0.0;
    let mut k = 0;
    while k < n {
        let t = sorted[k..].iter().take_while(|&&x| x == sorted[k]).count();
        let t_f = t as f64;
        ties += t_f * (t_f - 1.0) * (2.0 * t_f + 5.0);
        k += t;
    }
    let n_f = n as f64;
    let var = (n_f * (n_f - 1.0) * (2.0 * n_f + 5.0) - ties) / 18.0;
    if var <= 0.0 {
        return None;
    }
    let z = match s {
        0 => 0.0,
        s if s > 0 => (s as f64 - 1.0) / var.sqrt(),
        s => (s as f64 + 1.0) / var.sqrt(),
    };
    Some(Trend {
        s,
        p_rising: upper_tail(z),
        p_falling: upper_tail(-z),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_the_normal_approximation_worked_by_hand() {
        // 1..=10 in order: S = 45, Var = 10·9·25/18 = 125, z = 44/√125 = 3.9355.
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let t = test(&xs).unwrap();
        assert_eq!(t.s, 45);
        assert!((t.p_rising - upper_tail(44.0 / 125f64.sqrt())).abs() < 1e-15);
        assert!(t.p_rising < 1e-4 && t.p_falling > 0.999);
        // Reversed: the same evidence of a fall.
        let rev: Vec<f64> = xs.iter().rev().copied().collect();
        let r = test(&rev).unwrap();
        assert_eq!(r.s, -45);
        assert!((r.p_falling - t.p_rising).abs() < 1e-15);
    }

    #[test]
    fn ties_shrink_the_variance() {
        // 1,1,2,2,3,3,4,4: S = 24 (4 tied pairs count 0), ties 4 groups of 2 take 4·18 = 72:
        // Var = (8·7·21 − 72)/18 = 61.33, z = 23/√61.33.
        let xs = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0];
        let t = test(&xs).unwrap();
        assert_eq!(t.s, 24);
        let var: f64 = (8.0 * 7.0 * 21.0 - 72.0) / 18.0;
        assert!((t.p_rising - upper_tail(23.0 / var.sqrt())).abs() < 1e-15);
    }

    #[test]
    fn a_flat_or_short_series_shows_no_trend() {
        assert_eq!(test(&[5.0; 12]), None, "all tied: no variance");
        assert_eq!(test(&[1.0, 2.0, 3.0]), None, "too short");
        // Alternating: S = 0 or close, p near one half either way.
        let xs: Vec<f64> = (0..20).map(|i| (i % 2) as f64).collect();
        let t = test(&xs).unwrap();
        assert!(t.p_rising > 0.2 && t.p_falling > 0.2, "{t:?}");
    }

    #[test]
    fn one_outlier_does_not_make_a_trend() {
        let mut xs = vec![
            10.0, 11.0, 9.0, 10.5, 9.5, 10.2, 9.8, 10.1, 9.9, 10.0, 10.3, 9.7,
        ];
        xs[11] = 1000.0;
        let t = test(&xs).unwrap();
        assert!(t.p_rising > 0.01, "{t:?}");
    }
}
