//! `handoff compare A B`: did the change make it faster or slower?

use crate::args::CompareArgs;
use crate::exit;
use crate::source::ReportSource;
use crate::CliError;
use handoff::compare::{self, Comparison, Judgement};
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
    Ok(gate_code(&c))
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

/// Exit 4 when a result regressed beyond the maximum, naming each on standard error (the table
/// marks them; a JSON or BMF output goes to a file or a pipe and a CI log still shows them).
pub fn gate_code(c: &Comparison) -> u8 {
    let Some(max) = c.judgement.max_regression else {
        return exit::OK;
    };
    let slower: Vec<String> = c
        .regressions()
        .map(|r| {
            format!(
                "{} ({}: {})",
                r.identity,
                r.metric,
                r.ratio
                    .map_or("–".into(), |x| format!("{:+.1}%", (x - 1.0) * 100.0))
            )
        })
        .collect();
    if slower.is_empty() {
        return exit::OK;
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "regression: {} result(s) significantly slower than {:.1}%:",
        slower.len(),
        max * 100.0
    );
    for s in slower {
        let _ = writeln!(err, "  {s}");
    }
    exit::REGRESSION
}
