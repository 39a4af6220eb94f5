//! `handoff run`: choose the trials, run them, render the report, record it in the history
//! store. What it says on standard error names transports, gates and stores others named, so
//! it is escaped for the terminal ([`escaped`]).

use crate::args::{LayoutArg, RunArgs};
use crate::destination::Destination;
use crate::exit;
use crate::journal::Journal;
use crate::progress::Progress;
use crate::record::{Recorder, Settings};
use crate::CliError;
use handoff::bench::{self, Baselines};
use handoff::catalog::Catalog;
use handoff::compare::Judgement;
use handoff::executor::WorkerCommand;
use handoff::layout::LayoutMode;
use handoff::model::foreign::{self, escaped, escaped_lines, NAME_CHARS, NOTE_CHARS};
use handoff::model::gate::Gate;
use handoff::output::compare::{self as compare_view, CompareFormat};
use handoff::output::{self, Format, LiveTables};
use handoff::preflight::{self, Strictness};
use handoff::probes::ProbeBudget;
use handoff::report::RunReport;
use handoff::session::{Against, Event, Isolation, SessionOptions};
use std::io::IsTerminal;

/// Runs `handoff run` and returns the exit code; `source` loads the baselines of regression
/// gates.
pub fn run(
    catalog: &Catalog,
    args: &RunArgs,
    source: &dyn crate::source::ReportSource,
) -> Result<u8, CliError> {
    let format = OutputFormat::of(&args.format, args.against.is_some())?;
    check_note(args.note.as_deref())?;
    let machine = machine_label(
        args.machine.as_deref(),
        std::env::var("HANDOFF_MACHINE").ok().as_deref(),
    )?;
    let plugins = crate::plugins::wanted(&args.plugins.plugin, args.suite.as_deref());
    let catalog = &crate::plugins::attach(catalog, &plugins)?;
    let (mut suite, adhoc) = crate::flags::plan(catalog, args)?;
    if args.quick {
        suite.quick();
    }
    let orders = usize::from(args.link_orders.unwrap_or(0));
    if let (Some(n), true) = (args.samples, orders > 0) {
        if n.size() < 2 * orders {
            return Err(CliError::bad_input(format!(
                "--link-orders {orders} needs at least {} timed samples (two pairs per order); --samples {} gives fewer",
                2 * orders,
                n.size()
            )));
        }
    }
    // Only a transport the user named alone must run everything asked of it; in a selection,
    // what one transport cannot run is skipped and said so, once per transport and cause.
    let named: std::collections::BTreeSet<&str> =
        suite.trials.iter().map(|t| t.transport.as_str()).collect();
    let strictness = if adhoc && !args.transport.is_empty() && named.len() == 1 {
        Strictness::Named
    } else {
        Strictness::Suite
    };
    for skip in preflight::check(catalog, &suite, strictness)? {
        eprintln!("handoff: {}", escaped(&skip.to_string()));
    }
    // Before anything runs: an output that cannot be written stops the run here.
    let destination = Destination::check(args.out.as_deref(), "--out")?;

    let mut worker = vec!["__worker".to_string()];
    worker.extend(crate::plugins::worker_args(&plugins));
    let isolation = if args.in_process {
        Isolation::InProcess
    } else {
        Isolation::Subprocess(WorkerCommand {
            program: crate::plugins::own_executable()?,
            args: worker.clone(),
        })
    };
    // The other build of a paired run, found or built before anything runs; it serves workers
    // with the same arguments (plugins) as this one.
    let against = match &args.against {
        Some(other) => {
            let b = crate::against::resolve(other, orders, args.quiet)?;
            let mut names: Vec<&str> = suite.trials.iter().map(|t| t.transport.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            let code = crate::against::code_of(&b.program, &names, args.quiet);
            let orders = match orders {
                0 => None,
                n => {
                    let built =
                        crate::link_orders::link_orders(catalog, &b, n, &names, args.quiet)?;
                    let serve = |programs: Vec<std::path::PathBuf>| {
                        programs
                            .into_iter()
                            .map(|program| WorkerCommand {
                                program,
                                args: worker.clone(),
                            })
                            .collect()
                    };
                    Some(handoff::session::OrderedBuilds {
                        this: serve(built.this),
                        other: serve(built.other),
                    })
                }
            };
            Some(Against {
                label: b.label,
                commit: b.commit,
                code,
                worker: WorkerCommand {
                    program: b.program,
                    args: worker,
                },
                orders,
            })
        }
        None => None,
    };
    // Both sides' workers start from paths of one length (see `sides`); the directory lives
    // until the run ends.
    let (isolation, against, _equal_paths) = match (isolation, against) {
        (Isolation::Subprocess(mine), Some(mut other)) => {
            let mut equal = crate::sides::EqualPaths::new(&mine.program)?;
            let mine = WorkerCommand {
                program: equal.place(&mine.program)?,
                args: mine.args,
            };
            other.worker.program = equal.place(&other.worker.program)?;
            if let Some(orders) = &mut other.orders {
                for cmd in orders.this.iter_mut().chain(orders.other.iter_mut()) {
                    cmd.program = equal.place(&cmd.program)?;
                }
            }
            (Isolation::Subprocess(mine), Some(other), Some(equal))
        }
        (isolation, against) => (isolation, against, None),
    };
    // Said once the other build is found: a reference that names nothing is the one error.
    if args.against.is_some() && args.samples.is_none() {
        enough_pairs(&mut suite.trials, PAIRED_SAMPLES.max(3 * orders));
    }
    let probes = (!args.no_probes && suite.probes).then_some(if args.quick {
        ProbeBudget::QUICK
    } else {
        ProbeBudget::DEFAULT
    });
    let layout = match (args.layout, args.layout_seed) {
        (_, Some(seed)) => LayoutMode::Random { seed },
        (LayoutArg::Random, None) => LayoutMode::random_from_clock(),
        (LayoutArg::Fixed, None) => LayoutMode::Fixed,
    };
    let opts = SessionOptions {
        isolation,
        probes,
        suite: suite.name.clone(),
        layout,
        consensus: suite.consensus,
        against,
    };
    if let Some(why) = gates_off(
        args.no_gates,
        std::env::var("HANDOFF_GATES").ok().as_deref(),
    )? {
        if !suite.gates.is_empty() {
            let which: Vec<String> = suite.gates.iter().map(Gate::describe).collect();
            eprintln!(
                "handoff: gates off ({why}): {} of the suite not judged: {}",
                handoff::model::fmt::plural(which.len(), "gate"),
                escaped(&which.join("; "))
            );
        }
        suite.gates.clear();
    }
    if let (Some(build), Some(max)) = (&args.against, args.max_regression) {
        suite.gates.push(Gate::Against {
            build: build.clone(),
            max: max.0,
            allow_unjudged: args.allow_unjudged,
        });
    }
    if let Some(baseline) = &args.baseline {
        suite.gates.push(Gate::Regression {
            baseline: baseline.clone(),
            max: args
                .max_regression
                .map_or(handoff::compare::DEFAULT_THRESHOLD, |p| p.0),
            allow_unjudged: args.allow_unjudged,
        });
    }
    let baselines = load_baselines(&suite.gates, args.baseline.as_deref(), source)?;
    // Before anything runs: a journal that cannot be created, or a store that cannot be opened,
    // stops the run here.
    let mut environment = handoff::environment::detect();
    environment.machine = Some(machine.clone());
    let mut journal = Journal::create(
        destination.regular_file(),
        &RunReport::begun(&suite.name, environment.clone()),
    )?;
    let recorder = Recorder::begin(
        args,
        &suite.name,
        environment,
        &Settings {
            trials: &suite.trials,
            quick: args.quick,
            probes: probes.is_some(),
            layout,
            consensus: suite.consensus,
            in_process: args.in_process,
        },
    );
    let recorder = match recorder {
        Ok(r) => r,
        Err(e) => {
            journal.discard();
            return Err(e);
        }
    };
    let mut progress = Progress::new(args.quiet);
    let mut live = live_tables(args, format, &destination)?.then(|| LiveTables::new(&suite.trials));
    let mut report = bench::run(catalog, suite, &opts, strictness, &baselines, &mut |ev| {
        let mut done = None;
        match &ev {
            Event::ProbesDone(limits) => journal.limits(limits),
            Event::Reprobed(limits) => journal.reprobe(limits),
            Event::TrialDone { trial, result } => {
                journal.result(result);
                done = Some((*trial, *result));
            }
            _ => {}
        }
        progress.on(ev);
        if let (Some(tables), Some((trial, result))) = (live.as_mut(), done) {
            let shown = progress.suspend(|| tables.result(trial, result, &mut std::io::stdout()));
            // Standard output gone: the report at the end says so, with the journal kept.
            if shown.is_err() {
                live = None;
            }
        }
    })?;
    progress.finish();
    report.environment.machine = Some(machine);

    // The report is written first, then recorded: a store that fails at the end never costs
    // the run its output. If either fails, the journal keeps every result.
    let judgement = Judgement {
        max_regression: args.max_regression.map(|p| p.0),
        ..Judgement::default()
    };
    let written = match &live {
        Some(tables) => write_end(tables, &report, &destination),
        None => write(&report, format, judgement, &destination),
    };
    let recorded = recorder.map(|r| r.finish(&report));
    let kept = match (&written, &recorded) {
        (Ok(()), None | Some(Ok(_))) => {
            journal.discard();
            None
        }
        _ => Some(journal.keep()),
    };
    let with_kept = |e: CliError| match &kept {
        Some(k) => CliError {
            message: format!("{}; {k}", e.message),
            ..e
        },
        None => e,
    };
    match (recorded, written) {
        (Some(Ok(said)), Ok(())) if !args.quiet => eprintln!("{}", escaped(&said)),
        (Some(Ok(said)), Err(w)) => {
            return Err(with_kept(CliError {
                message: format!("{}; the run is {said}", w.message),
                ..w
            }))
        }
        (Some(Err(e)), Ok(())) => {
            return Err(with_kept(CliError {
                message: format!("the run's report was written, but {}", e.message),
                ..e
            }))
        }
        (Some(Err(e)), Err(w)) => {
            eprintln!("error: {}", escaped_lines(&w.message));
            return Err(with_kept(CliError {
                message: format!("and {}", e.message),
                ..e
            }));
        }
        (_, written) => written.map_err(with_kept)?,
    }
    let (code, cause) = exit::of_run(&report, strictness == Strictness::Named);
    if let Some(cause) = cause {
        eprintln!("handoff: {}", escaped(&cause));
    }
    Ok(code)
}

/// Refuses a note longer than [`NOTE_CHARS`] characters (exit 2), before anything runs: the
/// store keeps it and `handoff history` shows it on one line.
pub fn check_note(note: Option<&str>) -> Result<(), CliError> {
    match note.and_then(|n| foreign::too_long(n, NOTE_CHARS)) {
        Some(why) => Err(CliError::bad_input(format!(
            "--note: {why} (a note is a line on what the run is for; it is kept with the run and shown by `handoff history`)"
        ))),
        None => Ok(()),
    }
}

/// Why the suite's gates are off, if they are: `--no-gates`, or `HANDOFF_GATES=0` (`env`; `1`
/// or empty leaves them on, anything else is refused with exit 2).
pub fn gates_off(flag: bool, env: Option<&str>) -> Result<Option<&'static str>, CliError> {
    if flag {
        return Ok(Some("--no-gates"));
    }
    match env.map(str::trim) {
        None | Some("" | "1") => Ok(None),
        Some("0") => Ok(Some("HANDOFF_GATES=0")),
        Some(other) => Err(CliError::bad_input(format!(
            "HANDOFF_GATES: expected 0 (gates off) or 1, not `{}`",
            escaped(other)
        ))),
    }
}

/// The machine's label: `--machine`, else `HANDOFF_MACHINE` (`env`), else the host name; a
/// label that is empty, longer than [`NAME_CHARS`] characters or holds a control character is
/// refused (exit 2).
pub fn machine_label(flag: Option<&str>, env: Option<&str>) -> Result<String, CliError> {
    let (label, from) = match (flag, env.filter(|e| !e.is_empty())) {
        (Some(f), _) => (f, "--machine"),
        (None, Some(e)) => (e, "HANDOFF_MACHINE"),
        (None, None) => return Ok(handoff::environment::host_name()),
    };
    let why = if label.trim().is_empty() {
        Some("empty".to_string())
    } else if label.chars().any(char::is_control) {
        Some("holds a control character".to_string())
    } else {
        foreign::too_long(label, NAME_CHARS)
    };
    match why {
        Some(why) => Err(CliError::bad_input(format!(
            "{from}: {why} (a machine's label is a short name, such as `ci-xeon-2`)"
        ))),
        None => Ok(label.to_string()),
    }
}

/// Loads the baseline of every regression gate before anything runs, so that the run is
/// judged against the baseline as it was when the run started. A `--baseline` that cannot be
/// loaded (an unknown run id or name, a malformed report) stops the run here, with the
/// reason and its exit code: nothing is run only to be judged against nothing. A suite gate's
/// baseline that cannot be loaded is kept as the reason the gate fails when the run ends, as
/// every gate that cannot be evaluated does.
fn load_baselines(
    gates: &[Gate],
    flag: Option<&str>,
    source: &dyn crate::source::ReportSource,
) -> Result<Baselines, CliError> {
    let mut loaded = Baselines::none();
    if let Some(reference) = flag {
        let report = source.load(reference).map_err(|e| CliError {
            message: format!("--baseline: {}", e.message),
            ..e
        })?;
        loaded.insert(reference, Ok(report));
    }
    for g in gates {
        if let Gate::Regression { baseline, .. } = g {
            if !loaded.contains(baseline) {
                let report = source
                    .load(baseline)
                    .map_err(|e| handoff::gates::Unavailable::because(e.message));
                loaded.insert(baseline, report);
            }
        }
    }
    Ok(loaded)
}

/// What a run writes: its report, or for a paired run (`--against`) the paired comparison.
#[derive(Clone, Copy, Debug)]
enum OutputFormat {
    Report(Format),
    Paired(CompareFormat),
}

impl OutputFormat {
    /// `--format` for a run, paired or not; a format the output does not have is bad input.
    fn of(name: &str, paired: bool) -> Result<OutputFormat, CliError> {
        if !paired {
            return Ok(OutputFormat::Report(name.parse()?));
        }
        name.parse().map(OutputFormat::Paired).map_err(|e| {
            CliError::bad_input(format!(
                "{e} (a run with --against writes the paired comparison, in the formats of `handoff compare`)"
            ))
        })
    }
}

/// The fewest timed samples a trial of a paired run takes unless `--samples` says otherwise:
/// enough pairs for a change in one figure among a few to reach significance (six pairs is the
/// least that can reach 5% at all; see `handoff::compare::paired`).
pub const PAIRED_SAMPLES: usize = 12;

/// Raises every trial to `least` timed samples (a paired run without `--samples`:
/// [`PAIRED_SAMPLES`], or three pairs per link order), and says so when it did.
fn enough_pairs(trials: &mut [handoff::workload::TrialSpec], least: usize) {
    let mut raised = 0;
    for t in trials.iter_mut().filter(|t| t.samples < least) {
        t.samples = least;
        raised += 1;
    }
    if raised > 0 {
        eprintln!(
            "handoff: --against: {} of {} raised to {least} timed samples, so the pairs can show a change (--samples sets it)",
            handoff::model::fmt::plural(raised, "trial"),
            trials.len()
        );
    }
}

/// Whether the tables are written as they come ([`LiveTables`]): `--live`, or on a terminal
/// unless `--no-live`; only the table format of an unpaired run, on standard output.
fn live_tables(
    args: &RunArgs,
    format: OutputFormat,
    destination: &Destination,
) -> Result<bool, CliError> {
    let table = matches!(format, OutputFormat::Report(Format::Table));
    let stdout = matches!(destination, Destination::Stdout);
    if args.live && !table {
        return Err(CliError::bad_input(format!(
            "--live writes the table format as it comes; --format {} is written whole at the end",
            args.format
        )));
    }
    if args.live {
        return Ok(true);
    }
    Ok(!args.no_live && table && stdout && std::io::stdout().is_terminal())
}

/// The end of a run whose tables were written as they came: the tables not written yet, then
/// the header, consensus and gates (see [`LiveTables::finish`]).
fn write_end(
    tables: &LiveTables,
    report: &RunReport,
    destination: &Destination,
) -> Result<(), CliError> {
    let mut buf = Vec::new();
    tables.finish(report, &mut buf).map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    destination.write(&buf)
}

/// Renders `report` to its destination: the report itself, or its paired comparison.
fn write(
    report: &RunReport,
    format: OutputFormat,
    judgement: Judgement,
    destination: &Destination,
) -> Result<(), CliError> {
    let mut buf = Vec::new();
    let rendered = match format {
        OutputFormat::Report(f) => output::render(report, f, &mut buf),
        OutputFormat::Paired(f) => match handoff::compare::paired(report, judgement) {
            Some(c) => compare_view::render(&c, report, f, &mut buf),
            None => output::render(report, Format::Table, &mut buf),
        },
    };
    rendered.map_err(|e| CliError {
        code: exit::RUN_ERROR,
        message: format!("rendering: {e}"),
    })?;
    destination.write(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_longer_than_its_limit_is_bad_input() {
        assert!(check_note(None).is_ok());
        assert_eq!(gates_off(false, None).unwrap(), None);
        assert_eq!(gates_off(false, Some("1")).unwrap(), None);
        assert_eq!(gates_off(true, Some("1")).unwrap(), Some("--no-gates"));
        assert_eq!(
            gates_off(false, Some("0")).unwrap(),
            Some("HANDOFF_GATES=0")
        );
        let e = gates_off(false, Some("off")).unwrap_err();
        assert!(e.message.contains("not `off`"), "{}", e.message);
        assert_eq!(machine_label(Some("ci-1"), Some("env")).unwrap(), "ci-1");
        assert_eq!(machine_label(None, Some("env-2")).unwrap(), "env-2");
        assert_eq!(
            machine_label(None, Some("")).unwrap(),
            handoff::environment::host_name()
        );
        for bad in ["", " ", "a\u{1b}[2J", &"m".repeat(NAME_CHARS + 1)] {
            let e = machine_label(Some(bad), None).unwrap_err();
            assert_eq!(e.code, crate::exit::BAD_INPUT);
            assert!(e.message.starts_with("--machine: "), "{}", e.message);
        }
        let e = machine_label(None, Some("x\ny")).unwrap_err();
        assert!(e.message.starts_with("HANDOFF_MACHINE: "), "{}", e.message);
        assert!(check_note(Some(&"ü".repeat(NOTE_CHARS))).is_ok());
        let e = check_note(Some(&"n".repeat(NOTE_CHARS + 1))).unwrap_err();
        assert_eq!(e.code, exit::BAD_INPUT);
        assert!(
            e.message
                .starts_with("--note: 1001 characters; at most 1000 are accepted"),
            "{}",
            e.message
        );
    }
}
