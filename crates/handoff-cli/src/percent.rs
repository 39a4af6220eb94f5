//! A percentage on the command line: `5%`, `5` or `2.5%`.

use std::str::FromStr;

/// A fraction given as a percentage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percent(pub f64);

impl FromStr for Percent {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let n = t.strip_suffix('%').unwrap_or(t).trim();
        let v: f64 = n
            .parse()
            .map_err(|_| format!("`{s}` is not a percentage; expected e.g. `5%`"))?;
        if !(0.0..100.0).contains(&v) || !v.is_finite() {
            return Err(format!(
                "`{s}`: a percentage from 0% to below 100% is expected"
            ));
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
        assert!("five"
            .parse::<Percent>()
            .unwrap_err()
            .contains("not a percentage"));
        assert!("150%"
            .parse::<Percent>()
            .unwrap_err()
            .contains("below 100%"));
        assert!("-1%".parse::<Percent>().is_err());
    }
}
