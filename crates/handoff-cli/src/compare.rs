//! `handoff compare A B`: did the change make it faster or slower?

use crate::args::CompareArgs;
use crate::exit;
use crate::source::ReportSource;
use crate::CliError;
use handoff::compare::{self, Comparison, Judgement};
use handoff::model::foreign::escaped;
use handoff::output::compare::{self as view, CompareFormat};
use std::io::Write;

/// Runs `handoff compare` with reports from `source` and returns the exit code.
pub fn compare(args: &CompareArgs, source: &dyn ReportSource) -> Result<u8, CliError> {
    let format: CompareFormat = args.format.parse()?;
    let judgement = judgement(args.alpha, args.threshold, args.max_regression)?;
    let before = source.load(&args.before)?;
    let after = source.load(&args.after)?;
    let c = compare::compare((&args.before, &before), (&args.after, &after), judgement);
    let mut buf = Vec::new();
    view::render(&c, &after, format, &mut buf).map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    crate::destination::Destination::check(args.out.as_deref(), "--out")?.write(&buf)?;
    Ok(gate_code(&c, &args.before, args.allow_unjudged))
}

/// How to judge, from the flags.
pub fn judgement(
    alpha: Option<f64>,
    threshold: Option<crate::percent::Percent>,
    max_regression: Option<crate::percent::Percent>,
) -> Result<Judgement, CliError> {
    let mut j = Judgement::default();
    if let Some(a) = alpha {
        if !(a > 0.0 && a < 1.0) {
            return Err(CliError::bad_input(format!(
                "--alpha {a}: a significance level between 0 and 1 is expected (e.g. 0.05)"
            )));
        }
        j.alpha = a;
    }
    if let Some(t) = threshold {
        j.threshold = t.0;
    }
    j.max_regression = max_regression.map(|p| p.0);
    Ok(j)
}

/// Exit 4 when the regression gate fails: a result significantly slower than the maximum, or
/// (unless `allow_unjudged`) nothing that could be judged. Judged as `handoff run --baseline`
/// and a suite's regression gate judge ([`handoff::gates::judge`]); the reasons go to standard
/// error (the table marks the regressions; a JSON or BMF output goes to a file or a pipe and a
/// CI log still shows why).
pub fn gate_code(c: &Comparison, before: &str, allow_unjudged: bool) -> u8 {
    let Some(max) = c.judgement.max_regression else {
        return exit::OK;
    };
    let (status, details) = handoff::gates::judge(c, before, allow_unjudged);
    if status != handoff::gates::GateStatus::Failed {
        return exit::OK;
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "handoff: exit 4: the regression gate failed (--max-regression {:.1}%):",
        max * 100.0
    );
    for d in details {
        // A detail names results of the reports compared, which may come from anywhere.
        let _ = writeln!(err, "  {}", escaped(&d));
    }
    exit::REGRESSION
}
