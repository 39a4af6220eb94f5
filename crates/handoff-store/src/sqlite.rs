//! The embedded backend: one SQLite file (through `rusqlite`, with SQLite compiled in).
//!
//! The database runs in WAL mode (readers never block the writer, and a process killed part
//! way through a write leaves the file intact: the unfinished transaction is discarded when
//! the file is next opened), with a busy timeout so that two handoff processes writing at once
//! take turns instead of failing, and with foreign keys enforced as PostgreSQL does.

use crate::connection::{Connection, Dialect};
use crate::error::StoreError;
use crate::value::{Row, Value};
use rusqlite::types::{ToSqlOutput, ValueRef};
use std::path::Path;
use std::time::Duration;

/// How long a statement waits for another process's write lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// An open SQLite store.
pub struct Sqlite {
    conn: rusqlite::Connection,
}

impl Sqlite {
    /// Opens (creating if needed, with its directory) the database at `path`.
    pub fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let unreachable = |reason: String| StoreError::Unreachable {
            location: path.display().to_string(),
            reason,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // A file where a directory must be is named, not reported as "File exists".
            if let Some(file) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
                return Err(unreachable(format!(
                    "{} is not a directory",
                    file.display()
                )));
            }
            std::fs::create_dir_all(dir)
                .map_err(|e| unreachable(format!("cannot create {}: {e}", dir.display())))?;
        }
        if path.is_dir() {
            return Err(unreachable("it is a directory".into()));
        }
        let conn = rusqlite::Connection::open(path).map_err(|e| unreachable(e.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| unreachable(e.to_string()))?;
        // Reading the mode back makes SQLite touch the file: a file that is no database
        // fails here, at open, rather than at the first query.
        //
        // Switching a new file to WAL takes an exclusive lock, and SQLite answers "database is
        // locked" at once, without its busy handler, when another process is switching the
        // same new file at that moment: two runs started together on a new store would
        // otherwise fail. The switch is retried until the busy timeout.
        let started = std::time::Instant::now();
        let mode: String = loop {
            match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
                Err(e) if is_busy(&e) && started.elapsed() < BUSY_TIMEOUT => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                other => break other.map_err(|e| unreachable(e.to_string()))?,
            }
        };
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(unreachable(format!(
                "the database cannot use write-ahead logging (journal mode stays `{mode}`)"
            )));
        }
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")
            .map_err(|e| unreachable(e.to_string()))?;
        Ok(Sqlite { conn })
    }

    /// SQLite's own consistency check of the whole file: `ok`, or what is wrong.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        let lines: Vec<String> = self
            .conn
            .prepare("PRAGMA integrity_check")?
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(lines.join("\n"))
    }
}

/// Whether `e` is SQLite's "busy" or "locked" answer.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// `$N` parameters as SQLite's numbered `?N`. (SQLite reads `$N` as a *named* parameter and
/// numbers names in order of appearance, which would bind `$2 … $1` the wrong way round.)
fn numbered(sql: &str) -> String {
    sql.replace('$', "?")
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
        })
    }
}

fn value(v: ValueRef<'_>) -> rusqlite::Result<Value> {
    Ok(match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(f) => Value::Real(f),
        ValueRef::Text(t) => Value::Text(
            std::str::from_utf8(t)
                .map_err(rusqlite::Error::Utf8Error)?
                .to_string(),
        ),
        ValueRef::Blob(_) => {
            return Err(rusqlite::Error::InvalidColumnType(
                0,
                "blob".into(),
                rusqlite::types::Type::Blob,
            ))
        }
    })
}

impl Connection for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let mut stmt = self.conn.prepare_cached(&numbered(sql))?;
        let n = stmt.execute(rusqlite::params_from_iter(params))?;
        Ok(n as u64)
    }

    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&numbered(sql))?;
        let columns = stmt.column_count();
        let rows = stmt
            .query_map(rusqlite::params_from_iter(params), |r| {
                (0..columns)
                    .map(|i| value(r.get_ref(i)?))
                    .collect::<rusqlite::Result<Vec<Value>>>()
                    .map(Row)
            })?
            .collect::<rusqlite::Result<Vec<Row>>>()?;
        Ok(rows)
    }

    fn batch(&self, sql: &str) -> Result<(), StoreError> {
        self.conn.execute_batch(sql)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_bind_by_number_not_by_order_of_appearance() {
        let dir = tempfile::tempdir().unwrap();
        let db = Sqlite::open(&dir.path().join("t.sqlite")).unwrap();
        let rows = db
            .query("SELECT $2, $1", &[Value::Int(1), Value::Text("two".into())])
            .unwrap();
        assert_eq!(
            rows,
            vec![Row(vec![Value::Text("two".into()), Value::Int(1)])]
        );
    }

    #[test]
    fn opens_in_wal_mode_and_creates_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/history.sqlite");
        let db = Sqlite::open(&path).unwrap();
        let mode = db.query("PRAGMA journal_mode", &[]).unwrap();
        assert_eq!(mode[0].text(0).unwrap(), "wal");
        assert!(path.exists());
        assert_eq!(db.integrity_check().unwrap(), "ok");
    }

    #[test]
    fn a_file_that_is_no_database_is_refused_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "x".repeat(4096)).unwrap();
        let err = Sqlite::open(&path).err().expect("refused");
        assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
    }
}
