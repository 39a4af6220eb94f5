//! The Benjamini–Hochberg adjustment: p-values of many figures judged at once.
//!
//! A comparison tests every figure of every matched result, often a hundred of them. At
//! alpha = 0.05 each, two runs of the same build would show a "significant" change in one
//! figure or more almost every time (measured: in 26 of 28 pairs of default-suite runs, see
//! docs/compare.md), and a gate over them would fail most builds for nothing. The
//! Benjamini–Hochberg step-up procedure controls the false discovery rate instead: among the
//! figures called changed, the expected share that did not change is at most alpha; when no
//! figure changed, the chance of calling any changed is at most alpha. It keeps the power to
//! see a change shared by many figures (a slower build slows many results), where a
//! Bonferroni-style correction would ask every figure for a p below alpha / m.
//!
//! The adjusted p-value of the i-th smallest of m p-values is the smallest
//! `m / j · p(j)` over j ≥ i, capped at 1; a figure is significant when its adjusted p-value is
//! below alpha (Benjamini and Hochberg, "Controlling the false discovery rate", JRSS B, 1995).
//! The procedure holds for independent tests and for positively dependent ones (Benjamini
//! and Yekutieli, 2001), which is what figures of one machine's runs are.

/// The Benjamini–Hochberg adjusted p-values of `ps`, in the order given.
pub(crate) fn adjust(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut adjusted = vec![0.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        let q = ps[i] * m as f64 / (rank + 1) as f64;
        running = running.min(q);
        adjusted[i] = running.min(1.0);
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::adjust;

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn matches_the_reference_adjustment() {
        // scipy.stats.false_discovery_control(ps, method="bh") on these vectors.
        close(
            &adjust(&[0.01, 0.04, 0.03, 0.005]),
            &[0.02, 0.04, 0.04, 0.02],
        );
        close(&adjust(&[0.5]), &[0.5]);
        close(&adjust(&[]), &[]);
    }

    #[test]
    fn one_small_p_among_many_is_not_enough_but_many_are() {
        let mut ps = vec![0.6; 99];
        ps.push(0.008);
        assert!(adjust(&ps)[99] > 0.05);
        let all = vec![0.008; 100];
        assert!(adjust(&all).iter().all(|&q| (q - 0.008).abs() < 1e-15));
    }

    #[test]
    fn adjusted_values_keep_the_order_and_never_fall_below_the_raw_ones() {
        let ps = [0.2, 0.001, 0.04, 0.9, 0.03, 0.03, 0.5];
        let q = adjust(&ps);
        for i in 0..ps.len() {
            assert!(q[i] >= ps[i] && q[i] <= 1.0);
            for j in 0..ps.len() {
                if ps[i] < ps[j] {
                    assert!(q[i] <= q[j]);
                }
            }
        }
    }
}
