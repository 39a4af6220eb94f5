//! "Did you mean …?" for unknown names.

/// The candidates closest to `name` (by normalised Levenshtein similarity), best first.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| {
            let mut s = strsim::normalized_levenshtein(name, c);
            if c.contains(name) || name.contains(c) {
                s += 0.3;
            }
            (s, c)
        })
        .filter(|(s, _)| *s >= 0.4)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, c)| c).collect()
}

/// "unknown WHAT `NAME`", followed by the closest valid names if any are close.
pub fn unknown<'a>(
    what: &str,
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    let close = closest(name, candidates);
    if close.is_empty() {
        format!("unknown {what} `{name}`")
    } else {
        let list: Vec<String> = close.iter().map(|c| format!("`{c}`")).collect();
        format!(
            "unknown {what} `{name}`; did you mean {}?",
            list.join(" or ")
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn suggests_the_close_name() {
        let msg = super::unknown(
            "transport",
            "crosbeam-bounded",
            ["crossbeam-bounded", "rtrb", "flume-bounded"],
        );
        assert!(msg.contains("`crossbeam-bounded`"), "{msg}");
    }
}
