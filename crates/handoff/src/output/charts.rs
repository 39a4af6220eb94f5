//! The HTML report's charts, each drawn from one table's results as the session stored them
//! (every sample's figure, the stored percentiles, the limit the session compared with): no
//! statistic is computed here.
//!
//! | shape of the table | chart |
//! |---|---|
//! | stream | every sample's throughput per row, its min–max range and median, the machine's limit; rows listed apart below a rule |
//! | ping-pong, paced | latency percentiles (p50 … p99.99) on a "nines" axis, one line per row; uncorrected (from the actual send) faint for open-loop rows |
//! | ramp | achieved rate and p99 against the requested rate, the highest sustained rate marked |
//! | (a soak among the rows) | latency over time: each window's p99 and p50, one line each per row (`soak.rs`) |
//! | (across tables) | median throughput against capacity, producers or payload, one line per transport, where a run sweeps one of them |
//!
//! Each series of a chart has a look of its own (`svg::series_look`): ten hues, then the same
//! hues dashed, dotted and dash-dotted, so that a legend of up to 40 rows (a ping-pong table of
//! the default suite has over 20) names every line unambiguously.

use super::fmt;
use super::svg::{clip, series_look, Axis, Svg};
use super::view::{Group, Shape};
use crate::crossover::Crossing;
use crate::report::{Latency, RunReport, TrialResult};
use crate::sweep::{is_closed_stream, series_label, Sweep};

/// Width of every chart.
const WIDTH: f64 = 880.0;
/// Room for the row labels on the left of a throughput chart.
const LABEL_W: f64 = 280.0;
/// Height of one row of a throughput chart.
const ROW_H: f64 = 24.0;
/// Room under a chart for its axis.
const AXIS_H: f64 = 46.0;

/// The charts of one table, as SVG documents.
pub(crate) fn for_group(g: &Group, report: &RunReport) -> Vec<String> {
    let rows: Vec<(&str, &TrialResult, bool)> = g
        .members
        .iter()
        .map(|m| {
            (
                m.label.as_str(),
                &report.results[m.result],
                m.apart.is_some(),
            )
        })
        .collect();
    let mut charts: Vec<String> = match g.shape {
        Shape::Stream => throughput(&g.title, &rows).into_iter().collect(),
        Shape::PingPong | Shape::Paced => percentiles(&g.title, &rows).into_iter().collect(),
        Shape::Ramp => ramp(&g.title, &rows),
    };
    let labelled: Vec<(&str, &TrialResult)> = rows.iter().map(|(l, r, _)| (*l, *r)).collect();
    charts.extend(super::soak::chart(&g.title, &labelled));
    charts
}

/// Every sample's throughput per row (see the module docs); `None` if no row has a sample.
fn throughput(title: &str, rows: &[(&str, &TrialResult, bool)]) -> Option<String> {
    let rates = |r: &TrialResult| -> Vec<f64> { r.samples.iter().map(|s| s.msgs_per_s).collect() };
    let limit = rows
        .iter()
        .find_map(|(_, r, _)| r.limit.as_ref().filter(|l| l.probe == "stream-bandwidth"))
        .map(|l| l.limit);
    let all: Vec<f64> = rows.iter().flat_map(|(_, r, _)| rates(r)).collect();
    if all.is_empty() {
        return None;
    }
    let apart_rule = rows.iter().any(|(_, _, a)| *a) && rows.iter().any(|(_, _, a)| !*a);
    let height = 16.0 + ROW_H * (rows.len() as f64 + if apart_rule { 1.0 } else { 0.0 }) + AXIS_H;
    let x = Axis::fitting(all.iter().copied().chain(limit), LABEL_W, WIDTH - 24.0);
    let mut svg = Svg::new(WIDTH, height);
    let bottom = height - AXIS_H;
    let mut y = 16.0;
    let mut was_apart = false;
    for (label, r, apart) in rows {
        if *apart && !was_apart && apart_rule {
            svg.line((8.0, y + 4.0), (WIDTH - 8.0, y + 4.0), "rule");
            svg.text((8.0, y + 18.0), "start", "note", "listed apart, not ranked");
            y += ROW_H;
        }
        was_apart = *apart;
        let mid = y + ROW_H / 2.0;
        svg.text(
            (LABEL_W - 10.0, mid + 4.0),
            "end",
            "label",
            &clip(label, LABEL_W - 16.0),
        );
        let samples = rates(r);
        if samples.is_empty() {
            svg.text(
                (LABEL_W + 4.0, mid + 4.0),
                "start",
                "note",
                &format!("no samples ({})", r.verdict),
            );
            y += ROW_H;
            continue;
        }
        if let Some(t) = &r.throughput {
            svg.line((x.at(t.min), mid), (x.at(t.max), mid), "range");
            svg.line(
                (x.at(t.median), mid - 8.0),
                (x.at(t.median), mid + 8.0),
                "median",
            );
        }
        for (i, s) in samples.iter().enumerate() {
            let tip = format!(
                "{label}: sample {} of {}, {}",
                i + 1,
                samples.len(),
                fmt::rate(*s)
            );
            svg.dot((x.at(*s), mid), 3.2, "sample", &tip);
        }
        y += ROW_H;
    }
    if let Some(l) = limit {
        svg.line((x.at(l), 8.0), (x.at(l), bottom), "limit");
        svg.text(
            (x.at(l) - 4.0, 12.0),
            "end",
            "note",
            &format!("machine limit {}", fmt::rate(l)),
        );
    }
    svg.x_axis(
        &x,
        bottom,
        "messages per second · a dot per sample · bar: min–max · tick: median",
        fmt::rate,
    );
    Some(svg.finish("chart throughput", &format!("Throughput: {title}")))
}

/// The percentile positions of the "nines" axis: how many nines `q` has.
const QUANTILES: [(&str, f64); 5] = [
    ("p50", 0.301),
    ("p90", 1.0),
    ("p99", 2.0),
    ("p99.9", 3.0),
    ("p99.99", 4.0),
];

fn points(l: &Latency) -> [u64; 5] {
    [l.p50, l.p90, l.p99, l.p999, l.p9999]
}

/// Latency percentiles per row (see the module docs); `None` if no row has latencies.
fn percentiles(title: &str, rows: &[(&str, &TrialResult, bool)]) -> Option<String> {
    let series: Vec<(&str, &Latency, Option<&Latency>)> = rows
        .iter()
        .filter_map(|(label, r, _)| {
            let l = r.latency.as_ref()?;
            Some((
                *label,
                l,
                r.paced.as_ref().and_then(|p| p.uncorrected.as_ref()),
            ))
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    let legend_w = 260.0;
    let plot_right = WIDTH - legend_w;
    let height = 320.0_f64.max(40.0 + 18.0 * series.len() as f64 + AXIS_H);
    let bottom = height - AXIS_H;
    let x = Axis {
        lo: 0.0,
        hi: 4.2,
        log: false,
        from: 80.0,
        to: plot_right - 16.0,
    };
    let values = series.iter().flat_map(|(_, l, u)| {
        points(l)
            .into_iter()
            .chain(u.map(points).into_iter().flatten())
            .map(|v| v.max(1) as f64)
    });
    let mut y = Axis::fitting(values, bottom, 16.0);
    if !y.log {
        y.lo = 0.0;
    }
    let mut svg = Svg::new(WIDTH, height);
    svg.y_axis(&x, &y, "latency", fmt::duration);
    for (name, pos) in QUANTILES {
        svg.line((x.at(pos), bottom), (x.at(pos), bottom + 5.0), "axis");
        svg.text((x.at(pos), bottom + 18.0), "middle", "tick", name);
    }
    svg.line((x.from, bottom), (x.to, bottom), "axis");
    svg.text(
        ((x.from + x.to) / 2.0, bottom + 38.0),
        "middle",
        "axis-label",
        "percentile (a log scale of nines)",
    );
    for (i, (label, l, uncorrected)) in series.iter().enumerate() {
        let look = series_look(i);
        let at = |l: &Latency| -> Vec<(f64, f64)> {
            QUANTILES
                .iter()
                .zip(points(l))
                .map(|((_, q), v)| (x.at(*q), y.at(v.max(1) as f64)))
                .collect()
        };
        if let Some(u) = uncorrected {
            svg.polyline(
                &at(u),
                &format!("series faint {look}"),
                &format!("{label}: from the actual send (uncorrected)"),
            );
        }
        svg.polyline(
            &at(l),
            &format!("series {look}"),
            &format!("{label}: {}", l.kind),
        );
        for ((name, _), (p, v)) in QUANTILES.iter().zip(at(l).into_iter().zip(points(l))) {
            svg.dot(
                p,
                3.0,
                &format!("percentile {look}"),
                &format!("{label}: {name} {}", fmt::duration(v as f64)),
            );
        }
        svg.legend(
            (plot_right, legend_w),
            i,
            &format!("series {look}"),
            "label",
            label,
        );
    }
    if series.iter().any(|(_, _, u)| u.is_some()) {
        svg.legend(
            (plot_right, legend_w),
            series.len(),
            "series faint",
            "note",
            "faint: from the actual send",
        );
    }
    Some(svg.finish(
        "chart percentiles",
        &format!("Latency percentiles: {title}"),
    ))
}

/// A ramp's achieved rate and p99 against the requested rate, one chart each.
fn ramp(title: &str, rows: &[(&str, &TrialResult, bool)]) -> Vec<String> {
    // Each row's search, and the hop that saturated first (pipelines).
    let searches: Vec<(&str, &crate::open_loop::ramp::RampOutcome, Option<&str>)> = rows
        .iter()
        .filter_map(|(label, r, _)| {
            let ramp = r.ramp.as_ref()?;
            Some((*label, &ramp.search, ramp.saturating_hop.as_deref()))
        })
        .filter(|(_, s, _)| !s.steps.is_empty())
        .collect();
    if searches.is_empty() {
        return Vec::new();
    }
    let requested = searches
        .iter()
        .flat_map(|(_, s, _)| s.steps.iter().map(|st| st.figures.requested as f64));
    let x = Axis::fitting(requested, 90.0, WIDTH - 280.0);
    let mut charts = Vec::new();
    type Figure = fn(&crate::open_loop::ramp::StepFigures) -> f64;
    let achieved: Figure = |f| f.achieved;
    let p99: Figure = |f| f.p99 as f64;
    for (what, figure, tick, name) in [
        (
            "achieved rate",
            achieved,
            fmt::rate as fn(f64) -> String,
            "ramp-rate",
        ),
        (
            "p99 latency",
            p99,
            fmt::duration as fn(f64) -> String,
            "ramp-p99",
        ),
    ] {
        let height = 300.0;
        let bottom = height - AXIS_H;
        let values = searches
            .iter()
            .flat_map(|(_, s, _)| s.steps.iter().map(|st| figure(&st.figures).max(1.0)));
        let y = Axis::fitting(values, bottom, 16.0);
        let mut svg = Svg::new(WIDTH, height);
        svg.y_axis(&x, &y, what, tick);
        for (i, (label, s, hop)) in searches.iter().enumerate() {
            let look = series_look(i);
            let mut steps: Vec<_> = s.steps.iter().collect();
            steps.sort_by_key(|st| st.figures.requested);
            let pts: Vec<(f64, f64)> = steps
                .iter()
                .map(|st| {
                    (
                        x.at(st.figures.requested as f64),
                        y.at(figure(&st.figures).max(1.0)),
                    )
                })
                .collect();
            svg.polyline(&pts, &format!("series {look}"), &format!("{label}: {what}"));
            for (st, p) in steps.iter().zip(&pts) {
                let class = if st.sustained { "step" } else { "step missed" };
                let tip = format!(
                    "{label}: at {} {} {}",
                    fmt::rate(st.figures.requested as f64),
                    what,
                    tick(figure(&st.figures))
                );
                svg.dot(*p, 3.5, &format!("{class} {look}"), &tip);
            }
            if let Some(knee) = s.sustained {
                let at = x.at(knee as f64);
                svg.line((at, 16.0), (at, bottom), &format!("knee {look}"));
                if let Some(hop) = hop {
                    let said = format!("saturates first: {hop}");
                    let y = 30.0 + 14.0 * i as f64;
                    svg.text(
                        (at + 4.0, y),
                        "start",
                        &format!("note saturates {look}"),
                        &said,
                    );
                }
            }
            svg.legend(
                (WIDTH - 278.0, 278.0),
                i,
                &format!("series {look}"),
                "label",
                label,
            );
        }
        svg.x_axis(&x, bottom, "requested rate (messages per second) · hollow: not sustained · vertical: highest sustained", fmt::rate);
        charts.push(svg.finish(&format!("chart {name}"), &format!("Ramp, {what}: {title}")));
    }
    charts
}

/// Throughput against each swept parameter (capacity, producers, payload), one line per
/// transport, for every set of closed-loop stream results that differ in that parameter alone;
/// an oversubscribed point (more threads than cores) is drawn hollow, and each of `crossings`
/// along the sweep is marked between its two points. Each chart comes with its caption and the
/// sentences of its crossings.
pub(crate) fn sweeps(
    report: &RunReport,
    crossings: &[Crossing],
) -> Vec<(String, String, Vec<String>)> {
    use std::collections::BTreeMap;
    let streams: Vec<&TrialResult> = report
        .results
        .iter()
        .filter(|r| is_closed_stream(r))
        .collect();
    let mut charts = Vec::new();
    for sweep in Sweep::CLOSED_LOOP {
        let mut sets: BTreeMap<String, Vec<&TrialResult>> = BTreeMap::new();
        for r in &streams {
            if sweep.of(r).is_some() {
                sets.entry(sweep.key(r)).or_default().push(r);
            }
        }
        for (key, set) in &sets {
            let mut xs: Vec<f64> = set.iter().filter_map(|r| sweep.of(r)).collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            if xs.len() < 2 {
                continue;
            }
            let caption = format!(
                "Throughput against {}: {}",
                sweep.name(),
                sweep.title(set[0])
            );
            let here: Vec<&Crossing> = crossings
                .iter()
                .filter(|c| c.sweep == sweep && c.key == *key)
                .collect();
            let notes = here.iter().map(|c| c.sentence()).collect();
            charts.push((
                caption.clone(),
                sweep_chart(sweep, set, &here, &caption),
                notes,
            ));
        }
    }
    charts
}

fn sweep_chart(
    sweep: Sweep,
    set: &[&TrialResult],
    crossings: &[&Crossing],
    caption: &str,
) -> String {
    use std::collections::BTreeMap;
    let mut lines: BTreeMap<String, Vec<(f64, f64, bool)>> = BTreeMap::new();
    for r in set {
        let label = series_label(r);
        let median = r.throughput.as_ref().map_or(0.0, |t| t.median);
        let over = r.placement.oversubscribed;
        lines
            .entry(label)
            .or_default()
            .push((sweep.of(r).unwrap_or(0.0), median, over));
    }
    let height = 300.0;
    let bottom = height - AXIS_H;
    let legend_x = WIDTH - 250.0;
    let xs = set.iter().filter_map(|r| sweep.of(r));
    let mut x = Axis::fitting(xs, 90.0, legend_x - 20.0);
    if !x.log {
        // A handful of swept values reads best spread evenly in proportion.
        x.lo = 0.0;
    }
    let y = Axis::fitting(lines.values().flatten().map(|p| p.1.max(1.0)), bottom, 16.0);
    let mut svg = Svg::new(WIDTH, height);
    svg.y_axis(&x, &y, "median msgs/s", fmt::rate);
    for (i, (label, points)) in lines.iter_mut().enumerate() {
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        let look = series_look(i);
        let pts: Vec<(f64, f64)> = points
            .iter()
            .map(|p| (x.at(p.0), y.at(p.1.max(1.0))))
            .collect();
        svg.polyline(&pts, &format!("series {look}"), label);
        for (p, at) in points.iter().zip(&pts) {
            let class = if p.2 {
                "point missed oversubscribed"
            } else {
                "point"
            };
            let tip = format!(
                "{label}: {} {}: {}{}",
                sweep.name(),
                p.0,
                fmt::rate(p.1),
                if p.2 { " (oversubscribed)" } else { "" }
            );
            svg.dot(*at, 3.5, &format!("{class} {look}"), &tip);
        }
        svg.legend(
            (legend_x - 8.0, WIDTH - legend_x + 8.0),
            i,
            &format!("series {look}"),
            "label",
            label,
        );
    }
    // A crossing is somewhere between its two points: a dotted line half-way between them.
    for c in crossings {
        let at = (x.at(c.from) + x.at(c.to)) / 2.0;
        svg.polyline(&[(at, 16.0), (at, bottom)], "crossing", &c.sentence());
        svg.text((at, 12.0), "middle", "note", "crossing");
    }
    let axis = format!(
        "{} · hollow: oversubscribed (more threads than cores)",
        sweep.name()
    );
    svg.x_axis(&x, bottom, &axis, fmt::si);
    svg.finish("chart sweep", caption)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{latency, paced, stream};
    use crate::workload::WorkloadKind;
    use std::collections::BTreeSet;

    /// The class lists of every `<tag …>` of `svg` whose classes include `class`.
    fn marks<'a>(svg: &'a str, tag: &str, class: &str) -> Vec<Vec<&'a str>> {
        svg.split(&format!("<{tag} class=\""))
            .skip(1)
            .map(|rest| rest[..rest.find('"').unwrap()].split_whitespace().collect())
            .filter(|classes: &Vec<&str>| classes.contains(&class))
            .collect()
    }

    /// The hue and dash classes of a mark (`c3`, `d1`).
    fn look<'a>(classes: &[&'a str]) -> (&'a str, &'a str) {
        let of = |prefix: char| -> &'a str {
            let found: Vec<&&str> = classes
                .iter()
                .filter(|c| {
                    c.len() > 1
                        && c.starts_with(prefix)
                        && c[1..].bytes().all(|b| b.is_ascii_digit())
                })
                .collect();
            assert_eq!(found.len(), 1, "one {prefix} class in {classes:?}");
            found[0]
        };
        (of('c'), of('d'))
    }

    fn ping_pongs(n: usize) -> (Vec<String>, Vec<TrialResult>) {
        let results = (0..n)
            .map(|i| {
                let mut r = stream();
                r.workload = WorkloadKind::PingPong;
                r.transport = format!("transport-{i}");
                r.latency = Some(latency(1_000 + 50 * i as u64, 100_000));
                r
            })
            .collect();
        ((0..n).map(|i| format!("transport-{i}")).collect(), results)
    }

    #[test]
    fn every_series_of_a_crowded_chart_has_a_look_of_its_own() {
        let (labels, results) = ping_pongs(24);
        let rows: Vec<(&str, &TrialResult, bool)> = labels
            .iter()
            .zip(&results)
            .map(|(l, r)| (l.as_str(), r, false))
            .collect();
        let svg = percentiles("ping-pong", &rows).expect("a chart");
        let lines = marks(&svg, "polyline", "series");
        assert_eq!(lines.len(), 24, "a line per row");
        let looks: Vec<(&str, &str)> = lines.iter().map(|c| look(c)).collect();
        let distinct: BTreeSet<&(&str, &str)> = looks.iter().collect();
        assert_eq!(
            distinct.len(),
            24,
            "no two lines share hue and dash: {looks:?}"
        );
        // More than one dash pattern is needed, and every hue is used before one repeats.
        let dashes: BTreeSet<&str> = looks.iter().map(|l| l.1).collect();
        assert!(dashes.len() >= 3, "{dashes:?}");
        let hues: BTreeSet<&str> = looks[..10].iter().map(|l| l.0).collect();
        assert_eq!(hues.len(), 10);
        // The legend shows each row's stroke in its line's look, in the same order, and each
        // row's percentile marks take its hue.
        let legend: Vec<(&str, &str)> = marks(&svg, "line", "series")
            .iter()
            .map(|c| look(c))
            .collect();
        assert_eq!(legend, looks);
        let dots = marks(&svg, "circle", "percentile");
        assert_eq!(dots.len(), 5 * 24);
        for (k, dot) in dots.iter().enumerate() {
            assert_eq!(look(dot).0, looks[k / 5].0, "{dot:?}");
        }
    }

    #[test]
    fn an_uncorrected_line_is_faint_in_its_rows_look() {
        let mut rows = Vec::new();
        for (i, rate) in [1000, 2000].into_iter().enumerate() {
            let mut r = paced(rate, rate as f64);
            r.transport = format!("t{i}");
            r.paced.as_mut().unwrap().uncorrected = Some(latency(20_000, 1_000_000));
            rows.push(r);
        }
        let labelled: Vec<(&str, &TrialResult, bool)> = rows
            .iter()
            .map(|r| (r.transport.as_str(), r, false))
            .collect();
        let svg = percentiles("paced", &labelled).unwrap();
        let faint: Vec<(&str, &str)> = marks(&svg, "polyline", "faint")
            .iter()
            .map(|c| look(c))
            .collect();
        let solid: Vec<(&str, &str)> = marks(&svg, "polyline", "series")
            .iter()
            .filter(|c| !c.contains(&"faint"))
            .map(|c| look(c))
            .collect();
        assert_eq!(faint.len(), 2);
        assert_eq!(faint, solid, "each row's two lines share its look");
        assert!(
            svg.contains(">faint: from the actual send</text>"),
            "unclipped"
        );
    }
}
