//! handoff's history store: every run, its results and named baselines, in an embedded SQLite
//! file or a PostgreSQL database shared by a fleet.
//!
//! Guarantees first:
//!
//! * **Nothing half-recorded.** A run's row is written, marked incomplete, when it begins; its
//!   results are written when it finishes, with the mark removed, in one transaction. A run
//!   killed part way leaves only its incomplete row.
//! * **Nothing corrupted.** SQLite runs in WAL mode with a busy timeout: a killed writer leaves
//!   the file intact, and two processes writing at once take turns.
//! * **Nothing misread.** The schema is versioned; migrations run in order in one
//!   transaction; a store written by a newer handoff is refused.
//! * **Exactly what was printed.** A stored run loads back as the [`RunReport`] the run
//!   rendered, so every output format renders it again without re-running anything.
//!
//! ```no_run
//! use handoff_store::{Location, Store};
//! let store = Store::open(&Location::parse("history.sqlite")?)?;
//! for run in store.runs(Some(10))? {
//!     println!("{} {} {}", run.id, run.started_at, run.suite);
//! }
//! let report = store.load("latest")?;
//! # Ok::<(), handoff_store::StoreError>(())
//! ```
//!
//! One trait ([`connection::Connection`]) stands between one copy of the queries and the two
//! backends; [`schema`] describes what is stored.
//!
//! [`RunReport`]: handoff_model::report::RunReport

pub mod baseline;
pub mod connection;
#[cfg(feature = "postgres")]
pub mod credentials;
pub mod error;
pub mod history;
pub mod load;
pub mod location;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod record;
pub mod reference;
pub mod schema;
pub mod sqlite;
pub mod store;
#[cfg(feature = "postgres")]
pub mod tls;
pub mod value;

pub use baseline::Baseline;
pub use error::StoreError;
pub use history::RunSummary;
pub use location::Location;
pub use record::RunStart;
pub use store::Store;

use std::fmt;

/// A run's id in its store (ids only grow; one is never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(pub i64);

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
