//! The comparison's honesty, on hand-built runs: a run against itself, a planted slowdown, a
//! change under the threshold, too few samples, failed sides, unmatched results, other machines.

use super::model::{compare, Change, Judgement};
use crate::lints::fixture;
use crate::output::compare::{render, CompareFormat};
use crate::report::{RunReport, TrialResult, Verdict};

/// Ten samples around 100 M/s with a few percent of run-to-run noise.
const RATES: [f64; 10] = [
    100e6, 103e6, 98e6, 101e6, 97e6, 102e6, 99.5e6, 100.5e6, 104e6, 96e6,
];

fn result(transport: &str, rates: &[f64]) -> TrialResult {
    let mut r = fixture::with_rates(fixture::stream(), rates);
    r.transport = transport.into();
    r
}

fn run(results: Vec<TrialResult>) -> RunReport {
    fixture::report(results)
}

fn scaled(by: f64) -> Vec<f64> {
    RATES.iter().map(|x| x * by).collect()
}

fn gate(max: f64) -> Judgement {
    Judgement {
        max_regression: Some(max),
        ..Judgement::default()
    }
}

#[test]
fn a_run_compared_with_itself_is_the_same_everywhere() {
    let a = run(vec![result("a", &RATES), result("b", &scaled(2.0))]);
    let c = compare(("x", &a), ("x", &a), gate(0.05));
    assert_eq!(c.rows.len(), 2);
    for r in &c.rows {
        assert_eq!(r.change, Change::Same, "{r:?}");
        assert_eq!(r.ratio, Some(1.0));
        assert!(!r.regression);
        assert!(r.interval.unwrap().contains(1.0));
    }
    assert_eq!(c.regressions().count(), 0);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(c.rollups[0].geomean, 1.0);
}

#[test]
fn a_twenty_percent_slowdown_is_a_regression() {
    let before = run(vec![result("a", &RATES)]);
    let after = run(vec![result("a", &scaled(0.8))]);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    let r = &c.rows[0];
    assert_eq!(r.change, Change::Slower);
    assert!(r.regression);
    assert!((r.ratio.unwrap() - 0.8).abs() < 1e-9);
    assert!(r.test.unwrap().p < 0.001, "{:?}", r.test);
    assert!(r.interval.unwrap().high < 0.9);
    assert!((c.rollups[0].geomean - 0.8).abs() < 1e-9);
    // The other way round it is faster, and no regression.
    let c = compare(("after", &after), ("before", &before), gate(0.05));
    assert_eq!(c.rows[0].change, Change::Faster);
    assert!(!c.rows[0].regression);
}

#[test]
fn a_two_percent_change_is_not_flagged_at_five_percent() {
    let before = run(vec![result("a", &RATES)]);
    let after = run(vec![result("a", &scaled(0.98))]);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.rows[0].change, Change::Same);
    assert!(!c.rows[0].regression);
    // At a 1% threshold, the same shift is significant only if the noise allows it: the ranks
    // overlap, so it is still not a regression.
    let strict = Judgement {
        threshold: 0.01,
        max_regression: Some(0.01),
        ..Judgement::default()
    };
    let c = compare(("before", &before), ("after", &after), strict);
    assert!(c.rows[0].test.unwrap().p > 0.05, "{:?}", c.rows[0].test);
    assert!(!c.rows[0].regression);
}

#[test]
fn too_few_samples_never_say_no_change() {
    let before = run(vec![result("a", &RATES[..3])]);
    let after = run(vec![result("a", &scaled(0.5)[..3])]);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.rows[0].change, Change::TooFewSamples { need: 4 });
    assert!(!c.rows[0].regression);
    let mut text = Vec::new();
    render(&c, &after, CompareFormat::Table, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("1 figure not judged: too few samples for any change to be significant: at least 4 on each side, and these runs took at most 3 a result (`--quick` takes 3); run both with `--samples 4` or more (a spsc threads u64 1p1c cap=1024 msgs/s)"),
        "{text}"
    );
}

#[test]
fn too_few_samples_on_many_figures_is_one_short_line_and_nothing_is_judged() {
    let names: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
    let before = run(names.iter().map(|n| result(n, &RATES[..3])).collect());
    let after = run(names.iter().map(|n| result(n, &RATES[..3])).collect());
    let c = compare(("main", &before), ("2", &after), gate(0.05));
    let mut text = Vec::new();
    render(&c, &after, CompareFormat::Table, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("not judged: too few samples"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("40 figures not judged"), "{line}");
    assert!(
        line.ends_with("t2 spsc threads u64 1p1c cap=1024 msgs/s and 37 more)"),
        "{line}"
    );
    assert!(line.chars().count() < 400, "{line}");
    assert!(
        text.contains("nothing could be judged against 5.0%"),
        "{text}"
    );
    assert!(
        !text.contains("no result is significantly slower"),
        "{text}"
    );
    let (status, details) = crate::gates::judge(&c, "main", false);
    assert_eq!(status, crate::gates::GateStatus::Failed);
    let held: Vec<&String> = details.iter().filter(|d| d.contains("too few")).collect();
    assert_eq!(held.len(), 1, "{details:?}");
    assert!(
        held[0].starts_with("40 figures: cannot be evaluated: too few samples"),
        "{}",
        held[0]
    );
}

#[test]
fn failed_sides_and_unmatched_results_are_listed() {
    let mut failed = result("a", &RATES);
    failed.verdict = Verdict::Hung;
    let before = run(vec![result("a", &RATES), result("gone", &RATES)]);
    let after = run(vec![failed, result("new", &RATES)]);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.rows.len(), 1);
    assert!(
        matches!(&c.rows[0].change, Change::NotComparable { reason } if reason == "after HUNG"),
        "{:?}",
        c.rows[0].change
    );
    assert_eq!(c.only_before.len(), 1);
    assert!(c.only_before[0].as_str().starts_with("gone "));
    assert!(c.only_after[0].as_str().starts_with("new "));
}

#[test]
fn other_machines_and_other_parameters_are_said_loudly() {
    let before = run(vec![result("a", &RATES)]);
    let mut after = run(vec![result("a", &RATES)]);
    after.environment.cpu_model = "Another CPU".into();
    after.environment.build_profile = "debug".into();
    after.results[0].params.messages_requested = "2000000".into();
    let c = compare(("before", &before), ("after", &after), Judgement::default());
    let all = c.warnings.join("\n");
    assert!(all.contains("different environments"), "{all}");
    assert!(
        all.contains("Another CPU") && all.contains("build profile"),
        "{all}"
    );
    assert!(all.contains("other parameters"), "{all}");
    assert!(c.rows[0]
        .notes
        .iter()
        .any(|n| n.starts_with("messages/sample")));
}

#[test]
fn latency_is_compared_lower_is_better() {
    let with_latency = |p50: u64| {
        let mut r = result("a", &RATES);
        r.workload = crate::workload::WorkloadKind::PingPong;
        for (i, s) in r.samples.iter_mut().enumerate() {
            let jitter = (i as u64 * 7) % 5;
            s.p50_ns = Some(p50 + jitter);
            s.p99_ns = Some(2 * p50 + jitter);
        }
        r
    };
    let before = run(vec![with_latency(100)]);
    let after = run(vec![with_latency(125)]);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.rows.len(), 2);
    for r in &c.rows {
        assert_eq!(r.change, Change::Slower, "{r:?}");
        assert!(r.regression);
        assert!(r.speedup().unwrap() < 0.85);
    }
}

#[test]
fn every_format_renders_and_json_reads_back() {
    let before = run(vec![result("a", &RATES)]);
    let after = run(vec![result("a", &scaled(0.8))]);
    let c = compare(("before.json", &before), ("after.json", &after), gate(0.05));
    for f in CompareFormat::ALL {
        let mut out = Vec::new();
        render(&c, &after, f, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        match f {
            CompareFormat::Table => {
                assert!(text.contains("REGRESSION beyond 5.0%"), "{text}");
                assert!(text.contains("-20.0%"), "{text}");
            }
            CompareFormat::Markdown => assert!(text.contains("| result | metric |"), "{text}"),
            CompareFormat::Json => {
                let back: super::Comparison = serde_json::from_str(&text).unwrap();
                assert_eq!(back, c);
            }
            CompareFormat::Bmf => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                let (name, m) = v.as_object().unwrap().iter().next().unwrap();
                assert!(
                    name.starts_with("queue ") || name.starts_with("a "),
                    "{name}"
                );
                assert_eq!(m["throughput"]["value"], serde_json::json!(80.2e6));
            }
            CompareFormat::Html => {
                assert!(text.starts_with("<!DOCTYPE html>"), "{text}");
                // The regression is charted in red and listed.
                assert!(text.contains("class=\"change slower\""), "{text}");
                assert!(text.contains("-20.0%"), "{text}");
            }
        }
    }
}

/// `n` results named `t0`, `t1`, … whose samples are `RATES[..k]` scaled by `by(i)`.
fn many(n: usize, k: usize, by: impl Fn(usize) -> f64) -> RunReport {
    run((0..n)
        .map(|i| {
            let rates: Vec<f64> = RATES[..k].iter().map(|x| x * by(i)).collect();
            result(&format!("t{i}"), &rates)
        })
        .collect())
}

#[test]
fn one_marginal_change_among_many_figures_is_not_called_a_change() {
    // 40 results; one of them is 20% slower in 5 samples of 5, whose best p is 0.0079: alone it
    // would be a regression, among 40 figures judged at once it cannot be told from chance.
    let before = many(40, 5, |_| 1.0);
    let after = many(40, 5, |i| if i == 7 { 0.8 } else { 1.0 });
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    let r = &c.rows[7];
    assert!(r.test.unwrap().p < 0.01, "{r:?}");
    assert!(r.p_adjusted.unwrap() > 0.05, "{r:?}");
    assert_eq!(r.change, Change::Same);
    assert_eq!(c.regressions().count(), 0);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("40 figures are judged at once")
                && w.contains("at least 7 samples on each side")),
        "{:?}",
        c.warnings
    );

    // With 10 samples a side the lone change is seen among the 40.
    let before = many(40, 10, |_| 1.0);
    let after = many(40, 10, |i| if i == 7 { 0.8 } else { 1.0 });
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.rows[7].change, Change::Slower);
    assert_eq!(c.regressions().count(), 1);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn a_change_shared_by_many_figures_is_seen_even_with_few_samples() {
    // A build that slows every result by 20%: with 5 samples a side each figure's p is 0.0079,
    // and shared by all 40 figures it stays significant after the adjustment.
    let before = many(40, 5, |_| 1.0);
    let after = many(40, 5, |_| 0.8);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.regressions().count(), 40);
    for r in &c.rows {
        assert_eq!(r.change, Change::Slower, "{r:?}");
        assert!(r.p_adjusted.unwrap() < 0.05);
    }
}

/// `result` with every sample's CPU time set to `ns_per_msg[i]` per message.
fn with_cpu(mut r: TrialResult, ns_per_msg: &[f64]) -> TrialResult {
    for (s, ns) in r.samples.iter_mut().zip(ns_per_msg) {
        let total = (ns * s.messages as f64) as u64;
        s.cpu = Some(handoff_model::cpu::SampleCpu {
            producer_ns: total / 2,
            consumer_ns: total - total / 2,
            runtime_ns: 0,
            page_faults: None,
        });
    }
    r
}

/// Same speed, 30% more CPU per message: a costlier regression of its own, left out of the
/// speed roll-up; against a report that never recorded CPU, the figure is simply absent.
#[test]
fn cpu_per_message_is_judged_and_absent_from_older_reports() {
    let cpu: Vec<f64> = RATES.iter().map(|x| 5e9 / x).collect();
    let costlier: Vec<f64> = cpu.iter().map(|x| x * 1.3).collect();
    let before = run(vec![with_cpu(result("a", &RATES), &cpu)]);
    let after = run(vec![with_cpu(result("a", &RATES), &costlier)]);
    let c = compare(("before", &before), ("after", &after), gate(0.05));
    assert_eq!(c.rows.len(), 2, "{:?}", c.rows);
    assert_eq!(c.rows[0].change, Change::Same);
    let r = &c.rows[1];
    assert_eq!(r.metric, super::metric::Metric::CpuPerMsg);
    assert_eq!((r.change.clone(), r.mark()), (Change::Slower, "costlier"));
    assert!(r.regression);
    assert_eq!(c.regressions().count(), 1);
    assert_eq!((c.rollups[0].rows, c.rollups[0].geomean), (1, 1.0));

    let old = run(vec![result("a", &RATES)]);
    for c in [
        compare(("old", &old), ("after", &after), gate(0.05)),
        compare(("after", &after), ("old", &old), gate(0.05)),
    ] {
        assert_eq!(c.rows.len(), 1, "{:?}", c.rows);
        assert_eq!(c.rows[0].change, Change::Same);
        assert_eq!(c.regressions().count(), 0);
    }
}
