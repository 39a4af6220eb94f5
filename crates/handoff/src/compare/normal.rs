//! The standard normal distribution's upper tail, for the large-sample Mann–Whitney test.

/// P(Z > z) for a standard normal Z.
pub(crate) fn upper_tail(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_known_tail_probabilities() {
        // scipy.stats.norm.sf(z), scipy 1.17.
        for (z, p) in [
            (0.0, 0.5),
            (1.0, 0.158_655_253_931_457_07),
            (1.959_963_984_540_054, 0.025),
            (3.0, 0.001_349_898_031_630_093_3),
            (-1.0, 0.841_344_746_068_542_9),
        ] {
            let got = upper_tail(z);
            assert!((got - p).abs() <= 1e-12, "z={z}: {got} vs {p}");
        }
    }
}
