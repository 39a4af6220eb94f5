//! Foreign text: what others wrote, as a terminal shows it, and how long it may be when entered.
//!
//! A run's note, a suite's name, a plugin's transport names, descriptions and option values,
//! a commit or host name read from the store, the output a crashed transport printed: none of
//! it was written by handoff, and any of it may hold control characters. Printed raw, an escape
//! sequence (`ESC [ 2 J`, `ESC ] 0 ; … BEL`) would clear the reader's screen, retitle the
//! window or forge output, and a bidirectional override would reorder what the reader sees.
//! Every terminal view (table, markdown, `history`, `list`, progress, errors) passes such text
//! through [`escaped`] (one field) or [`escaped_lines`] (a message of several lines); the JSON
//! report and the history store keep it exactly as written (JSON escapes control characters
//! itself), and HTML escapes it as HTML.
//!
//! What is escaped, as git escapes what it prints of paths:
//!
//! | character | shown as |
//! |-----------|----------|
//! | ESC (U+001B) | `\e` |
//! | line feed, carriage return, tab | `\n`, `\r`, `\t` |
//! | BEL (U+0007) | `\a` |
//! | any other C0 control (U+0000–U+001F) and DEL (U+007F) | `\x00`–`\x1f`, `\x7f` |
//! | a C1 control (U+0080–U+009F) | `\u{80}`–`\u{9f}` |
//! | a bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069) | `\u{202e}` … |
//!
//! Everything else is printed as it is, letters of every script included. The bidirectional
//! characters are the nine that rustc's `text_direction_codepoint_in_literal` lint names (the
//! "Trojan Source" ones); the implicit marks (U+200E, U+200F, U+061C) reorder nothing beyond
//! their neighbours and are left alone.
//!
//! A backslash is **not** doubled: the view is for reading, not for reading back (the store
//! and the JSON report keep the exact text), and doubling would garble every Windows path and
//! regular expression in a note for a gain that matters to no reader. So a note that itself
//! reads `\e[2J` and one that holds the escape sequence look alike; neither acts on the
//! terminal.
//!
//! Text a user enters to be stored is limited in length when it is entered: [`NOTE_CHARS`],
//! [`NAME_CHARS`] and [`DESCRIPTION_CHARS`], checked by [`too_long`].

use std::borrow::Cow;
use std::fmt::Write;

/// The most characters a run's note may have (`handoff run --note`).
pub const NOTE_CHARS: usize = 1000;
/// The most characters a suite's `name` may have.
pub const NAME_CHARS: usize = 200;
/// The most characters a suite's `description` may have.
pub const DESCRIPTION_CHARS: usize = 2000;

/// `text` for a terminal, on one line: every control character and bidirectional override
/// escaped visibly (see the [module docs](self)), line ends included. Borrows `text` when
/// nothing needs escaping.
///
/// ```
/// use handoff_model::foreign::escaped;
/// assert_eq!(escaped("évité\u{1b}[2J\n"), "évité\\e[2J\\n");
/// assert_eq!(escaped("plain"), "plain");
/// ```
pub fn escaped(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` for a terminal, keeping its line feeds: as [`escaped`], but a `\n` still ends a line.
/// For a message handoff wrote over several lines that quotes foreign text (an error that
/// lists impossible parameters, one per line).
///
/// ```
/// use handoff_model::foreign::escaped_lines;
/// assert_eq!(escaped_lines("bad:\n  \u{1b}]0;x\u{7}"), "bad:\n  \\e]0;x\\a");
/// ```
pub fn escaped_lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// Whether a terminal view escapes `c`: a control character (C0, DEL, C1) or a bidirectional
/// embedding, override or isolate.
pub fn is_escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Why `text` cannot be stored in a field of at most `max` characters, if it cannot:
/// `1200 characters; at most 1000 are accepted`. Characters are counted as Unicode scalar
/// values, so a note in any script has the same allowance.
pub fn too_long(text: &str, max: usize) -> Option<String> {
    let n = text.chars().count();
    (n > max).then(|| format!("{n} characters; at most {max} are accepted"))
}

/// [`escaped`], or with `keep_newlines` [`escaped_lines`].
fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    let escapes = |c: char| is_escaped(c) && !(keep_newlines && c == '\n');
    if !text.chars().any(escapes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escapes(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Appends the visible escape of `c` (one [`is_escaped`] holds for) to `out`.
fn push_escape(out: &mut String, c: char) {
    let named = match c {
        '\u{1b}' => "\\e",
        '\u{7}' => "\\a",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        _ => "",
    };
    if !named.is_empty() {
        out.push_str(named);
    } else if c.is_ascii() {
        // Writing to a String cannot fail.
        let _ = write!(out, "\\x{:02x}", u32::from(c));
    } else {
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_text_is_kept_and_borrowed() {
        for s in [
            "",
            "after the cache-line change",
            "Größe · 東京 · café — ‖ ×",
            "C:\\bench\\run and a\\nlook-alike",
            "right-to-left: שלום עליכם",
        ] {
            assert!(matches!(escaped(s), Cow::Borrowed(_)), "{s}");
            assert_eq!(escaped(s), s);
            assert_eq!(escaped_lines(s), s);
        }
    }

    #[test]
    fn control_characters_are_escaped_as_git_escapes_them() {
        assert_eq!(
            escaped("evil\u{1b}[2J\u{1b}]0;title\u{7}"),
            "evil\\e[2J\\e]0;title\\a"
        );
        assert_eq!(escaped("a\nb\rc\td"), "a\\nb\\rc\\td");
        assert_eq!(
            escaped("\0\u{1}\u{8}\u{b}\u{c}\u{1f}"),
            "\\x00\\x01\\x08\\x0b\\x0c\\x1f"
        );
        assert_eq!(escaped("del\u{7f}"), "del\\x7f");
        // C1: the 8-bit CSI and OSC, and the ends of the range.
        assert_eq!(
            escaped("\u{9b}2J\u{9d}0;t\u{80}\u{9f}"),
            "\\u{9b}2J\\u{9d}0;t\\u{80}\\u{9f}"
        );
        // U+00A0, the first character after C1, is printable.
        assert_eq!(escaped("\u{a0}"), "\u{a0}");
    }

    #[test]
    fn bidirectional_overrides_are_escaped() {
        assert_eq!(escaped("a\u{202e}cba\u{202c}"), "a\\u{202e}cba\\u{202c}");
        let all: String = ('\u{202a}'..='\u{202e}')
            .chain('\u{2066}'..='\u{2069}')
            .collect();
        assert_eq!(
            escaped(&all),
            "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}\\u{2066}\\u{2067}\\u{2068}\\u{2069}"
        );
        // Neighbours of the ranges, and the implicit marks, are left alone.
        for c in [
            '\u{2029}', '\u{202f}', '\u{2065}', '\u{206a}', '\u{200e}', '\u{200f}',
        ] {
            assert!(!is_escaped(c), "{c:?}");
        }
    }

    #[test]
    fn backslashes_are_not_doubled() {
        assert_eq!(escaped("a\\b\u{1b}"), "a\\b\\e");
    }

    #[test]
    fn lines_keep_their_line_feeds_only() {
        assert_eq!(
            escaped_lines("one\ntwo\r\n\u{1b}[31mred\t"),
            "one\ntwo\\r\n\\e[31mred\\t"
        );
        assert!(matches!(escaped_lines("a\nb"), Cow::Borrowed(_)));
    }

    #[test]
    fn lengths_are_counted_in_characters() {
        assert_eq!(too_long(&"é".repeat(NOTE_CHARS), NOTE_CHARS), None);
        assert_eq!(
            too_long(&"é".repeat(NOTE_CHARS + 1), NOTE_CHARS).as_deref(),
            Some("1001 characters; at most 1000 are accepted")
        );
        assert_eq!(too_long("", 0), None);
    }
}
