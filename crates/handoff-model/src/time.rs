//! Wall-clock timestamps as reports, baselines and history entries record them: RFC 3339 in
//! UTC, to the second (`2026-11-26T08:24:07Z`).

/// The current time as RFC 3339 (UTC, whole seconds).
pub fn now_rfc3339() -> String {
    rfc3339(jiff::Timestamp::now())
}

/// `at` as RFC 3339 (UTC, whole seconds; the fraction is dropped, not rounded).
pub fn rfc3339(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::rfc3339;
    use jiff::Timestamp;

    #[test]
    fn seconds_since_the_epoch_become_a_utc_date() {
        let at = |s: i64| rfc3339(Timestamp::from_second(s).unwrap());
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(20_413 * 86_400 + 3_723), "2025-11-21T01:02:03Z");
        // A leap day, and the fraction of a second dropped.
        let leap = Timestamp::from_millisecond(951_782_400_999).unwrap();
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn now_is_well_formed() {
        let now = super::now_rfc3339();
        assert_eq!(now.len(), "2026-11-26T08:24:07Z".len(), "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
    }
}
