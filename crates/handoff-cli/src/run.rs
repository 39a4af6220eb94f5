//! `handoff run`: choose the trials, run them, render the report.

use crate::args::RunArgs;
use crate::exit;
use crate::progress::Progress;
use crate::CliError;
use handoff::catalog::Catalog;
use handoff::engine::check_support;
use handoff::executor::WorkerCommand;
use handoff::outcome::SampleStatus;
use handoff::output::{self, Format};
use handoff::payload::PayloadKind;
use handoff::probes::ProbeBudget;
use handoff::session::{self, Isolation, SessionOptions};
use handoff::suite::Suite;
use handoff::workload::{
    Delivery, Driver, Hop, Messages, PacerMode, Pacing, PipelineSpec, RampSpec, TrialSpec,
    WorkloadKind, DEFAULT_HOP_CAPACITIES,
};
use std::collections::BTreeMap;
use std::io::Write;

/// The default suite, built into the binary so `handoff run` works from any directory.
pub const DEFAULT_SUITE: &str = include_str!("../../../suites/default.toml");
/// How the built-in suite is named in errors and reports.
pub const DEFAULT_SUITE_NAME: &str = "suites/default.toml (built in)";

/// Default sample duration of an ad-hoc `auto` run, and its quick variant.
const AUTO_TARGET_MS: u64 = 40;
const AUTO_MIN: u64 = 10_000;
const AUTO_MAX: u64 = 50_000_000;

/// Runs `handoff run` and returns the exit code.
pub fn run(catalog: &Catalog, args: &RunArgs) -> Result<u8, CliError> {
    let format: Format = args.format.parse().map_err(CliError::bad_input)?;
    let adhoc = args.suite.is_none()
        && (!args.transport.is_empty() || !args.workload.is_empty() || !args.driver.is_empty());
    let mut suite = if adhoc {
        adhoc_suite(catalog, args)?
    } else {
        let mut s = match &args.suite {
            Some(path) => Suite::load(path, catalog),
            None => Suite::parse(DEFAULT_SUITE, DEFAULT_SUITE_NAME, catalog),
        }
        .map_err(|e| CliError::bad_input(e.to_string()))?;
        filter_and_override(catalog, &mut s, args)?;
        s
    };
    if args.quick {
        suite.quick();
    }
    preflight(catalog, &suite, adhoc)?;

    let isolation = if args.in_process {
        Isolation::InProcess
    } else {
        let exe = std::env::current_exe().map_err(|e| CliError {
            code: exit::RUN_ERROR,
            message: format!("cannot locate own executable: {e}"),
        })?;
        Isolation::Subprocess(WorkerCommand {
            program: exe,
            args: vec!["__worker".into()],
        })
    };
    let probes = (!args.no_probes && suite.probes).then_some(if args.quick {
        ProbeBudget::QUICK
    } else {
        ProbeBudget::DEFAULT
    });
    let opts = SessionOptions {
        isolation,
        probes,
        suite: suite.name.clone(),
    };
    let mut progress = Progress::new(args.quiet, suite.trials.iter().map(|t| t.samples).collect());
    let report = session::run(catalog, suite.trials, &opts, &mut |ev| progress.on(ev));
    progress.finish();

    let mut buf = Vec::new();
    output::render(&report, format, &mut buf).map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    match &args.out {
        Some(path) => std::fs::write(path, &buf).map_err(|e| CliError {
            code: exit::RUN_ERROR,
            message: format!("cannot write {}: {e}", path.display()),
        })?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&buf)
                .and_then(|_| out.flush())
                .map_err(|e| CliError {
                    code: exit::RUN_ERROR,
                    message: format!("writing output: {e}"),
                })?;
        }
    }
    Ok(if report.has_failures() {
        exit::VERDICT_FAILED
    } else {
        exit::OK
    })
}

fn parse_messages(s: &str, quick: bool) -> Result<Messages, CliError> {
    if s == "auto" {
        let target_ms = if quick {
            AUTO_TARGET_MS / 5
        } else {
            AUTO_TARGET_MS
        };
        return Ok(Messages::Auto {
            target_ms,
            min: AUTO_MIN,
            max: AUTO_MAX,
        });
    }
    match s.replace('_', "").parse::<u64>() {
        Ok(0) => Err(CliError::bad_input("--messages must be at least 1")),
        Ok(n) => Ok(Messages::Fixed(n)),
        Err(_) => Err(CliError::bad_input(format!(
            "--messages: expected a positive integer or `auto`, got `{s}`"
        ))),
    }
}

fn parse_options(raw: &[String]) -> Result<BTreeMap<String, String>, CliError> {
    raw.iter()
        .map(|o| {
            o.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .ok_or_else(|| CliError::bad_input(format!("--option `{o}`: expected KEY=VALUE")))
        })
        .collect()
}

fn parse_drivers(raw: &[String]) -> Result<Vec<Driver>, CliError> {
    raw.iter()
        .map(|d| {
            d.trim()
                .parse::<Driver>()
                .map_err(|e| CliError::bad_input(format!("--driver: {e}")))
        })
        .collect()
}

fn positive(name: &str, v: Option<usize>) -> Result<Option<usize>, CliError> {
    match v {
        Some(0) => Err(CliError::bad_input(format!("--{name} must be at least 1"))),
        other => Ok(other),
    }
}

/// The pacings of an ad-hoc `workload` from `--rate`.
fn adhoc_pacings(workload: WorkloadKind, rates: &[String]) -> Result<Vec<Pacing>, CliError> {
    if !workload.is_open_loop() {
        return Ok(vec![Pacing::Closed]);
    }
    if workload == WorkloadKind::Ramp {
        if rates.iter().any(|r| r != "ramp") {
            return Err(CliError::bad_input(
                "--workload ramp searches the rate itself; use --workload paced for a fixed --rate",
            ));
        }
        return Ok(vec![Pacing::Ramp(RampSpec::default())]);
    }
    if rates.is_empty() {
        return Ok(vec![Pacing::Rate(if workload == WorkloadKind::Pipeline {
            handoff::suite::DEFAULT_PIPELINE_RATE
        } else {
            handoff::suite::DEFAULT_PACED_RATE
        })]);
    }
    rates
        .iter()
        .map(|r| match r.as_str() {
            "ramp" => Ok(Pacing::Ramp(RampSpec::default())),
            n => match n.replace('_', "").parse::<u64>() {
                Ok(0) => Err(CliError::bad_input("--rate must be at least 1 per second")),
                Ok(v) => Ok(Pacing::Rate(v)),
                Err(_) => Err(CliError::bad_input(format!(
                    "--rate: expected messages per second or `ramp`, got `{n}`"
                ))),
            },
        })
        .collect()
}

/// A suite built from flags alone.
fn adhoc_suite(catalog: &Catalog, args: &RunArgs) -> Result<Suite, CliError> {
    let workloads: Vec<WorkloadKind> = if args.workload.is_empty() {
        vec![WorkloadKind::Spsc]
    } else {
        args.workload
            .iter()
            .map(|w| w.parse().map_err(CliError::bad_input))
            .collect::<Result<_, _>>()?
    };
    let transports: Vec<String> = if args.transport.is_empty() {
        catalog
            .entries()
            .iter()
            .filter(|e| !e.info().test_only)
            .map(|e| e.info().name.clone())
            .collect()
    } else {
        for t in &args.transport {
            catalog.lookup(t).map_err(CliError::bad_input)?;
        }
        args.transport.clone()
    };
    let payloads: Vec<PayloadKind> = if args.payload.is_empty() {
        vec![PayloadKind::U64]
    } else {
        args.payload
            .iter()
            .map(|p| p.parse().map_err(CliError::bad_input))
            .collect::<Result<_, _>>()?
    };
    let capacities = if args.capacity.is_empty() {
        vec![1024]
    } else {
        args.capacity.clone()
    };
    if args.producers.contains(&0) {
        return Err(CliError::bad_input("--producers must be at least 1"));
    }
    let samples = positive("samples", args.samples)?.unwrap_or(5);
    let consumers = positive("consumers", args.consumers)?;
    let batch = positive("batch", args.batch)?;
    let messages = parse_messages(args.messages.as_deref().unwrap_or("auto"), args.quick)?;
    let options = parse_options(&args.options)?;
    let drivers = match parse_drivers(&args.driver)? {
        d if d.is_empty() => vec![Driver::Threads],
        d => d,
    };
    let timeout_ms = match args.timeout_ms {
        Some(0) => return Err(CliError::bad_input("--timeout-ms must be at least 1")),
        Some(t) => t,
        None => 20_000,
    };
    let pacer: PacerMode = match &args.pacer {
        None => PacerMode::Auto,
        Some(p) => p.parse().map_err(CliError::bad_input)?,
    };
    let delivery: Delivery = match &args.delivery {
        None => Delivery::Sequential,
        Some(d) => d.parse().map_err(CliError::bad_input)?,
    };
    for h in &args.hops {
        catalog.lookup(h).map_err(CliError::bad_input)?;
    }
    if args.hop_capacity.contains(&0) {
        return Err(CliError::bad_input(
            "--hop-capacity values must be at least 1",
        ));
    }
    let open_loop_flags = !args.rate.is_empty() || args.pacer.is_some();
    let pipeline_flags = !args.hops.is_empty()
        || !args.hop_capacity.is_empty()
        || args.delivery.is_some()
        || args.stage_work_ns.is_some();
    if open_loop_flags && !workloads.iter().any(|w| w.is_open_loop()) {
        return Err(CliError::bad_input(
            "--rate and --pacer apply to the open-loop workloads: --workload paced, ramp or pipeline",
        ));
    }
    if pipeline_flags && !workloads.contains(&WorkloadKind::Pipeline) {
        return Err(CliError::bad_input(
            "--hops, --hop-capacity, --delivery and --stage-work-ns apply to --workload pipeline",
        ));
    }
    let mut trials = Vec::new();
    for &workload in &workloads {
        let pacings = adhoc_pacings(workload, &args.rate)?;
        let pipelines: Vec<Option<PipelineSpec>> = if workload == WorkloadKind::Pipeline {
            let caps = if args.hop_capacity.is_empty() {
                DEFAULT_HOP_CAPACITIES.to_vec()
            } else {
                args.hop_capacity.clone()
            };
            let chains: Vec<Vec<String>> = if args.hops.is_empty() {
                transports
                    .iter()
                    .map(|t| vec![t.clone(); caps.len()])
                    .collect()
            } else {
                if args.hops.len() != caps.len() {
                    return Err(CliError::bad_input(format!(
                        "{} hops but {} hop capacities: give --hop-capacity with one value per hop",
                        args.hops.len(),
                        caps.len()
                    )));
                }
                vec![args.hops.clone()]
            };
            chains
                .into_iter()
                .map(|c| {
                    Some(PipelineSpec {
                        hops: c
                            .into_iter()
                            .zip(&caps)
                            .map(|(transport, &capacity)| Hop {
                                transport,
                                capacity,
                            })
                            .collect(),
                        stage_work_ns: args.stage_work_ns.unwrap_or(0),
                        delivery,
                    })
                })
                .collect()
        } else {
            vec![None]
        };
        let transports: Vec<String> = if workload == WorkloadKind::Pipeline {
            vec![String::new()]
        } else {
            transports.clone()
        };
        let producers = if args.producers.is_empty() {
            workload.default_producers()
        } else {
            args.producers.clone()
        };
        let producers = match workload {
            WorkloadKind::Spsc | WorkloadKind::PingPong
                if !args.producers.is_empty() && args.producers != [1] =>
            {
                return Err(CliError::bad_input(format!(
                    "{workload} takes exactly one producer; use --workload mpsc for more"
                )));
            }
            WorkloadKind::Spsc | WorkloadKind::PingPong => vec![1],
            _ => producers,
        };
        for t in &transports {
            for &payload in &payloads {
                for &capacity in &capacities {
                    for &p in &producers {
                        for &driver in &drivers {
                            for (pacing, pipe) in pacings
                                .iter()
                                .flat_map(|x| pipelines.iter().map(move |y| (x, y)))
                            {
                                let (transport, capacity) = match pipe {
                                    Some(pp) => (pp.hops[0].transport.clone(), pp.hops[0].capacity),
                                    None => (t.clone(), capacity),
                                };
                                trials.push(TrialSpec {
                                    transport,
                                    workload,
                                    driver,
                                    payload,
                                    capacity,
                                    producers: p,
                                    consumers: match workload {
                                        WorkloadKind::Mpmc => {
                                            consumers.unwrap_or(workload.default_consumers())
                                        }
                                        // Several sinks: a fan-out from a broadcast last hop.
                                        w if w.is_open_loop() => consumers.unwrap_or(1),
                                        _ => 1,
                                    },
                                    messages,
                                    batch,
                                    options: options.clone(),
                                    samples,
                                    warmup: args.warmup.unwrap_or(1),
                                    timeout_ms,
                                    pin: !args.no_pin,
                                    pacing: pacing.clone(),
                                    pacer,
                                    pipeline: pipe.clone(),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(Suite {
        name: "ad-hoc".into(),
        description: None,
        probes: true,
        trials,
    })
}

/// Applies --transport / --workload filters and scalar overrides to a suite's trials.
fn filter_and_override(catalog: &Catalog, s: &mut Suite, args: &RunArgs) -> Result<(), CliError> {
    let sweep_flags = [
        ("--capacity", !args.capacity.is_empty()),
        ("--payload", !args.payload.is_empty()),
        ("--producers", !args.producers.is_empty()),
        ("--consumers", args.consumers.is_some()),
        ("--batch", args.batch.is_some()),
        ("--option", !args.options.is_empty()),
    ];
    if let Some((flag, _)) = sweep_flags.iter().find(|(_, set)| *set) {
        return Err(CliError::bad_input(format!(
            "{flag} selects an ad-hoc run; with a suite file, put it in the file (or use --transport/--workload without a file)"
        )));
    }
    for t in &args.transport {
        catalog.lookup(t).map_err(CliError::bad_input)?;
    }
    let workloads: Vec<WorkloadKind> = args
        .workload
        .iter()
        .map(|w| w.parse().map_err(CliError::bad_input))
        .collect::<Result<_, _>>()?;
    let drivers = parse_drivers(&args.driver)?;
    s.trials.retain(|t| {
        (args.transport.is_empty() || args.transport.contains(&t.transport))
            && (workloads.is_empty() || workloads.contains(&t.workload))
            && (drivers.is_empty() || drivers.contains(&t.driver))
    });
    if s.trials.is_empty() {
        return Err(CliError::bad_input(
            "the filters leave no trial of the suite to run",
        ));
    }
    let messages = args
        .messages
        .as_deref()
        .map(|m| parse_messages(m, false))
        .transpose()?;
    let samples = positive("samples", args.samples)?;
    if args.timeout_ms == Some(0) {
        return Err(CliError::bad_input("--timeout-ms must be at least 1"));
    }
    for t in &mut s.trials {
        if let Some(m) = messages {
            t.messages = m;
        }
        if let Some(n) = samples {
            t.samples = n;
        }
        if let Some(w) = args.warmup {
            t.warmup = w;
        }
        if let Some(ms) = args.timeout_ms {
            t.timeout_ms = ms;
        }
        if args.no_pin {
            t.pin = false;
        }
    }
    Ok(())
}

/// Checks every trial against its transport's declared semantics before anything runs.
/// Invalid parameters are always an input error; an unsupported combination is an input error
/// when the user named the transport on the command line, and an `unsupported` row in a suite.
fn preflight(catalog: &Catalog, suite: &Suite, adhoc: bool) -> Result<(), CliError> {
    let mut problems = Vec::new();
    for t in &suite.trials {
        let entry = catalog.lookup(&t.transport).map_err(CliError::bad_input)?;
        let checked = if t.workload.is_open_loop() {
            handoff::engine::pipeline::check(catalog, t)
        } else {
            check_support(entry.info(), t)
        };
        if let Err(o) = checked {
            match o.status {
                SampleStatus::Invalid(why) => problems.push(format!("{}: {why}", t.label())),
                SampleStatus::Unsupported(why) if adhoc => {
                    problems.push(format!("{}: {why}", t.label()))
                }
                _ => {}
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(CliError::bad_input(format!(
            "impossible parameters:\n  {}",
            problems.join("\n  ")
        )))
    }
}
