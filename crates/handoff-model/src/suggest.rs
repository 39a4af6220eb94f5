//! "Did you mean …?" for unknown names: [`LookupError`], the one error of a name that names
//! nothing (a transport, a workload, a payload, a key…), with the closest valid names.

use std::fmt;

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

/// What kind of thing a name was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thing {
    /// A transport of the catalog.
    Transport,
    /// A workload (`spsc`, `paced`…).
    Workload,
    /// A payload shape (`u64`, `bytes:64`…).
    Payload,
    /// A driver (`threads`, `tokio-multi:N`…).
    Driver,
    /// A paced producer's way of waiting.
    Pacer,
    /// A pipeline's delivery mode.
    Delivery,
    /// A pipeline reactor's input strategy.
    Reactor,
    /// A trial placement (`threads`, `processes`).
    Placement,
    /// A transport option.
    Option,
    /// A value of the named transport option.
    OptionValue(String),
    /// A gate's kind.
    GateKind,
    /// A key of a suite file's table.
    Key,
    /// Anything else, as a message calls it ("history format").
    Other(String),
}

impl fmt::Display for Thing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Thing::Transport => f.write_str("transport"),
            Thing::Workload => f.write_str("workload"),
            Thing::Payload => f.write_str("payload"),
            Thing::Driver => f.write_str("driver"),
            Thing::Pacer => f.write_str("pacer"),
            Thing::Delivery => f.write_str("delivery"),
            Thing::Reactor => f.write_str("reactor strategy"),
            Thing::Placement => f.write_str("placement"),
            Thing::Option => f.write_str("option"),
            Thing::OptionValue(option) => write!(f, "value for option `{option}`:"),
            Thing::GateKind => f.write_str("gate kind"),
            Thing::Key => f.write_str("key"),
            Thing::Other(what) => f.write_str(what),
        }
    }
}

/// A name that names nothing of its kind: "unknown WHAT `NAME`", then the closest valid names
/// if any are close ("; did you mean `a` or `b`?"), then a hint in parentheses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{name}`{}", tail(.suggestions, .hint))]
pub struct LookupError {
    /// What kind of thing was asked for.
    pub what: Thing,
    /// The name asked for.
    pub name: String,
    /// The closest valid names, best first (at most three; none when no name is close).
    pub suggestions: Vec<String>,
    /// What else is said, in parentheses.
    hint: Option<Hint>,
}

/// What a [`LookupError`] says after the name and the suggestions.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Hint {
    /// Said when no name is close (e.g. every valid name, or where to find them).
    Otherwise(String),
    /// Said in any case.
    Note(String),
}

fn tail(suggestions: &[String], hint: &Option<Hint>) -> String {
    let mut out = String::new();
    if !suggestions.is_empty() {
        let list: Vec<String> = suggestions.iter().map(|c| format!("`{c}`")).collect();
        out = format!("; did you mean {}?", list.join(" or "));
    }
    match hint {
        Some(Hint::Otherwise(o)) if suggestions.is_empty() => out.push_str(&format!(" ({o})")),
        Some(Hint::Note(n)) => out.push_str(&format!(" ({n})")),
        _ => {}
    }
    out
}

impl LookupError {
    /// `what` `name` is unknown; the closest of `candidates` are suggested.
    pub fn new<'a>(
        what: Thing,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> LookupError {
        LookupError {
            what,
            name: name.to_string(),
            suggestions: closest(name, candidates)
                .into_iter()
                .map(str::to_string)
                .collect(),
            hint: None,
        }
    }

    /// [`LookupError::new`], and when no name is close, every valid one: for the short fixed
    /// lists (workloads, pacers, delivery modes), where naming them all is the best hint.
    pub fn listing<'a>(
        what: Thing,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str> + Clone,
    ) -> LookupError {
        let all: Vec<&str> = candidates.clone().into_iter().collect();
        LookupError::new(what, name, candidates).otherwise(format!("one of {}", all.join(", ")))
    }

    /// With `hint` said in parentheses when no name is close (instead of any hint before).
    pub fn otherwise(mut self, hint: impl Into<String>) -> LookupError {
        self.hint = Some(Hint::Otherwise(hint.into()));
        self
    }

    /// With `note` said in parentheses in any case (instead of any hint before).
    pub fn note(mut self, note: impl Into<String>) -> LookupError {
        self.hint = Some(Hint::Note(note.into()));
        self
    }
}

/// "unknown WHAT `NAME`", followed by the closest valid names if any are close (the text of a
/// [`LookupError`]).
pub fn unknown<'a>(
    what: &str,
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    LookupError::new(Thing::Other(what.to_string()), name, candidates).to_string()
}

/// [`unknown`], and when no name is close, every valid one (see [`LookupError::listing`]).
pub fn unknown_of<'a>(
    what: &str,
    name: &str,
    candidates: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    LookupError::listing(Thing::Other(what.to_string()), name, candidates).to_string()
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

    #[test]
    fn a_lookup_error_carries_what_was_asked_and_the_closest_names() {
        use super::{LookupError, Thing};
        let e = LookupError::new(Thing::Transport, "rtbr", ["rtrb", "crossbeam-bounded"])
            .otherwise("`handoff list` names every transport");
        assert_eq!((&e.what, e.name.as_str()), (&Thing::Transport, "rtbr"));
        assert_eq!(e.suggestions, ["rtrb"]);
        assert_eq!(
            e.to_string(),
            "unknown transport `rtbr`; did you mean `rtrb`?"
        );
        let e = LookupError::new(Thing::Transport, "zzzz", ["rtrb"])
            .otherwise("`handoff list` names every transport");
        assert!(e.suggestions.is_empty());
        assert_eq!(
            e.to_string(),
            "unknown transport `zzzz` (`handoff list` names every transport)"
        );
        let e = LookupError::new(Thing::Driver, "thread", ["threads"]).note("drivers: threads");
        assert_eq!(
            e.to_string(),
            "unknown driver `thread`; did you mean `threads`? (drivers: threads)"
        );
    }
}
