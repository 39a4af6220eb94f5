//! `html`: one self-contained page: the run's environment and limits, and per table of
//! comparable results its charts (inline SVG, see `charts.rs`), the table itself, the reasons
//! for non-pass verdicts, consensus and every lint. No script, no network, no font file: the
//! page opens offline and prints.

use super::svg::escape;
use super::view::{self, Apart, Column, Group, OVERSUBSCRIBED_MARK};
use super::{charts, Exporter};
use crate::report::RunReport;
use std::io::{self, Write};

/// Writes the HTML page.
pub(super) struct HtmlExporter;

/// The page's style: readable on a laptop screen, printable, a look of its own per series.
///
/// Tables fit a 1280-pixel window and a portrait A4 or Letter page without a scrollbar or a cut
/// column: cells are tightly padded, figures are set in slightly smaller tabular numbers, and
/// the prose cells (semantics, lints, a section's caption) and the headings wrap (the markup
/// offers a break after each `/` of a heading). The scrolling box around a table is a last
/// resort for a narrow window only. In print, tables are set smaller still and charts scale to
/// the page.
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
th, td { padding: 2px 5px; border-bottom: 1px solid #e3e6ea; vertical-align: top; }
td { white-space: nowrap; }
th { text-align: left; background: #f3f5f7; white-space: normal; vertical-align: bottom;
     font-weight: 600; line-height: 1.2; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { font-size: 11px; }
td.split { white-space: normal; } td.split span { white-space: nowrap; }
td.wrap { white-space: normal; min-width: 7em; } td.wrap span { white-space: nowrap; }
tr.apart td { color: #5b636d; }
tr.section td { white-space: normal; font-style: italic; background: #fafbfc; color: #5b636d; }
tr.section strong { font-style: normal; }
ul.notes, ol.footnotes { font-size: 12.5px; margin: 6px 0; }
ul.consensus { font-size: 12.5px; color: #1f5f2c; }
ol.runs { font-size: 13px; }
.gates li { font-size: 13px; }
svg { font-size: 11px; max-width: 100%; height: auto; }
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
svg .c0 { stroke: #1f77b4; fill: #1f77b4; } svg .c1 { stroke: #ff7f0e; fill: #ff7f0e; }
svg .c2 { stroke: #2ca02c; fill: #2ca02c; } svg .c3 { stroke: #d62728; fill: #d62728; }
svg .c4 { stroke: #9467bd; fill: #9467bd; } svg .c5 { stroke: #8c564b; fill: #8c564b; }
svg .c6 { stroke: #e377c2; fill: #e377c2; } svg .c7 { stroke: #7f7f7f; fill: #7f7f7f; }
svg .c8 { stroke: #bcbd22; fill: #bcbd22; } svg .c9 { stroke: #17becf; fill: #17becf; }
svg .series.d0 { stroke-dasharray: none; } svg .series.d1 { stroke-dasharray: 8 4; }
svg .series.d2 { stroke-dasharray: 2 3; } svg .series.d3 { stroke-dasharray: 9 3 2 3; }
svg .series.faint { stroke-width: 1.25; stroke-opacity: 0.45; }
svg polyline.series { fill: none; }
svg .uncorrected:not([class*=" c"]) { stroke: #4a525c; }
svg .faint:not([class*=" c"]) { stroke: #4a525c; }
svg .faster { stroke: #2f855a; fill: #2f855a; } svg .slower { stroke: #c53030; fill: #c53030; }
svg .same { stroke: #a0aab4; fill: #a0aab4; } svg .interval { stroke-width: 3; stroke-linecap: round; }
tr.slower td { color: #9b2c2c; font-weight: 600; } tr.faster td { color: #276749; }
@page { margin: 10mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  h2 { break-after: avoid; } figure { break-inside: avoid; }
  div.table, figure { overflow: visible; }
  table { font-size: 9px; }
  td.num { font-size: 8.5px; }
  th, td { padding: 1px 2.5px; }
  th { font-size: 8.5px; }
  td.name { white-space: normal; }
  td.wrap { min-width: 5em; }
  tr { break-inside: avoid; }
  thead { display: table-header-group; }
}
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
    for (i, c) in g.columns.iter().enumerate() {
        let class = match Kind::of(i, c) {
            Kind::Figure => " class=\"num\"",
            _ => "",
        };
        write!(out, "<th{class}>{}</th>", heading(c.name))?;
    }
    writeln!(out, "</tr></thead>\n<tbody>")?;
    let row = |out: &mut dyn Write, cells: &[String], tr: &str| -> io::Result<()> {
        write!(out, "<tr{tr}>")?;
        for (i, (text, c)) in cells.iter().zip(&g.columns).enumerate() {
            write!(out, "{}", cell(Kind::of(i, c), text))?;
        }
        writeln!(out, "</tr>")
    };
    for cells in &g.ranked {
        row(out, cells, "")?;
    }
    for s in &g.apart {
        writeln!(
            out,
            "<tr class=\"section\"><td colspan=\"{}\">{}</td></tr>",
            g.columns.len(),
            section_title(s.why)
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
            write!(out, "<th{class}>{}</th>", heading(c))?;
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

/// What a column holds, which decides how its cells may wrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The row's name (the first column): on one line on screen, broken at its hyphens in
    /// print.
    Name,
    /// Figures: right-aligned tabular numbers, a range or pair broken only between its halves.
    Figure,
    /// Prose that may break at its spaces, never inside a word (`spin-park`, `noisy[2]`): the
    /// semantics, the lints.
    Prose,
    /// The rest (a verdict, a language): one line.
    Plain,
}

impl Kind {
    /// The kind of column `c`, the `i`-th of its table.
    fn of(i: usize, c: &Column) -> Kind {
        if c.numeric {
            Kind::Figure
        } else if i == 0 {
            Kind::Name
        } else if ["semantics", "lints"].contains(&c.name) {
            Kind::Prose
        } else {
            Kind::Plain
        }
    }
}

/// One cell, escaped. A figure that is a range or a pair (`304 M – 346 M`, `1.11 M / 3.55 k`)
/// is two unbreakable halves with a break offered between them, so that its column can be
/// half as wide; prose is words that do not break at their hyphens; a name keeps its
/// oversubscription mark on its line.
fn cell(kind: Kind, text: &str) -> String {
    match kind {
        Kind::Figure => {
            let halves = [" – ", " / "]
                .iter()
                .find_map(|sep| text.split_once(sep).map(|(a, b)| (a, sep.trim(), b)));
            match halves {
                Some((a, sep, b)) => format!(
                    "<td class=\"num split\"><span>{} {sep}</span> <span>{}</span></td>",
                    escape(a),
                    escape(b)
                ),
                None => format!("<td class=\"num\">{}</td>", escape(text)),
            }
        }
        Kind::Name => {
            let text = match text.strip_suffix(OVERSUBSCRIBED_MARK) {
                Some(name) => format!("{}&nbsp;{}", escape(name), OVERSUBSCRIBED_MARK.trim()),
                None => escape(text),
            };
            format!("<td class=\"name\">{text}</td>")
        }
        Kind::Prose => {
            let words: Vec<String> = text
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| format!("<span>{}</span>", escape(w)))
                .collect();
            format!("<td class=\"wrap\">{}</td>", words.join(" "))
        }
        Kind::Plain => format!("<td>{}</td>", escape(text)),
    }
}

/// A column's heading, escaped, with a line break offered after each `/` that a word follows
/// (`msgs/sample`, `failed sends/recvs`, not `msgs/s`), so that a heading is never what widens
/// its column.
fn heading(name: &str) -> String {
    let mut out = String::new();
    for (i, part) in name.split('/').enumerate() {
        if i > 0 {
            out.push('/');
            if part.chars().take_while(|c| c.is_alphanumeric()).count() >= 3 {
                out.push_str("<wbr>");
            }
        }
        out.push_str(&escape(part));
    }
    out
}

/// The title of a section of rows listed apart: its caption, which begins with the section's
/// label (`same-thread: the producer's thread runs …`), with that label set in bold, so the
/// label is said once. A caption that does not begin with its label gets it in front.
fn section_title(why: Apart) -> String {
    let (label, caption) = (why.label(), why.caption());
    match caption
        .strip_prefix(label)
        .and_then(|c| c.strip_prefix(':'))
    {
        Some(rest) => format!("<strong>{}</strong>:{}", escape(label), escape(rest)),
        None => format!("<strong>{}</strong>: {}", escape(label), escape(caption)),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{report, stream};
    use crate::lints::Lint;
    use crate::output::svg::{series_look, DASHES, HUES, LEGEND_STROKE};
    use crate::semantics::Locality;

    /// The page's style as `(media, selector, declarations)`: `media` is `""` outside any
    /// `@media` block; a rule listing several selectors is one entry.
    fn rules(css: &str) -> Vec<(String, String, Vec<(String, String)>)> {
        let mut out = Vec::new();
        let mut media = String::new();
        let mut rest = css;
        while let Some(open) = rest.find('{') {
            let head = rest[..open].trim();
            if head.starts_with("@media") {
                media = head.trim_start_matches("@media").trim().to_string();
                rest = &rest[open + 1..];
                continue;
            }
            let close = rest.find('}').expect("every rule closes");
            let body = &rest[open + 1..close];
            let decls = body
                .split(';')
                .filter_map(|d| d.split_once(':'))
                .map(|(p, v)| (p.trim().to_string(), v.trim().to_string()))
                .collect();
            out.push((media.clone(), head.to_string(), decls));
            rest = &rest[close + 1..];
            // The closing brace of a media block follows the closing brace of its last rule.
            let after = rest.trim_start();
            if !media.is_empty() && after.starts_with('}') {
                media.clear();
                rest = &after[1..];
            }
        }
        out
    }

    /// The value `selector` (exactly as written) declares for `property` in `media`.
    fn declared(media: &str, selector: &str, property: &str) -> Option<String> {
        rules(STYLE)
            .into_iter()
            .filter(|(m, s, _)| m == media && s == selector)
            .flat_map(|(_, _, d)| d)
            .filter(|(p, _)| p == property)
            .map(|(_, v)| v)
            .next_back()
    }

    fn px(v: Option<String>) -> f64 {
        let v = v.expect("a size is declared");
        v.trim_end_matches("px").parse().expect("a size in pixels")
    }

    fn page(report: &RunReport) -> String {
        let mut out = Vec::new();
        HtmlExporter.export(report, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Two rows over one cross-thread queue, the first flagged noisy and oversubscribed, and a
    /// same-thread row listed apart.
    fn rows() -> RunReport {
        let mut noisy = stream();
        noisy.transport = "crossbeam-array-queue".into();
        noisy.placement.oversubscribed = true;
        noisy.lints = vec![
            Lint::Oversubscribed {
                threads: 8,
                cores: 2,
            },
            Lint::Noisy {
                spread: 0.2,
                threshold: 0.1,
            },
        ];
        let mut quiet = stream();
        quiet.transport = "rtrb".into();
        let mut same = stream();
        same.transport = "direct-callback".into();
        same.semantics.locality = Locality::SameThread;
        report(vec![noisy, quiet, same])
    }

    /// The markup of every `<td>` of the page's first table, in order.
    fn cells(page: &str) -> Vec<&str> {
        let table = &page[page.find("<tbody>").unwrap()..page.find("</tbody>").unwrap()];
        table
            .split("<td")
            .skip(1)
            .map(|c| &c[..c.find("</td>").unwrap()])
            .collect()
    }

    /// The text a reader sees in a cell's markup.
    fn text(markup: &str) -> String {
        let mut out = String::new();
        let mut inside = false;
        for c in markup.chars() {
            match c {
                '<' => inside = true,
                '>' => inside = false,
                c if !inside => out.push(c),
                _ => {}
            }
        }
        out.replace("&nbsp;", " ")
            .replace("&#39;", "'")
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    }

    #[test]
    fn a_section_row_says_its_label_once() {
        let page = page(&rows());
        let row = page
            .lines()
            .find(|l| l.starts_with("<tr class=\"section\">"))
            .expect("the same-thread row is listed apart");
        assert_eq!(row.matches("same-thread").count(), 1, "{row}");
        assert!(
            row.contains("<strong>same-thread</strong>: the producer&#39;s thread runs"),
            "{row}"
        );
        assert_eq!(
            text(row),
            crate::output::view::SAME_THREAD_CAPTION,
            "the caption, whole"
        );
        for why in [Apart::SameThread, Apart::SameWorker, Apart::BatchEmulated] {
            let title = section_title(why);
            assert_eq!(title.matches(why.label()).count(), 1, "{title}");
            assert_eq!(text(&title), why.caption());
        }
    }

    #[test]
    fn table_cells_wrap_where_the_style_lets_them_and_keep_their_text() {
        let report = rows();
        let page = page(&report);
        let v = view::build(&report);
        let g = &v.groups[0];
        // Every cell of the table, ranked and apart, reads as the view wrote it.
        let expected: Vec<&String> = g
            .ranked
            .iter()
            .chain(g.apart.iter().flat_map(|s| &s.rows))
            .flatten()
            .collect();
        let cells = cells(&page);
        let cells: Vec<&str> = cells
            .into_iter()
            .filter(|c| !c.contains("colspan"))
            .collect();
        assert_eq!(cells.len(), expected.len());
        for (markup, want) in cells.iter().zip(&expected) {
            assert_eq!(text(&format!("<td{markup}")), **want, "{markup}");
        }
        let n = g.columns.len();
        for (k, markup) in cells.iter().enumerate() {
            let c = &g.columns[k % n];
            let class = markup
                .strip_prefix(" class=\"")
                .map(|m| &m[..m.find('"').unwrap()]);
            let want = match (k % n, c.numeric, c.name) {
                (_, true, _) => {
                    if class == Some("num split") {
                        // A range or a pair: two unbreakable halves.
                        assert_eq!(markup.matches("<span>").count(), 2, "{markup}");
                    }
                    class.filter(|c| c.starts_with("num"))
                }
                (0, _, _) => Some("name"),
                (_, _, "semantics" | "lints") => {
                    // Words kept whole (`spin-park`), a break offered between them.
                    let words: Vec<String> = text(&format!("<td{markup}"))
                        .split_whitespace()
                        .map(|w| format!("<span>{w}</span>"))
                        .collect();
                    assert!(
                        markup.ends_with(&format!(">{}", words.join(" "))),
                        "{markup}"
                    );
                    Some("wrap")
                }
                _ => None,
            };
            assert_eq!(class, want, "column {}: {markup}", c.name);
        }
        // A range is broken only between its halves, and the mark of an oversubscribed row
        // stays on the line of its name.
        assert!(
            cells.iter().any(|c| c.contains(" –</span> <span>")),
            "{cells:?}"
        );
        assert!(
            cells
                .iter()
                .any(|c| c.ends_with(">crossbeam-array-queue&nbsp;*")),
            "{cells:?}"
        );
        // The headings offer a break after a slash that a word follows, not before a unit.
        assert!(page.contains("<th class=\"num\">msgs/s</th>"), "{page}");
        assert!(page.contains("failed sends/<wbr>recvs</th>"), "{page}");
        assert_eq!(heading("round trips/sample"), "round trips/<wbr>sample");
        assert_eq!(heading("wakeups/msg per hop"), "wakeups/<wbr>msg per hop");
        assert_eq!(heading("submit/s"), "submit/s");
        assert_eq!(heading("× line RTT"), "× line RTT");
    }

    #[test]
    fn tables_fit_a_laptop_window_and_a_page_by_wrapping_not_scrolling() {
        // On screen: cells stay on one line unless they are prose, a split figure or a
        // section's caption; headings wrap; padding is tight.
        assert_eq!(declared("", "td", "white-space").as_deref(), Some("nowrap"));
        assert_eq!(declared("", "th", "white-space").as_deref(), Some("normal"));
        for wraps in ["td.wrap", "td.split", "tr.section td"] {
            assert_eq!(
                declared("", wraps, "white-space").as_deref(),
                Some("normal"),
                "{wraps}"
            );
        }
        for whole in ["td.split span", "td.wrap span"] {
            assert_eq!(
                declared("", whole, "white-space").as_deref(),
                Some("nowrap"),
                "{whole}"
            );
        }
        assert!(declared("", "td.wrap", "min-width").is_some());
        let padding = declared("", "th, td", "padding").unwrap();
        let horizontal = px(padding.split_whitespace().nth(1).map(str::to_string));
        assert!(horizontal <= 5.0, "{padding}");
        // Figures: tabular numbers a little smaller than the text.
        assert_eq!(
            declared("", "td.num, th.num", "font-variant-numeric").as_deref(),
            Some("tabular-nums")
        );
        assert!(px(declared("", "td.num", "font-size")) < px(declared("", "table", "font-size")));
        // Charts scale down with the page rather than scroll.
        assert_eq!(declared("", "svg", "max-width").as_deref(), Some("100%"));
        assert_eq!(declared("", "svg", "height").as_deref(), Some("auto"));

        // In print: no scrolling box clips a table or a chart, the page's width is used whole,
        // and tables are set smaller, names broken at their hyphens.
        let print = "print";
        assert_eq!(
            declared(print, "div.table, figure", "overflow").as_deref(),
            Some("visible")
        );
        assert_eq!(
            declared(print, "body", "max-width").as_deref(),
            Some("none")
        );
        assert!(px(declared(print, "table", "font-size")) < px(declared("", "table", "font-size")));
        assert!(
            px(declared(print, "td.num", "font-size")) < px(declared("", "td.num", "font-size"))
        );
        assert_eq!(
            declared(print, "td.name", "white-space").as_deref(),
            Some("normal")
        );
        assert!(declared(print, "th, td", "padding").is_some());
        assert!(px(declared(print, "th", "font-size")) < px(declared(print, "table", "font-size")));
        assert!(STYLE.contains("@page { margin: 10mm; }"));
    }

    #[test]
    fn every_series_look_is_styled_and_the_looks_differ() {
        // A hue per `c` class, a dash pattern per `d` class, all different.
        let hues: Vec<String> = (0..HUES)
            .map(|h| declared("", &format!("svg .c{h}"), "stroke").expect("a hue"))
            .collect();
        let dashes: Vec<String> = (0..DASHES)
            .map(|d| {
                declared("", &format!("svg .series.d{d}"), "stroke-dasharray").expect("a dash")
            })
            .collect();
        for (i, a) in hues.iter().enumerate() {
            assert!(!hues[i + 1..].contains(a), "{a} twice among {hues:?}");
        }
        for (i, a) in dashes.iter().enumerate() {
            assert!(!dashes[i + 1..].contains(a), "{a} twice among {dashes:?}");
        }
        // A legend's stroke shows two whole periods of every pattern.
        for d in &dashes {
            let period: f64 = d
                .split_whitespace()
                .filter_map(|n| n.parse::<f64>().ok())
                .sum();
            assert!(2.0 * period <= LEGEND_STROKE, "{d}");
        }
        // Every look a chart can give is styled.
        for i in 0..2 * HUES * DASHES {
            for class in series_look(i).split_whitespace() {
                let selector = match class.as_bytes()[0] {
                    b'c' => format!("svg .{class}"),
                    _ => format!("svg .series.{class}"),
                };
                assert!(
                    rules(STYLE).iter().any(|(_, s, _)| *s == selector),
                    "{selector}"
                );
            }
        }
    }
}
