//! An open-loop trial's figures merged over its timed samples, and the hop a ramp found fullest
//! where it stopped keeping up.

use super::merged_latency;
use crate::open_loop::ramp::RampOutcome;
use crate::outcome::SampleOutcome;
use crate::report::PacedResult;
use crate::stats::Summary;
use crate::workload::TrialSpec;

/// Open-loop figures merged over the timed samples.
pub(super) fn paced_result(outcomes: &[SampleOutcome]) -> Option<PacedResult> {
    let figures: Vec<&crate::outcome::PacedFigures> =
        outcomes.iter().filter_map(|o| o.paced.as_deref()).collect();
    let last = figures.last()?;
    let achieved: Vec<f64> = figures.iter().map(|p| p.achieved_rate).collect();
    let mut overheads: Vec<f64> = figures
        .iter()
        .map(|p| p.overhead.stamp_and_record_ns)
        .collect();
    overheads.sort_by(f64::total_cmp);
    let mut clock_reads: Vec<f64> = figures.iter().map(|p| p.overhead.clock_read_ns).collect();
    clock_reads.sort_by(f64::total_cmp);
    let hops = last
        .hops
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let all: Vec<&crate::outcome::HopFigures> =
                figures.iter().filter_map(|p| p.hops.get(i)).collect();
            crate::outcome::HopFigures {
                transport: h.transport.clone(),
                capacity: h.capacity,
                samples: all.iter().map(|x| x.samples).sum(),
                mean: all.iter().map(|x| x.mean).sum::<f64>() / all.len().max(1) as f64,
                p99: all.iter().map(|x| x.p99).max().unwrap_or(0),
                max: all.iter().map(|x| x.max).max().unwrap_or(0),
                received: all.iter().map(|x| x.received).sum(),
                wakeups: all.iter().map(|x| x.wakeups).sum(),
            }
        })
        .collect();
    Some(PacedResult {
        requested_rate: last.requested_rate,
        achieved_rate: Summary::of(&achieved),
        refused: figures.iter().map(|p| p.refused).sum(),
        refused_wait_max_ns: figures
            .iter()
            .map(|p| p.refused_wait_max_ns)
            .max()
            .unwrap_or(0),
        refusals_observable: figures.iter().all(|p| p.refusals_observable),
        pacer: last.pacer.clone(),
        uncorrected: merged_latency(
            figures.iter().map(|p| Some(p.uncorrected.as_str())),
            "one-way from actual send (uncorrected)",
        ),
        overhead: crate::open_loop::clock::Overhead {
            clock_read_ns: clock_reads[clock_reads.len() / 2],
            stamp_and_record_ns: overheads[overheads.len() / 2],
        },
        sent: figures.iter().map(|p| p.sent).sum(),
        delivered: outcomes.iter().map(|o| o.messages).sum(),
        fires: Some(figures.iter().map(|p| p.fires).sum()),
        hops,
    })
}

/// The hop fullest at the lowest rate not sustained: by mean depth over capacity where every hop
/// is bounded, else by mean depth.
pub(super) fn saturating_hop(spec: &TrialSpec, search: &RampOutcome) -> Option<String> {
    let knee = search.not_sustained?;
    let step = search
        .steps
        .iter()
        .rev()
        .find(|s| s.figures.requested == knee && !s.sustained)?;
    let f = &step.figures;
    let names: Vec<String> = match &spec.pipeline {
        Some(p) => p.hops.iter().map(|h| h.transport.clone()).collect(),
        None => vec![spec.transport.clone()],
    };
    let score: Vec<f64> = if f.hop_fill.iter().all(Option::is_some) {
        f.hop_fill.iter().map(|x| x.unwrap_or(0.0)).collect()
    } else {
        f.hop_depth.clone()
    };
    let (i, _) = score.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    Some(format!("hop {} ({})", i + 1, names.get(i)?))
}
