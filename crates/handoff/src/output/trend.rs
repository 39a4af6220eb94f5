//! The history as a page: for each stream (workload, payload, producers → consumers, batch),
//! one figure per result over the runs a store holds, a line per transport, each run labelled
//! with its id, commit and note. Streams show their median throughput, ping-pong its p50.

use super::fmt;
use super::svg::{clip, escape, Axis, Svg};
use crate::report::{RunReport, TrialResult};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// One stored run, as the page labels it.
pub struct TrendRun {
    /// Its id in the store.
    pub id: String,
    /// Its commit (short) and note, e.g. `3f56014 · after the cache-line change`.
    pub label: String,
    /// Its report.
    pub report: RunReport,
}

const WIDTH: f64 = 900.0;
const COLOURS: usize = 10;

/// The stream a result belongs to, and the figure it is followed by.
fn stream(r: &TrialResult) -> Option<(String, f64, &'static str)> {
    let p = &r.params;
    if r.params.pacing != crate::workload::Pacing::Closed
        || r.verdict != crate::report::Verdict::Pass
    {
        return None;
    }
    let key = format!(
        "{} · {} · {} → {}{}",
        r.workload,
        p.payload,
        p.producers,
        p.consumers,
        p.batch.map_or(String::new(), |b| format!(" · batch {b}"))
    );
    if r.workload == crate::workload::WorkloadKind::PingPong {
        Some((key, r.latency.as_ref()?.p50 as f64, "p50 round trip"))
    } else {
        Some((key, r.throughput.as_ref()?.median, "median msgs/s"))
    }
}

/// Writes the page for `runs`, oldest first.
pub fn page(runs: &[TrendRun], out: &mut dyn Write) -> io::Result<()> {
    super::html::begin(out, "handoff history")?;
    writeln!(out, "<ol class=\"runs\">")?;
    for r in runs {
        writeln!(
            out,
            "<li>run {} · {} · suite {} · {}</li>",
            escape(&r.id),
            escape(&r.report.started_at),
            escape(&r.report.suite),
            escape(&r.label)
        )?;
    }
    writeln!(out, "</ol>")?;
    // stream → transport label → (run index, figure)
    let mut figures: BTreeMap<String, (&'static str, BTreeMap<String, Vec<(usize, f64)>>)> =
        BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        for r in &run.report.results {
            let Some((key, v, what)) = stream(r) else {
                continue;
            };
            let mut label = r.transport.clone();
            if let Some(c) = r.params.capacity {
                label.push_str(&format!(" cap={c}"));
            }
            let entry = figures.entry(key).or_insert((what, BTreeMap::new()));
            entry.1.entry(label).or_default().push((i, v));
        }
    }
    if figures.is_empty() || runs.len() < 2 {
        writeln!(
            out,
            "<p>A trend needs two or more finished runs with passing results.</p>"
        )?;
    }
    for (key, (what, lines)) in &figures {
        if runs.len() < 2 {
            break;
        }
        writeln!(out, "<figure>\n<figcaption>{}</figcaption>", escape(key))?;
        writeln!(out, "{}</figure>", chart(key, what, lines, runs))?;
    }
    writeln!(out, "</body>\n</html>")
}

fn chart(
    key: &str,
    what: &str,
    lines: &BTreeMap<String, Vec<(usize, f64)>>,
    runs: &[TrendRun],
) -> String {
    let legend_x = WIDTH - 250.0;
    let height = 330.0_f64.max(60.0 + 18.0 * lines.len() as f64 + 90.0);
    let bottom = height - 90.0;
    let x = Axis {
        lo: 0.0,
        hi: (runs.len() - 1).max(1) as f64,
        log: false,
        from: 100.0,
        to: legend_x - 30.0,
    };
    let y = Axis::fitting(lines.values().flatten().map(|p| p.1.max(1.0)), bottom, 16.0);
    let tick = if what.starts_with('p') {
        fmt::duration
    } else {
        fmt::rate
    };
    let mut svg = Svg::new(WIDTH, height);
    svg.y_axis(&x, &y, what, tick);
    svg.line((x.from, bottom), (x.to, bottom), "axis");
    for (i, run) in runs.iter().enumerate() {
        let at = x.at(i as f64);
        svg.line((at, bottom), (at, bottom + 5.0), "axis");
        svg.text(
            (at, bottom + 18.0),
            "middle",
            "tick",
            &format!("run {}", run.id),
        );
        svg.text(
            (at, bottom + 32.0),
            "middle",
            "note",
            &clip(&run.label, 110.0),
        );
    }
    svg.text(
        ((x.from + x.to) / 2.0, bottom + 60.0),
        "middle",
        "axis-label",
        "runs, oldest first (id, commit and note)",
    );
    for (i, (label, points)) in lines.iter().enumerate() {
        // The line's hue and dash (no two of the first 40 lines alike); its points its hue.
        let look = super::svg::series_look(i);
        let colour = format!("c{}", i % COLOURS);
        let pts: Vec<(f64, f64)> = points
            .iter()
            .map(|(r, v)| (x.at(*r as f64), y.at(v.max(1.0))))
            .collect();
        svg.polyline(&pts, &format!("series {look}"), label);
        for ((r, v), p) in points.iter().zip(&pts) {
            let tip = format!("{label}: run {}: {}", runs[*r].id, tick(*v));
            svg.dot(*p, 3.5, &format!("point {colour}"), &tip);
        }
        let ly = 24.0 + 18.0 * i as f64;
        svg.line(
            (legend_x, ly - 4.0),
            (legend_x + 22.0, ly - 4.0),
            &format!("series {look}"),
        );
        svg.text((legend_x + 28.0, ly), "start", "label", &clip(label, 210.0));
    }
    svg.finish("chart trend", &format!("History: {key}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_chart_of_many_lines_gives_each_its_own_look() {
        let runs: Vec<TrendRun> = (0..3)
            .map(|i| TrendRun {
                id: i.to_string(),
                label: format!("run {i}"),
                report: handoff_model::fixture::report(Vec::new()),
            })
            .collect();
        let lines: BTreeMap<String, Vec<(usize, f64)>> = (0..14)
            .map(|i| (format!("t{i:02}"), vec![(0, 1e6), (2, 2e6 + i as f64)]))
            .collect();
        let svg = chart("spsc", "median msgs/s", &lines, &runs);
        let looks: Vec<&str> = svg
            .split("<polyline class=\"series ")
            .skip(1)
            .map(|rest| &rest[..rest.find('"').unwrap()])
            .collect();
        assert_eq!(looks.len(), 14, "{svg}");
        let distinct: std::collections::BTreeSet<&&str> = looks.iter().collect();
        assert_eq!(distinct.len(), 14, "{looks:?}");
        assert_eq!(looks[10], "c0 d1", "the eleventh line is dashed: {looks:?}");
    }
}
