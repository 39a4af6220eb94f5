//! References to stored runs: a run id (`42`), `latest` (the newest finished run) or a
//! baseline's name (`main`), and how they resolve.

use crate::connection::Connection;
use crate::error::StoreError;
use crate::value::Value;
use crate::RunId;
use std::fmt;

/// What a reference names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// A run by id.
    Id(RunId),
    /// The newest finished run.
    Latest,
    /// The run a baseline names.
    Baseline(String),
}

impl Reference {
    /// Reads a reference: digits are a run id, `latest` is the newest finished run, anything
    /// else a baseline name.
    pub fn parse(text: &str) -> Result<Reference, StoreError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(StoreError::BadReference(
                "empty run reference: expected a run id, `latest` or a baseline name".into(),
            ));
        }
        if text == "latest" {
            return Ok(Reference::Latest);
        }
        if text.bytes().all(|b| b.is_ascii_digit()) {
            return text
                .parse()
                .map(|id| Reference::Id(RunId(id)))
                .map_err(|_| StoreError::BadReference(format!("run id {text} is out of range")));
        }
        Ok(Reference::Baseline(text.to_string()))
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reference::Id(id) => write!(f, "{id}"),
            Reference::Latest => f.write_str("latest"),
            Reference::Baseline(name) => f.write_str(name),
        }
    }
}

/// The newest run's id, finished or not.
fn newest(conn: &dyn Connection) -> Result<Option<RunId>, StoreError> {
    let rows = conn.query("SELECT MAX(id) FROM runs", &[])?;
    match rows.first().map(|r| r.0.first()) {
        Some(Some(Value::Int(id))) => Ok(Some(RunId(*id))),
        _ => Ok(None),
    }
}

/// The finished run `reference` names.
pub fn resolve(conn: &dyn Connection, reference: &Reference) -> Result<RunId, StoreError> {
    let id = match reference {
        Reference::Id(id) => *id,
        Reference::Latest => {
            let rows = conn.query(
                "SELECT MAX(id) FROM runs WHERE finished_at IS NOT NULL",
                &[],
            )?;
            match rows.first().map(|r| r.0.first()) {
                Some(Some(Value::Int(id))) => return Ok(RunId(*id)),
                _ => {
                    return Err(StoreError::BadReference(match newest(conn)? {
                        None => "no run is recorded in this store yet".into(),
                        Some(_) => "no run in this store has finished yet".into(),
                    }))
                }
            }
        }
        Reference::Baseline(name) => crate::baseline::run_of(conn, name)?,
    };
    let rows = conn.query(
        "SELECT finished_at FROM runs WHERE id = $1",
        &[Value::Int(id.0)],
    )?;
    match rows.first() {
        None => Err(StoreError::BadReference(match newest(conn)? {
            Some(latest) => format!("unknown run id {id} (latest is {latest})"),
            None => format!("unknown run id {id} (no run is recorded in this store yet)"),
        })),
        Some(row) if row.opt_text(0)?.is_none() => Err(StoreError::BadReference(format!(
            "run {id} is incomplete (still running, or stopped before it finished): it has no results"
        ))),
        Some(_) => Ok(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_ids_latest_is_latest_and_the_rest_are_names() {
        assert_eq!(Reference::parse("42").unwrap(), Reference::Id(RunId(42)));
        assert_eq!(Reference::parse("latest").unwrap(), Reference::Latest);
        assert_eq!(
            Reference::parse("main").unwrap(),
            Reference::Baseline("main".into())
        );
        assert!(Reference::parse("").unwrap_err().is_bad_input());
        assert!(Reference::parse("99999999999999999999999")
            .unwrap_err()
            .is_bad_input());
    }
}
