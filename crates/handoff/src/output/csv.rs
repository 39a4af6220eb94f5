//! `csv`: one flat row per result, figures as raw numbers (messages per second, nanoseconds),
//! empty where not measured; the verdict as in JSON (`pass`, `fail`, `hung`, …). Multi-valued
//! cells (options, lint codes) are joined with `;`. A result whose samples fell into two regimes
//! has both in the `mode_*` columns (the median of each, in the unit of `tput_median` for a
//! stream and of `ns_per_msg_median` for ping-pong, and its share of the samples).

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

/// Writes one CSV row per result.
pub(super) struct CsvExporter;

fn opt<T: ToString>(x: Option<T>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

impl Exporter for CsvExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(COLUMNS)?;
        for r in &report.results {
            let p = &r.params;
            let t = r.throughput.as_ref();
            let l = r.latency.as_ref();
            let pr = r.paced.as_ref();
            let record: [String; COLUMNS.len()] = [
                r.transport.clone(),
                r.workload.to_string(),
                r.semantics.summary(),
                p.payload.to_string(),
                p.payload_bytes.to_string(),
                p.capacity
                    .map_or_else(|| "unbounded".to_string(), |c| c.to_string()),
                p.messages.to_string(),
                p.messages_requested.clone(),
                p.producers.to_string(),
                p.consumers.to_string(),
                p.driver.to_string(),
                opt(p.batch),
                p.options
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";"),
                p.samples.to_string(),
                p.warmup.to_string(),
                r.verdict.to_string().to_lowercase(),
                r.violation.clone().unwrap_or_default(),
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
                r.lints
                    .iter()
                    .map(|l| l.code())
                    .collect::<Vec<_>>()
                    .join(";"),
                r.placement.label(),
                r.digest.clone().unwrap_or_default(),
                match &p.pacing {
                    Pacing::Closed => "closed".to_string(),
                    Pacing::Rate(x) => x.to_string(),
                    Pacing::Ramp(_) => "ramp".to_string(),
                },
                p.pipeline.as_ref().map_or_else(String::new, |pp| {
                    pp.hops
                        .iter()
                        .map(|h| format!("{}:{}", h.transport, h.capacity))
                        .collect::<Vec<_>>()
                        .join(";")
                }),
                opt(pr.and_then(|x| x.achieved_rate.as_ref()).map(|a| a.median)),
                opt(pr.map(|x| x.refused)),
                opt(l.map(|l| l.p9999)),
                opt(pr.and_then(|x| x.uncorrected.as_ref()).map(|u| u.p99)),
                opt(r.ramp.as_ref().and_then(|x| x.search.sustained)),
                r.ramp
                    .as_ref()
                    .and_then(|x| x.saturating_hop.clone())
                    .unwrap_or_default(),
                opt(r.modes.map(|m| m.low.median)),
                opt(r.modes.map(|m| m.low.share)),
                opt(r.modes.map(|m| m.high.median)),
                opt(r.modes.map(|m| m.high.share)),
            ];
            w.write_record(&record)?;
        }
        w.flush()
    }
}
