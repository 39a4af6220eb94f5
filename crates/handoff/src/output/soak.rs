//! A soak's windows as the human formats show them: a table per soak result under its group's
//! table (terminal, markdown) and a latency-over-time chart (HTML). Every figure is one the
//! session stored in the sample's windows; nothing is recomputed, except that a long soak's
//! windows are shown [`MAX_ROWS`] rows at most, consecutive windows merged into one row (their
//! counts added, their latency the worst window's, the backlog, what the brokers held
//! uncommitted and memory at the row's end). The uncommitted column shows only for a soak whose
//! brokers told it.

use super::fmt;
use super::svg::{Axis, Svg};
use crate::open_loop::SoakWindow;
use crate::report::TrialResult;

/// The most rows a soak's table shows.
pub(crate) const MAX_ROWS: usize = 40;

/// Column headings of a soak's table, without the brokers' figure.
const COLUMNS: [&str; 8] = [
    "window",
    "sent/s",
    "delivered/s",
    "p50",
    "p99",
    "max",
    "backlog",
    "resident",
];

/// The brokers' figure's heading, and where it goes (after the backlog).
const UNCOMMITTED: (&str, usize) = ("uncommitted", 7);

/// The windows of one timed sample of one result, ready to print.
pub(crate) struct SoakTable {
    /// Which row of the group's table, and which sample if it had several.
    pub heading: String,
    /// Column headings.
    pub columns: Vec<&'static str>,
    /// One line per row of windows, a cell per column.
    pub rows: Vec<Vec<String>>,
}

/// The soak tables of a group's rows (`label`, result), in the group's order.
pub(crate) fn tables(rows: &[(&str, &TrialResult)]) -> Vec<SoakTable> {
    let mut out = Vec::new();
    for (label, r) in rows {
        let soaked: Vec<&Vec<SoakWindow>> = r
            .samples
            .iter()
            .map(|s| &s.windows)
            .filter(|w| !w.is_empty())
            .collect();
        for (k, windows) in soaked.iter().enumerate() {
            let window_ms = windows[0].length_ms;
            let per = windows.len().div_ceil(MAX_ROWS);
            let sample = if soaked.len() > 1 {
                format!(", sample {} of {}", k + 1, soaked.len())
            } else {
                String::new()
            };
            let merged = if per > 1 {
                format!("; each row {per} windows, its latency the worst of them")
            } else {
                String::new()
            };
            let brokers = windows.iter().any(|w| w.uncommitted.is_some());
            let mut columns = COLUMNS.to_vec();
            let mut rows: Vec<Vec<String>> = windows.chunks(per).map(row).collect();
            if brokers {
                let (heading, at) = UNCOMMITTED;
                columns.insert(at, heading);
                for (cells, ws) in rows.iter_mut().zip(windows.chunks(per)) {
                    let last = ws[ws.len() - 1].uncommitted;
                    cells.insert(at, last.map_or_else(|| "–".into(), |n| fmt::si(n as f64)));
                }
            }
            out.push(SoakTable {
                heading: format!(
                    "soak of {}{sample}: {} windows of {}{merged}",
                    label.trim(),
                    windows.len(),
                    span(window_ms)
                ),
                columns,
                rows,
            });
        }
    }
    out
}

/// One row from consecutive windows.
fn row(ws: &[SoakWindow]) -> Vec<String> {
    let first = &ws[0];
    let last = &ws[ws.len() - 1];
    let length_ms: f64 = ws.iter().map(|w| w.length_ms).sum();
    let per_s = |n: u64| {
        if length_ms > 0.0 {
            fmt::rate(n as f64 * 1000.0 / length_ms)
        } else {
            "–".into()
        }
    };
    let fired = ws.iter().any(|w| w.fired > 0);
    let worst = |f: fn(&SoakWindow) -> u64| {
        if fired {
            fmt::duration(ws.iter().filter(|w| w.fired > 0).map(f).max().unwrap_or(0) as f64)
        } else {
            "–".into()
        }
    };
    vec![
        format!(
            "{} – {}",
            span(first.start_ms),
            span(last.start_ms + last.length_ms)
        ),
        per_s(ws.iter().map(|w| w.sent).sum()),
        per_s(ws.iter().map(|w| w.delivered).sum()),
        worst(|w| w.p50),
        worst(|w| w.p99),
        worst(|w| w.max),
        fmt::si(last.backlog as f64),
        last.rss_bytes
            .map_or_else(|| "–".into(), |b| fmt::memory(b as f64)),
    ]
}

/// A moment in milliseconds, as short as it reads: `0 s`, `10 s`, `2.5 s`, `10.001 s`,
/// `1m40s` (a whole second from 100 s up).
fn span(ms: f64) -> String {
    let s = ms / 1000.0;
    if s >= 100.0 {
        return fmt::span_ms((s.round() as u64) * 1000);
    }
    let text = format!("{s:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} s")
}

/// Width of the chart.
const WIDTH: f64 = 880.0;
/// Room for the legend on the right.
const LEGEND_W: f64 = 260.0;
/// Room under the chart for its axis.
const AXIS_H: f64 = 46.0;
/// Distinct line styles before they repeat.
const COLOURS: usize = 10;

/// Latency over time for a group's soak rows (`label`, result): per window, the p99 (solid) and
/// the p50 (dashed) of each row's first soaked sample; `None` if no row soaked.
pub(crate) fn chart(title: &str, rows: &[(&str, &TrialResult)]) -> Option<String> {
    let series: Vec<(&str, &[SoakWindow])> = rows
        .iter()
        .filter_map(|(label, r)| {
            let s = r.samples.iter().find(|s| !s.windows.is_empty())?;
            Some((*label, s.windows.as_slice()))
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    let height = 320.0_f64.max(40.0 + 18.0 * (series.len() + 1) as f64 + AXIS_H);
    let bottom = height - AXIS_H;
    let plot_right = WIDTH - LEGEND_W;
    let end_s = series
        .iter()
        .flat_map(|(_, ws)| ws.iter().map(|w| (w.start_ms + w.length_ms) / 1000.0))
        .fold(0.0, f64::max);
    let x = Axis {
        lo: 0.0,
        hi: end_s.max(1e-3),
        log: false,
        from: 80.0,
        to: plot_right - 16.0,
    };
    let fired = |w: &&SoakWindow| w.fired > 0;
    let values = series.iter().flat_map(|(_, ws)| {
        ws.iter()
            .filter(fired)
            .flat_map(|w| [w.p50.max(1) as f64, w.p99.max(1) as f64])
    });
    let mut y = Axis::fitting(values, bottom, 16.0);
    if !y.log {
        y.lo = 0.0;
    }
    let mut svg = Svg::new(WIDTH, height);
    svg.y_axis(&x, &y, "latency", fmt::duration);
    svg.x_axis(
        &x,
        bottom,
        "time since the first send was due (each point: the window ending there)",
        |s| span(s * 1000.0),
    );
    for (i, (label, ws)) in series.iter().enumerate() {
        let colour = format!("c{}", i % COLOURS);
        let at = |f: fn(&SoakWindow) -> u64| -> Vec<(f64, f64)> {
            ws.iter()
                .filter(fired)
                .map(|w| {
                    (
                        x.at((w.start_ms + w.length_ms) / 1000.0),
                        y.at(f(w).max(1) as f64),
                    )
                })
                .collect()
        };
        svg.polyline(
            &at(|w| w.p50),
            &format!("series uncorrected {colour}"),
            &format!("{label}: p50 per window"),
        );
        let p99 = at(|w| w.p99);
        svg.polyline(
            &p99,
            &format!("series {colour}"),
            &format!("{label}: p99 per window"),
        );
        for (w, p) in ws.iter().filter(fired).zip(&p99) {
            svg.dot(
                *p,
                2.5,
                &format!("percentile {colour}"),
                &format!(
                    "{label}: window ending {}: p99 {}, p50 {}, {} delivered, backlog {}",
                    span(w.start_ms + w.length_ms),
                    fmt::duration(w.p99 as f64),
                    fmt::duration(w.p50 as f64),
                    fmt::rate(w.rate()),
                    w.backlog
                ),
            );
        }
        svg.legend(
            (plot_right, LEGEND_W),
            i,
            &format!("series {colour}"),
            "label",
            label,
        );
    }
    svg.legend(
        (plot_right, LEGEND_W),
        series.len(),
        "series uncorrected",
        "note",
        "solid: p99 · dashed: p50",
    );
    Some(svg.finish("chart soak", &format!("Latency over time: {title}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::paced;

    fn soaked(n: usize) -> TrialResult {
        let mut r = paced(1000, 1000.0);
        r.samples.truncate(1);
        r.samples[0].windows = (0..n)
            .map(|k| SoakWindow {
                start_ms: k as f64 * 10_000.0,
                length_ms: 10_000.0,
                sent: 10_000,
                delivered: 10_000,
                fired: 10_000,
                p50: 50_000,
                p99: 100_000 + 1000 * k as u64,
                max: 1_000_000,
                backlog: k as u64,
                rss_bytes: Some(32 << 20),
                uncommitted: None,
            })
            .collect();
        r
    }

    #[test]
    fn a_soak_shows_one_row_per_window_with_rates_and_latency() {
        let r = soaked(30);
        let t = tables(&[("kafka", &r)]);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].heading, "soak of kafka: 30 windows of 10 s");
        assert_eq!(t[0].rows.len(), 30);
        assert_eq!(
            t[0].rows[2],
            [
                "20 s – 30 s",
                "1.00 k/s",
                "1.00 k/s",
                "50.0 µs",
                "102 µs",
                "1.00 ms",
                "2",
                "32.0 MiB"
            ]
        );
        assert_eq!(t[0].columns, COLUMNS);
    }

    #[test]
    fn what_the_brokers_hold_uncommitted_shows_after_the_backlog() {
        let mut r = soaked(3);
        for (k, w) in r.samples[0].windows.iter_mut().enumerate() {
            // The broker did not answer at the end of the second window.
            w.uncommitted = (k != 1).then_some(1500 * k as u64);
        }
        let t = tables(&[("kafka", &r)]);
        assert_eq!(t[0].columns[6..9], ["backlog", "uncommitted", "resident"]);
        let cells: Vec<&str> = t[0].rows.iter().map(|r| r[7].as_str()).collect();
        assert_eq!(cells, ["0", "–", "3.00 k"]);
        assert!(t[0].rows.iter().all(|r| r.len() == t[0].columns.len()));
    }

    /// A soak's rates and counts read as every table's: three significant digits, whatever the
    /// rate the ramp settled on (22627/s, 452540 messages over 20 s).
    #[test]
    fn a_soak_row_writes_rates_and_counts_with_three_digits() {
        let mut r = soaked(2);
        for w in &mut r.samples[0].windows {
            (w.sent, w.delivered, w.backlog) = (226_270, 218_013, 45_254);
            w.uncommitted = Some(63_488);
        }
        let t = tables(&[("kafka", &r)]);
        assert_eq!(
            t[0].rows[1],
            [
                "10 s – 20 s",
                "22.6 k/s",
                "21.8 k/s",
                "50.0 µs",
                "101 µs",
                "1.00 ms",
                "45.3 k",
                "63.5 k",
                "32.0 MiB"
            ]
        );
    }

    #[test]
    fn a_long_soak_merges_windows_into_at_most_forty_rows() {
        let r = soaked(360);
        let t = tables(&[("kafka", &r)]);
        assert_eq!(t[0].rows.len(), 40);
        assert!(
            t[0].heading.contains("each row 9 windows"),
            "{}",
            t[0].heading
        );
        // The worst window's p99 of the last nine, and the backlog at the row's end.
        assert_eq!(t[0].rows[39][4], fmt::duration(100_000.0 + 359_000.0));
        assert_eq!(t[0].rows[39][6], "359");
        assert_eq!(t[0].rows[39][0], "58m30s – 1h");
        // A short tail reads to the millisecond.
        assert_eq!(span(10_001.3), "10.001 s");
        assert_eq!(span(2_500.0), "2.5 s");
    }

    #[test]
    fn the_chart_draws_each_soaked_row_and_none_without_a_soak() {
        let r = soaked(30);
        let svg = chart("paced", &[("kafka", &r)]).unwrap();
        assert!(svg.contains("Latency over time: paced"));
        assert_eq!(svg.matches("<circle").count(), 30);
        assert!(chart("paced", &[("kafka", &paced(1000, 1000.0))]).is_none());
    }
}
