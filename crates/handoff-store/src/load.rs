//! Reading a stored run back as the report it printed.

use crate::connection::Connection;
use crate::error::StoreError;
use crate::value::Value;
use crate::RunId;
use handoff_model::report::{RunReport, TrialResult};

/// The report of the finished run `id`, results in the order they were run.
pub fn report(conn: &dyn Connection, id: RunId) -> Result<RunReport, StoreError> {
    let rows = conn.query("SELECT report FROM runs WHERE id = $1", &[Value::Int(id.0)])?;
    let head = rows
        .first()
        .ok_or_else(|| StoreError::BadReference(format!("unknown run id {id}")))?
        .opt_text(0)?
        .ok_or_else(|| {
            StoreError::BadReference(format!("run {id} is incomplete: it has no results"))
        })?;
    let mut report: RunReport =
        serde_json::from_str(&head).map_err(|e| StoreError::Corrupt(format!("run {id}: {e}")))?;
    report.results = conn
        .query(
            "SELECT result FROM results WHERE run_id = $1 ORDER BY position",
            &[Value::Int(id.0)],
        )?
        .iter()
        .map(|r| {
            serde_json::from_str::<TrialResult>(&r.text(0)?)
                .map_err(|e| StoreError::Corrupt(format!("a result of run {id}: {e}")))
        })
        .collect::<Result<_, _>>()?;
    Ok(report)
}
