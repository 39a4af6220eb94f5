//! Renderings of a [`Comparison`]: a terminal table, markdown for a pull request, JSON, and the
//! Bencher Metric Format for continuous-benchmarking services.
//!
//! ```text
//!  result                               metric    before     after    change   95% interval    p adj.    verdict
//! ─────────────────────────────────────────────────────────────────────────────────────────────────────────────────
//!  rtrb spsc threads u64 1p1c cap=1024  msgs/s   120 M/s    96 M/s    -20.0%   -22.5% … -17.1%   0.0079  slower  REGRESSION
//! ```
//!
//! `change` is the after median relative to the before median in the metric's own unit (a
//! latency that went up is slower; a throughput that went down is slower).
//!
//! The table and markdown escape every text visibly ([`handoff_model::foreign::escaped`]):
//! suite names, transport names and option values come from the reports compared, which may
//! come from anywhere.

use crate::compare::model::{Change, Comparison};
use cells::{cells, footer, header, COLUMNS};
use comfy_table::{CellAlignment, LineStyle, Table, TableStyle};
use handoff_model::foreign::escaped;
use std::io::{self, Write};
use std::str::FromStr;

mod cells;
mod html;

/// How to render a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CompareFormat {
    /// Terminal table (default).
    #[default]
    Table,
    /// Markdown, for a pull request.
    Markdown,
    /// The whole comparison as JSON (versioned).
    Json,
    /// The after side's medians in Bencher Metric Format.
    Bmf,
    /// A self-contained HTML page: each result's change with its interval, charted.
    Html,
}

impl CompareFormat {
    /// Every format.
    pub const ALL: [CompareFormat; 5] = [
        CompareFormat::Table,
        CompareFormat::Markdown,
        CompareFormat::Json,
        CompareFormat::Bmf,
        CompareFormat::Html,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CompareFormat::Table => "table",
            CompareFormat::Markdown => "markdown",
            CompareFormat::Json => "json",
            CompareFormat::Bmf => "bmf",
            CompareFormat::Html => "html",
        }
    }
}

impl FromStr for CompareFormat {
    type Err = crate::suggest::LookupError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "md" {
            return Ok(CompareFormat::Markdown);
        }
        CompareFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                crate::suggest::LookupError::listing(
                    crate::suggest::Thing::Other("comparison format".into()),
                    s,
                    CompareFormat::ALL.iter().map(|f| f.name()),
                )
            })
    }
}

/// Writes `c` in `format`; the Bencher Metric Format exports the after run (`after`), whose
/// absolute figures a continuous-benchmarking service tracks and judges itself.
pub fn render(
    c: &Comparison,
    after: &crate::report::RunReport,
    format: CompareFormat,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        CompareFormat::Table => table(c, out),
        CompareFormat::Markdown => markdown(c, out),
        CompareFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, c)?;
            writeln!(out)
        }
        CompareFormat::Bmf => crate::output::render(after, crate::output::Format::Bmf, out),
        CompareFormat::Html => html::page(c, out),
    }
}

fn table(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    for (label, text) in header(c) {
        writeln!(out, "{label:>6}: {}", escaped(&text))?;
    }
    for w in &c.warnings {
        writeln!(out, "WARNING: {}", escaped(w))?;
    }
    writeln!(out)?;
    if c.rows.is_empty() {
        writeln!(out, "no result is in both runs")?;
    } else {
        let mut t = Table::new();
        t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')));
        t.set_header(COLUMNS);
        for r in &c.rows {
            t.add_row(cells(r).map(|c| escaped(&c).into_owned()));
        }
        for i in 2..7 {
            if let Some(col) = t.column_mut(i) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        for line in t.lines() {
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    let f = footer(c);
    if !f.is_empty() {
        writeln!(out)?;
    }
    for line in f {
        writeln!(out, "  {}", escaped(&line))?;
    }
    Ok(())
}

fn markdown(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### {}\n", title(c))?;
    for (label, text) in header(c) {
        writeln!(out, "- **{label}**: {}", md(&text))?;
    }
    for w in &c.warnings {
        writeln!(out, "\n> **Warning**: {}", md(w))?;
    }
    writeln!(out)?;
    if c.rows.is_empty() {
        writeln!(out, "No result is in both runs.")?;
    } else {
        writeln!(out, "| {} |", COLUMNS.join(" | "))?;
        writeln!(out, "|---|---|---:|---:|---:|---:|---:|---|")?;
        for r in &c.rows {
            let mut cells = cells(r).map(|c| md(&c));
            if r.regression || r.change == Change::Slower {
                cells[7] = format!("**{}**", cells[7]);
            }
            writeln!(out, "| {} |", cells.join(" | "))?;
        }
    }
    let f = footer(c);
    if !f.is_empty() {
        writeln!(out)?;
    }
    for line in f {
        writeln!(out, "- {}", md(&line))?;
    }
    Ok(())
}

/// The title of a comparison's page or section.
fn title(c: &Comparison) -> &'static str {
    if c.paired {
        "handoff run --against (paired)"
    } else {
        "handoff compare"
    }
}

/// `s` in a markdown table or list: control characters escaped visibly, `|` escaped.
fn md(s: &str) -> String {
    escaped(s).replace('|', "\\|")
}
