//! One way to hand off that the run measured (a transport with its options, capacity, batch and
//! driver), its figures as the run recorded them, and the constraints it fails.

use super::ask::{Ask, Objective};
use super::evidence::Basis;
use crate::report::{RawSample, TrialResult, Verdict};
use crate::workload::Driver;
use handoff_model::fmt;
use serde::{Deserialize, Serialize};

/// A measured configuration and its figures. Every figure is the run's own: none is derived
/// from anything the run did not measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Index of its result in the report.
    pub result: usize,
    /// The transport with what was chosen for it: `crossbeam-bounded cap=8192`,
    /// `rtrb batch=256`, `kanal-async [tokio-multi:2]`.
    pub label: String,
    /// The transport.
    pub transport: String,
    /// Its declared semantics, short (`MPMC fifo/pp bounded spin-park`).
    pub semantics: String,
    /// Median messages per second (closed loop), or achieved rate (paced).
    pub msgs_per_s: Option<f64>,
    /// Median latency, ns (paced).
    pub p50_ns: Option<u64>,
    /// 99th-percentile latency, ns (paced).
    pub p99_ns: Option<u64>,
    /// Cores the hand-off kept busy: both sides of a closed-loop stream; the consumer side
    /// (with an async runtime's threads) of a paced one, whose producer side is the harness's
    /// pacer, which spins between sends by design.
    pub cores: Option<f64>,
    /// CPU time per message, ns, of the sides [`Candidate::cores`] counts (median over the
    /// samples).
    pub cpu_ns_per_msg: Option<f64>,
    /// Timed samples.
    pub samples: usize,
    /// The constraints it fails, each with its figure; empty when it meets every one.
    pub fails: Vec<String>,
}

impl Candidate {
    /// The candidate of result `i` of `results`, judged against `ask`.
    pub fn of(i: usize, r: &TrialResult, basis: &Basis, ask: &Ask) -> Candidate {
        let paced = matches!(basis, Basis::Paced { .. });
        let msgs_per_s = if paced {
            r.paced
                .as_ref()
                .and_then(|p| p.achieved_rate.as_ref())
                .map(|s| s.median)
        } else {
            r.throughput.as_ref().map(|t| t.median)
        };
        let cores = r.cpu.as_ref().map(|c| {
            if paced {
                c.consumer_cores + c.runtime_cores
            } else {
                c.total_cores()
            }
        });
        let mut c = Candidate {
            result: i,
            label: super::plain(&label(r)),
            transport: r.transport.clone(),
            semantics: r.semantics.short(),
            msgs_per_s,
            p50_ns: r.latency.as_ref().map(|l| l.p50).filter(|_| paced),
            p99_ns: r.latency.as_ref().map(|l| l.p99).filter(|_| paced),
            cores,
            cpu_ns_per_msg: if paced {
                let per: Vec<f64> = r
                    .samples
                    .iter()
                    .filter_map(|s| {
                        let ns = counted_ns(s, paced)?;
                        (s.messages > 0).then(|| ns as f64 / s.messages as f64)
                    })
                    .collect();
                (!per.is_empty()).then(|| crate::stats::median(&per))
            } else {
                r.cpu.as_ref().map(|c| c.ns_per_msg)
            },
            samples: r.samples.len(),
            fails: Vec::new(),
        };
        c.fails = c.failures(r, basis, ask);
        c
    }

    /// Whether it meets every constraint.
    pub fn meets_all(&self) -> bool {
        self.fails.is_empty()
    }

    /// The constraints `r` fails, each said with the figure that fails it.
    fn failures(&self, r: &TrialResult, basis: &Basis, ask: &Ask) -> Vec<String> {
        let mut out = Vec::new();
        if r.verdict != Verdict::Pass {
            out.push(format!(
                "{}{}",
                r.verdict,
                r.violation
                    .as_deref()
                    .map(|v| format!(": {}", super::plain(v)))
                    .unwrap_or_default()
            ));
            return out;
        }
        for req in &ask.require {
            if !req.met_by(&r.semantics) {
                out.push(format!("not {req} ({})", req.lacking(&r.semantics)));
            }
        }
        if let Some(rate) = ask.rate {
            match (basis, self.msgs_per_s) {
                // A paced result ran at the rate (or above): it must have kept up.
                (Basis::Paced { rate: ran }, Some(got)) if got < 0.95 * *ran as f64 => {
                    out.push(format!(
                        "fell behind: achieved {} of the {}/s asked of it",
                        fmt::rate(got),
                        ran
                    ))
                }
                (Basis::Closed, Some(got)) if got < rate as f64 => out.push(format!(
                    "too slow: {} at full speed, below {rate}/s",
                    fmt::rate(got)
                )),
                (_, None) => out.push("no rate figure".into()),
                _ => {}
            }
        }
        if let Some(budget) = ask.p99_ns {
            match self.p99_ns {
                Some(p99) if p99 > budget => out.push(format!(
                    "p99 {} over the {} budget",
                    fmt::duration(p99 as f64),
                    fmt::duration(budget as f64)
                )),
                None => out.push("no latency figure".into()),
                _ => {}
            }
        }
        if let Some(budget) = ask.cpu {
            match self.cores {
                Some(c) if c > budget => out.push(format!(
                    "{} cores busy, over the {budget} budget{}",
                    super::cores(c),
                    if r.semantics.wait.busy_waits() {
                        " (a waiting side spins)"
                    } else {
                        ""
                    }
                )),
                None => out.push("no CPU figure (not measured for this result)".into()),
                _ => {}
            }
        }
        out
    }

    /// Its figure for `objective`, oriented so that smaller is better.
    pub fn cost(&self, objective: Objective) -> Option<f64> {
        match objective {
            Objective::Latency => self.p99_ns.map(|x| x as f64),
            Objective::Cpu => self.cores,
            Objective::Throughput => self.msgs_per_s.map(|x| -x),
        }
    }
}

/// The per-sample figures of `r` for `objective` (what a significance test compares); `paced`
/// as in [`Candidate::cores`].
pub fn per_sample(r: &TrialResult, objective: Objective, paced: bool) -> Vec<f64> {
    let cores = |s: &RawSample| {
        let ns = counted_ns(s, paced)?;
        (s.elapsed_ns > 0).then(|| ns as f64 / s.elapsed_ns as f64)
    };
    r.samples
        .iter()
        .filter_map(|s| match objective {
            Objective::Latency => s.p99_ns.map(|x| x as f64),
            Objective::Cpu => cores(s),
            Objective::Throughput => Some(s.msgs_per_s),
        })
        .collect()
}

/// The CPU time of sample `s` that a recommendation counts, ns: both sides of a closed-loop
/// stream; the consumer side (with an async runtime's threads) of a paced one, whose producer
/// side is the harness's pacer (see [`Candidate::cores`]).
fn counted_ns(s: &RawSample, paced: bool) -> Option<u64> {
    let c = s.cpu?;
    Some(if paced {
        c.consumer_ns + c.runtime_ns
    } else {
        c.total_ns()
    })
}

/// A result's configuration as a recommendation names it.
fn label(r: &TrialResult) -> String {
    let p = &r.params;
    let mut label = crate::sweep::series_label(r);
    if let (true, Some(c)) = (r.semantics.bound.has_capacity(), p.capacity) {
        label.push_str(&format!(" cap={c}"));
    }
    if let Some(b) = p.batch {
        label.push_str(&format!(" batch={b}"));
    }
    if p.driver != Driver::Threads {
        label.push_str(&format!(" [{}]", p.driver));
    }
    label
}
