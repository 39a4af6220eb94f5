//! A percentage on the command line: `5%`, `5` or `2.5%`.

use std::str::FromStr;

/// A fraction given as a percentage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percent(pub f64);

/// Why a percentage does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PercentError {
    /// Not a number (with or without `%`).
    #[error("`{0}` is not a percentage; expected e.g. `5%`")]
    NotANumber(String),
    /// A number outside 0% to below 100%.
    #[error("`{0}`: a percentage from 0% to below 100% is expected")]
    OutOfRange(String),
}

impl FromStr for Percent {
    type Err = PercentError;
    fn from_str(s: &str) -> Result<Self, PercentError> {
        let t = s.trim();
        let n = t.strip_suffix('%').unwrap_or(t).trim();
        let v: f64 = n
            .parse()
            .map_err(|_| PercentError::NotANumber(s.to_string()))?;
        if !(0.0..100.0).contains(&v) || !v.is_finite() {
            return Err(PercentError::OutOfRange(s.to_string()));
        }
        Ok(Percent(v / 100.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_parse_with_or_without_the_sign() {
        assert_eq!("5%".parse(), Ok(Percent(0.05)));
        assert_eq!("2.5".parse(), Ok(Percent(0.025)));
        let e = "five".parse::<Percent>().unwrap_err();
        assert!(matches!(e, PercentError::NotANumber(_)), "{e:?}");
        assert!(e.to_string().contains("not a percentage"), "{e}");
        let e = "150%".parse::<Percent>().unwrap_err();
        assert!(matches!(e, PercentError::OutOfRange(_)), "{e:?}");
        assert!(e.to_string().contains("below 100%"), "{e}");
        assert!("-1%".parse::<Percent>().is_err());
    }
}
