//! `handoff show REF`: a stored run (or a report or journal file) rendered again, in any format,
//! without re-running it.

use crate::args::ShowArgs;
use crate::exit;
use crate::CliError;
use handoff::output::{self, Format};

/// Runs `handoff show` and returns the exit code.
pub fn show(args: &ShowArgs) -> Result<u8, CliError> {
    let format: Format = args.format.parse()?;
    let destination = crate::destination::Destination::check(args.out.as_deref(), "--out")?;
    let report = crate::source::ReportSource::load(
        &crate::store::Reports::new(&args.store),
        &args.reference,
    )?;
    let mut buf = Vec::new();
    output::render(&report, format, &mut buf).map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    destination.write(&buf)?;
    Ok(exit::OK)
}
