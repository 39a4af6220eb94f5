//! `handoff recommend REF`: which transport, for these constraints, from a run's own figures.

use crate::args::RecommendArgs;
use crate::exit;
use crate::source::ReportSource;
use crate::CliError;
use handoff::output::recommend::{render, RecommendFormat};
use handoff::payload::PayloadKind;
use handoff::recommend::{self, ask, Ask};

/// Runs `handoff recommend` with the run from `source` and returns the exit code: 0 with a
/// recommendation (or the reasons nothing meets the constraints), 2 for bad constraints or a
/// run that cannot answer them (the message says what to run).
pub fn recommend(args: &RecommendArgs, source: &dyn ReportSource) -> Result<u8, CliError> {
    let format: RecommendFormat = args.format.parse()?;
    let ask = constraints(args)?;
    let destination = crate::destination::Destination::check(args.out.as_deref(), "--out")?;
    let report = source.load(&args.reference)?;
    let here = handoff::environment::detect();
    let rec = recommend::recommend(&report, &args.reference, &ask, Some(&here)).map_err(|e| {
        CliError::bad_input(format!(
            "cannot recommend from run `{}`: {e}",
            handoff::model::foreign::escaped(&args.reference)
        ))
    })?;
    let mut buf = Vec::new();
    render(&rec, format, &mut buf).map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    destination.write(&buf)?;
    Ok(exit::OK)
}

/// The value of flag `name`, if given, parsed by `parse`; a bad one is named with its flag.
fn parsed<T>(
    name: &str,
    text: &Option<String>,
    parse: fn(&str) -> Result<T, ask::BadValue>,
) -> Result<Option<T>, CliError> {
    text.as_deref()
        .map(parse)
        .transpose()
        .map_err(|e| CliError::bad_input(format!("{name} {e}")))
}

/// The constraints the flags give; a bad value is named with its flag.
fn constraints(args: &RecommendArgs) -> Result<Ask, CliError> {
    let count = |name: &str, text: &Option<String>| -> Result<Option<usize>, CliError> {
        text.as_deref()
            .map(|t| match t.trim().parse::<usize>() {
                Ok(n) if (1..=1024).contains(&n) => Ok(n),
                _ => Err(CliError::bad_input(format!(
                    "{name} `{t}`: a count from 1 to 1024 is expected"
                ))),
            })
            .transpose()
    };
    Ok(Ask {
        rate: parsed("--rate", &args.rate, ask::parse_rate)?,
        p99_ns: parsed("--p99", &args.p99, ask::parse_duration_ns)?,
        cpu: parsed("--cpu", &args.cpu, ask::parse_cores)?,
        payload: args
            .payload
            .as_deref()
            .map(|p| {
                p.parse::<PayloadKind>()
                    .map_err(|e| CliError::bad_input(format!("--payload: {e}")))
            })
            .transpose()?,
        producers: count("--producers", &args.producers)?,
        consumers: count("--consumers", &args.consumers)?,
        require: args
            .require
            .iter()
            .map(|r| r.trim().parse().map_err(CliError::from))
            .collect::<Result<_, _>>()?,
        prefer: args
            .prefer
            .as_deref()
            .map(|p| p.parse().map_err(CliError::from))
            .transpose()?,
    })
}
