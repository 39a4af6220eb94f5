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

use super::model::{Change, Comparison, Row};
use crate::output::fmt;
use comfy_table::{CellAlignment, LineStyle, Table, TableStyle};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::str::FromStr;

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
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "md" {
            return Ok(CompareFormat::Markdown);
        }
        CompareFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                crate::suggest::unknown(
                    "comparison format",
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
        CompareFormat::Html => super::html::page(c, out),
    }
}

pub(super) const COLUMNS: [&str; 8] = [
    "result",
    "metric",
    "before",
    "after",
    "change",
    "95% interval",
    "p adj.",
    "verdict",
];

pub(super) fn cells(r: &Row) -> [String; 8] {
    let side = |s: Option<super::model::Side>| {
        s.map_or("–".to_string(), |s| {
            format!("{} (n={})", r.metric.format(s.median), s.n)
        })
    };
    let change = r.ratio.map_or("–".into(), |x| signed_percent(x - 1.0));
    let interval = r.interval.map_or("–".into(), |i| {
        format!(
            "{} … {}",
            signed_percent(i.low - 1.0),
            signed_percent(i.high - 1.0)
        )
    });
    // The p-value the verdict was decided on: adjusted for every figure judged at once.
    let p = r.p_adjusted.or(r.test.map(|t| t.p));
    let p = match p {
        None => "–".to_string(),
        Some(p) if p >= 0.001 => format!("{p:.3}"),
        Some(p) => format!("{p:.2e}").replace("e0", ""),
    };
    let mut verdict = r.change.mark().to_string();
    if r.regression {
        verdict.push_str("  REGRESSION");
    }
    [
        r.identity.to_string(),
        r.metric.name().to_string(),
        side(r.before),
        side(r.after),
        change,
        interval,
        p,
        verdict,
    ]
}

fn signed_percent(x: f64) -> String {
    let s = fmt::percent(x);
    if x > 0.0 {
        format!("+{s}")
    } else {
        s
    }
}

/// The lines said before and after the rows, shared by table and markdown.
pub(super) fn header(c: &Comparison) -> Vec<(&'static str, String)> {
    let j = &c.judgement;
    let side = |s: &super::model::SideInfo| {
        format!(
            "{} · {} · suite {} · {}",
            s.label, s.started_at, s.suite, s.environment
        )
    };
    let tested = c.rows.iter().filter(|r| r.p_adjusted.is_some()).count();
    let mut judged = format!(
        "Mann–Whitney U on per-sample figures, p adjusted for the {tested} figure(s) judged (Benjamini–Hochberg), alpha {}; changes under {} are ~",
        j.alpha,
        fmt::percent(j.threshold)
    );
    if let Some(m) = j.max_regression {
        judged.push_str(&format!(
            "; a significant slowdown beyond {} is a regression (exit 4)",
            fmt::percent(m)
        ));
    }
    vec![
        ("before", side(&c.before)),
        ("after", side(&c.after)),
        ("judged", judged),
    ]
}

pub(super) fn footer(c: &Comparison) -> Vec<String> {
    let mut lines = Vec::new();
    for r in &c.rollups {
        lines.push(format!(
            "geomean {}: {} over {} figure(s)",
            r.transport,
            speed(r.geomean),
            r.rows
        ));
    }
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in &c.rows {
        match &r.change {
            Change::TooFewSamples { need } => reasons
                .entry(format!(
                    "too few samples to reach significance (need at least {need} on each side)"
                ))
                .or_default()
                .push(format!("{} {}", r.identity, r.metric)),
            Change::NotComparable { reason } => reasons
                .entry(format!("not comparable: {reason}"))
                .or_default()
                .push(r.identity.to_string()),
            _ => {}
        }
        for n in &r.notes {
            reasons
                .entry(n.clone())
                .or_default()
                .push(format!("{} {}", r.identity, r.metric));
        }
    }
    for (why, who) in reasons {
        lines.push(format!("{why}: {}", who.join("; ")));
    }
    if !c.only_before.is_empty() {
        lines.push(format!("only before: {}", join(&c.only_before)));
    }
    if !c.only_after.is_empty() {
        lines.push(format!("only after: {}", join(&c.only_after)));
    }
    let regressions: Vec<String> = c
        .regressions()
        .map(|r| {
            format!(
                "{} {} {}",
                r.identity,
                r.metric,
                r.ratio.map_or("–".into(), |x| signed_percent(x - 1.0))
            )
        })
        .collect();
    if let Some(m) = c.judgement.max_regression {
        if regressions.is_empty() {
            lines.push(format!(
                "no result is significantly slower than {}",
                fmt::percent(m)
            ));
        } else {
            lines.push(format!(
                "REGRESSION beyond {}: {}",
                fmt::percent(m),
                regressions.join("; ")
            ));
        }
    }
    lines
}

fn join(ids: &[crate::identity::Identity]) -> String {
    ids.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

/// A speed-up factor in words: `1.05× faster`, `0.80× (slower)`.
fn speed(x: f64) -> String {
    if x >= 1.0 {
        format!("{x:.3}× (faster after)")
    } else {
        format!("{x:.3}× (slower after)")
    }
}

fn table(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    for (label, text) in header(c) {
        writeln!(out, "{label:>6}: {text}")?;
    }
    for w in &c.warnings {
        writeln!(out, "WARNING: {w}")?;
    }
    writeln!(out)?;
    if c.rows.is_empty() {
        writeln!(out, "no result is in both runs")?;
    } else {
        let mut t = Table::new();
        t.load_style(TableStyle::new().header_separator(LineStyle::none().fill('─').junction('─')));
        t.set_header(COLUMNS);
        for r in &c.rows {
            t.add_row(cells(r));
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
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

fn markdown(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### handoff compare\n")?;
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

fn md(s: &str) -> String {
    s.replace('|', "\\|")
}
