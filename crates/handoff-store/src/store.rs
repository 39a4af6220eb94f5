//! [`Store`]: one open history store, whichever backend holds it.

use crate::baseline::{self, Baseline};
use crate::connection::Connection;
use crate::error::StoreError;
use crate::history::{self, RunSummary};
use crate::location::Location;
#[cfg(feature = "postgres")]
use crate::postgres::Postgres;
use crate::record::{self, RunStart};
use crate::reference::{self, Reference};
use crate::sqlite::Sqlite;
use crate::{load, schema, RunId};
use handoff_model::report::RunReport;

/// An open history store, at the current schema version.
pub struct Store {
    conn: Box<dyn Connection>,
    location: Location,
}

impl Store {
    /// Opens the store at `location` (creating a SQLite file if missing) and brings its schema
    /// up to date; refuses a store written by a newer handoff.
    pub fn open(location: &Location) -> Result<Store, StoreError> {
        let conn: Box<dyn Connection> = match location {
            Location::Sqlite(path) => Box::new(Sqlite::open(path)?),
            #[cfg(feature = "postgres")]
            Location::Postgres(url) => Box::new(Postgres::open(url)?),
            #[cfg(not(feature = "postgres"))]
            Location::Postgres(_) => {
                return Err(StoreError::Unreachable {
                    location: location.to_string(),
                    reason: "this build has no PostgreSQL client (handoff-store's `postgres` feature is off)".into(),
                })
            }
        };
        schema::migrate(conn.as_ref())?;
        Ok(Store {
            conn,
            location: location.clone(),
        })
    }

    /// Where the store is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The store's schema version.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        schema::version(self.conn.as_ref())
    }

    /// Records that a run begins (marked incomplete until [`Store::finish`]); returns its id.
    pub fn begin(&self, run: &RunStart) -> Result<RunId, StoreError> {
        record::begin(self.conn.as_ref(), run)
    }

    /// Records the finished run `id` with every result, in one transaction.
    pub fn finish(&self, id: RunId, report: &RunReport) -> Result<(), StoreError> {
        record::finish(
            self.conn.as_ref(),
            id,
            report,
            &handoff_model::time::now_rfc3339(),
        )
    }

    /// The newest `limit` runs (all without a limit), newest first, incomplete ones included.
    pub fn runs(&self, limit: Option<u64>) -> Result<Vec<RunSummary>, StoreError> {
        history::runs(self.conn.as_ref(), limit)
    }

    /// The finished run a reference (`42`, `latest`, a baseline name) names.
    pub fn resolve(&self, reference: &str) -> Result<RunId, StoreError> {
        reference::resolve(self.conn.as_ref(), &Reference::parse(reference)?)
    }

    /// The report of the finished run a reference names, exactly as the run reported it.
    /// (A comparison's "load a report by reference" is this, with the error as text.)
    pub fn load(&self, reference: &str) -> Result<RunReport, StoreError> {
        let id = self.resolve(reference)?;
        self.load_run(id)
    }

    /// The report of the finished run `id`.
    pub fn load_run(&self, id: RunId) -> Result<RunReport, StoreError> {
        load::report(self.conn.as_ref(), id)
    }

    /// Names the finished run `reference` names `name`; returns that run and the one the name
    /// named before, if any.
    pub fn save_baseline(
        &self,
        name: &str,
        reference: &str,
    ) -> Result<(RunId, Option<RunId>), StoreError> {
        baseline::check_name(name)?;
        let run = self.resolve(reference)?;
        let before = baseline::save(
            self.conn.as_ref(),
            name,
            run,
            &handoff_model::time::now_rfc3339(),
        )?;
        Ok((run, before))
    }

    /// Every baseline, by name.
    pub fn baselines(&self) -> Result<Vec<Baseline>, StoreError> {
        baseline::list(self.conn.as_ref())
    }

    /// Deletes the baseline `name` (its run stays); returns the run it named.
    pub fn delete_baseline(&self, name: &str) -> Result<RunId, StoreError> {
        baseline::delete(self.conn.as_ref(), name)
    }

    /// The database's own consistency check: `ok`, or what is wrong (SQLite's
    /// `PRAGMA integrity_check`; a PostgreSQL server checks itself and answers `ok`).
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        match &self.location {
            Location::Sqlite(path) => Sqlite::open(path)?.integrity_check(),
            Location::Postgres(_) => Ok("ok".into()),
        }
    }
}
