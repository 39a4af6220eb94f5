//! Recording a run: a row written when it begins, marked incomplete, and everything else
//! written when it finishes, in one transaction.
//!
//! A run killed between the two leaves its first row only, still marked incomplete (no
//! `finished_at`): the history shows it so, and nothing half-written of its results exists,
//! because the transaction that writes them either commits whole or not at all.

use crate::connection::{in_transaction, Connection};
use crate::error::StoreError;
use crate::value::Value;
use crate::RunId;
use handoff_model::environment::Environment;
use handoff_model::identity::Identity;
use handoff_model::report::{RawSample, RunReport, TrialResult};

/// What is known of a run when it begins.
#[derive(Clone, Debug)]
pub struct RunStart {
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// The suite being run (file path, or the built-in default suite's name).
    pub suite: String,
    /// Machine and build fingerprint.
    pub environment: Environment,
    /// The machine's name (its host name), to tell a fleet's machines apart.
    pub machine: String,
    /// Every effective parameter of the run (the planned trials and session options), as JSON.
    pub params: serde_json::Value,
    /// The user's note (`--note`).
    pub note: Option<String>,
}

/// A build's commit and whether its tree had changes (`abc123-dirty` → `abc123`, dirty).
pub fn split_commit(stamp: &str) -> (&str, bool) {
    match stamp.strip_suffix("-dirty") {
        Some(commit) => (commit, true),
        None => (stamp, false),
    }
}

/// Writes the row of a run that begins, marked incomplete; returns its id.
pub fn begin(conn: &dyn Connection, run: &RunStart) -> Result<RunId, StoreError> {
    let (commit, dirty) = split_commit(&run.environment.git_commit);
    let rows = in_transaction(conn, |c| {
        c.query(
            "INSERT INTO runs (started_at, suite, git_commit, git_dirty, tool_version, machine,
                               environment, params, note)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
             RETURNING id",
            &[
                run.started_at.as_str().into(),
                run.suite.as_str().into(),
                commit.into(),
                Value::Int(dirty.into()),
                run.environment.tool_version.as_str().into(),
                run.machine.as_str().into(),
                serde_json::to_string(&run.environment)?.into(),
                serde_json::to_string(&run.params)?.into(),
                Value::opt(run.note.clone()),
            ],
        )
    })?;
    let row = rows
        .first()
        .ok_or_else(|| StoreError::Database("INSERT … RETURNING gave no id".into()))?;
    Ok(RunId(row.int(0)?))
}

/// Records the finished run `id`: its report and every result with its samples, in one
/// transaction, and marks it complete.
pub fn finish(
    conn: &dyn Connection,
    id: RunId,
    report: &RunReport,
    finished_at: &str,
) -> Result<(), StoreError> {
    // The run's own JSON carries everything but its results, which have their rows (the
    // limits probed again during the run included: results name them by index).
    let head = RunReport {
        results: Vec::new(),
        ..report.clone()
    };
    let (commit, dirty) = split_commit(&report.environment.git_commit);
    in_transaction(conn, |c| {
        let changed = c.execute(
            "UPDATE runs SET started_at = $2, finished_at = $3, duration_s = $4, suite = $5,
                             git_commit = $6, git_dirty = $7, tool_version = $8,
                             environment = $9, report_schema = $10, report = $11
             WHERE id = $1 AND finished_at IS NULL",
            &[
                Value::Int(id.0),
                report.started_at.as_str().into(),
                finished_at.into(),
                Value::Real(report.duration_s),
                report.suite.as_str().into(),
                commit.into(),
                Value::Int(dirty.into()),
                report.environment.tool_version.as_str().into(),
                serde_json::to_string(&report.environment)?.into(),
                Value::Int(report.schema_version.into()),
                serde_json::to_string(&head)?.into(),
            ],
        )?;
        if changed != 1 {
            return Err(StoreError::Database(format!(
                "run {id} is not an unfinished run of this store"
            )));
        }
        for (position, r) in report.results.iter().enumerate() {
            insert_result(c, id, position as i64, r)?;
        }
        Ok(())
    })
}

/// The name a verdict has in JSON (`pass`, `fail`, `hung`, …).
fn verdict_name(r: &TrialResult) -> Result<String, StoreError> {
    match serde_json::to_value(r.verdict)? {
        serde_json::Value::String(s) => Ok(s),
        other => Err(StoreError::Corrupt(format!("verdict as {other}"))),
    }
}

fn insert_result(
    c: &dyn Connection,
    run: RunId,
    position: i64,
    r: &TrialResult,
) -> Result<(), StoreError> {
    let lints: Vec<&str> = r.lints.iter().map(|l| l.code()).collect();
    c.execute(
        "INSERT INTO results (run_id, position, transport, workload, driver, identity, params,
                              options, verdict, violation, lints, msgs_per_s, ns_per_msg, result)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        &[
            Value::Int(run.0),
            Value::Int(position),
            r.transport.as_str().into(),
            r.workload.name().into(),
            r.params.driver.to_string().into(),
            Identity::of(r).as_str().into(),
            serde_json::to_string(&r.params)?.into(),
            serde_json::to_string(&r.params.options)?.into(),
            verdict_name(r)?.into(),
            Value::opt(r.violation.clone()),
            lints.join(" ").into(),
            Value::opt(r.throughput.as_ref().map(|s| s.median)),
            Value::opt(r.ns_per_msg.as_ref().map(|s| s.median)),
            serde_json::to_string(r)?.into(),
        ],
    )?;
    for (i, s) in r.samples.iter().enumerate() {
        insert_sample(c, run, position, i as i64, s)?;
    }
    Ok(())
}

fn insert_sample(
    c: &dyn Connection,
    run: RunId,
    position: i64,
    index: i64,
    s: &RawSample,
) -> Result<(), StoreError> {
    let layout = s.layout.as_ref();
    c.execute(
        "INSERT INTO samples (run_id, position, sample, messages, elapsed_ns, msgs_per_s,
                              ns_per_msg, failed_sends, failed_recvs, layout_seed, heap_pad,
                              stack_offsets, p50_ns, p99_ns)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        &[
            Value::Int(run.0),
            Value::Int(position),
            Value::Int(index),
            Value::count(s.messages),
            Value::count(s.elapsed_ns),
            Value::Real(s.msgs_per_s),
            Value::Real(s.ns_per_msg),
            Value::count(s.failed_sends),
            Value::count(s.failed_recvs),
            // A seed is a full u64: kept as decimal text rather than reinterpreted as signed.
            Value::opt(layout.map(|l| l.seed.to_string())),
            layout.map_or(Value::Null, |l| Value::count(l.heap_pad as u64)),
            Value::opt(layout.map(|l| {
                l.stack_offsets
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            })),
            s.p50_ns.map_or(Value::Null, Value::count),
            s.p99_ns.map_or(Value::Null, Value::count),
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dirty_flag_is_split_from_the_commit() {
        assert_eq!(split_commit("0123abcd4567-dirty"), ("0123abcd4567", true));
        assert_eq!(split_commit("0123abcd4567"), ("0123abcd4567", false));
        assert_eq!(split_commit("unknown"), ("unknown", false));
    }
}
