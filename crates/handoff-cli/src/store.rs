//! Opening the history store named by `--store` (or the default location), and what its
//! errors mean as exit codes: a malformed location, an unknown run or baseline is bad input
//! (2); a store that cannot be opened, read or written is a failed run (3).

use crate::args::StoreArg;
use crate::exit;
use crate::CliError;
use handoff_store::{Location, Store, StoreError};

/// The store's location: `--store`, else the default (see [`Location::default_location`]).
pub fn location(arg: &StoreArg) -> Result<Location, CliError> {
    match &arg.store {
        Some(text) => Location::parse(text),
        None => Location::default_location(),
    }
    .map_err(error)
}

/// Opens the store `arg` names.
pub fn open(arg: &StoreArg) -> Result<Store, CliError> {
    Store::open(&location(arg)?).map_err(error)
}

/// A store error as a command error with its exit code.
pub fn error(e: StoreError) -> CliError {
    CliError {
        code: if e.is_bad_input() {
            exit::BAD_INPUT
        } else {
            exit::RUN_ERROR
        },
        message: e.to_string(),
    }
}
