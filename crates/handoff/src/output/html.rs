//! `html`: one self-contained page: the run's environment and limits, and per table of
//! comparable results its charts (inline SVG, see `charts.rs`), the table itself, the reasons
//! for non-pass verdicts, consensus and every lint. No script, no network, no font file: the
//! page opens offline and prints.

use super::svg::escape;
use super::view::{self, Group};
use super::{charts, Exporter};
use crate::report::RunReport;
use std::io::{self, Write};

/// Writes the HTML page.
pub(super) struct HtmlExporter;

/// The page's style: readable on a laptop screen, printable, one colour per series.
const STYLE: &str = r#"
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 24px auto; max-width: 1180px; padding: 0 16px; color: #1d2126; }
h1 { font-size: 22px; margin-bottom: 8px; }
h2 { font-size: 17px; margin: 36px 0 4px; border-bottom: 1px solid #d0d5db; padding-bottom: 4px; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 13px; }
dl.header dt { font-weight: 600; color: #4a525c; }
dl.header dd { margin: 0; }
p.params { font-size: 13px; color: #4a525c; margin: 2px 0 10px; }
figure { margin: 8px 0 12px; overflow-x: auto; }
figcaption { font-size: 13px; font-weight: 600; margin: 14px 0 2px; }
div.table { overflow-x: auto; }
table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e3e6ea; white-space: nowrap; }
th { text-align: left; background: #f3f5f7; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.apart td { color: #5b636d; }
tr.section td { font-style: italic; background: #fafbfc; color: #5b636d; }
ul.notes, ol.footnotes { font-size: 12.5px; margin: 6px 0; }
ul.consensus { font-size: 12.5px; color: #1f5f2c; }
ol.runs { font-size: 13px; }
.gates li { font-size: 13px; }
svg { font-size: 11px; }
svg .label { fill: #1d2126; }
svg .note { fill: #5b636d; font-style: italic; }
svg .tick { fill: #4a525c; }
svg .axis-label { fill: #1d2126; font-weight: 600; }
svg .axis { stroke: #4a525c; stroke-width: 1; }
svg .grid { stroke: #e3e6ea; stroke-width: 1; }
svg .rule { stroke: #b8bec6; stroke-dasharray: 3 3; }
svg .range { stroke: #9aa3ad; stroke-width: 3; stroke-linecap: round; }
svg .median { stroke: #1d2126; stroke-width: 2; }
svg .sample { fill: #2b6cb0; fill-opacity: 0.7; stroke: none; }
svg .limit { stroke: #c53030; stroke-width: 1.5; stroke-dasharray: 6 4; }
svg .series { fill: none; stroke-width: 2; }
svg .uncorrected { stroke-dasharray: 5 4; stroke-width: 1.5; }
svg .knee { stroke-width: 1; stroke-dasharray: 2 3; }
svg .crossing { fill: none; stroke: #1d2126; stroke-width: 1; stroke-dasharray: 1 3; }
svg .missed { fill: #fff !important; stroke-width: 1.5; }
svg .c0 { stroke: #2b6cb0; fill: #2b6cb0; } svg .c1 { stroke: #dd6b20; fill: #dd6b20; }
svg .c2 { stroke: #2f855a; fill: #2f855a; } svg .c3 { stroke: #c53030; fill: #c53030; }
svg .c4 { stroke: #6b46c1; fill: #6b46c1; } svg .c5 { stroke: #975a16; fill: #975a16; }
svg .c6 { stroke: #b83280; fill: #b83280; } svg .c7 { stroke: #4a5568; fill: #4a5568; }
svg .c8 { stroke: #718096; fill: #718096; } svg .c9 { stroke: #2c7a7b; fill: #2c7a7b; }
svg polyline.series { fill: none; }
svg .uncorrected:not([class*=" c"]) { stroke: #4a525c; }
svg .faster { stroke: #2f855a; fill: #2f855a; } svg .slower { stroke: #c53030; fill: #c53030; }
svg .same { stroke: #a0aab4; fill: #a0aab4; } svg .interval { stroke-width: 3; stroke-linecap: round; }
tr.slower td { color: #9b2c2c; font-weight: 600; } tr.faster td { color: #276749; }
@media print { body { max-width: none; } h2 { break-after: avoid; } figure { break-inside: avoid; } }
"#;

/// Opens a page of the report's kind (run, comparison, history): its head with the style, and
/// `title` as its heading.
pub(crate) fn begin(out: &mut dyn Write, title: &str) -> io::Result<()> {
    let title = escape(title);
    writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
    )?;
    writeln!(
        out,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(
        out,
        "<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>"
    )?;
    writeln!(out, "<h1>{title}</h1>")
}

impl Exporter for HtmlExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        let v = view::build(report);
        begin(out, &format!("handoff results: {}", report.suite))?;
        writeln!(out, "<dl class=\"header\">")?;
        for (label, text) in &v.header {
            writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(label), escape(text))?;
        }
        writeln!(out, "</dl>")?;
        if v.groups.is_empty() {
            writeln!(out, "<p>No results.</p>")?;
        }
        for g in &v.groups {
            group(g, report, out)?;
        }
        let sweeps = charts::sweeps(report, &crate::crossover::find(&report.results));
        if !sweeps.is_empty() {
            writeln!(out, "<section class=\"sweeps\">\n<h2>Sweeps</h2>")?;
            for (caption, chart, crossings) in sweeps {
                write!(
                    out,
                    "<figure>\n<figcaption>{}</figcaption>\n{chart}",
                    escape(&caption)
                )?;
                for c in crossings {
                    writeln!(out, "<p class=\"crossing\">{}</p>", escape(&c))?;
                }
                writeln!(out, "</figure>")?;
            }
            writeln!(out, "</section>")?;
        }
        let gates = view::gate_lines(report);
        if !gates.is_empty() {
            writeln!(out, "<h2>Gates</h2>\n<ul class=\"gates\">")?;
            for (head, details) in gates {
                write!(out, "<li>{}", escape(&head))?;
                list(out, "", &details)?;
                writeln!(out, "</li>")?;
            }
            writeln!(out, "</ul>")?;
        }
        writeln!(out, "</body>\n</html>")
    }
}

/// One table of comparable results: heading, charts, table, notes.
fn group(g: &Group, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "<section class=\"group\">\n<h2>{}</h2>",
        escape(&g.title)
    )?;
    writeln!(
        out,
        "<p class=\"params\">{}</p>",
        escape(&g.params.join(" · "))
    )?;
    for chart in charts::for_group(g, report) {
        writeln!(out, "<figure>\n{chart}</figure>")?;
    }
    writeln!(out, "<div class=\"table\"><table>\n<thead><tr>")?;
    for c in &g.columns {
        let class = if c.numeric { " class=\"num\"" } else { "" };
        write!(out, "<th{class}>{}</th>", escape(c.name))?;
    }
    writeln!(out, "</tr></thead>\n<tbody>")?;
    let row = |out: &mut dyn Write, cells: &[String], class: &str| -> io::Result<()> {
        write!(out, "<tr{class}>")?;
        for (cell, c) in cells.iter().zip(&g.columns) {
            let class = if c.numeric { " class=\"num\"" } else { "" };
            write!(out, "<td{class}>{}</td>", escape(cell))?;
        }
        writeln!(out, "</tr>")
    };
    for cells in &g.ranked {
        row(out, cells, "")?;
    }
    for s in &g.apart {
        writeln!(
            out,
            "<tr class=\"section\"><td colspan=\"{}\">{} — {}</td></tr>",
            g.columns.len(),
            escape(s.why.label()),
            escape(s.why.caption())
        )?;
        for cells in &s.rows {
            row(out, cells, " class=\"apart\"")?;
        }
    }
    writeln!(out, "</tbody>\n</table></div>")?;
    list(out, "consensus", &g.consensus)?;
    list(out, "notes", &g.notes)?;
    if !g.footnotes.is_empty() {
        writeln!(out, "<ol class=\"footnotes\">")?;
        for f in &g.footnotes {
            writeln!(out, "<li>{}</li>", escape(f))?;
        }
        writeln!(out, "</ol>")?;
    }
    for s in &g.soaks {
        writeln!(
            out,
            "<details class=\"soak\"><summary>{}</summary>",
            escape(&s.heading)
        )?;
        writeln!(out, "<div class=\"table\"><table>\n<thead><tr>")?;
        for (i, c) in s.columns.iter().enumerate() {
            let class = if i > 0 { " class=\"num\"" } else { "" };
            write!(out, "<th{class}>{}</th>", escape(c))?;
        }
        writeln!(out, "</tr></thead>\n<tbody>")?;
        for cells in &s.rows {
            write!(out, "<tr>")?;
            for (i, cell) in cells.iter().enumerate() {
                let class = if i > 0 { " class=\"num\"" } else { "" };
                write!(out, "<td{class}>{}</td>", escape(cell))?;
            }
            writeln!(out, "</tr>")?;
        }
        writeln!(out, "</tbody>\n</table></div></details>")?;
    }
    writeln!(out, "</section>")
}

/// A bulleted list of `items` (nothing if there are none).
fn list(out: &mut dyn Write, class: &str, items: &[String]) -> io::Result<()> {
    if items.is_empty() {
        return Ok(());
    }
    writeln!(out, "<ul class=\"{class}\">")?;
    for i in items {
        writeln!(out, "<li>{}</li>", escape(i))?;
    }
    writeln!(out, "</ul>")
}
