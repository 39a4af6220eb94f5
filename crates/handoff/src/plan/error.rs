//! Plan errors: what is wrong, and where it was written (file, line and column, or the flag).
//!
//! Every [`PlanError`] says what kind of mistake it is ([`PlanErrorKind`]) and, where there is
//! one, the key it is about. Positions come from the TOML parser (see `read.rs`); a value refused
//! by the schema's own rules reaches serde as text, and its kind is taken from the refusal itself
//! ([`super::value::refused`]).

use super::value::{Origin, ValueError};
use crate::suggest::LookupError;

/// What kind of mistake a [`PlanError`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanErrorKind {
    /// The suite file cannot be read.
    Unreadable,
    /// The file is not TOML.
    Syntax,
    /// A name that names nothing of its kind (a key, a transport, a workload, an option…),
    /// with the closest valid names.
    Unknown(Box<LookupError>),
    /// A key or table given twice, or a value listed twice.
    Duplicate,
    /// A value of another type than its key takes.
    WrongType,
    /// A number outside its key's range.
    OutOfRange,
    /// A value refused for another reason (an empty list, `ramp = false`).
    Invalid,
    /// Something required is not given (a `[[benchmark]]`, its workload, a gate's `min`).
    Missing,
    /// Values or keys that cannot go together (a key that does not apply to a workload, `hops`
    /// with `transports`, a filter that keeps no trial).
    Conflict,
    /// More than a limit of the plan allows: the trial limit, the memory budget, the hops of
    /// a pipeline.
    Limit,
}

impl From<ValueError> for PlanErrorKind {
    fn from(e: ValueError) -> PlanErrorKind {
        match e {
            ValueError::WrongType(_) => PlanErrorKind::WrongType,
            ValueError::OutOfRange(_) => PlanErrorKind::OutOfRange,
            ValueError::Unknown(l) => PlanErrorKind::Unknown(Box::new(l)),
            ValueError::Invalid(_) => PlanErrorKind::Invalid,
        }
    }
}

/// A mistake in a suite file or in the flags: its kind, the key it is about and where it is.
///
/// Displayed as `FILE[:LINE[:COLUMN]]: MESSAGE` (`command line: --flag: …` for a flag).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", at(*.line, *.column))]
pub struct PlanError {
    /// What kind of mistake it is.
    pub kind: PlanErrorKind,
    /// The file, as given (or `command line`).
    pub file: String,
    /// The key the mistake is about, where known (`ramp.start` for a dotted key).
    pub key: Option<String>,
    /// 1-based line of the offending text, where known.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the offending text, where known.
    pub column: Option<usize>,
    /// What is wrong, and what was expected.
    pub message: String,
}

/// `:LINE:COLUMN`, `:LINE` or nothing.
fn at(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        (None, _) => String::new(),
    }
}

impl PlanError {
    /// A mistake in `file` as a whole (no line).
    pub(crate) fn in_file(
        kind: PlanErrorKind,
        file: &str,
        message: impl Into<String>,
    ) -> PlanError {
        PlanError {
            kind,
            file: file.into(),
            key: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// A mistake at byte `offset` of `text` (the file named `file`).
    pub(super) fn at_offset(
        kind: PlanErrorKind,
        text: &str,
        file: &str,
        offset: usize,
        message: impl Into<String>,
    ) -> PlanError {
        let (line, column) = position(text, offset);
        PlanError {
            line: Some(line),
            column: Some(column),
            ..PlanError::in_file(kind, file, message)
        }
    }

    /// The same, about `key`.
    pub(super) fn about(mut self, key: Option<String>) -> PlanError {
        self.key = key;
        self
    }
}

/// A rule broken while building the plan, before its position is resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Broken {
    /// What kind of mistake it is.
    pub kind: PlanErrorKind,
    /// Where the offending key or value was written, if anywhere.
    pub origin: Option<Origin>,
    /// The key it is about, where the builder knows it (else it is read from the file).
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
    /// A value among those written at the origin that is the real culprit (one name of a
    /// list), as it reads, and which of its occurrences there (0: the first).
    pub word: Option<(String, usize)>,
}

impl Broken {
    /// A broken rule of `kind`, with no particular place (see [`Broken::at`]).
    pub fn new(kind: PlanErrorKind, message: impl Into<String>) -> Broken {
        Broken {
            kind,
            origin: None,
            key: None,
            message: message.into(),
            word: None,
        }
    }

    /// A name that names nothing, said as the lookup says it.
    pub fn unknown(e: LookupError) -> Broken {
        let message = e.to_string();
        Broken::new(PlanErrorKind::Unknown(Box::new(e)), message)
    }

    /// The same, at `origin`.
    pub fn at(mut self, origin: &Origin) -> Broken {
        self.origin = Some(origin.clone());
        self
    }

    /// The same, about `word`, one of the values written at `origin`.
    pub(crate) fn at_word(self, origin: &Origin, word: &str) -> Broken {
        self.at_nth_word(origin, word, 0)
    }

    /// The same, about the `nth` occurrence (0: the first) of `word` among the values written
    /// at `origin`, e.g. the second of a value listed twice.
    pub(crate) fn at_nth_word(mut self, origin: &Origin, word: &str, nth: usize) -> Broken {
        self.word = Some((word.to_string(), nth));
        self.at(origin)
    }

    /// The same, about `key`.
    pub fn key(mut self, key: &str) -> Broken {
        self.key = Some(key.to_string());
        self
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn position(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}
