//! What can go wrong with a store, split into what the user asked wrongly (a bad reference, a
//! malformed location) and what failed underneath (an unreachable database, a failed write).

use thiserror::Error;

/// An error of the history store.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The location names no store handoff can open (a malformed URL).
    #[error("{0}")]
    BadLocation(String),
    /// The store could not be opened or reached.
    #[error("cannot open the history store at {location}: {reason}")]
    Unreachable {
        /// Where the store was looked for (passwords removed).
        location: String,
        /// Why it could not be opened.
        reason: String,
    },
    /// The database refused or failed a statement.
    #[error("history store: {0}")]
    Database(String),
    /// The store was written by a newer handoff.
    #[error(
        "this store has schema version {found}; this handoff knows up to {known}: upgrade handoff"
    )]
    TooNew {
        /// The store's schema version.
        found: u32,
        /// The newest this build knows.
        known: u32,
    },
    /// The store holds something this handoff cannot read.
    #[error("history store: unreadable content: {0}")]
    Corrupt(String),
    /// A reference that resolves to nothing: an unknown run id or baseline, no finished run
    /// yet, or a run that never finished.
    #[error("{0}")]
    BadReference(String),
    /// A baseline name that cannot be used.
    #[error("{0}")]
    BadName(String),
}

impl StoreError {
    /// Whether the user asked for something that cannot be (a bad location, reference or
    /// name), as opposed to a failure of the store itself.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            StoreError::BadLocation(_) | StoreError::BadReference(_) | StoreError::BadName(_)
        )
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Database(e.to_string())
    }
}

#[cfg(feature = "postgres")]
impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        // The server's own message (with its detail) says more than the client's summary.
        match e.as_db_error() {
            Some(db) => StoreError::Database(match db.detail() {
                Some(detail) => format!("{}: {detail}", db.message()),
                None => db.message().to_string(),
            }),
            None => StoreError::Database(e.to_string()),
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> StoreError {
        StoreError::Corrupt(e.to_string())
    }
}
