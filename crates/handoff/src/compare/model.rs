//! The comparison of two runs: every result matched by identity, each metric tested.
//!
//! For each metric of each result present on both sides: both medians, the ratio of medians
//! (after / before), its bootstrap interval, the Mann–Whitney p-value, that p-value adjusted for
//! every figure judged at once (Benjamini–Hochberg), and a verdict. A change is reported as
//! faster or slower only when it is significant (adjusted p < alpha) **and** at least the noise
//! threshold; otherwise it is `~`. With too few samples for any p-value to reach alpha it
//! says so, never "no change". A *regression* is a significant change for the worse by more
//! than the maximum allowed (`--max-regression`); it is what the gates fail on.

use super::bootstrap::{self, Interval};
use super::fdr;
use super::mann_whitney::{self, MannWhitney};
use super::metric::{self, Metric};
use super::signed_rank::{self, SignedRank};
use super::warnings;
use crate::identity::Identity;
use crate::report::{RunReport, TrialResult};
use crate::stats::median;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the comparison's JSON; bumped on any incompatible change.
pub(crate) const COMPARE_SCHEMA_VERSION: u32 = 1;

/// Significance level of the rank test.
pub(crate) const DEFAULT_ALPHA: f64 = 0.05;

/// The default noise threshold and maximum regression: a significant change smaller than this
/// is shown as `~`, and `run --baseline` without `--max-regression` fails on a significant
/// slowdown larger than this. Chosen from the false-alarm rate measured between repeated runs
/// of one binary on one machine (docs/compare.md gives the measurement): below it, the run-to-run
/// movement of the machine itself is flagged too often to be worth a red build.
pub const DEFAULT_THRESHOLD: f64 = 0.05;

/// How to judge a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// Significance level.
    pub alpha: f64,
    /// Relative change below which a significant difference is still `~`.
    pub threshold: f64,
    /// A significant change for the worse beyond this fraction is a regression (a gate).
    pub max_regression: Option<f64>,
}

impl Default for Judgement {
    fn default() -> Self {
        Judgement {
            alpha: DEFAULT_ALPHA,
            threshold: DEFAULT_THRESHOLD,
            max_regression: None,
        }
    }
}

/// One side of a comparison, described.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideInfo {
    /// What the user named (a file, a run id, a baseline).
    pub label: String,
    /// When it ran.
    pub started_at: String,
    /// Its suite.
    pub suite: String,
    /// The commit handoff was built from.
    pub commit: String,
    /// Its environment in one line.
    pub environment: String,
}

/// The verdict on one metric of one result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Change {
    /// Significantly better by at least the threshold.
    Faster,
    /// Significantly worse by at least the threshold.
    Slower,
    /// Not significant, or within the threshold.
    Same,
    /// Significant beyond the threshold, but the transport ran the same machine code in both
    /// builds (their code identities are equal): the machine's drift or the code's placement
    /// moved the figure, not the change. Never a regression.
    Drift {
        /// Whether the after side measured better.
        better: bool,
    },
    /// No p-value these sample counts can give reaches alpha.
    TooFewSamples {
        /// Samples needed on each side.
        need: usize,
    },
    /// A side did not pass or has no figure for this metric.
    NotComparable {
        /// Why.
        reason: String,
    },
}

impl Change {
    /// The short mark shown in tables.
    pub fn mark(&self) -> &'static str {
        match self {
            Change::Faster => "faster",
            Change::Slower => "slower",
            Change::Same => "~",
            Change::Drift { .. } => "drift (same code)",
            Change::TooFewSamples { .. } => "too few samples",
            Change::NotComparable { .. } => "not comparable",
        }
    }
}

/// One metric of one matched result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What was measured.
    pub identity: Identity,
    /// Its transport (for the roll-up).
    pub transport: String,
    /// The figure compared.
    pub metric: Metric,
    /// Median before, samples before.
    pub before: Option<Side>,
    /// Median after, samples after.
    pub after: Option<Side>,
    /// median(after) / median(before); in a paired comparison, the median of the per-pair
    /// ratios.
    pub ratio: Option<f64>,
    /// 95% bootstrap interval of the ratio.
    pub interval: Option<Interval>,
    /// The rank test (two runs compared).
    pub test: Option<MannWhitney>,
    /// The signed-rank test on the per-pair log ratios (a paired comparison, see
    /// [`mod@super::paired`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_rank: Option<SignedRank>,
    /// The test's p-value adjusted for every figure the comparison tested (Benjamini–Hochberg,
    /// see `super::fdr`); the verdict and the regression flag are decided on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
    /// The verdict.
    #[serde(flatten)]
    pub change: Change,
    /// Worse by more than the maximum regression, significantly.
    pub regression: bool,
    /// Remarks on this row (parameters that differ, two regimes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Whether the transport ran the same machine code on both sides (their code identities,
    /// see [`crate::report::CodeMatch`]); absent when either side's is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<crate::report::CodeMatch>,
    /// In a paired run whose sides were each linked in several function orders, the test over
    /// the orders that judged the row (see [`mod@super::link_orders`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_orders: Option<super::link_orders::LinkOrders>,
}

impl Row {
    /// The verdict as a view says it: [`Change::mark`], except that a CPU cost is `cheaper` or
    /// `costlier`, not faster or slower.
    pub fn mark(&self) -> &'static str {
        match (&self.change, self.metric) {
            (Change::Faster, Metric::CpuPerMsg) => "cheaper",
            (Change::Slower, Metric::CpuPerMsg) => "costlier",
            (c, _) => c.mark(),
        }
    }

    /// The p-value of the row's test, before any adjustment; `None` when nothing was tested.
    pub fn p_raw(&self) -> Option<f64> {
        self.link_orders
            .map(|l| l.p)
            .or(self.test.map(|t| t.p))
            .or(self.signed_rank.map(|t| t.p))
    }

    /// The smallest p-value the row's samples allow, whichever test judged it.
    fn floor(&self) -> Option<f64> {
        let (b, a) = (self.before?.n, self.after?.n);
        Some(if self.link_orders.is_some() {
            // A t-test's p-value has no floor.
            0.0
        } else if self.signed_rank.is_some() {
            signed_rank::min_p(b.min(a))
        } else {
            mann_whitney::min_p(b, a)
        })
    }

    /// How much better the after side is, as a factor above 1 when better (the ratio for a
    /// figure where higher is better, its inverse otherwise).
    pub(crate) fn speedup(&self) -> Option<f64> {
        let r = self.ratio?;
        Some(if self.metric.higher_is_better() {
            r
        } else {
            1.0 / r
        })
    }
}

/// A side's figures for one metric.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// Median.
    pub median: f64,
    /// Samples.
    pub n: usize,
}

/// The geometric mean of one transport's speed-ups.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rollup {
    /// Transport.
    pub transport: String,
    /// Geometric mean of the speed-ups (above 1: faster after).
    pub geomean: f64,
    /// Rows rolled up.
    pub rows: usize,
}

/// A whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// `COMPARE_SCHEMA_VERSION`.
    pub schema_version: u32,
    /// The old side.
    pub before: SideInfo,
    /// The new side.
    pub after: SideInfo,
    /// How it was judged.
    pub judgement: Judgement,
    /// Every metric of every matched result, in the order of the after run.
    pub rows: Vec<Row>,
    /// Results only the before run has.
    pub only_before: Vec<Identity>,
    /// Results only the after run has.
    pub only_after: Vec<Identity>,
    /// Per transport, the geometric mean of its speed-ups.
    pub rollups: Vec<Rollup>,
    /// What makes this comparison less than clean: other environments, other parameters, regimes.
    pub warnings: Vec<String>,
    /// Whether the two sides are the two builds of one paired run (`handoff run --against`),
    /// judged pair by pair ([`mod@super::paired`]); absent (false) for two runs compared.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paired: bool,
}

impl Comparison {
    /// The rows that are regressions.
    pub fn regressions(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.regression)
    }
}

/// Compares `after` with `before`.
pub fn compare(
    before: (&str, &RunReport),
    after: (&str, &RunReport),
    judgement: Judgement,
) -> Comparison {
    let a = keyed(after.1);
    let b: BTreeMap<Key, &TrialResult> = keyed(before.1).into_iter().collect();
    let mut rows = Vec::new();
    let mut notes_params = Vec::new();
    for (key, ra) in &a {
        let Some(rb) = b.get(key) else { continue };
        let params = warnings::params_differ(rb, ra);
        if !params.is_empty() {
            notes_params.push(format!("{}: {}", key.0, params.join(", ")));
        }
        for mut row in compare_result(rb, ra, &judgement, judge) {
            row.notes.extend(params.iter().cloned());
            for (side, r) in [("before", rb), ("after", ra)] {
                if r.modes.is_some() {
                    row.notes
                        .push(format!("{side}: samples fell into two regimes"));
                }
            }
            rows.push(row);
        }
    }
    let only_before = b
        .keys()
        .filter(|k| !a.iter().any(|(ka, _)| ka == *k))
        .map(|k| k.0.clone())
        .collect();
    let only_after = a
        .iter()
        .filter(|(k, _)| !b.contains_key(k))
        .map(|(k, _)| k.0.clone())
        .collect();
    let mut warn = warnings::environments_differ(&before.1.environment, &after.1.environment);
    warn.extend(warnings::layouts_differ(before.1, after.1));
    if !notes_params.is_empty() {
        let shown = notes_params.len().min(3);
        warn.push(format!(
            "{} matched result(s) ran with other parameters (see their notes): {}{}",
            notes_params.len(),
            notes_params[..shown].join("; "),
            if notes_params.len() > shown {
                "; …"
            } else {
                ""
            }
        ));
    }
    warn.extend(warnings::regimes(("before", before.1), ("after", after.1)));
    adjust_for_many(&mut rows, &judgement);
    warn.extend(power_warning(&rows, &judgement));
    let rollups = rollups(&rows);
    Comparison {
        schema_version: COMPARE_SCHEMA_VERSION,
        before: side_info(before.0, before.1),
        after: side_info(after.0, after.1),
        judgement,
        rows,
        only_before,
        only_after,
        rollups,
        warnings: warn,
        paired: false,
    }
}

/// A result's key: its identity and, when a run holds several results of one identity (a sweep
/// of message counts), which of them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Key(Identity, usize);

fn keyed(report: &RunReport) -> Vec<(Key, &TrialResult)> {
    let mut seen: BTreeMap<Identity, usize> = BTreeMap::new();
    report
        .results
        .iter()
        .map(|r| {
            let id = Identity::of(r);
            let n = seen.entry(id.clone()).or_default();
            *n += 1;
            (Key(id, *n), r)
        })
        .collect()
}

pub(super) fn side_info(label: &str, r: &RunReport) -> SideInfo {
    SideInfo {
        label: label.to_string(),
        started_at: r.started_at.clone(),
        suite: r.suite.clone(),
        commit: r.environment.git_commit.clone(),
        environment: r.environment.summary(),
    }
}

/// How one metric's figures are judged: [`judge`] for two runs, `super::paired::judge` for the
/// two sides of a paired run.
pub(super) type Judge = fn(Identity, &str, Metric, &[f64], &[f64], &Judgement) -> Row;

/// The rows of one matched result: one per metric either side has, each judged by `judge`.
pub(super) fn compare_result(
    before: &TrialResult,
    after: &TrialResult,
    j: &Judgement,
    judge: Judge,
) -> Vec<Row> {
    let identity = Identity::of(after);
    let fb = metric::figures(before);
    let fa = metric::figures(after);
    let not_comparable = |metric: Metric, reason: String| Row {
        identity: identity.clone(),
        transport: after.transport.clone(),
        metric,
        before: None,
        after: None,
        ratio: None,
        interval: None,
        test: None,
        signed_rank: None,
        p_adjusted: None,
        change: Change::NotComparable { reason },
        regression: false,
        notes: Vec::new(),
        code: None,
        link_orders: None,
    };
    if before.verdict.is_failure() || after.verdict.is_failure() || fb.is_empty() || fa.is_empty() {
        let why = |r: &TrialResult, side: &str| {
            (r.verdict != crate::report::Verdict::Pass)
                .then(|| format!("{side} {}", r.verdict))
                .or_else(|| {
                    metric::figures(r)
                        .is_empty()
                        .then(|| format!("{side} has no figures"))
                })
        };
        let reason = [why(before, "before"), why(after, "after")]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        let metric = fa
            .first()
            .or(fb.first())
            .map_or(Metric::Throughput, |m| m.0);
        let mut row = not_comparable(metric, reason);
        row.code = crate::report::CodeMatch::of(before.code.as_ref(), after.code.as_ref());
        return vec![row];
    }
    let mut rows = Vec::new();
    for (metric, xa) in &fa {
        let Some((_, xb)) = fb.iter().find(|(m, _)| m == metric) else {
            if !metric.optional() {
                rows.push(not_comparable(*metric, "before has no such figure".into()));
            }
            continue;
        };
        rows.push(judge(
            identity.clone(),
            &after.transport,
            *metric,
            xb,
            xa,
            j,
        ));
    }
    let code = crate::report::CodeMatch::of(before.code.as_ref(), after.code.as_ref());
    for row in &mut rows {
        row.code = code;
    }
    rows
}

/// Tests one metric's figures and gives the verdict.
pub(crate) fn judge(
    identity: Identity,
    transport: &str,
    metric: Metric,
    before: &[f64],
    after: &[f64],
    j: &Judgement,
) -> Row {
    let (mb, ma) = (median(before), median(after));
    let ratio = (mb != 0.0).then(|| ma / mb);
    let test = mann_whitney::test(before, after);
    let interval = bootstrap::ratio_of_medians(before, after);
    let floor = mann_whitney::min_p(before.len(), after.len());
    let (change, regression) = if floor > j.alpha {
        (
            Change::TooFewSamples {
                need: mann_whitney::samples_needed(j.alpha),
            },
            false,
        )
    } else {
        verdict(metric, ratio, test.map(|t| t.p), j)
    };
    Row {
        identity,
        transport: transport.to_string(),
        metric,
        before: Some(Side {
            median: mb,
            n: before.len(),
        }),
        after: Some(Side {
            median: ma,
            n: after.len(),
        }),
        ratio,
        interval,
        test,
        signed_rank: None,
        p_adjusted: None,
        change,
        regression,
        notes: Vec::new(),
        code: None,
        link_orders: None,
    }
}

/// How much worse (positive) or better (negative) the after side is, relative.
fn worse(metric: Metric, ratio: Option<f64>) -> Option<f64> {
    ratio.map(|r| {
        if metric.higher_is_better() {
            1.0 - r
        } else {
            r - 1.0
        }
    })
}

/// The verdict and the regression flag of a figure whose test gave `p`.
pub(super) fn verdict(
    metric: Metric,
    ratio: Option<f64>,
    p: Option<f64>,
    j: &Judgement,
) -> (Change, bool) {
    let (Some(p), Some(w)) = (p, worse(metric, ratio)) else {
        return (
            Change::NotComparable {
                reason: "a median of 0".into(),
            },
            false,
        );
    };
    let change = if p < j.alpha && w.abs() >= j.threshold {
        if w > 0.0 {
            Change::Slower
        } else {
            Change::Faster
        }
    } else {
        Change::Same
    };
    let regression = j.max_regression.is_some_and(|max| p < j.alpha && w > max);
    (change, regression)
}

/// Judges every tested figure again on its p-value adjusted for all of them (see
/// [`super::fdr`]): many figures tested at once would otherwise show a change somewhere
/// almost every time.
pub(super) fn adjust_for_many(rows: &mut [Row], j: &Judgement) {
    let tested: Vec<usize> = (0..rows.len())
        .filter(|&i| {
            rows[i].p_raw().is_some()
                && matches!(
                    rows[i].change,
                    Change::Faster | Change::Slower | Change::Same
                )
        })
        .collect();
    let ps: Vec<f64> = tested
        .iter()
        .map(|&i| rows[i].p_raw().unwrap_or(1.0))
        .collect();
    for (&i, q) in tested.iter().zip(fdr::adjust(&ps)) {
        let r = &mut rows[i];
        r.p_adjusted = Some(q);
        (r.change, r.regression) = verdict(r.metric, r.ratio, Some(q), j);
        same_code_is_drift(r);
    }
}

/// A significant change of a figure whose transport ran the same machine code on both sides
/// is not the change's: it is said as drift (the machine's, or the placement of the same code)
/// and is never a regression.
fn same_code_is_drift(r: &mut Row) {
    if r.code != Some(crate::report::CodeMatch::Same) {
        return;
    }
    let better = match r.change {
        Change::Faster => true,
        Change::Slower => false,
        _ => return,
    };
    r.change = Change::Drift { better };
    r.regression = false;
}

/// When a lone change cannot be shown among `m` figures with these sample counts: the
/// smallest p-value the samples allow must be below alpha / m for the first figure to count.
pub(super) fn power_warning(rows: &[Row], j: &Judgement) -> Option<String> {
    let tested: Vec<&Row> = rows.iter().filter(|r| r.p_adjusted.is_some()).collect();
    let m = tested.len();
    if m < 2 {
        return None;
    }
    let floor = tested
        .iter()
        .filter_map(|r| r.floor())
        .fold(f64::INFINITY, f64::min);
    if floor * m as f64 <= j.alpha {
        return None;
    }
    // Pairs judged by the signed-rank test need fewer than two runs' samples.
    let paired = tested.iter().any(|r| r.signed_rank.is_some());
    let need = if paired {
        signed_rank::pairs_needed(j.alpha / m as f64)
    } else {
        mann_whitney::samples_needed(j.alpha / m as f64)
    };
    Some(format!(
        "{m} figures are judged at once: with these sample counts a change in one figure alone cannot reach significance (that takes at least {need} samples on each side); a change shared by many figures still can"
    ))
}

/// The geometric mean of each transport's speed-ups over its testable rows. CPU cost is left
/// out: the roll-up says how much faster, and a spinning transport's CPU per message moves with
/// its speed, so it would count the same change twice.
pub(super) fn rollups(rows: &[Row]) -> Vec<Rollup> {
    let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for r in rows {
        if matches!(r.change, Change::NotComparable { .. }) || r.metric.optional() {
            continue;
        }
        if let Some(s) = r.speedup().filter(|s| s.is_finite() && *s > 0.0) {
            by.entry(&r.transport).or_default().push(s);
        }
    }
    by.into_iter()
        .map(|(t, s)| Rollup {
            transport: t.to_string(),
            geomean: (s.iter().map(|x| x.ln()).sum::<f64>() / s.len() as f64).exp(),
            rows: s.len(),
        })
        .collect()
}
