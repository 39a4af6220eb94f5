//! `bmf`: the Bencher Metric Format, the JSON that continuous-benchmarking services such as
//! Bencher ingest (`bencher run --adapter json --file report.bmf.json`).
//!
//! `{ benchmark: { measure: { value, lower_value, upper_value } } }`: one benchmark per result,
//! named by its [`Identity`](crate::identity::Identity); the value is the median over the timed
//! samples and the bounds the smallest and largest sample. Throughput goes to Bencher's
//! built-in `throughput` measure (operations per second) and the median latency to its
//! built-in `latency` (ns); the 99th percentile is `latency-p99`, a ramp's highest sustained
//! rate `sustained-rate`, an older report's mean round trip `latency-mean` and the CPU time per
//! message (ns, both sides) `cpu-per-message`, measures Bencher creates on first use. Results that did not pass are left out: a service would chart them as
//! figures.

use super::Exporter;
use crate::compare::metric::{self, Metric};
use crate::identity::Identity;
use crate::report::{RunReport, Verdict};
use serde_json::{Map, Value};
use std::io::{self, Write};

/// Writes the Bencher Metric Format.
pub(super) struct BmfExporter;

impl Exporter for BmfExporter {
    fn export(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &document(report))?;
        writeln!(out)
    }
}

/// The measure a metric is reported under.
pub(crate) fn measure(m: Metric) -> &'static str {
    match m {
        Metric::Throughput => "throughput",
        Metric::SustainedRate => "sustained-rate",
        Metric::LatencyP50 => "latency",
        Metric::LatencyP99 => "latency-p99",
        Metric::RoundTripMean => "latency-mean",
        Metric::CpuPerMsg => "cpu-per-message",
    }
}

fn document(report: &RunReport) -> Value {
    let mut root = Map::new();
    for r in report.results.iter().filter(|r| r.verdict == Verdict::Pass) {
        let mut measures = Map::new();
        for (m, xs) in metric::figures(r) {
            let Some(s) = crate::stats::Summary::of(&xs) else {
                continue;
            };
            let mut v = Map::new();
            v.insert("value".into(), s.median.into());
            v.insert("lower_value".into(), s.min.into());
            v.insert("upper_value".into(), s.max.into());
            measures.insert(measure(m).into(), Value::Object(v));
        }
        if !measures.is_empty() {
            // Two results of one identity (a sweep of message counts) keep apart.
            let mut name = Identity::of(r).to_string();
            let mut k = 2;
            while root.contains_key(&name) {
                name = format!("{} #{k}", Identity::of(r));
                k += 1;
            }
            root.insert(name, Value::Object(measures));
        }
    }
    Value::Object(root)
}
