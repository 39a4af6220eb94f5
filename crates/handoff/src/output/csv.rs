//! `csv`: one flat row per result, figures as raw numbers (messages per second, nanoseconds),
//! empty where not measured; the verdict as in JSON (`pass`, `fail`, `hung`, …). Multi-valued
//! cells (options, lint codes) are joined with `;`. A result whose samples fell into two regimes
//! has both in the `mode_*` columns (the median of each, in the unit of `tput_median` for a
//! stream and of `ns_per_msg_median` for ping-pong, and its share of the samples).
//!
//! When any result of the report has its CPU cost measured, the [`CPU_COLUMNS`] follow all the
//! others (`cpu_ns_per_msg`, `producer_cores`, `consumer_cores`, `runtime_cores`: medians over
//! the timed samples, the last for tokio drivers, whose runtime threads run both sides' tasks;
//! empty for a result without them), so every other column keeps its position; a report without
//! CPU figures has none of them. In the same way, when any result recorded its producers'
//! submit rate, [`SUBMIT_COLUMNS`] come last (`submit_median`, messages per second until every
//! producer's last send returned).
//!
//! A text cell that a spreadsheet would read as a formula (one that starts with `=`, `+`, `-`,
//! `@`, a tab or a carriage return: a transport's name from a plugin, an option value, the
//! output a crashed worker printed) is written behind a single quote `'`, which a spreadsheet
//! shows as text and never runs (see [`text`]). Numeric cells are written as the numbers they
//! are: a negative figure stays `-3.5`. Nothing else of the text is changed.

use super::Exporter;
use crate::report::RunReport;
use crate::workload::Pacing;
use std::io::{self, Write};

/// Column headings, in order.
const COLUMNS: [&str; 45] = [
    "transport",
    "workload",
    "semantics",
    "payload",
    "payload_bytes",
    "capacity",
    "messages",
    "messages_requested",
    "producers",
    "consumers",
    "driver",
    "batch",
    "options",
    "samples",
    "warmup",
    "verdict",
    "violation",
    "tput_median",
    "tput_min",
    "tput_max",
    "tput_spread",
    "ns_per_msg_median",
    "p50",
    "p90",
    "p99",
    "p999",
    "max",
    "failed_sends",
    "failed_recvs",
    "limit_ratio",
    "lints",
    "placement",
    "digest",
    "pacing",
    "hops",
    "achieved_rate",
    "refused",
    "p9999",
    "uncorrected_p99",
    "sustained_rate",
    "saturating_hop",
    "mode_low",
    "mode_low_share",
    "mode_high",
    "mode_high_share",
];

/// The CPU cost's columns, after [`COLUMNS`] in a report where some result measured it.
const CPU_COLUMNS: [&str; 4] = [
    "cpu_ns_per_msg",
    "producer_cores",
    "consumer_cores",
    "runtime_cores",
];

/// The CPU cost's cells of `r`, in the order of [`CPU_COLUMNS`]; empty where not measured.
fn cpu_cells(r: &crate::report::TrialResult) -> [String; CPU_COLUMNS.len()] {
    let c = r.cpu.as_ref();
    [
        opt(c.map(|c| c.ns_per_msg)),
        opt(c.map(|c| c.producer_cores)),
        opt(c.map(|c| c.consumer_cores)),
        opt(c.map(|c| c.runtime_cores)),
    ]
}

/// The submit rate's column, last, in a report where some result recorded it.
const SUBMIT_COLUMNS: [&str; 1] = ["submit_median"];

/// Writes one CSV row per result.
pub(super) struct CsvExporter;

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

/// A text cell, neutralised for spreadsheets: a cell that starts with `=`, `+`, `-`, `@`, a tab
/// or a carriage return would be read as a formula (and `=HYPERLINK(…)`, `=cmd|…` run), so it
/// gets a leading `'`. Only for cells of text: a numeric column keeps its `-3.5`.
fn text(s: impl Into<String>) -> String {
    let s = s.into();
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s
    }
}

impl Exporter for CsvExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        let mut w = csv::Writer::from_writer(out);
        let cpu = report.results.iter().any(|r| r.cpu.is_some());
        let submit = report.results.iter().any(|r| r.submit.is_some());
        let mut header: Vec<&str> = COLUMNS.to_vec();
        if cpu {
            header.extend(CPU_COLUMNS);
        }
        if submit {
            header.extend(SUBMIT_COLUMNS);
        }
        w.write_record(&header)?;
        for r in &report.results {
            let p = &r.params;
            let t = r.throughput.as_ref();
            let l = r.latency.as_ref();
            let pr = r.paced.as_ref();
            let record: [String; COLUMNS.len()] = [
                text(r.transport.as_str()),
                text(r.workload.to_string()),
                text(r.semantics.summary()),
                text(p.payload.to_string()),
                p.payload_bytes.to_string(),
                p.capacity
                    .map_or_else(|| "unbounded".to_string(), |c| c.to_string()),
                p.messages.to_string(),
                text(p.messages_requested.as_str()),
                p.producers.to_string(),
                p.consumers.to_string(),
                text(p.driver.to_string()),
                opt(p.batch),
                text(
                    p.options
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(";"),
                ),
                p.samples.to_string(),
                p.warmup.to_string(),
                text(r.verdict.to_string().to_lowercase()),
                text(r.violation.clone().unwrap_or_default()),
                opt(t.map(|t| t.median)),
                opt(t.map(|t| t.min)),
                opt(t.map(|t| t.max)),
                opt(t.map(|t| t.spread)),
                opt(r.ns_per_msg.as_ref().map(|n| n.median)),
                opt(l.map(|l| l.p50)),
                opt(l.map(|l| l.p90)),
                opt(l.map(|l| l.p99)),
                opt(l.map(|l| l.p999)),
                opt(l.map(|l| l.max)),
                r.failed_sends.to_string(),
                r.failed_recvs.to_string(),
                opt(r.limit.as_ref().map(|l| l.ratio)),
                text(
                    r.lints
                        .iter()
                        .map(|l| l.code())
                        .collect::<Vec<_>>()
                        .join(";"),
                ),
                text(r.placement.label()),
                text(r.digest.clone().unwrap_or_default()),
                match &p.pacing {
                    Pacing::Closed => "closed".to_string(),
                    Pacing::Rate(x) => x.to_string(),
                    Pacing::Ramp(_) => "ramp".to_string(),
                },
                text(p.pipeline.as_ref().map_or_else(String::new, |pp| {
                    pp.hops
                        .iter()
                        .map(|h| format!("{}:{}", h.transport, h.capacity))
                        .collect::<Vec<_>>()
                        .join(";")
                })),
                opt(pr.and_then(|x| x.achieved_rate.as_ref()).map(|a| a.median)),
                opt(pr.map(|x| x.refused)),
                opt(l.map(|l| l.p9999)),
                opt(pr.and_then(|x| x.uncorrected.as_ref()).map(|u| u.p99)),
                opt(r.ramp.as_ref().and_then(|x| x.search.sustained)),
                text(
                    r.ramp
                        .as_ref()
                        .and_then(|x| x.saturating_hop.clone())
                        .unwrap_or_default(),
                ),
                opt(r.modes.map(|m| m.low.median)),
                opt(r.modes.map(|m| m.low.share)),
                opt(r.modes.map(|m| m.high.median)),
                opt(r.modes.map(|m| m.high.share)),
            ];
            let mut cells = record.to_vec();
            if cpu {
                cells.extend(cpu_cells(r));
            }
            if submit {
                cells.push(opt(r.submit.as_ref().map(|s| s.median)));
            }
            w.write_record(&cells)?;
        }
        w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{environment, stream};

    /// The CSV of one report of `results`, parsed back into rows (header first).
    fn rows(results: Vec<crate::report::TrialResult>) -> Vec<Vec<String>> {
        let report = RunReport {
            reprobes: Vec::new(),
            results,
            ..RunReport::begun("test", environment())
        };
        let mut out = Vec::new();
        CsvExporter.export(&report, &mut out).unwrap();
        csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(out.as_slice())
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect()
    }

    fn column(name: &str) -> usize {
        COLUMNS.iter().position(|c| *c == name).unwrap()
    }

    #[test]
    fn cpu_columns_come_last_and_only_when_some_result_measured_it() {
        let without = rows(vec![stream()]);
        assert_eq!(without[0].len(), COLUMNS.len());
        let mut measured = stream();
        measured.cpu = Some(handoff_model::cpu::CpuFigures {
            producer_cores: 0.5,
            consumer_cores: 1.0,
            ns_per_msg: 150.0,
            runtime_cores: 0.0,
            page_faults_per_msg: None,
            samples: 3,
        });
        let rows = rows(vec![measured, stream()]);
        assert_eq!(rows[0][..COLUMNS.len()], COLUMNS.map(String::from));
        assert_eq!(rows[0][COLUMNS.len()..], CPU_COLUMNS.map(String::from));
        assert_eq!(rows[1][COLUMNS.len()..], ["150", "0.5", "1", "0"]);
        assert_eq!(rows[2][COLUMNS.len()..], ["", "", "", ""]);
    }

    #[test]
    fn text_a_spreadsheet_would_run_is_quoted_and_numbers_stay_numbers() {
        let mut r = stream();
        r.transport = "=HYPERLINK(\"http://x\",\"y\")".into();
        r.params.options.insert("@cmd".into(), "|calc".into());
        r.violation = Some("-2+3 printed by the worker".into());
        if let Some(t) = r.throughput.as_mut() {
            t.min = -3.5;
        }
        let mut tab = stream();
        tab.transport = "\tlooks-empty".into();
        tab.violation = Some("\r+1".into());
        let mut plain = stream();
        plain.transport = "rtrb".into();
        plain.violation = Some("a = b, not -1".into());
        let rows = rows(vec![r, tab, plain]);
        let cell = |row: usize, name: &str| rows[row][column(name)].clone();
        assert_eq!(cell(1, "transport"), "'=HYPERLINK(\"http://x\",\"y\")");
        assert_eq!(cell(1, "options"), "'@cmd=|calc");
        assert_eq!(cell(1, "violation"), "'-2+3 printed by the worker");
        assert_eq!(cell(1, "tput_min"), "-3.5");
        assert_eq!(cell(2, "transport"), "'\tlooks-empty");
        assert_eq!(cell(2, "violation"), "'\r+1");
        // Text that cannot be read as a formula is left as it is.
        assert_eq!(cell(3, "transport"), "rtrb");
        assert_eq!(cell(3, "violation"), "a = b, not -1");
        assert_eq!(
            text("-3.5"),
            "'-3.5",
            "a text cell is text, whatever it reads as"
        );
    }
}
