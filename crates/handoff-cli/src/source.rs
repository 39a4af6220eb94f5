//! Where a report to compare comes from: a JSON report written by `handoff run --format json`
//! (a CI artifact, another machine's run) or, by run id, `latest` or baseline name, the
//! history store.

use crate::CliError;
use handoff::report::{RunReport, SCHEMA_VERSION};
use std::path::Path;

/// Loads the report a reference names.
pub trait ReportSource {
    /// The report `reference` names, or why it cannot be had.
    fn load(&self, reference: &str) -> Result<RunReport, CliError>;
}

/// Whether `reference` names a file rather than a stored run: it exists as a file, or it looks
/// like a path (has a separator or a `.json` ending).
pub fn is_file_reference(reference: &str) -> bool {
    Path::new(reference).is_file()
        || reference.contains('/')
        || reference.ends_with(".json")
        || reference.ends_with(".jsonl")
}

/// Reads a JSON report from a file, with a clear error for a missing file, malformed JSON (line
/// and column) or JSON that is not a handoff report. A run's journal (`.jsonl`, see
/// [`crate::journal`]) is read as the report of the results it holds.
pub fn read_json_report(path: &Path) -> Result<RunReport, CliError> {
    if crate::journal::is_journal(path) {
        return crate::journal::read(path);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::bad_input(format!("cannot read report {}: {e}", path.display())))?;
    parse_json_report(&text, &path.display().to_string())
}

/// Parses a JSON report; `name` is what errors call it.
pub fn parse_json_report(text: &str, name: &str) -> Result<RunReport, CliError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        CliError::bad_input(format!(
            "{name}: line {}, column {}: not valid JSON ({e}); expected a report written by `handoff run --format json`",
            e.line(),
            e.column()
        ))
    })?;
    let version = value
        .get("schema_version")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| {
            CliError::bad_input(format!(
                "{name}: not a handoff report (no `schema_version`); expected a report written by `handoff run --format json`"
            ))
        })?;
    if version > u64::from(SCHEMA_VERSION) {
        return Err(CliError::bad_input(format!(
            "{name}: report schema version {version}; this handoff reads up to {SCHEMA_VERSION}: upgrade handoff"
        )));
    }
    serde_json::from_value(value).map_err(|e| {
        CliError::bad_input(format!(
            "{name}: not a handoff report of schema version {version}: {e}"
        ))
    })
}

/// Reports from JSON files only (no history store).
pub struct JsonFiles;

impl ReportSource for JsonFiles {
    fn load(&self, reference: &str) -> Result<RunReport, CliError> {
        read_json_report(Path::new(reference))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_and_foreign_json_are_named() {
        let e = parse_json_report("{\n  \"a\": ", "x.json").unwrap_err();
        assert!(
            e.message.starts_with("x.json: line 2, column"),
            "{}",
            e.message
        );
        let e = parse_json_report("{\"benchmarks\": []}", "y.json").unwrap_err();
        assert!(
            e.message
                .contains("not a handoff report (no `schema_version`)"),
            "{}",
            e.message
        );
        let e = parse_json_report("{\"schema_version\": 99}", "z.json").unwrap_err();
        assert!(e.message.contains("schema version 99"), "{}", e.message);
        let e = parse_json_report("{\"schema_version\": 1, \"results\": 3}", "w.json").unwrap_err();
        assert!(
            e.message
                .contains("not a handoff report of schema version 1"),
            "{}",
            e.message
        );
        assert_eq!(e.code, crate::exit::BAD_INPUT);
    }
}
