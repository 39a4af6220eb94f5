//! Crossovers: where two transports change places along a sweep (see [`crate::sweep`]).
//!
//! Along a sweep, two series (a transport with its options) are compared at each point both
//! ran, on their per-sample figures: messages per second for closed-loop streams, the 99th
//! percentile for paced ones. Between two neighbouring points they **cross** when one is
//! significantly behind the other at the first point and significantly ahead at the second,
//! each by the Mann–Whitney test at [`ALPHA`] (the test `compare` uses). An order that changes
//! inside the noise at either point is no crossing: with three samples a side no difference is
//! ever significant, so none is claimed. A series without the swept parameter (an unbounded
//! channel in a capacity sweep) is one figure for the whole sweep, and crossings against it are
//! found too ("crossbeam-bounded overtakes std-mpsc-poll between capacity 1024 and 8192").
//!
//! The text and markdown views print each crossing under the table that holds the overtaking
//! row at the second point; the HTML report also marks it on the sweep's chart.

use crate::compare::mann_whitney;
use crate::compare::metric::{figures, Metric};
use crate::report::{TrialResult, Verdict};
use crate::stats::median;
use crate::sweep::Sweep;
use std::collections::BTreeMap;

/// The significance level at each of a crossing's two points.
pub(crate) const ALPHA: f64 = 0.05;

/// Two series changing places between neighbouring points of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Crossing {
    /// The parameter swept.
    pub sweep: Sweep,
    /// The sweep's key (see [`Sweep::key`]): which results it is made of.
    pub key: String,
    /// The series that is behind at `from` and ahead at `to`.
    pub leader: String,
    /// The series it overtakes.
    pub other: String,
    /// The point where the leader is behind.
    pub from: f64,
    /// The neighbouring point where it is ahead.
    pub to: f64,
    /// The leader's figure against the other's at `from` and at `to`, as a speed (above 1:
    /// the leader is better; for latency, the other's percentile over the leader's).
    pub before: f64,
    /// As `before`, at `to`.
    pub after: f64,
    /// The figure compared.
    pub metric: Metric,
    /// The result (index in the report) the crossing is shown with: the leader's at `to`, or
    /// the other's where the leader is one figure for the whole sweep.
    pub shown_with: usize,
    /// The points of the two (`from`, `to`, or both) where a result compared ran more threads
    /// than cores: its order there includes the scheduler's time slicing.
    pub oversubscribed: Vec<f64>,
    /// The results compared, as `(series, point)`, that are flagged `page-faults`: their figure
    /// there includes the kernel mapping memory the transport touched for the first time.
    pub page_faults: Vec<(String, f64)>,
}

impl Crossing {
    /// The crossing as the views say it: `crossbeam-bounded overtakes std-mpsc-poll between
    /// capacity 1024 and 8192 (0.93× → 1.12× its msgs/s)`.
    pub(crate) fn sentence(&self) -> String {
        let mut s = format!(
            "{} overtakes {} between {} {} and {} ({:.2}× → {:.2}× its {}; significant at both",
            self.leader,
            self.other,
            self.sweep.word(),
            self.sweep.value(self.from),
            self.sweep.value(self.to),
            self.before,
            self.after,
            self.metric.name()
        );
        if !self.oversubscribed.is_empty() {
            let at: Vec<String> = self
                .oversubscribed
                .iter()
                .map(|x| self.sweep.value(*x))
                .collect();
            s.push_str(&format!(
                "; oversubscribed at {} {}: the order there includes time slicing",
                self.sweep.word(),
                at.join(" and ")
            ));
        }
        if !self.page_faults.is_empty() {
            let at: Vec<String> = self
                .page_faults
                .iter()
                .map(|(series, x)| format!("{series} at {}", self.sweep.value(*x)))
                .collect();
            s.push_str(&format!(
                "; page faults in {}: the figure there includes the kernel mapping memory touched for the first time",
                at.join(" and ")
            ));
        }
        s.push(')');
        s
    }
}

/// A result's figures for crossings: the metric and its per-sample values, higher better or
/// not; `None` for a result that did not pass or has nothing to compare.
fn figure(r: &TrialResult) -> Option<(Metric, Vec<f64>)> {
    if r.verdict != Verdict::Pass || r.ramp.is_some() {
        return None;
    }
    let all = figures(r);
    all.iter()
        .find(|(m, _)| *m == Metric::Throughput)
        .or_else(|| all.iter().find(|(m, _)| *m == Metric::LatencyP99))
        .filter(|(_, xs)| !xs.is_empty())
        .cloned()
}

/// How `a` stands against `b` at one point: its speed relative to `b` (above 1: better) and
/// whether the difference is significant; `None` when they measured different figures.
fn stand(a: &(Metric, Vec<f64>), b: &(Metric, Vec<f64>)) -> Option<(f64, bool)> {
    if a.0 != b.0 {
        return None;
    }
    let (ma, mb) = (median(&a.1), median(&b.1));
    if ma <= 0.0 || mb <= 0.0 {
        return None;
    }
    let speed = if a.0.higher_is_better() {
        ma / mb
    } else {
        mb / ma
    };
    let significant = mann_whitney::test(&a.1, &b.1).is_some_and(|t| t.p < ALPHA);
    Some((speed, significant))
}

/// One series of a sweep: its results by the swept value, or one result for the whole sweep.
#[derive(Default)]
struct Series {
    at: BTreeMap<u64, usize>,
    flat: Option<usize>,
}

impl Series {
    /// The result at `x`: its own there, or its one figure for the whole sweep.
    fn result_at(&self, x: f64) -> Option<usize> {
        self.at.get(&x.to_bits()).copied().or(self.flat)
    }

    fn xs(&self) -> Vec<f64> {
        self.at.keys().map(|b| f64::from_bits(*b)).collect()
    }
}

/// Every crossing in `results` (see the module docs), sweep by sweep.
pub(crate) fn find(results: &[TrialResult]) -> Vec<Crossing> {
    let figures: Vec<Option<(Metric, Vec<f64>)>> = results.iter().map(figure).collect();
    let mut out = Vec::new();
    for sweep in Sweep::ALL {
        let mut sets: BTreeMap<String, BTreeMap<String, Series>> = BTreeMap::new();
        for (i, r) in results.iter().enumerate() {
            if figures[i].is_none() {
                continue;
            }
            let series = sets
                .entry(sweep.key(r))
                .or_default()
                .entry(crate::sweep::series_label(r))
                .or_default();
            match sweep.of(r) {
                Some(x) => {
                    series.at.entry(x.to_bits()).or_insert(i);
                }
                // Only a capacity sweep has series without the parameter (unbounded channels).
                None if sweep == Sweep::Capacity => series.flat = Some(i),
                None => {}
            }
        }
        for (key, set) in sets {
            let series: Vec<(&String, &Series)> = set
                .iter()
                .filter(|(_, s)| !s.at.is_empty() || s.flat.is_some())
                .collect();
            for (a, (la, sa)) in series.iter().enumerate() {
                for (lb, sb) in &series[a + 1..] {
                    let mut xs: Vec<f64> = sa.xs().into_iter().chain(sb.xs()).collect();
                    xs.sort_by(f64::total_cmp);
                    xs.dedup();
                    // The points both ran (a flat series ran at every point).
                    let points: Vec<(f64, usize, usize)> = xs
                        .into_iter()
                        .filter_map(|x| Some((x, sa.result_at(x)?, sb.result_at(x)?)))
                        .filter(|(_, i, j)| i != j)
                        .collect();
                    for w in points.windows(2) {
                        let (x0, a0, b0) = w[0];
                        let (x1, a1, b1) = w[1];
                        let fig = |i: usize| figures[i].as_ref().expect("kept with figures");
                        let (Some((s0, sig0)), Some((s1, sig1))) =
                            (stand(fig(a0), fig(b0)), stand(fig(a1), fig(b1)))
                        else {
                            continue;
                        };
                        if !(sig0 && sig1) || (s0 < 1.0) == (s1 < 1.0) {
                            continue;
                        }
                        let a_leads = s1 > 1.0;
                        let (leader, other) = if a_leads { (la, lb) } else { (lb, la) };
                        let (before, after) = if a_leads {
                            (s0, s1)
                        } else {
                            (1.0 / s0, 1.0 / s1)
                        };
                        let leader_flat = if a_leads {
                            sa.at.is_empty()
                        } else {
                            sb.at.is_empty()
                        };
                        let (lead_at, other_at) = if a_leads { (a1, b1) } else { (b1, a1) };
                        let over = |i: usize| results[i].placement.oversubscribed;
                        let oversubscribed = [(x0, a0, b0), (x1, a1, b1)]
                            .into_iter()
                            .filter(|(_, i, j)| over(*i) || over(*j))
                            .map(|(x, _, _)| x)
                            .collect();
                        let faulted = |i: usize| {
                            results[i]
                                .lints
                                .iter()
                                .any(|l| matches!(l, crate::lints::Lint::PageFaults { .. }))
                        };
                        let page_faults = [(x0, a0, b0), (x1, a1, b1)]
                            .into_iter()
                            .flat_map(|(x, i, j)| [(la, x, i), (lb, x, j)])
                            .filter(|(_, _, i)| faulted(*i))
                            .map(|(label, x, _)| ((*label).clone(), x))
                            .collect();
                        out.push(Crossing {
                            sweep,
                            key: key.clone(),
                            leader: (*leader).clone(),
                            other: (*other).clone(),
                            from: x0,
                            to: x1,
                            before,
                            after,
                            metric: fig(a0).0,
                            shown_with: if leader_flat { other_at } else { lead_at },
                            oversubscribed,
                            page_faults,
                        });
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lints::fixture::{stream, with_rates};

    fn at(transport: &str, capacity: Option<usize>, rates: &[f64]) -> TrialResult {
        let mut r = with_rates(stream(), rates);
        r.transport = transport.into();
        r.params.capacity = capacity;
        r
    }

    /// Five samples scattered by ±1% around `m`.
    fn around(m: f64) -> Vec<f64> {
        [0.99, 1.0, 1.01, 0.995, 1.005]
            .iter()
            .map(|f| f * m)
            .collect()
    }

    #[test]
    fn a_bounded_channel_overtakes_an_unbounded_one_as_its_capacity_grows() {
        let results = vec![
            at("std-mpsc-poll", None, &around(10e6)),
            at("crossbeam-bounded", Some(256), &around(7e6)),
            at("crossbeam-bounded", Some(1024), &around(9.3e6)),
            at("crossbeam-bounded", Some(8192), &around(11.2e6)),
        ];
        let found = find(&results);
        assert_eq!(found.len(), 1, "{found:?}");
        let c = &found[0];
        assert_eq!(
            (c.leader.as_str(), c.other.as_str()),
            ("crossbeam-bounded", "std-mpsc-poll")
        );
        assert_eq!((c.from, c.to), (1024.0, 8192.0));
        assert_eq!(c.shown_with, 3);
        assert_eq!(
            c.sentence(),
            "crossbeam-bounded overtakes std-mpsc-poll between capacity 1024 and 8192 (0.93× → 1.12× its msgs/s; significant at both)"
        );
    }

    #[test]
    fn two_swept_series_cross_either_way_and_say_who_leads() {
        let results = vec![
            at("a", Some(256), &around(10e6)),
            at("b", Some(256), &around(8e6)),
            at("a", Some(1024), &around(10e6)),
            at("b", Some(1024), &around(12e6)),
        ];
        let found = find(&results);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].leader.as_str(), found[0].other.as_str()),
            ("b", "a")
        );
        assert!((found[0].before - 0.8).abs() < 1e-9, "{:?}", found[0]);
        assert!((found[0].after - 1.2).abs() < 1e-9, "{:?}", found[0]);
        assert_eq!(found[0].shown_with, 3);
    }

    #[test]
    fn no_crossing_is_claimed_inside_the_noise() {
        // The order changes, but at 1024 the two overlap sample for sample.
        let overlapping = vec![
            at("a", Some(256), &around(10e6)),
            at("b", Some(256), &around(8e6)),
            at("a", Some(1024), &around(10e6)),
            at("b", Some(1024), &around(10.02e6)),
        ];
        assert!(find(&overlapping).is_empty());
        // Three samples a side can never be significant at 5%.
        let few = vec![
            at("a", Some(256), &[10e6, 10.1e6, 9.9e6]),
            at("b", Some(256), &[8e6, 8.1e6, 7.9e6]),
            at("a", Some(1024), &[10e6, 10.1e6, 9.9e6]),
            at("b", Some(1024), &[12e6, 12.1e6, 11.9e6]),
        ];
        assert!(find(&few).is_empty());
        // No change of order: nothing to say.
        let parallel = vec![
            at("a", Some(256), &around(10e6)),
            at("b", Some(256), &around(8e6)),
            at("a", Some(1024), &around(12e6)),
            at("b", Some(1024), &around(9e6)),
        ];
        assert!(find(&parallel).is_empty());
    }

    #[test]
    fn a_crossing_at_an_oversubscribed_point_says_so() {
        let mut crowded = at("b", Some(1024), &around(12e6));
        crowded.placement.oversubscribed = true;
        let results = vec![
            at("a", Some(256), &around(10e6)),
            at("b", Some(256), &around(8e6)),
            at("a", Some(1024), &around(10e6)),
            crowded,
        ];
        let found = find(&results);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].oversubscribed, [1024.0]);
        assert!(
            found[0].sentence().ends_with(
                "; oversubscribed at capacity 1024: the order there includes time slicing)"
            ),
            "{}",
            found[0].sentence()
        );
    }

    #[test]
    fn a_crossing_at_a_point_with_page_faults_names_the_result() {
        let mut faulted = at("b", Some(1024), &around(8e6));
        faulted.lints.push(crate::lints::Lint::PageFaults {
            per_msg: 0.008,
            messages: 1000,
        });
        let results = vec![
            at("a", Some(256), &around(8e6)),
            at("b", Some(256), &around(10e6)),
            at("a", Some(1024), &around(10e6)),
            faulted,
        ];
        let found = find(&results);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].page_faults, [("b".to_string(), 1024.0)]);
        assert!(
            found[0].sentence().ends_with(
                "; page faults in b at 1024: the figure there includes the kernel mapping memory touched for the first time)"
            ),
            "{}",
            found[0].sentence()
        );
    }

    #[test]
    fn a_failed_point_is_no_point() {
        let mut hung = at("b", Some(1024), &around(12e6));
        hung.verdict = Verdict::Hung;
        let results = vec![
            at("a", Some(256), &around(10e6)),
            at("b", Some(256), &around(8e6)),
            at("a", Some(1024), &around(10e6)),
            hung,
        ];
        assert!(find(&results).is_empty());
    }
}
