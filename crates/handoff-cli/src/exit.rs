//! Exit codes, and the one table that documents them: [`CODES`] is printed by `handoff --help`
//! and is, row for row, the README's "Exit codes" table (a test holds the two together).

/// Every trial passed (or was reported `unsupported`).
pub const OK: u8 = 0;
/// At least one trial failed verification, hung or crashed, or (under consensus) a transport
/// delivered another stream than the others of its stream.
pub const VERDICT_FAILED: u8 = 1;
/// Bad input: unknown names, malformed suite file, impossible parameters, bad flags, a value
/// outside its range or more trials than `--max-trials` allows, an unknown run id or baseline,
/// a malformed store location, an output that cannot be written (refused before anything runs).
pub const BAD_INPUT: u8 = 2;
/// The run itself could not be completed (e.g. the output could not be written at the end, the
/// history store could not be opened or written); the report is still written and every result
/// is kept in the run's journal.
pub const RUN_ERROR: u8 = 3;
/// A gate failed: a result significantly slower than the allowed maximum
/// (`--max-regression`), a suite's gate, or a gate that could not judge what it was asked to.
pub const REGRESSION: u8 = 4;
/// Interrupted (Ctrl-C, `SIGTERM`), as a shell reports an interrupted command.
pub const INTERRUPTED: u8 = 130;

/// Every exit code and what it means, in Markdown (the README's table is these rows).
pub const CODES: &[(u8, &str)] = &[
    (
        OK,
        "every trial passed (a combination a transport cannot run is skipped, said once per \
         transport and cause on standard error, and reported `unsupported`)",
    ),
    (
        VERDICT_FAILED,
        "at least one trial failed verification, hung or crashed (the rest of the run still \
         completes and is reported), or, under `--consensus`, a transport delivered another \
         stream than the others of its stream; takes precedence over 4",
    ),
    (
        BAD_INPUT,
        "bad input: unknown transport/workload/payload name (the closest names are suggested), \
         malformed suite file (file, line, what was expected), impossible parameters, nothing \
         left to run (every trial unsupported, or the one transport named cannot run what was \
         asked, whether refused before the run or when its channel could not be built, as for \
         a broker that does not answer), a value outside its range or a plan of more trials than `--max-trials` allows \
         (see [Bounds](docs/suites.md#bounds)), an unknown run id or baseline, a malformed \
         store location, an output that cannot be written (missing directory, read-only file, \
         closed standard output: refused before anything runs), a run that cannot answer what \
         `recommend` asks (it says what to run)",
    ),
    (
        RUN_ERROR,
        "the run could not be completed (e.g. the output could not be written at the end, the \
         history store could not be opened or written: the report is still written, and every \
         result is kept in the run's journal, named on standard error)",
    ),
    (
        REGRESSION,
        "a gate failed: a result significantly slower than `--max-regression` allows \
         (`compare`, `run --baseline`, `run --against`), a suite's gate, or a gate that could not judge what it \
         was asked to (no matched result, too few samples; `--allow-unjudged` lets that pass) \
         (see [Comparing runs](docs/compare.md#gates))",
    ),
    (
        INTERRUPTED,
        "interrupted (Ctrl-C, `SIGTERM`): every worker was stopped; the results finished so far \
         are in the run's journal, named on standard error",
    ),
];

/// The table as Markdown rows, header included (the README's "Exit codes" table).
pub fn markdown() -> String {
    let mut t = String::from("| code | meaning |\n|------|---------|\n");
    for (code, meaning) in CODES {
        t.push_str(&format!("| {code} | {meaning} |\n"));
    }
    t
}

/// The table as plain text for `handoff --help`: links and code marks dropped, each meaning
/// wrapped under its code.
pub fn plain() -> String {
    let mut t =
        String::from("Exit codes (every non-zero exit names its cause on standard error):\n");
    for (code, meaning) in CODES {
        let text = strip_markdown(meaning);
        let mut line = format!("  {code:<3} ");
        for word in text.split_whitespace() {
            if line.len() + 1 + word.len() > 92 {
                t.push_str(line.trim_end());
                t.push('\n');
                line = " ".repeat(6);
            } else if !line.ends_with(' ') {
                line.push(' ');
            }
            line.push_str(word);
        }
        t.push_str(&line);
        t.push('\n');
    }
    t
}

/// `[text](target)` → `text (target)`, and no backticks.
fn strip_markdown(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e) else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&rest[open + 1..close]);
        out.push_str(&format!(" ({})", &rest[close + 2..end]));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out.replace('`', "")
}

use handoff::model::fmt::plural;
use handoff::report::RunReport;

/// The exit code a finished run ends with and, unless it is [`OK`], its cause in one line for
/// standard error (`exit 1: 1 trial failed: kanal-bounded spsc (hung)`): the tables and the
/// gates' outcomes say the same at length, but they may have gone to a file. `named_alone`: the
/// run's one transport was named on the command line, so each of its trials must run.
///
/// A trial refused only when it ran (a broker transport whose server does not answer, a
/// plugin's channel that cannot be built) counts as the preflight's refusals do: when nothing
/// ran at all, or the one transport named could not run something asked of it, the run had
/// nothing to measure and ends [`BAD_INPUT`], naming why.
pub fn of_run(report: &RunReport, named_alone: bool) -> (u8, Option<String>) {
    let refused: Vec<String> = report
        .results
        .iter()
        .filter(|r| !r.verdict.ran())
        .map(|r| {
            let why = r.violation.as_deref().unwrap_or("refused");
            format!(
                "{} {} ({}: {why})",
                r.transport,
                r.workload.name(),
                r.verdict
            )
        })
        .collect();
    let nothing_ran = !report.results.is_empty() && refused.len() == report.results.len();
    if !refused.is_empty() && (nothing_ran || named_alone) {
        let what = if nothing_ran {
            "nothing ran"
        } else {
            "the transport named cannot run what was asked"
        };
        return (
            BAD_INPUT,
            Some(format!("exit {BAD_INPUT}: {what}: {}", listed(&refused))),
        );
    }
    if report.has_failures() {
        let mut causes = Vec::new();
        let failed: Vec<String> = report
            .results
            .iter()
            .filter(|r| r.verdict.is_failure())
            .map(|r| format!("{} {} ({})", r.transport, r.workload.name(), r.verdict))
            .collect();
        if !failed.is_empty() {
            causes.push(format!(
                "{} failed: {}",
                plural(failed.len(), "trial"),
                listed(&failed)
            ));
        }
        if let Some(c) = report.consensus.as_ref().filter(|c| c.failed()) {
            let groups: Vec<_> = c.groups.iter().filter(|g| !g.agreed()).collect();
            let who: Vec<String> = groups
                .iter()
                .flat_map(|g| g.dissenters().map(|m| m.label.clone()))
                .collect();
            let said = if groups.iter().all(|g| g.digest.is_some()) {
                "delivered another stream than the others"
            } else {
                "disagree, with no majority"
            };
            causes.push(format!(
                "consensus failed for {} ({} {said})",
                plural(groups.len(), "stream"),
                listed(&who)
            ));
        }
        return (
            VERDICT_FAILED,
            Some(format!("exit {VERDICT_FAILED}: {}", causes.join("; "))),
        );
    }
    if report.gates_failed() {
        let failed: Vec<String> = report
            .gates
            .iter()
            .filter(|g| g.status == handoff::gates::GateStatus::Failed)
            .map(|g| g.description.clone())
            .collect();
        return (
            REGRESSION,
            Some(format!(
                "exit {REGRESSION}: {} failed: {}",
                plural(failed.len(), "gate"),
                listed(&failed)
            )),
        );
    }
    (OK, None)
}

/// The first three, and how many more: one line stays one line.
fn listed(items: &[String]) -> String {
    handoff::model::fmt::first_few(items, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's "Exit codes" table is [`CODES`], row for row. `HANDOFF_BLESS=1` writes it.
    #[test]
    fn the_readme_table_is_the_one_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let heading = "### Exit codes\n";
        let at = readme
            .find(heading)
            .expect("README has an Exit codes section")
            + heading.len();
        let start = at
            + readme[at..]
                .find("| code |")
                .expect("a table under the heading");
        let end = start
            + readme[start..]
                .find("\n\n")
                .map_or(readme.len() - start, |e| e + 1);
        let want = markdown();
        if std::env::var_os("HANDOFF_BLESS").is_some() {
            let fixed = format!("{}{want}{}", &readme[..start], &readme[end..]);
            std::fs::write(&path, fixed).unwrap();
            return;
        }
        assert_eq!(
            &readme[start..end],
            want,
            "README's exit codes differ from exit::CODES (HANDOFF_BLESS=1 rewrites them)"
        );
    }

    #[test]
    fn help_text_keeps_each_code_and_drops_markup() {
        let t = plain();
        for (code, _) in CODES {
            assert!(t.contains(&format!("\n  {code:<3} ")), "{code}: {t}");
        }
        assert!(!t.contains('`') && !t.contains("]("), "{t}");
        assert!(t.lines().all(|l| l.chars().count() <= 92), "{t}");
    }

    #[test]
    fn a_run_where_nothing_ran_or_the_one_transport_named_could_not_is_bad_input() {
        use handoff::report::Verdict;
        use handoff_model::fixture::{environment, stream};
        let refused = |transport: &str| {
            let mut r = stream();
            r.transport = transport.into();
            r.verdict = Verdict::Unsupported;
            r.violation = Some("kafka: the broker at 127.0.0.1:19092 does not answer".into());
            r
        };
        let report = |results| RunReport {
            results,
            ..RunReport::begun("adhoc", environment())
        };
        let (code, cause) = of_run(&report(vec![refused("kafka")]), false);
        assert_eq!(code, BAD_INPUT);
        let cause = cause.unwrap();
        assert!(
            cause.starts_with("exit 2: nothing ran: kafka spsc (unsupported: kafka: the broker"),
            "{cause}"
        );
        // In a selection, what one transport cannot run is skipped.
        let mixed = report(vec![refused("kafka"), stream()]);
        assert_eq!(of_run(&mixed, false), (OK, None));
        // Named alone, it must run everything asked of it.
        let (code, cause) = of_run(
            &report(vec![refused("kafka"), {
                let mut r = stream();
                r.transport = "kafka".into();
                r
            }]),
            true,
        );
        assert_eq!(code, BAD_INPUT);
        assert!(cause
            .unwrap()
            .contains("the transport named cannot run what was asked"),);
        assert_eq!(of_run(&report(vec![stream()]), true), (OK, None));
    }
}
