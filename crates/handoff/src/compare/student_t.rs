//! Student's t distribution with a whole number of degrees of freedom: the two-sided tail and
//! its inverse, for a t-test over a handful of independent units (a paired run's link orders,
//! see [`super::link_orders`]).
//!
//! With ν whole, P(|T| ≤ t) has a closed form in θ = atan(t/√ν) (Abramowitz and Stegun,
//! 26.7.3 and 26.7.4): a finite sum of powers of cos θ, odd ν adding θ itself. It is exact to
//! rounding for every ν, so no series or continued fraction is needed.

/// P(|T| ≥ |t|) for T with `df` degrees of freedom (`df` ≥ 1): the two-sided p-value of `t`.
pub(crate) fn two_sided(t: f64, df: u32) -> f64 {
    assert!(
        df >= 1,
        "a t distribution needs at least one degree of freedom"
    );
    if !t.is_finite() {
        return if t.is_nan() { 1.0 } else { 0.0 };
    }
    let theta = (t.abs() / f64::from(df).sqrt()).atan();
    let (s, c2) = (theta.sin(), theta.cos().powi(2));
    let within = if df % 2 == 1 {
        // 2/π (θ + sin θ cos θ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + …)), ν − 3 over 2 terms after 1.
        let mut sum = 0.0;
        if df > 1 {
            let (mut term, mut k) = (1.0, 1);
            sum = 1.0;
            while k + 2 < df {
                term *= c2 * f64::from(k + 1) / f64::from(k + 2);
                sum += term;
                k += 2;
            }
        }
        std::f64::consts::FRAC_2_PI * (theta + s * theta.cos() * sum)
    } else {
        // sin θ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + …), up to cos^(ν−2)θ.
        let (mut term, mut sum, mut k) = (1.0, 1.0, 0);
        while k + 2 < df {
            term *= c2 * f64::from(k + 1) / f64::from(k + 2);
            sum += term;
            k += 2;
        }
        s * sum
    };
    (1.0 - within).clamp(0.0, 1.0)
}

/// The t above which the two-sided tail is `p` (0 < `p` < 1): the half-width of a (1 − p)
/// interval in standard errors. Found by bisection on [`two_sided`], which falls as t grows.
pub(crate) fn critical(p: f64, df: u32) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    while two_sided(hi, df) > p && hi < 1e12 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if two_sided(mid, df) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-sided 5% and 1% critical values of Student's t (scipy.stats.t.isf(p/2, df)).
    const TABLE: [(u32, f64, f64); 8] = [
        (1, 12.706_204_736_174_7, 63.656_741_162_871_6),
        (2, 4.302_652_729_749_46, 9.924_843_200_918_28),
        (3, 3.182_446_305_284_26, 5.840_909_309_733_35),
        (4, 2.776_445_105_197_8, 4.604_094_871_415_9),
        (5, 2.570_581_835_636_3, 4.032_142_983_557_5),
        (7, 2.364_624_251_592_8, 3.499_483_297_350_3),
        (10, 2.228_138_851_986_3, 3.169_272_667_202_2),
        (30, 2.042_272_456_301_2, 2.749_995_653_567_7),
    ];

    #[test]
    fn the_tails_match_the_table_for_odd_and_even_degrees_of_freedom() {
        for (df, t05, t01) in TABLE {
            assert!((two_sided(t05, df) - 0.05).abs() < 1e-7, "df {df}");
            assert!((two_sided(t01, df) - 0.01).abs() < 1e-7, "df {df}");
            assert!(
                (two_sided(-t05, df) - 0.05).abs() < 1e-7,
                "df {df}: symmetric"
            );
        }
        assert_eq!(two_sided(0.0, 3), 1.0);
        assert_eq!(two_sided(f64::INFINITY, 3), 0.0);
        assert_eq!(two_sided(f64::NAN, 3), 1.0);
    }

    #[test]
    fn the_critical_value_inverts_the_tail() {
        for (df, t05, t01) in TABLE {
            assert!((critical(0.05, df) - t05).abs() < 1e-6 * t05, "df {df}");
            assert!((critical(0.01, df) - t01).abs() < 1e-6 * t01, "df {df}");
        }
    }
}
