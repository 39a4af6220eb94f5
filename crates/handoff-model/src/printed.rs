//! What a worker printed: its first and last lines and a count of all of them.
//!
//! A worker's standard output and standard error both end in one pipe the parent reads (see
//! `handoff::worker`): whatever a transport prints, and the panic message and backtrace of a
//! crash. Keeping only the tail would lose a panic's message behind its backtrace frames, and
//! keeping everything would let a chatty transport fill the parent's memory; so the first
//! [`HEAD`] and the last [`TAIL`] lines are kept, each trimmed to [`LINE`] characters, with the
//! number of lines and bytes in all.

use serde::{Deserialize, Serialize};

/// Lines kept from the start of the output.
pub const HEAD: usize = 12;
/// Lines kept from the end of the output.
pub const TAIL: usize = 12;
/// Characters kept of one line.
pub const LINE: usize = 240;

/// A worker's output as kept: the first and last lines and how much there was in all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Printed {
    /// Lines printed in all.
    pub lines: u64,
    /// Bytes printed in all (line ends included).
    pub bytes: u64,
    /// The first lines (at most [`HEAD`]).
    pub head: Vec<String>,
    /// The last lines after the head (at most [`TAIL`]); lines between head and tail were
    /// dropped when `lines > head.len() + tail.len()`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tail: Vec<String>,
}

impl Printed {
    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// Lines between the head and the tail that were not kept.
    pub fn dropped(&self) -> u64 {
        self.lines - (self.head.len() + self.tail.len()) as u64
    }

    /// Appends `line` (without its line end).
    pub fn push(&mut self, line: &str) {
        self.lines += 1;
        self.bytes += line.len() as u64 + 1;
        let line = trim(line);
        if self.head.len() < HEAD {
            self.head.push(line);
            return;
        }
        if self.tail.len() == TAIL {
            self.tail.remove(0);
        }
        self.tail.push(line);
    }

    /// One line for a report: the lines kept, joined by ` | `, with the gap said.
    pub fn one_line(&self) -> String {
        let mut parts: Vec<String> = self.head.clone();
        if self.dropped() > 0 {
            parts.push(format!("[… {} lines …]", self.dropped()));
        }
        parts.extend(self.tail.iter().cloned());
        parts.join(" | ")
    }
}

/// `line` cut to [`LINE`] characters, with an ellipsis when it was longer.
fn trim(line: &str) -> String {
    match line.char_indices().nth(LINE) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_output_is_kept_whole() {
        let mut p = Printed::default();
        p.push("one");
        p.push("two");
        assert_eq!(p.lines, 2);
        assert_eq!(p.bytes, 8);
        assert_eq!(p.one_line(), "one | two");
        assert_eq!(p.dropped(), 0);
    }

    #[test]
    fn a_long_output_keeps_its_first_and_last_lines() {
        let mut p = Printed::default();
        for i in 0..100 {
            p.push(&format!("line {i}"));
        }
        assert_eq!(p.lines, 100);
        assert_eq!(p.head.len(), HEAD);
        assert_eq!(p.tail.len(), TAIL);
        assert_eq!(p.head[0], "line 0");
        assert_eq!(p.tail[TAIL - 1], "line 99");
        assert_eq!(p.dropped(), 100 - (HEAD + TAIL) as u64);
        assert!(p.one_line().contains("[… 76 lines …]"));
    }

    #[test]
    fn a_panic_message_survives_a_long_backtrace() {
        let mut p = Printed::default();
        p.push("thread 'consumer' panicked at src/lib.rs:10:5:");
        p.push("boom at message 42");
        p.push("stack backtrace:");
        for i in 0..200 {
            p.push(&format!("  {i}: frame"));
        }
        let said = p.one_line();
        assert!(said.contains("boom at message 42"), "{said}");
        assert!(said.contains("199: frame"), "{said}");
    }

    #[test]
    fn long_lines_are_trimmed() {
        let mut p = Printed::default();
        p.push(&"x".repeat(10_000));
        assert_eq!(p.head[0].chars().count(), LINE + 1);
        assert_eq!(p.bytes, 10_001);
    }
}
