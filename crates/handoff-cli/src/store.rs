//! Opening the history store named by `--store` (or the default location), and what its
//! errors mean as exit codes: a malformed location, an unknown run or baseline is bad input
//! (2); a store that cannot be opened, read or written is a failed run (3).

use crate::args::StoreArg;
use crate::exit;
use crate::source::{is_file_reference, read_json_report, ReportSource};
use crate::CliError;
use handoff::report::RunReport;
use handoff_store::{Location, Store, StoreError};
use std::cell::OnceCell;
use std::path::Path;

/// The store's location: `--store`, else the default (see [`Location::default_location`]).
///
/// A `--store` URL with a password in it is used, with a one-line warning (once per process):
/// other users see a command line (`ps`), and shell history keeps it.
pub fn location(arg: &StoreArg) -> Result<Location, CliError> {
    match &arg.store {
        Some(text) => {
            if handoff_store::location::has_password(text) {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| eprintln!("{PASSWORD_WARNING}"));
            }
            Location::parse(text)
        }
        None => Location::default_location(),
    }
    .map_err(error)
}

/// The warning for a password on the command line.
pub const PASSWORD_WARNING: &str = "handoff: warning: the --store URL holds a password, which other users can see (ps) and shell history keeps; use PGPASSWORD or ~/.pgpass instead (see docs/history.md)";

/// Opens the store `arg` names.
pub fn open(arg: &StoreArg) -> Result<Store, CliError> {
    Store::open(&location(arg)?).map_err(error)
}

/// A store error as a command error with its exit code; a store that cannot be reached says
/// what to do about it.
pub fn error(e: StoreError) -> CliError {
    let hint = match &e {
        StoreError::Unreachable { location, .. } if location.starts_with("postgres") => {
            " (`run --no-store` records nothing; `--store` or HANDOFF_STORE names another store; for a throwaway PostgreSQL to try it with: scripts/postgres-for-tests start DIR, which prints its URL; see docs/history.md)"
        }
        StoreError::Unreachable { .. } => {
            " (`run --no-store` records nothing; `--store` or HANDOFF_STORE names another store; see docs/history.md)"
        }
        _ => "",
    };
    CliError {
        code: if e.is_bad_input() {
            exit::BAD_INPUT
        } else {
            exit::RUN_ERROR
        },
        message: format!("{e}{hint}"),
    }
}

/// Reports for a comparison: a file reference is read as a JSON report; anything else (a run
/// id, `latest`, a baseline name) is loaded from the history store, opened on first use so a
/// comparison of two files needs no store.
pub struct Reports<'a> {
    arg: &'a StoreArg,
    store: OnceCell<Store>,
}

impl<'a> Reports<'a> {
    /// Reports from files and from the store `arg` names.
    pub fn new(arg: &'a StoreArg) -> Reports<'a> {
        Reports {
            arg,
            store: OnceCell::new(),
        }
    }

    fn store(&self) -> Result<&Store, CliError> {
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let store = open(self.arg)?;
        Ok(self.store.get_or_init(|| store))
    }
}

impl ReportSource for Reports<'_> {
    fn load(&self, reference: &str) -> Result<RunReport, CliError> {
        if is_file_reference(reference) {
            read_json_report(Path::new(reference))
        } else {
            self.store()?.load(reference).map_err(error)
        }
    }
}
