//! `handoff history`: the runs a store holds, newest first, one line each — id, start date,
//! commit (`-dirty` for a build with uncommitted changes), suite, machine, verdicts, note. A
//! run that never finished (still running, or stopped part way) shows `incomplete` where its
//! verdicts would be.
//!
//! Every cell is escaped visibly ([`escaped`]) before the columns are measured: a note, a suite
//! name or a host name is whatever was written into the store, by anyone who could write to it.

use crate::args::HistoryArgs;
use crate::exit;
use crate::CliError;
use handoff::model::foreign::escaped;
use handoff_store::RunSummary;
use std::io::Write;

/// Runs `handoff history` and returns the exit code.
pub fn history(args: &HistoryArgs) -> Result<u8, CliError> {
    let html = match args.format.as_str() {
        "table" => false,
        "html" => true,
        other => {
            return Err(CliError::bad_input(handoff::suggest::unknown(
                "history format",
                other,
                ["table", "html"],
            )))
        }
    };
    let destination = crate::destination::Destination::check(args.out.as_deref(), "--out")?;
    let store = crate::store::open(&args.store)?;
    // One more than shown, to say whether older runs exist.
    let limit = (args.limit > 0).then(|| args.limit.saturating_add(1));
    let mut runs = store.runs(limit).map_err(crate::store::error)?;
    let more = args.limit > 0 && runs.len() as u64 > args.limit;
    runs.truncate(if args.limit > 0 {
        args.limit as usize
    } else {
        runs.len()
    });
    if html {
        // Oldest first, finished runs only, each with its report.
        let mut trend = Vec::new();
        for r in runs.iter().rev().filter(|r| r.is_complete()) {
            let report = store.load_run(r.id).map_err(crate::store::error)?;
            let mut label = r.git_commit.chars().take(7).collect::<String>();
            if let Some(n) = &r.note {
                label.push_str(&format!(" · {n}"));
            }
            trend.push(handoff::output::trend::TrendRun {
                id: r.id.to_string(),
                label,
                report,
            });
        }
        let mut page = Vec::new();
        handoff::output::trend::page(&trend, &mut page).expect("writing to memory");
        return destination.write(&page).map(|_| exit::OK);
    }
    let mut text = if runs.is_empty() {
        format!(
            "no runs recorded in {} yet\n",
            escaped(&store.location().to_string())
        )
    } else {
        table(&runs)
    };
    if more {
        text.push_str("(older runs not shown: --limit N for more, --limit 0 for all)\n");
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| CliError {
            code: exit::RUN_ERROR,
            message: format!("writing output: {e}"),
        })?;
    Ok(exit::OK)
}

/// The verdict column: counts by verdict, or `incomplete`.
fn verdicts(run: &RunSummary) -> String {
    if !run.is_complete() {
        return "incomplete".into();
    }
    if run.verdicts.is_empty() {
        return "no results".into();
    }
    run.verdicts
        .iter()
        .map(|(v, n)| format!("{n} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `2026-11-24T03:20:41Z` as `2026-11-24 03:20`.
fn date(rfc3339: &str) -> String {
    match rfc3339.split_once('T') {
        Some((day, time)) => format!("{day} {}", time.get(..5).unwrap_or(time)),
        None => rfc3339.to_string(),
    }
}

/// The runs as aligned columns under a header, every cell escaped for a terminal.
pub fn table(runs: &[RunSummary]) -> String {
    let header = [
        "id",
        "started (UTC)",
        "commit",
        "suite",
        "machine",
        "verdicts",
        "note",
    ];
    let rows: Vec<[String; 7]> = runs
        .iter()
        .map(|r| {
            [
                r.id.to_string(),
                date(&r.started_at),
                if r.git_dirty {
                    format!("{}-dirty", r.git_commit)
                } else {
                    r.git_commit.clone()
                },
                r.suite.clone(),
                r.machine.clone(),
                verdicts(r),
                r.note.clone().unwrap_or_default(),
            ]
            .map(|cell| escaped(&cell).into_owned())
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == 0 {
                // Ids right-aligned, as numbers are.
                s.push_str(&format!("{cell:>w$}"));
            } else {
                s.push_str(&format!("  {cell:<w$}"));
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut out = line(header.to_vec());
    for row in &rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use handoff_store::RunId;

    fn run(id: i64, finished: bool, dirty: bool) -> RunSummary {
        RunSummary {
            id: RunId(id),
            started_at: "2026-11-24T03:20:41Z".into(),
            finished_at: finished.then(|| "2026-11-24T03:22:00Z".into()),
            suite: "suites/ingress.toml".into(),
            git_commit: "0123456789ab".into(),
            git_dirty: dirty,
            tool_version: "0.1.0".into(),
            machine: "bench-1".into(),
            note: Some("after the cache-line change".into()),
            verdicts: if finished {
                vec![("pass".into(), 30), ("fail".into(), 1)]
            } else {
                Vec::new()
            },
        }
    }

    #[test]
    fn one_aligned_line_per_run_with_incomplete_runs_marked() {
        let text = table(&[run(42, false, true), run(9, true, false)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("id  started (UTC)"), "{text}");
        assert!(lines[1].starts_with("42  2026-11-24 03:20  0123456789ab-dirty  suites/ingress.toml  bench-1  incomplete"), "{text}");
        assert!(
            lines[2].starts_with(" 9  2026-11-24 03:20  0123456789ab        "),
            "{text}"
        );
        assert!(lines[2].contains("30 pass, 1 fail"), "{text}");
        assert!(lines[2].ends_with("after the cache-line change"), "{text}");
        let column = lines[0].find("verdicts").unwrap();
        assert_eq!(lines[1].find("incomplete"), Some(column), "{text}");
    }

    /// What others wrote into the store is shown escaped, and the columns are measured on what
    /// is shown.
    #[test]
    fn stored_text_is_escaped_and_aligned_as_shown() {
        let mut evil = run(7, true, false);
        evil.note = Some("evil\u{1b}[2J\u{1b}]0;title\u{7}".into());
        evil.suite = "s\u{202e}".into();
        evil.machine = "host\nforged".into();
        evil.git_commit = "\u{9b}0m".into();
        let text = table(&[evil, run(8, true, false)]);
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}']),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[1].ends_with(r"evil\e[2J\e]0;title\a"), "{text}");
        assert!(
            lines[1].contains(r"  \u{9b}0m      s\u{202e}            host\nforged  "),
            "{text}"
        );
        let column = lines[0].find("verdicts").unwrap();
        assert_eq!(lines[1].find("30 pass"), Some(column), "{text}");
        assert_eq!(lines[2].find("30 pass"), Some(column), "{text}");
    }
}
