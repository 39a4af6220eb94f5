//! Plan errors: what is wrong, and where it was written (file, line and column, or the flag).

use super::schema::{BENCHMARK_ONLY, PARAM_KEYS, TOP_KEYS};
use super::value::Origin;
use std::fmt;

/// A mistake in a suite file or in the flags, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// The file, as given (or `command line`).
    pub file: String,
    /// 1-based line of the offending text, where known.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the offending text, where known.
    pub column: Option<usize>,
    /// What is wrong, and what was expected.
    pub message: String,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for PlanError {}

/// A rule broken while building the plan, before its position is resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// Where the offending key or value was written, if anywhere.
    pub origin: Option<Origin>,
    /// What is wrong.
    pub message: String,
    /// A word inside the origin's text that is the real culprit (one name of a list), and
    /// which of its occurrences there (0: the first).
    pub word: Option<(String, usize)>,
}

impl Broken {
    /// A broken rule at `origin`.
    pub fn at(origin: &Origin, message: impl Into<String>) -> Broken {
        Broken {
            origin: Some(origin.clone()),
            message: message.into(),
            word: None,
        }
    }

    /// A broken rule about `word`, one of the values written at `origin`.
    pub fn at_word(origin: &Origin, word: &str, message: impl Into<String>) -> Broken {
        Broken::at_nth_word(origin, word, 0, message)
    }

    /// A broken rule about the `nth` occurrence (0: the first) of `word` among the values
    /// written at `origin`, e.g. the second of a value listed twice.
    pub fn at_nth_word(
        origin: &Origin,
        word: &str,
        nth: usize,
        message: impl Into<String>,
    ) -> Broken {
        Broken {
            word: Some((word.to_string(), nth)),
            ..Broken::at(origin, message)
        }
    }

    /// A broken rule with no particular place.
    pub fn nowhere(message: impl Into<String>) -> Broken {
        Broken {
            origin: None,
            message: message.into(),
            word: None,
        }
    }

    /// Resolves the position in `text` (the file named `file`).
    pub fn locate(self, text: &str, file: &str) -> PlanError {
        match self.origin {
            Some(Origin::File(span)) => {
                let inside = self
                    .word
                    .and_then(|(w, nth)| find_value(text.get(span.clone())?, &w, nth))
                    .unwrap_or(0);
                at_offset(text, file, span.start + inside, self.message)
            }
            Some(Origin::Flag(flag)) => PlanError {
                file: "command line".into(),
                line: None,
                column: None,
                message: format!("{flag}: {}", self.message),
            },
            None => PlanError {
                file: file.into(),
                line: None,
                column: None,
                message: self.message,
            },
        }
    }
}

/// The offset in `values` (the text of a value or list) of the `nth` occurrence of `word`,
/// written quoted (a name) or bare (a number, as a whole token).
fn find_value(values: &str, word: &str, nth: usize) -> Option<usize> {
    let quoted = format!("\"{word}\"");
    let found: Vec<usize> = values.match_indices(&quoted).map(|(i, _)| i).collect();
    if !found.is_empty() {
        return found.get(nth).copied();
    }
    let token = |c: char| c.is_alphanumeric() || "_.+-:".contains(c);
    values
        .match_indices(word)
        .filter(|&(i, _)| {
            !values[..i].ends_with(token) && !values[i + word.len()..].starts_with(token)
        })
        .map(|(i, _)| i)
        .nth(nth)
}

fn at_offset(text: &str, file: &str, offset: usize, message: String) -> PlanError {
    let (line, column) = position(text, offset);
    PlanError {
        file: file.into(),
        line: Some(line),
        column: Some(column),
        message,
    }
}

/// A TOML or schema error, in the words of this tool: unknown keys with suggestions, misplaced
/// keys named as such, value errors prefixed with their key.
pub fn from_toml(text: &str, file: &str, e: toml::de::Error) -> PlanError {
    let raw = e
        .message()
        .trim()
        .replace("struct Params", "a table")
        .replace("struct Benchmark", "a table")
        .replace("struct SuiteFile", "a table");
    let Some(span) = e.span() else {
        return PlanError {
            file: file.into(),
            line: None,
            column: None,
            message: format!("invalid TOML: {raw}"),
        };
    };
    let message = if let Some(rest) = raw.strip_prefix("unknown field `") {
        unknown_key(rest, text.get(..span.start).unwrap_or(""))
    } else if raw == "duplicate key" {
        let key = text.get(span.clone()).unwrap_or("?");
        let header = text
            .get(..span.start)
            .is_some_and(|b| b.trim_end_matches([' ', '\t']).ends_with('['));
        if header {
            format!("table [{key}] is given twice: give one [{key}] table with every key in it")
        } else {
            format!("duplicate key `{key}`: each key may be set once per table")
        }
    } else if let Some(field) = raw
        .strip_prefix("duplicate field `")
        .and_then(|r| r.split('`').next())
    {
        let second = second_alias(text, span.start, field);
        return at_offset(
            text,
            file,
            second.unwrap_or(span.start),
            format!("`{field}` is given twice (perhaps with its alias): give it once"),
        );
    } else if looks_like_syntax(&raw) {
        format!("invalid TOML: {raw}")
    } else if let Some(key) = key_at(text, span.start) {
        format!("`{key}`: {raw}")
    } else {
        raw
    };
    at_offset(text, file, span.start, message)
}

/// The offset of the second line from `from` on that sets `field` or its plural/singular alias.
fn second_alias(text: &str, from: usize, field: &str) -> Option<usize> {
    let names = [field, field.trim_end_matches('s')];
    let mut offset = from;
    let mut seen = 0;
    for line in text.get(from..)?.split_inclusive('\n') {
        let key = line.split('=').next().unwrap_or("").trim();
        if line.contains('=') && (names.contains(&key) || key == format!("{field}s")) {
            seen += 1;
            if seen == 2 {
                return Some(offset + (line.len() - line.trim_start().len()));
            }
        }
        offset += line.len();
    }
    None
}

/// Messages of the TOML parser itself, not of the schema's rules (which say "expected a …,
/// found …" or "invalid type: …").
fn looks_like_syntax(msg: &str) -> bool {
    let data = ["invalid type", "invalid value", "invalid length"];
    (msg.starts_with("invalid ") && !data.iter().any(|d| msg.starts_with(d)))
        || (msg.starts_with("expected ") && !msg.contains(", found"))
        || ["unclosed", "extra ", "unexpected", "missing "]
            .iter()
            .any(|p| msg.starts_with(p))
}

/// The keys of a `ramp` table.
const RAMP_KEYS: [&str; 6] = [
    "start",
    "max",
    "factor",
    "refine",
    "step_ms",
    "p99_bound_us",
];

/// `rest` is serde's "x`, expected one of `a`, `b`" after "unknown field `"; `before` is the
/// text before the key, which says which `[[benchmark]]` or `[[gate]]` it is in.
fn unknown_key(rest: &str, before: &str) -> String {
    let (name, expected) = rest.split_once('`').unwrap_or((rest, ""));
    let allowed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    let nth = |header: &str| before.matches(header).count();
    let top = allowed.contains(&"benchmark");
    let place = if allowed.contains(&"workload") {
        format!("in [[benchmark]] #{}", nth("[[benchmark]]"))
    } else if top {
        "at the top level".into()
    } else if allowed.contains(&"step_ms") {
        "in `ramp`".into()
    } else if allowed.contains(&"kind") {
        format!("in [[gate]] #{}", nth("[[gate]]"))
    } else {
        "in [defaults]".into()
    };
    let gate = place.starts_with("in [[gate]]");
    let param = PARAM_KEYS.contains(&name);
    let bench_only = BENCHMARK_ONLY.contains(&name);
    if name == "max_trials" {
        return "`max_trials`: the trial limit is set on the command line (--max-trials N), not in a suite file".into();
    }
    if top && param {
        return format!("`{name}` belongs in [defaults] or a [[benchmark]], not at the top level");
    }
    if top && bench_only {
        return format!("`{name}` belongs in a [[benchmark]], not at the top level");
    }
    if place == "in [defaults]" && bench_only {
        return format!("`{name}` belongs in a [[benchmark]], not in [defaults]");
    }
    if !top && !gate && TOP_KEYS.contains(&name) {
        return format!(
            "{place}: `{name}` is a setting of the whole suite: write it at the top of the file, above the first [table] (a key below a table's header belongs to that table)"
        );
    }
    if !top && !gate && place != "in `ramp`" && RAMP_KEYS.contains(&name) {
        return format!(
            "{place}: `{name}` is a key of the rate search: write `ramp = {{ {name} = … }}`"
        );
    }
    if gate && (param || bench_only) {
        return format!(
            "{place}: unknown key `{name}` (a gate takes {}): a key below a [[gate]] header belongs to that gate; move it to [defaults] or a [[benchmark]]",
            allowed.join(", ")
        );
    }
    if top && RAMP_KEYS.contains(&name) {
        return format!(
            "`{name}` is a key of the rate search: write `ramp = {{ {name} = … }}` in [defaults] or a [[benchmark]]"
        );
    }
    format!(
        "{place}: {}",
        crate::suggest::unknown("key", name, allowed.iter().copied())
    )
}

/// The key whose value holds byte `at` of `text`: the innermost one, inside inline tables, and
/// the list's own key inside a list. A small scanner that knows strings, comments and headers.
fn key_at(text: &str, at: usize) -> Option<String> {
    let text = text.get(..at)?;
    let mut open: Vec<(char, Option<String>)> = Vec::new();
    let mut current: Option<String> = None;
    let mut line_start = 0;
    let mut bol = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' | '\'' => {
                let mut escaped = false;
                for (_, d) in chars.by_ref() {
                    if d == c && !escaped {
                        break;
                    }
                    escaped = c == '"' && d == '\\' && !escaped;
                }
            }
            '#' => while chars.next_if(|&(_, d)| d != '\n').is_some() {},
            '=' => {
                let before = text[line_start..i].trim_end();
                let from = before
                    .rfind(|ch: char| !(ch.is_alphanumeric() || "_-.".contains(ch)))
                    .map_or(0, |p| p + 1);
                current = Some(before[from..].to_string()).filter(|k| !k.is_empty());
                line_start = i + 1;
            }
            '[' if open.is_empty() && text[bol..i].trim().is_empty() => {
                // A table header: skip it.
                while chars.next_if(|&(_, d)| d != '\n').is_some() {}
                current = None;
            }
            '[' | '{' => {
                open.push((c, current.clone()));
                if c == '{' {
                    current = None;
                }
                line_start = i + 1;
            }
            ']' | '}' => current = open.pop().and_then(|(_, k)| k),
            ',' => {
                if matches!(open.last(), Some(('{', _))) {
                    current = None;
                }
                line_start = i + 1;
            }
            '\n' => {
                if open.is_empty() {
                    current = None;
                }
                line_start = i + 1;
                bol = i + 1;
            }
            _ => {}
        }
    }
    current
}

/// The first array of `text` holding more than `limit` values: the offset of its `[` and its key.
/// A scan of the raw text, before it is parsed: a list of hundreds of thousands of values is
/// refused after reading `limit` of them, without building the document.
pub fn long_list(text: &str, limit: u64) -> Option<(usize, Option<String>)> {
    /// An open bracket: an array (counting values) or an inline table.
    struct Open {
        array: bool,
        at: usize,
        values: u64,
        /// A value may start here (after `[` or `,`).
        fresh: bool,
    }
    let bytes = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut bol = true;
    let mut i = 0;
    // A value starts at `i`: count it in the innermost array.
    let start = |open: &mut Vec<Open>| -> Option<usize> {
        let top = open.last_mut()?;
        if top.array && top.fresh {
            top.fresh = false;
            top.values += 1;
            if top.values > limit {
                return Some(top.at);
            }
        }
        None
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                bol = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                if let Some(at) = start(&mut open) {
                    return Some((at, key_at(text, at)));
                }
                let triple = bytes.get(i..i + 3) == Some(&[c, c, c][..]);
                let quote: &[u8] = if triple {
                    &bytes[i..i + 3]
                } else {
                    &bytes[i..i + 1]
                };
                i += quote.len();
                while i < bytes.len() && !bytes[i..].starts_with(quote) {
                    if c == b'"' && bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += quote.len();
            }
            b'[' if open.is_empty() && bol => {
                // A table header.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'[' | b'{' => {
                if let Some(at) = start(&mut open) {
                    return Some((at, key_at(text, at)));
                }
                open.push(Open {
                    array: c == b'[',
                    at: i,
                    values: 0,
                    fresh: true,
                });
                i += 1;
            }
            b']' | b'}' => {
                open.pop();
                i += 1;
            }
            b',' => {
                if let Some(top) = open.last_mut() {
                    top.fresh = true;
                }
                i += 1;
            }
            _ => {
                if let Some(at) = start(&mut open) {
                    return Some((at, key_at(text, at)));
                }
                i += 1;
            }
        }
        bol = false;
    }
    None
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        assert_eq!(position("a\nbc", 0), (1, 1));
        assert_eq!(position("a\nbc", 3), (2, 2));
        assert_eq!(position("é = 1", 3), (1, 3));
    }

    #[test]
    fn the_key_of_a_value_is_found_through_lists_and_inline_tables() {
        let text = "[[benchmark]]\ncapacity = [1,\n  0]\nramp = { start = 5, max = 0 }\n";
        assert_eq!(
            key_at(text, text.find("0]").unwrap()).as_deref(),
            Some("capacity")
        );
        assert_eq!(
            key_at(text, text.find("5,").unwrap()).as_deref(),
            Some("start")
        );
        assert_eq!(
            key_at(text, text.find("0 }").unwrap()).as_deref(),
            Some("max")
        );
        let quoted = "name = \"a = [b\"\nsamples = 0\n";
        assert_eq!(
            key_at(quoted, quoted.find('0').unwrap()).as_deref(),
            Some("samples")
        );
        assert_eq!(key_at(text, 0), None);
    }

    #[test]
    fn unknown_keys_are_placed_and_suggested() {
        let m = unknown_key(
            "capacit`, expected one of `workload`, `capacity`",
            "[[benchmark]]\n[[benchmark]]\n",
        );
        assert!(
            m.starts_with("in [[benchmark]] #2") && m.contains("`capacity`"),
            "{m}"
        );
        let m = unknown_key("transports`, expected one of `payload`, `capacity`", "");
        assert!(m.contains("belongs in a [[benchmark]]"), "{m}");
    }
}
