//! A comparison as a self-contained HTML page: the two runs, a chart of every result's change
//! with its 95% interval (slower in red, faster in green, no change shown `~` in grey, the
//! threshold as a band around zero), and the comparison's table.

use super::cells::{cells, footer, header, COLUMNS};
use crate::compare::model::{Change, Comparison, Row};
use crate::output::svg::{clip, escape, Axis, Svg};
use std::io::{self, Write};

/// Width of the chart, and room for the labels on its left.
const WIDTH: f64 = 900.0;
const LABEL_W: f64 = 360.0;
const ROW_H: f64 = 22.0;

/// Writes the page.
pub(super) fn page(c: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    crate::output::html::begin(out, super::title(c))?;
    writeln!(out, "<dl class=\"header\">")?;
    for (label, text) in header(c) {
        writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(label), escape(&text))?;
    }
    writeln!(out, "</dl>")?;
    for w in &c.warnings {
        writeln!(
            out,
            "<p class=\"warning\"><strong>Warning:</strong> {}</p>",
            escape(w)
        )?;
    }
    if c.rows.is_empty() {
        writeln!(out, "<p>No result is in both runs.</p>")?;
    } else {
        if let Some(chart) = chart(c) {
            writeln!(out, "<figure>\n{chart}</figure>")?;
        }
        writeln!(out, "<table>\n<thead><tr>")?;
        for (i, name) in COLUMNS.iter().enumerate() {
            let class = if (2..=6).contains(&i) {
                " class=\"num\""
            } else {
                ""
            };
            write!(out, "<th{class}>{}</th>", escape(name))?;
        }
        writeln!(out, "</tr></thead>\n<tbody>")?;
        for r in &c.rows {
            write!(out, "<tr class=\"{}\">", kind(r))?;
            for (i, cell) in cells(r).iter().enumerate() {
                let class = if (2..=6).contains(&i) {
                    " class=\"num\""
                } else {
                    ""
                };
                write!(out, "<td{class}>{}</td>", escape(cell))?;
            }
            writeln!(out, "</tr>")?;
        }
        writeln!(out, "</tbody>\n</table>")?;
    }
    let f = footer(c);
    if !f.is_empty() {
        writeln!(out, "<ul class=\"notes\">")?;
        for line in f {
            writeln!(out, "<li>{}</li>", escape(&line))?;
        }
        writeln!(out, "</ul>")?;
    }
    writeln!(out, "</body>\n</html>")
}

/// `slower`, `faster` or `same`: how a row is coloured.
fn kind(r: &Row) -> &'static str {
    match r.change {
        Change::Slower => "slower",
        Change::Faster => "faster",
        _ => "same",
    }
}

/// The change of every row with a ratio, as a percentage with its interval.
fn chart(c: &Comparison) -> Option<String> {
    let rows: Vec<&Row> = c.rows.iter().filter(|r| r.ratio.is_some()).collect();
    if rows.is_empty() {
        return None;
    }
    let pct = |x: f64| (x - 1.0) * 100.0;
    let extent = rows
        .iter()
        .flat_map(|r| {
            let mut v = vec![pct(r.ratio.unwrap_or(1.0)).abs()];
            if let Some(i) = r.interval {
                v.extend([pct(i.low).abs(), pct(i.high).abs()]);
            }
            v
        })
        .fold(c.judgement.threshold * 100.0 * 1.5, f64::max)
        .min(400.0);
    let half = Axis::fitting([extent], 0.0, 1.0).hi;
    let x = Axis {
        lo: -half,
        hi: half,
        log: false,
        from: LABEL_W,
        to: WIDTH - 20.0,
    };
    let height = 20.0 + ROW_H * rows.len() as f64 + 48.0;
    let bottom = height - 48.0;
    let mut svg = Svg::new(WIDTH, height);
    let t = c.judgement.threshold * 100.0;
    svg.line((x.at(-t), 12.0), (x.at(-t), bottom), "grid");
    svg.line((x.at(t), 12.0), (x.at(t), bottom), "grid");
    svg.line((x.at(0.0), 12.0), (x.at(0.0), bottom), "axis");
    for (i, r) in rows.iter().enumerate() {
        let y = 20.0 + ROW_H * i as f64 + ROW_H / 2.0;
        let class = kind(r);
        svg.text(
            (LABEL_W - 10.0, y + 4.0),
            "end",
            "label",
            &clip(
                &format!("{} · {}", r.identity, r.metric.name()),
                LABEL_W - 16.0,
            ),
        );
        if let Some(i) = r.interval {
            svg.line(
                (x.at(pct(i.low)), y),
                (x.at(pct(i.high)), y),
                &format!("interval {class}"),
            );
        }
        let ratio = r.ratio.unwrap_or(1.0);
        let tip = format!("{}: {:+.1}% ({})", r.identity, pct(ratio), r.mark());
        svg.dot((x.at(pct(ratio)), y), 4.0, &format!("change {class}"), &tip);
    }
    svg.line((x.from, bottom), (x.to, bottom), "axis");
    for v in [-half, -half / 2.0, 0.0, half / 2.0, half] {
        svg.line((x.at(v), bottom), (x.at(v), bottom + 5.0), "axis");
        svg.text(
            (x.at(v), bottom + 18.0),
            "middle",
            "tick",
            &format!("{v:+.0}%"),
        );
    }
    svg.text(
        ((x.from + x.to) / 2.0, bottom + 38.0),
        "middle",
        "axis-label",
        &format!("change of the median, after vs before (bar: 95% interval; grey lines: the ±{t:.0}% threshold)"),
    );
    Some(svg.finish("chart compare", "Change per result"))
}
