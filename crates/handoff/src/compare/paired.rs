//! The comparison of the two builds of one paired run (`handoff run --against OTHER`).
//!
//! In a paired run every trial ran on both builds, their timed samples alternating within each
//! round (see [`crate::session::Against`]), so sample `k` of this build's result and sample `k`
//! of the other build's result form a pair: whatever the machine did in that round (a VM's slow
//! minutes, a neighbour's burst) it did to both. Two runs compared across time
//! ([`super::compare`]) must treat every sample as independent, and the machine's drift between
//! the runs becomes part of the difference; pairs cancel it.
//!
//! For each metric of each result: the per-pair ratios (this build over the other), the
//! Wilcoxon signed-rank test on their logarithms (`signed_rank`), the median ratio with
//! a bootstrap interval that resamples pairs, then the same Benjamini–Hochberg adjustment,
//! verdicts, threshold and regression flag as a comparison of two runs. The other build is the
//! *before* side, this build the *after* side: `--against main` asks what this change does
//! relative to main.

use super::bootstrap;
use super::metric::Metric;
use super::model::{self, Change, Comparison, Judgement, Row, Side, SideInfo};
use super::signed_rank;
use crate::identity::Identity;
use crate::report::RunReport;
use crate::stats::median;

/// The paired comparison of `report`'s two builds; `None` when the report is not of a paired run.
/// Results are matched by position (the session keeps the twins in the same order); a pair of
/// results whose identities differ is compared but noted.
pub fn paired(report: &RunReport, judgement: Judgement) -> Option<Comparison> {
    let other = report.paired.as_ref()?;
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for (after, before) in report.results.iter().zip(&other.results) {
        let differ = Identity::of(after) != Identity::of(before);
        for mut row in model::compare_result(before, after, &judgement, judge) {
            over_link_orders(&mut row, before, after, other.link_orders, &judgement);
            if differ {
                row.notes.push(format!(
                    "the other build reported this trial as {}",
                    Identity::of(before)
                ));
            }
            rows.push(row);
        }
    }
    if report.results.len() != other.results.len() {
        warnings.push(format!(
            "this build has {} result(s), the other build {}: only the first {} are paired",
            report.results.len(),
            other.results.len(),
            report.results.len().min(other.results.len())
        ));
    }
    model::adjust_for_many(&mut rows, &judgement);
    warnings.extend(model::power_warning(&rows, &judgement));
    let rollups = model::rollups(&rows);
    let before = SideInfo {
        label: match &other.commit {
            Some(c) => format!("--against {} (commit {c})", other.label),
            None => format!("--against {}", other.label),
        },
        commit: other.commit.clone().unwrap_or_else(|| "unknown".into()),
        ..model::side_info("", report)
    };
    Some(Comparison {
        schema_version: model::COMPARE_SCHEMA_VERSION,
        before,
        after: model::side_info(
            &format!("this build (commit {})", report.environment.git_commit),
            report,
        ),
        judgement,
        rows,
        only_before: Vec::new(),
        only_after: Vec::new(),
        rollups,
        warnings,
        paired: true,
    })
}

/// Where each side was linked in several function orders (`--link-orders`), judges `row`'s
/// change over the orders instead of the pairs (see [`super::link_orders`]): its ratio,
/// interval, p-value and verdict are the orders'. A ramp's result, or a metric whose samples do
/// not line up with the timed samples, keeps the pairs' judgement, with a note.
fn over_link_orders(
    row: &mut Row,
    before: &crate::report::TrialResult,
    after: &crate::report::TrialResult,
    orders: usize,
    j: &Judgement,
) {
    if orders < 2 || row.before.is_none() || row.after.is_none() {
        return;
    }
    let figures = |r: &crate::report::TrialResult| {
        super::metric::figures(r)
            .into_iter()
            .find(|(m, v)| *m == row.metric && v.len() == r.samples.len())
            .map(|(_, v)| v)
    };
    let judged = match (&after.ramp, figures(before), figures(after)) {
        (None, Some(b), Some(a)) => super::link_orders::judge(&b, &a, orders),
        _ => None,
    };
    let Some(l) = judged else {
        row.notes.push(format!(
            "judged over pairs, not over the {orders} link orders (its samples cannot be matched to their orders)"
        ));
        return;
    };
    row.ratio = Some(l.ratio);
    row.interval = Some(l.interval(j.alpha));
    (row.change, row.regression) = model::verdict(row.metric, Some(l.ratio), Some(l.p), j);
    row.link_orders = Some(l);
}

/// Judges one metric of a pair of results: `before[k]` (the other build) and `after[k]` (this
/// build) ran in the same round. Pairs whose `before` figure is not positive have no ratio and
/// are left out.
pub(super) fn judge(
    identity: Identity,
    transport: &str,
    metric: Metric,
    before: &[f64],
    after: &[f64],
    j: &Judgement,
) -> Row {
    let ratios: Vec<f64> = before
        .iter()
        .zip(after)
        .filter(|(b, a)| **b > 0.0 && b.is_finite() && a.is_finite())
        .map(|(b, a)| a / b)
        .collect();
    let logs: Vec<f64> = ratios
        .iter()
        .filter(|r| **r > 0.0)
        .map(|r| r.ln())
        .collect();
    let test = signed_rank::test(&logs);
    let ratio = (!ratios.is_empty()).then(|| median(&ratios));
    let interval = bootstrap::median_of_ratios(&ratios);
    let pairs = ratios.len();
    let (change, regression) = if signed_rank::min_p(pairs) > j.alpha {
        (
            Change::TooFewSamples {
                need: signed_rank::pairs_needed(j.alpha),
            },
            false,
        )
    } else {
        model::verdict(metric, ratio, test.map(|t| t.p), j)
    };
    let mut notes = Vec::new();
    if before.len() != after.len() {
        notes.push(format!(
            "{} sample(s) of the other build, {} of this one: {pairs} pair(s) judged",
            before.len(),
            after.len()
        ));
    }
    Row {
        identity,
        transport: transport.to_string(),
        metric,
        before: Some(Side {
            median: median(before),
            n: before.len(),
        }),
        after: Some(Side {
            median: median(after),
            n: after.len(),
        }),
        ratio,
        interval,
        test: None,
        signed_rank: test,
        p_adjusted: None,
        change,
        regression,
        notes,
        code: None,
        link_orders: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture;
    use crate::report::PairedBuild;

    /// A paired run of one stream: this build's rates `this`, the other build's `other`.
    fn run(this: &[f64], other: &[f64]) -> RunReport {
        let mut report = fixture::report(vec![fixture::with_rates(fixture::stream(), this)]);
        report.paired = Some(PairedBuild {
            label: "HEAD~1".into(),
            commit: Some("abc1234".into()),
            results: vec![fixture::with_rates(fixture::stream(), other)],
            link_orders: 0,
        });
        report
    }

    /// Rates that drift over the run far more than the change: round `k` of both builds sits at
    /// the machine's level of that round.
    fn drifting(n: usize, change: f64) -> (Vec<f64>, Vec<f64>) {
        let level = |k: usize| 100.0 * (1.0 + 0.4 * ((k * 7 % 11) as f64 / 11.0));
        let other: Vec<f64> = (0..n).map(level).collect();
        let this = other
            .iter()
            .enumerate()
            .map(|(k, x)| x * change * (1.0 + 0.002 * ((k % 3) as f64 - 1.0)))
            .collect();
        (this, other)
    }

    #[test]
    fn a_small_change_under_large_drift_is_found_by_pairs() {
        let (this, other) = drifting(12, 0.95);
        let report = run(&this, &other);
        let c = paired(&report, Judgement::default()).unwrap();
        assert!(c.paired);
        let r = &c.rows[0];
        assert_eq!(r.change, Change::Slower, "{r:?}");
        assert!((r.ratio.unwrap() - 0.95).abs() < 0.003, "{r:?}");
        assert!(r.interval.unwrap().contains(0.95), "{r:?}");
        assert!(r.test.is_none() && r.signed_rank.is_some());
        assert_eq!(c.before.label, "--against HEAD~1 (commit abc1234)");
        assert_eq!(c.before.commit, "abc1234");
        // The same samples compared as two unpaired runs: the drift hides the change.
        let unpaired = super::super::compare(
            (
                "other",
                &fixture::report(report.paired.clone().unwrap().results),
            ),
            ("this", &report),
            Judgement::default(),
        );
        assert_eq!(
            unpaired.rows[0].change,
            Change::Same,
            "{:?}",
            unpaired.rows[0]
        );
    }

    #[test]
    fn identical_builds_show_no_change_and_pass_a_regression_gate() {
        let (this, other) = drifting(12, 1.0);
        let j = Judgement {
            max_regression: Some(0.05),
            ..Judgement::default()
        };
        let c = paired(&run(&this, &other), j).unwrap();
        assert_eq!(c.rows[0].change, Change::Same, "{:?}", c.rows[0]);
        assert_eq!(c.regressions().count(), 0);
        let (status, _) = crate::gates::judge(&c, "HEAD~1", false);
        assert_eq!(status, crate::gates::GateStatus::Passed);
    }

    /// Sets the code identity of this build's result and the other build's.
    fn with_code(mut report: RunReport, this: &str, other: &str) -> RunReport {
        let id = |d: &str| {
            Some(crate::report::CodeIdentity {
                digest: d.into(),
                functions: 10,
                bytes: 1000,
                source: None,
            })
        };
        report.results[0].code = id(this);
        report.paired.as_mut().unwrap().results[0].code = id(other);
        report
    }

    #[test]
    fn a_significant_change_of_the_same_code_is_drift_not_the_change() {
        let (this, other) = drifting(12, 0.90);
        let j = Judgement {
            max_regression: Some(0.05),
            ..Judgement::default()
        };
        // The same instructions in both builds: the 10% is the machine's or the placement's.
        let c = paired(&with_code(run(&this, &other), "aa", "aa"), j).unwrap();
        let r = &c.rows[0];
        assert_eq!(r.code, Some(crate::report::CodeMatch::Same));
        assert_eq!(r.change, Change::Drift { better: false }, "{r:?}");
        assert!(!r.regression);
        assert_eq!(r.mark(), "drift (same code)");
        assert_eq!(c.regressions().count(), 0);
        let (status, _) = crate::gates::judge(&c, "HEAD~1", false);
        assert_eq!(status, crate::gates::GateStatus::Passed);
        // The code changed: the same figures are the change, and a regression.
        let c = paired(&with_code(run(&this, &other), "aa", "bb"), j).unwrap();
        let r = &c.rows[0];
        assert_eq!(r.code, Some(crate::report::CodeMatch::Changed));
        assert_eq!(r.change, Change::Slower, "{r:?}");
        assert!(r.regression);
        // Unknown on either side: judged as before, and said to be unknown.
        let c = paired(&run(&this, &other), j).unwrap();
        assert_eq!(
            (c.rows[0].code, c.rows[0].change.clone()),
            (None, Change::Slower)
        );
    }

    #[test]
    fn too_few_pairs_say_how_many_are_needed() {
        let (this, other) = drifting(5, 0.8);
        let c = paired(&run(&this, &other), Judgement::default()).unwrap();
        assert_eq!(c.rows[0].change, Change::TooFewSamples { need: 6 });
        let (this, other) = drifting(6, 0.8);
        let c = paired(&run(&this, &other), Judgement::default()).unwrap();
        assert_eq!(c.rows[0].change, Change::Slower);
    }

    #[test]
    fn a_side_that_failed_is_not_comparable_and_a_plain_run_is_not_paired() {
        let (this, other) = drifting(8, 1.0);
        let mut report = run(&this, &other);
        report.paired.as_mut().unwrap().results[0].verdict = crate::report::Verdict::Crashed;
        let c = paired(&report, Judgement::default()).unwrap();
        assert!(
            matches!(&c.rows[0].change, Change::NotComparable { reason } if reason.contains("before CRASHED")),
            "{:?}",
            c.rows[0]
        );
        report.paired = None;
        assert!(paired(&report, Judgement::default()).is_none());
    }
}
