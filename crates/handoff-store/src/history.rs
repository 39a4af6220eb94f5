//! Listing a store's runs, newest first, with what a history line shows of each.

use crate::connection::Connection;
use crate::error::StoreError;
use crate::value::Value;
use crate::RunId;

/// One run as the history lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    /// Its id.
    pub id: RunId,
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// When it finished; `None` for a run that is still running or was killed.
    pub finished_at: Option<String>,
    /// The suite it ran.
    pub suite: String,
    /// The commit handoff was built from (without `-dirty`).
    pub git_commit: String,
    /// Whether the build's tree had uncommitted changes.
    pub git_dirty: bool,
    /// handoff's version.
    pub tool_version: String,
    /// The machine it ran on.
    pub machine: String,
    /// The user's note.
    pub note: Option<String>,
    /// How many results had each verdict (JSON names: `pass`, `fail`, …), in the order
    /// verdicts are declared; empty for an incomplete run.
    pub verdicts: Vec<(String, u64)>,
}

impl RunSummary {
    /// Whether the run finished and was recorded whole.
    pub fn is_complete(&self) -> bool {
        self.finished_at.is_some()
    }
}

/// The order verdicts are listed in.
const VERDICT_ORDER: [&str; 6] = ["pass", "fail", "hung", "crashed", "unsupported", "invalid"];

/// The newest `limit` runs (all without a limit), newest first.
pub fn runs(conn: &dyn Connection, limit: Option<u64>) -> Result<Vec<RunSummary>, StoreError> {
    let limit = limit.map_or(i64::MAX, |l| i64::try_from(l).unwrap_or(i64::MAX));
    let rows = conn.query(
        "SELECT id, started_at, finished_at, suite, git_commit, git_dirty, tool_version,
                machine, note
         FROM runs ORDER BY id DESC LIMIT $1",
        &[Value::Int(limit)],
    )?;
    let mut runs = rows
        .iter()
        .map(|r| {
            Ok(RunSummary {
                id: RunId(r.int(0)?),
                started_at: r.text(1)?,
                finished_at: r.opt_text(2)?,
                suite: r.text(3)?,
                git_commit: r.text(4)?,
                git_dirty: r.int(5)? != 0,
                tool_version: r.text(6)?,
                machine: r.text(7)?,
                note: r.opt_text(8)?,
                verdicts: Vec::new(),
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let Some(oldest) = runs.last().map(|r| r.id) else {
        return Ok(runs);
    };
    let counts = conn.query(
        "SELECT run_id, verdict, COUNT(*) FROM results WHERE run_id >= $1
         GROUP BY run_id, verdict",
        &[Value::Int(oldest.0)],
    )?;
    for row in &counts {
        let (id, verdict, n) = (RunId(row.int(0)?), row.text(1)?, row.int(2)?);
        if let Some(run) = runs.iter_mut().find(|r| r.id == id) {
            run.verdicts.push((verdict, n.max(0) as u64));
        }
    }
    for run in &mut runs {
        run.verdicts.sort_by_key(|(v, _)| {
            VERDICT_ORDER
                .iter()
                .position(|o| o == v)
                .unwrap_or(VERDICT_ORDER.len())
        });
    }
    Ok(runs)
}
