//! Checking a run's gates (declared in the suite, see [`crate::plan::gates`]) once it ended.
//!
//! A gate passes, fails with its reasons, or is skipped with why (a scaling gate whose top
//! producer count ran oversubscribed says nothing about scaling). A gate that cannot be
//! evaluated — its results are missing or did not pass, its baseline cannot be loaded — fails
//! and says why: a gate that silently passes on missing data is no gate.

use crate::compare::metric::{self, Metric};
use crate::compare::{compare, Change, Comparison, Judgement};
use crate::report::{RunReport, TrialResult, Verdict};
use crate::stats::median;
use handoff_model::fmt::plural;
use handoff_model::gate::{Gate, Over, Rate, UpTo};
pub use handoff_model::gate::{GateOutcome, GateStatus};
use std::collections::BTreeMap;

/// Loads a baseline report by reference, for regression gates.
pub(crate) type Loader<'a> = dyn Fn(&str) -> Result<RunReport, Unavailable> + 'a;

/// A baseline that could not be loaded, and why: the regression gate that names it fails with
/// this reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Unavailable {
    /// Why (an unknown run id or name, an unreachable store, a malformed report, …).
    pub reason: String,
}

impl Unavailable {
    /// A baseline unavailable for `reason`.
    pub fn because(reason: impl Into<String>) -> Unavailable {
        Unavailable {
            reason: reason.into(),
        }
    }
}

/// Checks every gate against `report`.
pub(crate) fn evaluate(gates: &[Gate], report: &RunReport, load: &Loader<'_>) -> Vec<GateOutcome> {
    gates
        .iter()
        .map(|g| {
            let (status, details) = match g {
                Gate::Scaling {
                    transports,
                    min,
                    up_to,
                    metric,
                } => scaling(report, transports, *min, *up_to, *metric),
                Gate::Ratio {
                    transport,
                    options,
                    over,
                    min,
                } => ratio(report, transport, options, over, *min),
                Gate::Regression {
                    baseline,
                    max,
                    allow_unjudged,
                } => regression(report, baseline, *max, *allow_unjudged, load),
                Gate::Against {
                    build,
                    max,
                    allow_unjudged,
                } => against(report, build, *max, *allow_unjudged),
            };
            GateOutcome {
                gate: g.clone(),
                description: g.describe(),
                status,
                details,
            }
        })
        .collect()
}

/// The median of a result's first metric, with whether higher is better; `None` if it did not
/// pass or has no figures.
fn figure(r: &TrialResult) -> Option<(f64, bool)> {
    if r.verdict != Verdict::Pass {
        return None;
    }
    let (m, xs) = metric::figures(r).into_iter().next()?;
    Some((median(&xs), m.higher_is_better()))
}

fn label(r: &TrialResult) -> String {
    let opts: Vec<String> = r
        .params
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if opts.is_empty() {
        r.transport.clone()
    } else {
        format!("{} ({})", r.transport, opts.join(", "))
    }
}

/// The median rate `metric` of a passing result, or why there is none.
fn rate(r: &TrialResult, metric: Rate) -> Result<f64, String> {
    if r.verdict != Verdict::Pass {
        return Err(format!("{}", r.verdict));
    }
    let figure = match metric {
        Rate::Delivery => figure(r).filter(|(_, higher)| *higher).map(|(x, _)| x),
        Rate::Submit => {
            let xs: Vec<f64> = r.samples.iter().filter_map(|s| s.submit_per_s()).collect();
            (!xs.is_empty()).then(|| median(&xs))
        }
    };
    figure
        .filter(|x| *x > 0.0)
        .ok_or_else(|| format!("no {} recorded", metric.name()))
}

fn scaling(
    report: &RunReport,
    transports: &[String],
    min: f64,
    up_to: UpTo,
    metric: Rate,
) -> (GateStatus, Vec<String>) {
    // A sweep: the same measurement but for the producer count.
    let mut sweeps: BTreeMap<String, Vec<&TrialResult>> = BTreeMap::new();
    for r in &report.results {
        if !transports.is_empty() && !transports.contains(&r.transport) {
            continue;
        }
        let p = &r.params;
        let key = format!(
            "{} {} {} {} {}c {:?} {:?} {:?}",
            label(r),
            r.workload.name(),
            p.driver,
            p.payload,
            p.consumers,
            p.capacity,
            p.batch,
            p.pacing
        );
        sweeps.entry(key).or_default().push(r);
    }
    let cpus = report.environment.logical_cpus;
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut details = Vec::new();
    for rs in sweeps.values() {
        let one = rs.iter().find(|r| r.params.producers == 1);
        let more = rs.iter().filter(|r| r.params.producers > 1);
        let (Some(one), Some(top)) = (one, more.clone().max_by_key(|r| r.params.producers)) else {
            continue;
        };
        let who = format!("{} {}", label(top), top.workload.name());
        let consumers = top.params.consumers;
        let threads = |r: &TrialResult| r.params.producers + r.params.consumers;
        let point = match up_to {
            UpTo::Cores => more
                .filter(|r| threads(r) <= cpus)
                .max_by_key(|r| r.params.producers)
                .copied()
                .ok_or_else(|| {
                    if 2 + consumers > cpus {
                        format!(
                            "{cpus} cores: even 2 producers and {consumers} consumer{} need {} threads",
                            if consumers == 1 { "" } else { "s" },
                            2 + consumers
                        )
                    } else {
                        let least = rs
                            .iter()
                            .filter(|r| r.params.producers > 1)
                            .min_by_key(|r| r.params.producers)
                            .map_or(0, |r| r.params.producers);
                        format!(
                            "no producer count swept above 1 fits {cpus} cores (the least, {least}, needs {} threads)",
                            least + consumers
                        )
                    }
                }),
            UpTo::Top => Ok(*top),
            UpTo::Producers(n) => match rs.iter().find(|r| r.params.producers == n) {
                Some(r) => Ok(*r),
                None => {
                    failed += 1;
                    details.push(format!(
                        "{who}: cannot be evaluated: no result at {n} producers"
                    ));
                    continue;
                }
            },
        };
        let point = match point {
            Ok(r) if threads(r) > cpus => {
                skipped += 1;
                details.push(format!(
                    "{who}: skipped (oversubscribed: {} threads on {cpus} cores at {} producers)",
                    threads(r),
                    r.params.producers
                ));
                continue;
            }
            Ok(r) => r,
            Err(why) => {
                skipped += 1;
                details.push(format!("{who}: skipped ({why})"));
                continue;
            }
        };
        match (rate(one, metric), rate(point, metric)) {
            (Ok(a), Ok(b)) => {
                let f = b / a;
                let ok = f >= min;
                if ok {
                    passed += 1;
                } else {
                    failed += 1;
                }
                details.push(format!(
                    "{who}: {} {f:.2}× at {} producers over 1 ({})",
                    metric.name(),
                    point.params.producers,
                    if ok { "pass" } else { "FAIL" }
                ));
            }
            (a, b) => {
                failed += 1;
                let say = |r: Result<f64, String>| r.err().unwrap_or_else(|| "pass".into());
                details.push(format!(
                    "{who}: cannot be evaluated: 1 producer {}, {} producers {}",
                    say(a),
                    point.params.producers,
                    say(b)
                ));
            }
        }
    }
    let status = if failed > 0 {
        GateStatus::Failed
    } else if passed > 0 {
        GateStatus::Passed
    } else if skipped > 0 {
        GateStatus::Skipped
    } else {
        details.push("cannot be evaluated: no transport ran at 1 producer and at more".into());
        GateStatus::Failed
    };
    (status, details)
}

fn ratio(
    report: &RunReport,
    transport: &str,
    options: &BTreeMap<String, String>,
    over: &Over,
    min: f64,
) -> (GateStatus, Vec<String>) {
    let point = |r: &TrialResult| {
        let p = &r.params;
        let mut s = format!(
            "{} {} {}p{}c",
            r.workload.name(),
            p.payload,
            p.producers,
            p.consumers
        );
        if p.driver != crate::workload::Driver::default() {
            s.push_str(&format!(" {}", p.driver));
        }
        if let Some(b) = p.batch {
            s.push_str(&format!(" batch={b}"));
        }
        if let Some(rate) = p.pacing.rate() {
            s.push_str(&format!(" rate={rate}"));
        }
        s
    };
    let subject = |r: &TrialResult| {
        r.transport == transport
            && options
                .iter()
                .all(|(k, v)| r.params.options.get(k) == Some(v))
    };
    let peer = |r: &TrialResult| match over {
        Over::Best => r.transport != transport,
        Over::Transport(t) => &r.transport == t,
    };
    // The best figure of each side at each point, or why there is none.
    let best = |rs: Vec<&TrialResult>| -> Result<(f64, bool, String), String> {
        let mut best: Option<(f64, bool, String)> = None;
        let mut failed = Vec::new();
        for r in rs {
            match figure(r) {
                Some((x, hib)) => {
                    let better = best
                        .as_ref()
                        .map_or(true, |b| if hib { x > b.0 } else { x < b.0 });
                    if better {
                        best = Some((x, hib, label(r)));
                    }
                }
                None => failed.push(format!("{} {}", label(r), r.verdict)),
            }
        }
        best.ok_or_else(|| failed.join(", "))
    };
    let mut points: Vec<String> = Vec::new();
    for r in report.results.iter().filter(|r| subject(r)) {
        if !points.contains(&point(r)) {
            points.push(point(r));
        }
    }
    if points.is_empty() {
        return (
            GateStatus::Failed,
            vec![format!(
                "cannot be evaluated: the run has no result of {transport} with these options"
            )],
        );
    }
    let mut details = Vec::new();
    let mut failed = false;
    for pt in &points {
        let mine = report
            .results
            .iter()
            .filter(|r| subject(r) && &point(r) == pt)
            .collect();
        let theirs: Vec<&TrialResult> = report
            .results
            .iter()
            .filter(|r| peer(r) && &point(r) == pt)
            .collect();
        if theirs.is_empty() {
            continue;
        }
        match (best(mine), best(theirs)) {
            (Ok((a, hib, who)), Ok((b, _, them))) => {
                let f = if hib { a / b } else { b / a };
                let ok = f >= min;
                failed |= !ok;
                details.push(format!(
                    "{pt}: {who} {f:.2}× {them} ({})",
                    if ok { "pass" } else { "FAIL" }
                ));
            }
            (Err(why), _) => {
                failed = true;
                details.push(format!("{pt}: cannot be evaluated: {why}"));
            }
            (_, Err(why)) => {
                failed = true;
                details.push(format!("{pt}: cannot be evaluated: no peer passed ({why})"));
            }
        }
    }
    if details.is_empty() {
        return (
            GateStatus::Failed,
            vec!["cannot be evaluated: no other transport ran at the same points".into()],
        );
    }
    (
        if failed {
            GateStatus::Failed
        } else {
            GateStatus::Passed
        },
        details,
    )
}

fn regression(
    report: &RunReport,
    baseline: &str,
    max: f64,
    allow_unjudged: bool,
    load: &Loader<'_>,
) -> (GateStatus, Vec<String>) {
    let base = match load(baseline) {
        Ok(b) => b,
        Err(e) => {
            return (
                GateStatus::Failed,
                vec![format!("cannot be evaluated: {e}")],
            )
        }
    };
    let j = Judgement {
        max_regression: Some(max),
        ..Judgement::default()
    };
    let c = compare((baseline, &base), ("this run", report), j);
    judge(&c, baseline, allow_unjudged)
}

/// The regression gate of a paired run: this build judged against the other pair by pair.
fn against(
    report: &RunReport,
    build: &str,
    max: f64,
    allow_unjudged: bool,
) -> (GateStatus, Vec<String>) {
    let j = Judgement {
        max_regression: Some(max),
        ..Judgement::default()
    };
    match crate::compare::paired(report, j) {
        Some(c) => judge(&c, build, allow_unjudged),
        None => (
            GateStatus::Failed,
            vec![format!(
                "cannot be evaluated: the run did not run the build `{build}` beside this one"
            )],
        ),
    }
}

/// The regression verdict on a comparison whose judgement has a `max_regression`: the one
/// semantics of `handoff compare --max-regression`, `handoff run --baseline` and a suite's
/// `regression` gate.
///
/// It fails on every result significantly slower than allowed, and on what it cannot judge: no
/// matched result at all, a result that did not pass on a side, too few samples for any change
/// to be significant. With `allow_unjudged`, what cannot be judged is listed and passes. A
/// ramp's sustained rate (one figure per run) is never judged by a test, by design, and is only
/// counted. The details name each failing point first, then a summary line and the comparison's
/// warnings.
pub fn judge(c: &Comparison, baseline: &str, allow_unjudged: bool) -> (GateStatus, Vec<String>) {
    let mut failing: Vec<String> = c
        .regressions()
        .map(|r| {
            format!(
                "{} {}: {:+.1}% (adjusted p = {:.3})",
                r.identity,
                r.metric,
                r.ratio.map_or(0.0, |x| (x - 1.0) * 100.0),
                r.p_adjusted.or(r.p_raw()).unwrap_or(1.0)
            )
        })
        .collect();
    let mut unjudged = Vec::new();
    let mut sustained = 0;
    for r in &c.rows {
        match &r.change {
            Change::NotComparable { reason } => {
                unjudged.push((format!("{} {}: ", r.identity, r.metric), reason.clone()));
            }
            Change::TooFewSamples { .. } if r.metric == Metric::SustainedRate => sustained += 1,
            _ => {}
        }
    }
    // Too few samples is said once for every figure it holds back (a `--quick` run holds back
    // all of them), with what to run instead.
    let judged = c.rows.iter().filter(|r| r.metric != Metric::SustainedRate);
    if let Some((n, why)) = too_few_samples(judged) {
        unjudged.push((format!("{}: ", plural(n, "figure")), why));
    }
    if c.rows.is_empty() {
        unjudged.push((
            String::new(),
            format!("no result matches one of `{baseline}`"),
        ));
    }
    let mut details = Vec::new();
    details.append(&mut failing);
    let unjudged_label = if allow_unjudged {
        "not judged (allowed)"
    } else {
        "cannot be evaluated"
    };
    let failed = !details.is_empty() || (!allow_unjudged && !unjudged.is_empty());
    details.extend(
        unjudged
            .into_iter()
            .map(|(who, why)| format!("{who}{unjudged_label}: {why}")),
    );
    let status = if failed {
        GateStatus::Failed
    } else {
        GateStatus::Passed
    };
    details.push(format!(
        "{} figure(s) compared with `{baseline}`{}",
        c.rows.len() - sustained,
        if sustained > 0 {
            format!(" ({sustained} sustained rate(s) shown by `handoff compare`, never judged)")
        } else {
            String::new()
        }
    ));
    details.extend(c.warnings.iter().map(|w| format!("warning: {w}")));
    (status, details)
}

/// Why the figures of `rows` held back by too few samples cannot be judged, and what to run:
/// one line for all of them (the first few named), with how many; `None` when none is.
pub fn too_few_samples<'a>(
    rows: impl IntoIterator<Item = &'a crate::compare::model::Row>,
) -> Option<(usize, String)> {
    let (mut figures, mut need, mut took) = (Vec::new(), 0, 0);
    for r in rows {
        if let Change::TooFewSamples { need: n } = r.change {
            figures.push(format!("{} {}", r.identity, r.metric));
            need = need.max(n);
            for side in [&r.before, &r.after].into_iter().flatten() {
                took = took.max(side.n);
            }
        }
    }
    if figures.is_empty() {
        return None;
    }
    let quick = if took <= 3 {
        " (`--quick` takes 3)"
    } else {
        ""
    };
    Some((
        figures.len(),
        format!(
            "too few samples for any change to be significant: at least {need} on each side, and these runs took at most {took} a result{quick}; run both with `--samples {need}` or more ({})",
            handoff_model::fmt::first_few(&figures, 3)
        ),
    ))
}

#[cfg(test)]
mod tests;
