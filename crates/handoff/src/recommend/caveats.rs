//! What a reader of a recommendation must keep in mind: everything the run itself flags about
//! the figures it rests on.

use super::ask::Ask;
use super::candidate::Candidate;
use super::evidence::{Basis, Evidence};
use crate::environment::Environment;
use crate::lints::Lint;
use crate::report::RunReport;

/// The caveats of a recommendation from `report`: about the pick (or, when there is none, the
/// closest candidate) and about the run.
pub(super) fn of(
    report: &RunReport,
    found: &Evidence,
    candidates: &[Candidate],
    pick: Option<usize>,
    ask: &Ask,
    here: Option<&Environment>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let (Basis::Paced { rate }, Some(asked)) = (&found.basis, ask.rate) {
        if *rate > asked {
            out.push(format!(
                "the run has no paced result at {asked}/s; the figures are from {rate}/s, a busier hand-off than asked (latency and CPU at {asked}/s are likely no worse, but were not measured)"
            ));
        }
    }
    if let (Basis::Closed, Some(_)) = (&found.basis, ask.rate) {
        out.push(
            "no paced results: the rate is checked against each transport's full-speed throughput; latency and CPU at that rate were not measured".into(),
        );
    }
    if found.basis == Basis::Closed && ask.cpu.is_some() {
        out.push(
            "CPU is the cores busy at full speed (closed loop): at a modest rate a transport that parks uses far less; run the transports paced at your rate to see it".into(),
        );
    }
    if let Some(c) = pick.and_then(|i| candidates.get(i)).or(candidates.first()) {
        let r = &report.results[c.result];
        let whose = if pick.is_some() {
            "the pick"
        } else {
            "the closest"
        };
        for lint in &r.lints {
            // A recommendation cites p50 and p99 only: a thin p99.9 or p99.99 is no caveat of it.
            if let Lint::TooFewForPercentile { percentile, .. } = lint {
                if *percentile > 99.0 {
                    continue;
                }
            }
            // The lint's text starts with its code (`noisy: relative MAD …`).
            out.push(format!(
                "{whose} (`{}`) is flagged: {}",
                c.label,
                super::plain(&lint.to_string())
            ));
        }
        if let Some(m) = &r.modes {
            out.push(format!(
                "{whose}'s samples fell into two regimes ({:.2}× apart): its median describes neither",
                m.ratio
            ));
        }
        let linted = r.lints.iter().any(|l| l.code() == "oversubscribed");
        if r.placement.oversubscribed && !linted {
            out.push(format!(
                "{whose} ran oversubscribed ({}): its figures include the scheduler's time slicing",
                r.placement.label()
            ));
        }
        if c.samples < 5 {
            out.push(format!(
                "{whose} has {} timed samples: too few to tell close candidates apart",
                c.samples
            ));
        }
    }
    if report.state_changed() {
        out.push(
            "the machine changed state during the run (its limits, probed after every group, moved): figures from different groups may come from different states".into(),
        );
    }
    if let Some(here) = here {
        let there = &report.environment;
        if here.cpu_model != there.cpu_model || here.logical_cpus != there.logical_cpus {
            out.push(format!(
                "the run was measured on another machine ({}, {} cpus), not this one ({}, {} cpus)",
                there.cpu_model, there.logical_cpus, here.cpu_model, here.logical_cpus
            ));
        }
    }
    let failed: Vec<String> = candidates
        .iter()
        .filter(|c| report.results[c.result].verdict.is_failure())
        .map(|c| format!("`{}` ({})", c.label, report.results[c.result].verdict))
        .collect();
    if !failed.is_empty() {
        out.push(format!(
            "did not pass, so not recommended whatever its figures: {}",
            failed.join(", ")
        ));
    }
    out
}
