//! The command line's part of the plan: flags fill the plan's schema, and the plan's one
//! builder does the rest.
//!
//! Without a suite file, `--transport`, `--workload` or `--driver` make an ad-hoc run: the flags
//! are one benchmark's own keys (so a flag that cannot apply, such as `--rate` on `spsc`, is an
//! error). With a suite file (or the built-in default suite), `--transport`, `--workload` and
//! `--driver` keep only those trials, and the parameter flags override the suite's values where
//! they apply.

use crate::args::RunArgs;
use crate::CliError;
use handoff::catalog::Catalog;
use handoff::plan::value::{List, OptValue};
use handoff::plan::{At, Benchmark, Overlay, Params, Plan};
use std::collections::BTreeMap;

/// The default suite, built into the binary so `handoff run` works from any directory.
pub const DEFAULT_SUITE: &str = include_str!("../../../suites/default.toml");
/// How the built-in suite is named in errors and reports.
pub const DEFAULT_SUITE_NAME: &str = "suites/default.toml (built in)";

/// The plan the flags ask for, and whether it is ad hoc (built from the flags alone).
pub fn plan(catalog: &Catalog, args: &RunArgs) -> Result<(Plan, bool), CliError> {
    let adhoc = args.suite.is_none()
        && (!args.transport.is_empty() || !args.workload.is_empty() || !args.driver.is_empty());
    let bad = |e: handoff::plan::PlanError| CliError::bad_input(e.to_string());
    if adhoc {
        let run = Overlay {
            consensus: args.consensus,
            max_trials: args.max_trials.map(|n| n.0),
            ..Overlay::default()
        };
        return Ok((
            Plan::from_flags_with(benchmark(catalog, args)?, catalog, &run).map_err(bad)?,
            true,
        ));
    }
    for (flag, set) in [
        ("--option", !args.options.is_empty()),
        ("--hops", !args.hops.is_empty()),
    ] {
        if set {
            return Err(CliError::bad_input(format!(
                "{flag} names what a benchmark runs: with a suite file, put it in the file (or use --transport/--workload without a file)"
            )));
        }
    }
    let overlay = Overlay {
        transports: args.transport.clone(),
        workloads: args.workload.iter().map(|w| w.0).collect(),
        drivers: args.driver.iter().map(|d| d.0).collect(),
        params: Params {
            driver: None,
            ..params(args)
        },
        consensus: args.consensus,
        max_trials: args.max_trials.map(|n| n.0),
        memory: None,
    };
    let plan = match &args.suite {
        Some(path) => Plan::load_with(path, catalog, &overlay),
        None => Plan::parse_with(DEFAULT_SUITE, DEFAULT_SUITE_NAME, catalog, &overlay),
    };
    Ok((plan.map_err(bad)?, false))
}

/// The one benchmark of an ad-hoc run.
fn benchmark(catalog: &Catalog, args: &RunArgs) -> Result<Benchmark, CliError> {
    let names = |flag: &'static str, v: &[String]| list(flag, v);
    let mut b = Benchmark::with_params(params(args));
    b.workload = Some(At::flag(
        "--workload",
        List(if args.workload.is_empty() {
            vec![handoff::plan::value::Parsed(
                handoff::plan::defaults::WORKLOAD,
            )]
        } else {
            args.workload.clone()
        }),
    ));
    b.hops = names("--hops", &args.hops);
    b.transports = if !args.transport.is_empty() {
        names("--transport", &args.transport)
    } else if args.hops.is_empty() {
        // Every transport a user has (the test-only ones are never run unasked).
        let all: Vec<String> = catalog
            .entries()
            .iter()
            .filter(|e| !e.info().test_only)
            .map(|e| e.info().name.clone())
            .collect();
        names("--transport", &all)
    } else {
        None
    };
    b.options = options(&args.options)?;
    Ok(b)
}

/// `--option KEY=VALUE`, repeatable; a key given more than once sweeps its values.
fn options(raw: &[String]) -> Result<Option<At<BTreeMap<String, At<List<OptValue>>>>>, CliError> {
    let mut map: BTreeMap<String, At<List<OptValue>>> = BTreeMap::new();
    for o in raw {
        let (k, v) = o
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim()))
            .filter(|(k, v)| !k.is_empty() && !v.is_empty())
            .ok_or_else(|| CliError::bad_input(format!("--option `{o}`: expected KEY=VALUE")))?;
        map.entry(k.to_string())
            .or_insert_with(|| At::flag("--option", List(Vec::new())))
            .value
            .0
            .push(OptValue(v.to_string()));
    }
    Ok((!map.is_empty()).then(|| At::flag("--option", map)))
}

/// A flag's values as a list, if any were given.
fn list<T: Clone>(flag: &'static str, v: &[T]) -> Option<At<List<T>>> {
    (!v.is_empty()).then(|| At::flag(flag, List(v.to_vec())))
}

/// A flag's value, if given.
fn one<T: Clone>(flag: &'static str, v: &Option<T>) -> Option<At<T>> {
    v.clone().map(|v| At::flag(flag, v))
}

/// The parameter flags, as the plan's parameters.
fn params(a: &RunArgs) -> Params {
    Params {
        payload: list("--payload", &a.payload),
        capacity: list("--capacity", &a.capacity),
        producers: list("--producers", &a.producers),
        consumers: list("--consumers", &a.consumers),
        batch: list("--batch", &a.batch),
        messages: list("--messages", &a.messages),
        samples: one("--samples", &a.samples),
        warmup: one("--warmup", &a.warmup),
        timeout_ms: one("--timeout-ms", &a.timeout_ms),
        pin: a.no_pin.then(|| At::flag("--no-pin", false)),
        fresh_process: a.fresh_process.then(|| At::flag("--fresh-process", true)),
        rate: list("--rate", &a.rate),
        pacer: one("--pacer", &a.pacer),
        duration: one("--duration", &a.duration),
        window: one("--window", &a.window),
        hop_capacity: list("--hop-capacity", &a.hop_capacity),
        stage_work_ns: one("--stage-work-ns", &a.stage_work_ns),
        delivery: list("--delivery", &a.delivery),
        reactor: list("--reactor", &a.reactor),
        reactor_work_ns: one("--reactor-work-ns", &a.reactor_work_ns),
        merge_hop: one("--merge-hop", &a.merge_hop),
        merge_rate: one("--merge-rate", &a.merge_rate),
        driver: list("--driver", &a.driver),
        placement: list("--placement", &a.placement),
        ..Params::default()
    }
}
