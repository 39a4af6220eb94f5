//! Output formats: views over one [`RunReport`].
//!
//! Every format renders the same result model and none recomputes a statistic: a median, a
//! percentile or a limit distance printed here is the one the session stored. Each format is
//! one file implementing [`Exporter`]:
//!
//! | format     | file          | for                                                        |
//! |------------|---------------|------------------------------------------------------------|
//! | `table`    | `table.rs`    | the terminal (default): environment, limits, one table per group of comparable results |
//! | `json`     | `json.rs`     | machines: the whole [`RunReport`], pretty-printed, with its `schema_version` |
//! | `markdown` | `markdown.rs` | pasting into a pull request                                 |
//! | `csv`      | `csv.rs`      | spreadsheets: one flat row per result                       |
//! | `bmf`      | `bmf.rs`      | continuous-benchmarking services: Bencher Metric Format JSON |
//! | `html`     | `html.rs`     | a self-contained page with charts (`charts.rs`, drawn with `svg.rs`) |
//!
//! The terminal format can also be written table by table while a run goes on
//! ([`LiveTables`], `live.rs`), each table once its last trial is done.
//!
//! The terminal and markdown formats share their grouping, ordering and footnotes (see
//! `view.rs`): results are grouped by workload, payload, producers, consumers and batch;
//! same-thread, same-worker and batch-emulated results are listed apart and never ranked with
//! cross-thread hand-offs or native batches; every
//! non-pass verdict is explained under its table; lints are footnoted.

mod bmf;
mod charts;
pub mod compare;
mod csv;
pub use handoff_model::fmt;
pub(crate) mod html;
mod json;
mod live;
mod markdown;
pub mod recommend;
pub(crate) mod soak;
pub(crate) mod svg;
mod table;
pub mod trend;
mod view;

pub use live::LiveTables;

use crate::report::RunReport;
use std::fmt as sfmt;
use std::io::{self, Write};
use std::str::FromStr;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// Terminal tables (the default).
    #[default]
    Table,
    /// The whole report as JSON.
    Json,
    /// Markdown tables for a pull request.
    Markdown,
    /// One CSV row per result.
    Csv,
    /// Medians with their range in Bencher Metric Format.
    Bmf,
    /// A self-contained HTML page with charts.
    Html,
}

impl Format {
    /// Every format, in listing order.
    pub const ALL: [Format; 6] = [
        Format::Table,
        Format::Json,
        Format::Markdown,
        Format::Csv,
        Format::Bmf,
        Format::Html,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Table => "table",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Csv => "csv",
            Format::Bmf => "bmf",
            Format::Html => "html",
        }
    }

    /// The exporter that writes this format.
    pub(crate) fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Table => Box::new(table::TableExporter),
            Format::Json => Box::new(json::JsonExporter),
            Format::Markdown => Box::new(markdown::MarkdownExporter),
            Format::Csv => Box::new(csv::CsvExporter),
            Format::Bmf => Box::new(bmf::BmfExporter),
            Format::Html => Box::new(html::HtmlExporter),
        }
    }
}

impl sfmt::Display for Format {
    fn fmt(&self, f: &mut sfmt::Formatter<'_>) -> sfmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = crate::suggest::LookupError;

    /// Parses a format name; `md` is accepted for `markdown`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "md" {
            return Ok(Format::Markdown);
        }
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                crate::suggest::LookupError::listing(
                    crate::suggest::Thing::Other("output format".into()),
                    s,
                    Format::ALL.iter().map(|f| f.name()),
                )
            })
    }
}

/// Writes a [`RunReport`] in one format.
pub trait Exporter {
    /// Writes `report` to `out`.
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()>;
}

/// Writes `report` to `out` in `format`.
pub fn render(report: &RunReport, format: Format, out: &mut dyn Write) -> io::Result<()> {
    format.exporter().export(report, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_parse_with_suggestions() {
        for f in Format::ALL {
            assert_eq!(f.to_string().parse::<Format>(), Ok(f));
        }
        assert_eq!("md".parse::<Format>(), Ok(Format::Markdown));
        let e = "jsno".parse::<Format>().unwrap_err().to_string();
        assert_eq!(e, "unknown output format `jsno`; did you mean `json`?");
        let e = "markdwon".parse::<Format>().unwrap_err().to_string();
        assert!(e.contains("`markdown`"), "{e}");
        // No name close: every format is listed.
        let e = "pdf".parse::<Format>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown output format `pdf` (one of table, json, markdown, csv, bmf, html)"
        );
        assert_eq!(Format::default(), Format::Table);
    }

    /// A report whose foreign text (suite, transport, option value, a crashed worker's output,
    /// the CPU's name) holds escape sequences, C1 controls and a bidirectional override.
    fn planted() -> RunReport {
        use crate::lints::fixture::{environment, stream};
        let mut crashed = stream();
        crashed.transport = "plug\u{9b}31m".into();
        crashed
            .params
            .options
            .insert("mode".into(), "fast\u{202e}tsaf".into());
        crashed.verdict = crate::report::Verdict::Crashed;
        crashed.violation = Some(
            "worker exited with code 101; output: boom\u{1b}]0;title\u{7} | line\ttwo\r".into(),
        );
        let mut environment = environment();
        environment.cpu_model = "CPU\u{1b}[2J".into();
        RunReport {
            reprobes: Vec::new(),
            results: vec![stream(), crashed],
            ..RunReport::begun("evil\u{1b}[2J\u{1b}]0;title\u{7}", environment)
        }
    }

    fn rendered(report: &RunReport, format: Format) -> String {
        let mut out = Vec::new();
        render(report, format, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn terminal_views_escape_control_characters_and_json_keeps_them() {
        let report = planted();
        for format in [Format::Table, Format::Markdown] {
            let text = rendered(&report, format);
            for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\r', '\t'] {
                assert!(!text.contains(c), "{format}: {c:?} in\n{text}");
            }
            let planted = [
                r"\e[2J\e]0;title\a",
                r"CPU\e[2J",
                r"plug\u{9b}31m",
                r"fast\u{202e}tsaf",
                r"boom\e]0;title\a | line\ttwo\r",
            ];
            for needle in planted {
                // Markdown escapes the escapes' backslashes and brackets as markup too.
                let needle = match format {
                    Format::Markdown => needle
                        .replace('\\', r"\\")
                        .replace('[', r"\[")
                        .replace(']', r"\]")
                        .replace('|', r"\|"),
                    _ => needle.to_string(),
                };
                assert!(text.contains(&needle), "{format}: {needle} not in\n{text}");
            }
        }
        // JSON is the report as it is: it escapes control characters its own way and reads
        // back the same.
        let json = rendered(&report, Format::Json);
        assert!(
            json.contains("evil\\u001b[2J\\u001b]0;title\\u0007"),
            "{json}"
        );
        let back: RunReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.suite, report.suite);
        assert_eq!(back.results[1].violation, report.results[1].violation);
    }
}
