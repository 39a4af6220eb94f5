//! Baselines: names for runs (`main`, `before-cache-line-change`), so a comparison or a gate
//! can say which run it holds a new one against.

use crate::connection::{in_transaction, Connection};
use crate::error::StoreError;
use crate::value::Value;
use crate::RunId;

/// A saved baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Baseline {
    /// Its name.
    pub name: String,
    /// The run it names.
    pub run: RunId,
    /// When it was saved (RFC 3339, UTC).
    pub saved_at: String,
    /// When the run started.
    pub run_started_at: String,
    /// The suite the run ran.
    pub suite: String,
}

/// Checks that `name` can name a baseline: not empty, no whitespace, and not readable as
/// another kind of reference (a run id, `latest`).
pub fn check_name(name: &str) -> Result<(), StoreError> {
    let bad = |why: &str| {
        Err(StoreError::BadName(format!(
            "baseline name `{name}`: {why}"
        )))
    };
    if name.is_empty() {
        return bad("empty");
    }
    if name == "latest" {
        return bad("`latest` always means the newest finished run; choose another name");
    }
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return bad("digits alone read as a run id; choose a name with a letter");
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad("no spaces or control characters");
    }
    Ok(())
}

/// Every baseline's name, sorted.
fn names(conn: &dyn Connection) -> Result<Vec<String>, StoreError> {
    conn.query("SELECT name FROM baselines ORDER BY name", &[])?
        .iter()
        .map(|r| r.text(0))
        .collect()
}

/// "no baseline `mian`; did you mean `main`?"
fn unknown(conn: &dyn Connection, name: &str) -> Result<StoreError, StoreError> {
    let all = names(conn)?;
    let close = handoff_model::suggest::closest(name, all.iter().map(String::as_str));
    let message = if !close.is_empty() {
        let list: Vec<String> = close.iter().map(|c| format!("`{c}`")).collect();
        format!("no baseline `{name}`; did you mean {}?", list.join(" or "))
    } else if all.is_empty() {
        format!("no baseline `{name}`: none is saved (`handoff baseline save NAME RUN`)")
    } else {
        format!("no baseline `{name}` (saved: {})", all.join(", "))
    };
    Ok(StoreError::BadReference(message))
}

/// The run the baseline `name` names.
pub fn run_of(conn: &dyn Connection, name: &str) -> Result<RunId, StoreError> {
    let rows = conn.query(
        "SELECT run_id FROM baselines WHERE name = $1",
        &[name.into()],
    )?;
    match rows.first() {
        Some(row) => Ok(RunId(row.int(0)?)),
        None => Err(unknown(conn, name)?),
    }
}

/// Names `run` `name` (replacing what the name named before); returns the run it named
/// before, if any.
pub fn save(
    conn: &dyn Connection,
    name: &str,
    run: RunId,
    saved_at: &str,
) -> Result<Option<RunId>, StoreError> {
    check_name(name)?;
    in_transaction(conn, |c| {
        let before = c
            .query(
                "SELECT run_id FROM baselines WHERE name = $1",
                &[name.into()],
            )?
            .first()
            .map(|r| r.int(0).map(RunId))
            .transpose()?;
        c.execute(
            "INSERT INTO baselines (name, run_id, saved_at) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id,
                                              saved_at = excluded.saved_at",
            &[name.into(), Value::Int(run.0), saved_at.into()],
        )?;
        Ok(before)
    })
}

/// Every baseline, by name.
pub fn list(conn: &dyn Connection) -> Result<Vec<Baseline>, StoreError> {
    conn.query(
        "SELECT b.name, b.run_id, b.saved_at, r.started_at, r.suite
         FROM baselines b JOIN runs r ON r.id = b.run_id
         ORDER BY b.name",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(Baseline {
            name: r.text(0)?,
            run: RunId(r.int(1)?),
            saved_at: r.text(2)?,
            run_started_at: r.text(3)?,
            suite: r.text(4)?,
        })
    })
    .collect()
}

/// Deletes the baseline `name` (not its run); returns the run it named.
pub fn delete(conn: &dyn Connection, name: &str) -> Result<RunId, StoreError> {
    in_transaction(conn, |c| {
        let run = run_of(c, name)?;
        c.execute("DELETE FROM baselines WHERE name = $1", &[name.into()])?;
        Ok(run)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_read_as_other_references_are_refused() {
        assert!(check_name("main").is_ok());
        assert!(check_name("before-cache-line/v2").is_ok());
        for bad in ["", "latest", "42", "two words"] {
            let err = check_name(bad).unwrap_err();
            assert!(err.is_bad_input(), "{bad}: {err}");
        }
    }
}
