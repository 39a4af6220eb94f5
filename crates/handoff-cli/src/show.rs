//! `handoff show REF`: a stored run (or a report or journal file) rendered again, in any format,
//! without re-running it; with `--paired`, a paired run's comparison judged again.

use crate::args::ShowArgs;
use crate::exit;
use crate::CliError;
use handoff::model::foreign::escaped;
use handoff::output::compare::{self as compare_view, CompareFormat};
use handoff::output::{self, Format};
use handoff::report::RunReport;

/// Runs `handoff show` and returns the exit code.
pub fn show(args: &ShowArgs) -> Result<u8, CliError> {
    if args.paired {
        return show_paired(args);
    }
    let format: Format = args.format.parse()?;
    let destination = crate::destination::Destination::check(args.out.as_deref(), "--out")?;
    let report = load(args)?;
    let mut buf = Vec::new();
    output::render(&report, format, &mut buf).map_err(rendering)?;
    destination.write(&buf)?;
    Ok(exit::OK)
}

/// `handoff show REF --paired`: the paired comparison of a run made with `--against`, judged
/// again with this command's flags, as `handoff compare` judges; exit 4 when its regression
/// gate (`--max-regression`) fails.
fn show_paired(args: &ShowArgs) -> Result<u8, CliError> {
    let format: CompareFormat = args.format.parse().map_err(|e| {
        CliError::bad_input(format!(
            "{e} (--paired shows a comparison, in the formats of `handoff compare`)"
        ))
    })?;
    let judgement = crate::compare::judgement(args.alpha, args.threshold, args.max_regression)?;
    let destination = crate::destination::Destination::check(args.out.as_deref(), "--out")?;
    let report = load(args)?;
    let Some(c) = handoff::compare::paired(&report, judgement) else {
        return Err(CliError::bad_input(format!(
            "`{}` is not a paired run: --paired shows the comparison of a run made with `handoff run --against`",
            escaped(&args.reference)
        )));
    };
    let mut buf = Vec::new();
    compare_view::render(&c, &report, format, &mut buf).map_err(rendering)?;
    destination.write(&buf)?;
    // The gate names the other build as the run's own paired gate did: by its label.
    let other = report.paired.as_ref().map_or("", |p| p.label.as_str());
    Ok(crate::compare::gate_code(&c, other, args.allow_unjudged))
}

/// The run `args` names.
fn load(args: &ShowArgs) -> Result<RunReport, CliError> {
    crate::source::ReportSource::load(&crate::store::Reports::new(&args.store), &args.reference)
}

/// A view that could not be written out.
fn rendering(e: std::io::Error) -> CliError {
    CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    }
}
