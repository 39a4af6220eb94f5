//! The store's schema and its migrations.
//!
//! The schema version lives in the `meta` table (`schema_version`). Opening a store applies,
//! in order and in one transaction, every migration it has not seen yet, so a store is always
//! at one version, never between two. A store whose version is newer than this build knows was
//! written by a newer handoff and is refused rather than misread. A new version is a new entry
//! at the end of `MIGRATIONS`; an entry once released never changes.
//!
//! What is stored (version 1):
//!
//! | table | one row per | columns |
//! |-------|-------------|---------|
//! | `runs` | run | when, suite, commit (split from its `-dirty` flag), tool version, machine, environment (JSON), effective parameters (JSON), note; `finished_at` and the report (JSON without its results) once the run finished — until then the row marks an incomplete run |
//! | `results` | result of a run | position, identity columns (transport, workload, driver, identity text, parameters and options as JSON), verdict, violation, lint codes, median figures, and the whole result as JSON |
//! | `samples` | timed sample of a result | messages, elapsed ns, msgs/s, ns/msg, failed sends/receives, layout seed, heap pad, stack offsets, per-sample p50/p99 |
//! | `baselines` | named run | name, run id, when it was saved |
//!
//! The JSON of a run and of its results is the report's own (schema-versioned) JSON, so a
//! stored run renders exactly as it printed; latency histograms stay inside it (HdrHistogram
//! V2 with deflate, base64). The columns beside it are copies for queries.

use crate::connection::{in_transaction, Connection, Dialect};
use crate::error::StoreError;
use crate::value::Value;

/// The newest schema version this build knows.
pub const SCHEMA_VERSION: u32 = 1;

/// One step from the previous version to the next: the SQL for a dialect.
type Migration = fn(Dialect) -> String;

/// Every migration, in order: entry `i` takes a store from version `i` to `i + 1`.
const MIGRATIONS: [Migration; SCHEMA_VERSION as usize] = [v1];

/// Version 1: runs, results, samples and baselines.
fn v1(d: Dialect) -> String {
    format!(
        "
CREATE TABLE runs (
    id {id},
    started_at TEXT NOT NULL,
    finished_at TEXT,
    duration_s DOUBLE PRECISION,
    suite TEXT NOT NULL,
    git_commit TEXT NOT NULL,
    git_dirty BIGINT NOT NULL,
    tool_version TEXT NOT NULL,
    machine TEXT NOT NULL,
    environment TEXT NOT NULL,
    params TEXT NOT NULL,
    note TEXT,
    report_schema BIGINT,
    report TEXT
);
CREATE TABLE results (
    run_id BIGINT NOT NULL REFERENCES runs (id),
    position BIGINT NOT NULL,
    transport TEXT NOT NULL,
    workload TEXT NOT NULL,
    driver TEXT NOT NULL,
    identity TEXT NOT NULL,
    params TEXT NOT NULL,
    options TEXT NOT NULL,
    verdict TEXT NOT NULL,
    violation TEXT,
    lints TEXT NOT NULL,
    msgs_per_s DOUBLE PRECISION,
    ns_per_msg DOUBLE PRECISION,
    result TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE INDEX results_identity ON results (identity);
CREATE TABLE samples (
    run_id BIGINT NOT NULL,
    position BIGINT NOT NULL,
    sample BIGINT NOT NULL,
    messages BIGINT NOT NULL,
    elapsed_ns BIGINT NOT NULL,
    msgs_per_s DOUBLE PRECISION NOT NULL,
    ns_per_msg DOUBLE PRECISION NOT NULL,
    failed_sends BIGINT NOT NULL,
    failed_recvs BIGINT NOT NULL,
    layout_seed TEXT,
    heap_pad BIGINT,
    stack_offsets TEXT,
    p50_ns BIGINT,
    p99_ns BIGINT,
    PRIMARY KEY (run_id, position, sample),
    FOREIGN KEY (run_id, position) REFERENCES results (run_id, position)
);
CREATE TABLE baselines (
    name TEXT PRIMARY KEY,
    run_id BIGINT NOT NULL REFERENCES runs (id),
    saved_at TEXT NOT NULL
);
",
        id = d.id_column()
    )
}

/// Brings the store up to [`SCHEMA_VERSION`] (creating it if empty) and returns the version
/// it was at; refuses a store written by a newer handoff.
pub fn migrate(conn: &dyn Connection) -> Result<u32, StoreError> {
    migrate_to(conn, &MIGRATIONS)
}

fn migrate_to(conn: &dyn Connection, migrations: &[Migration]) -> Result<u32, StoreError> {
    let known = migrations.len() as u32;
    in_transaction(conn, |c| {
        if let Some(lock) = c.dialect().migration_lock() {
            c.batch(lock)?;
        }
        c.batch("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")?;
        let found = version(c)?;
        if found > known {
            return Err(StoreError::TooNew { found, known });
        }
        for (i, step) in migrations.iter().enumerate().skip(found as usize) {
            c.batch(&step(c.dialect()))?;
            let next = Value::Text((i + 1).to_string());
            c.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', $1)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[next],
            )?;
        }
        Ok(found)
    })
}

/// The schema version recorded in the store (0 for a new, empty one).
pub fn version(conn: &dyn Connection) -> Result<u32, StoreError> {
    let rows = conn.query("SELECT value FROM meta WHERE key = 'schema_version'", &[])?;
    match rows.first() {
        None => Ok(0),
        Some(row) => {
            let text = row.text(0)?;
            text.parse().map_err(|_| {
                StoreError::Corrupt(format!("schema version `{text}` is not a number"))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sqlite::Sqlite;

    fn db() -> (tempfile::TempDir, Sqlite) {
        let dir = tempfile::tempdir().unwrap();
        let db = Sqlite::open(&dir.path().join("h.sqlite")).unwrap();
        (dir, db)
    }

    #[test]
    fn a_new_store_is_created_at_the_current_version_and_reopening_changes_nothing() {
        let (_dir, db) = db();
        assert_eq!(migrate(&db).unwrap(), 0);
        assert_eq!(version(&db).unwrap(), SCHEMA_VERSION);
        assert_eq!(migrate(&db).unwrap(), SCHEMA_VERSION);
        assert_eq!(version(&db).unwrap(), SCHEMA_VERSION);
    }

    fn v2(_: Dialect) -> String {
        "ALTER TABLE runs ADD COLUMN host_kernel TEXT".into()
    }

    #[test]
    fn migrations_apply_in_order_from_the_version_found() {
        let (_dir, db) = db();
        migrate(&db).unwrap();
        let steps: [Migration; 2] = [v1, v2];
        assert_eq!(migrate_to(&db, &steps).unwrap(), 1);
        assert_eq!(version(&db).unwrap(), 2);
        // The new column exists.
        db.query("SELECT host_kernel FROM runs", &[]).unwrap();
    }

    fn broken(_: Dialect) -> String {
        "ALTER TABLE runs ADD COLUMN a TEXT; THIS IS NOT SQL".into()
    }

    #[test]
    fn a_failed_migration_leaves_the_store_at_its_old_version() {
        let (_dir, db) = db();
        migrate(&db).unwrap();
        let steps: [Migration; 2] = [v1, broken];
        assert!(migrate_to(&db, &steps).is_err());
        assert_eq!(version(&db).unwrap(), 1);
        assert!(db.query("SELECT a FROM runs", &[]).is_err(), "rolled back");
    }

    #[test]
    fn a_store_from_a_newer_handoff_is_refused() {
        let (_dir, db) = db();
        migrate(&db).unwrap();
        db.execute(
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
            &[],
        )
        .unwrap();
        let err = migrate(&db).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "this store has schema version 3; this handoff knows up to {SCHEMA_VERSION}: upgrade handoff"
            )
        );
    }
}
