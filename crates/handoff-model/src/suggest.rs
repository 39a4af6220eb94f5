//! "Did you mean …?" for unknown names.

/// The candidates closest to `name` (by normalised Levenshtein similarity, ignoring case),
/// best first.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let name = name.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|c| {
            let lower = c.to_lowercase();
            let mut s = strsim::normalized_levenshtein(&name, &lower);
            if lower.contains(&name) || name.contains(&lower) {
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

/// [`unknown`], and when no name is close, every valid one: for the short fixed lists
/// (workloads, payloads, pacers, delivery modes), where naming them all is the best hint.
pub fn unknown_of<'a>(
    what: &str,
    name: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let msg = unknown(what, name, candidates.clone());
    if msg.contains("did you mean") {
        msg
    } else {
        let all: Vec<&str> = candidates.into_iter().collect();
        format!("{msg} (one of {})", all.join(", "))
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
        let msg = super::unknown_of("workload", "bogus", ["spsc", "mpsc"]);
        assert_eq!(msg, "unknown workload `bogus` (one of spsc, mpsc)");
        let msg = super::unknown_of("workload", "spcs", ["spsc", "mpsc"]);
        assert!(msg.ends_with("did you mean `spsc`?"), "{msg}");
        // Case is no reason to suggest nothing.
        let msg = super::unknown("transport", "RTRB", ["crossbeam-bounded", "rtrb"]);
        assert!(msg.ends_with("did you mean `rtrb`?"), "{msg}");
    }
}
