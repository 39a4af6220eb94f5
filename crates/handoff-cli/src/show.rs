//! `handoff show REF`: a stored run rendered again, in any format, without re-running it.

use crate::args::ShowArgs;
use crate::exit;
use crate::CliError;
use handoff::output::{self, Format};

/// Runs `handoff show` and returns the exit code.
pub fn show(args: &ShowArgs) -> Result<u8, CliError> {
    let format: Format = args.format.parse().map_err(CliError::bad_input)?;
    let store = crate::store::open(&args.store)?;
    let report = store.load(&args.reference).map_err(crate::store::error)?;
    let mut buf = Vec::new();
    output::render(&report, format, &mut buf).map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    crate::run::write_output(args.out.as_deref(), &buf)?;
    Ok(exit::OK)
}
