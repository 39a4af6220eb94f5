//! The run's journal: every result written to a file beside the output as soon as it is final,
//! so that nothing measured is lost to what happens later (an output that cannot be written, a
//! store that fails, Ctrl-C, a killed command).
//!
//! The journal is a file of JSON lines: first `{"head": REPORT}` (the report as the run began,
//! without results), then `{"limits": LIMITS}` once the machine's limits are measured, then one
//! `{"result": RESULT}` per trial as its group of trials ends (see `handoff::session`). A run
//! that ends well deletes it; otherwise its path is said, and `handoff show FILE` (or
//! `compare`) reads it as a report of the results it holds.
//!
//! It lives beside `--out` (`FILE.results.jsonl`), or in the temporary directory when the
//! report goes to standard output, a device or a pipe.

use crate::{exit, CliError};
use handoff::probes::Limits;
use handoff::report::{RunReport, TrialResult};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One line of a journal.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Entry {
    Head(Box<RunReport>),
    Limits(Box<Limits>),
    Reprobe(Box<Limits>),
    Result(Box<TrialResult>),
}

/// The journal of the run in progress, for a Ctrl-C handler to name.
static OPEN: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The path of the journal of the run in progress, if one is open.
pub fn open_path() -> Option<PathBuf> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// A journal being written.
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    /// The first write that failed; later results are not written.
    failed: Option<String>,
}

impl Journal {
    /// Creates the journal of a run whose report goes to the regular file `out` (elsewhere when
    /// `None`),
    /// with `head` (the report as the run begins) as its first line. Exit code 3 when it cannot.
    pub fn create(out: Option<&Path>, head: &RunReport) -> Result<Journal, CliError> {
        let path = match out {
            Some(out) => {
                let mut name = out.as_os_str().to_owned();
                name.push(".results.jsonl");
                PathBuf::from(name)
            }
            None => std::env::temp_dir().join(format!(
                "handoff-run-{}-{}.results.jsonl",
                head.started_at.replace(':', ""),
                std::process::id()
            )),
        };
        let file = std::fs::File::create(&path).map_err(|e| CliError {
            code: exit::RUN_ERROR,
            message: format!("cannot create the run's journal {}: {e}", path.display()),
        })?;
        let mut journal = Journal {
            path,
            file,
            failed: None,
        };
        journal.append(&Entry::Head(Box::new(head.clone())));
        if let Some(e) = journal.failed.take() {
            return Err(CliError {
                code: exit::RUN_ERROR,
                message: e,
            });
        }
        *OPEN.lock().unwrap_or_else(|e| e.into_inner()) = Some(journal.path.clone());
        Ok(journal)
    }

    /// Records the machine's limits.
    pub fn limits(&mut self, limits: &Limits) {
        self.append(&Entry::Limits(Box::new(limits.clone())));
    }

    /// Records the limits probed again during the run.
    pub fn reprobe(&mut self, limits: &Limits) {
        self.append(&Entry::Reprobe(Box::new(limits.clone())));
    }

    /// Records a final result.
    pub fn result(&mut self, result: &TrialResult) {
        self.append(&Entry::Result(Box::new(result.clone())));
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run ended well: the journal is deleted.
    pub fn discard(self) {
        let _ = std::fs::remove_file(&self.path);
        *OPEN.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The run ended badly: the journal is kept; returns a sentence saying where.
    pub fn keep(self) -> String {
        *OPEN.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match &self.failed {
            None => format!(
                "every result is kept in {} (`handoff show {}` renders it)",
                self.path.display(),
                self.path.display()
            ),
            Some(e) => format!(
                "the run's journal {} is incomplete: {e}",
                self.path.display()
            ),
        }
    }

    /// Appends one line and flushes it; a failure is remembered, not fatal to the run.
    fn append(&mut self, entry: &Entry) {
        if self.failed.is_some() {
            return;
        }
        let mut line = match serde_json::to_vec(entry) {
            Ok(l) => l,
            Err(e) => {
                self.failed = Some(format!("cannot encode a journal line: {e}"));
                return;
            }
        };
        line.push(b'\n');
        if let Err(e) = self.file.write_all(&line).and_then(|_| self.file.flush()) {
            self.failed = Some(format!("cannot write {}: {e}", self.path.display()));
        }
    }
}

/// Whether `path` names a journal (by its ending).
pub fn is_journal(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".jsonl")
}

/// Reads a journal as the report of the results it holds (a last line cut short by a killed
/// run is left out). Exit code 2 for a file that is not a journal.
pub fn read(path: &Path) -> Result<RunReport, CliError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path)
        .map_err(|e| CliError::bad_input(format!("cannot read journal {name}: {e}")))?;
    let lines: Vec<String> = std::io::BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|e| CliError::bad_input(format!("cannot read journal {name}: {e}")))?;
    let mut report: Option<RunReport> = None;
    for (i, line) in lines.iter().enumerate() {
        let entry: Entry = match serde_json::from_str(line) {
            Ok(e) => e,
            // A run killed while writing its last line leaves it cut short.
            Err(_) if i + 1 == lines.len() && i > 0 => break,
            Err(e) => {
                return Err(CliError::bad_input(format!(
                    "{name}: line {}: not a line of a handoff run's journal ({e}); expected {{\"head\": …}}, {{\"limits\": …}}, {{\"reprobe\": …}} or {{\"result\": …}}",
                    i + 1
                )))
            }
        };
        match (entry, report.as_mut()) {
            (Entry::Head(head), None) => report = Some(*head),
            (Entry::Limits(l), Some(r)) => r.limits = Some(*l),
            (Entry::Reprobe(l), Some(r)) => r.reprobes.push(*l),
            (Entry::Result(result), Some(r)) => r.results.push(*result),
            (Entry::Head(_), Some(_)) | (_, None) => {
                return Err(CliError::bad_input(format!(
                    "{name}: line {}: a journal has one head, on its first line",
                    i + 1
                )))
            }
        }
    }
    let mut report =
        report.ok_or_else(|| CliError::bad_input(format!("{name}: an empty journal")))?;
    report.shared_regimes = handoff::stats::shared_regimes::detect(&report.results);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head() -> RunReport {
        let mut r: RunReport = serde_json::from_value(serde_json::json!({
            "schema_version": handoff::report::SCHEMA_VERSION,
            "started_at": "2026-01-01T00:00:00Z",
            "duration_s": 0.0,
            "suite": "t",
            "environment": handoff::environment::detect(),
            "limits": null,
            "results": []
        }))
        .unwrap();
        r.results.clear();
        r
    }

    #[test]
    fn a_journal_reads_back_as_the_report_of_its_results() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.json");
        let mut j = Journal::create(Some(&out), &head()).unwrap();
        assert_eq!(open_path().as_deref(), Some(j.path()));
        let path = j.path().to_path_buf();
        assert!(path.to_string_lossy().ends_with("r.json.results.jsonl"));
        let report = read(&path).unwrap();
        assert_eq!(report.results.len(), 0);
        assert_eq!(report.suite, "t");
        // The limits, and every probe after a group of trials, in order.
        let probe = |at_s: f64| {
            let mut l = handoff_model::fixture::limits(None, None);
            l.at_s = Some(at_s);
            l
        };
        j.limits(&probe(0.2));
        j.reprobe(&probe(12.0));
        j.reprobe(&probe(30.0));
        let report = read(&path).unwrap();
        assert_eq!(report.limits.and_then(|l| l.at_s), Some(0.2));
        let at: Vec<Option<f64>> = report.reprobes.iter().map(|l| l.at_s).collect();
        assert_eq!(at, [Some(12.0), Some(30.0)]);
        // A line cut short at the end is left out.
        j.file.write_all(b"{\"result\": {\"transp").unwrap();
        assert_eq!(read(&path).unwrap().results.len(), 0);
        let said = j.keep();
        assert!(said.contains("handoff show"), "{said}");
        assert!(path.exists());
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        std::fs::write(&path, "{\"foo\": 1}\n{}\n").unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.message.contains("line 1"), "{}", e.message);
        std::fs::write(&path, "").unwrap();
        assert!(read(&path).unwrap_err().message.contains("empty"));
    }
}
