//! Each gate passes on what it asks for, fails on what it does not, and fails, saying why,
//! on what it cannot judge; a scaling gate over oversubscribed points is skipped.

use super::*;
use crate::lints::fixture::{self, stream, with_rates};

fn report(results: Vec<TrialResult>, cpus: usize) -> RunReport {
    let mut r = fixture::report(results);
    r.environment.logical_cpus = cpus;
    r
}

fn at(transport: &str, producers: usize, rates: &[f64]) -> TrialResult {
    let mut r = with_rates(stream(), rates);
    r.transport = transport.into();
    r.workload = crate::workload::WorkloadKind::Mpsc;
    r.params.producers = producers;
    r
}

fn no_baseline(r: &str) -> Result<RunReport, super::Unavailable> {
    Err(super::Unavailable::because(format!("no baseline `{r}`")))
}

fn one(gate: Gate, report: &RunReport, load: &Loader<'_>) -> GateOutcome {
    evaluate(&[gate], report, load).remove(0)
}

const RATES: [f64; 5] = [100e6, 101e6, 99e6, 100e6, 100.5e6];

fn scaled(by: f64) -> Vec<f64> {
    RATES.iter().map(|x| x * by).collect()
}

#[test]
fn scaling_passes_fails_and_is_skipped_when_oversubscribed() {
    let gate = |min| Gate::Scaling {
        transports: vec![],
        min,
        up_to: UpTo::Cores,
        metric: Rate::Delivery,
    };
    let run = report(vec![at("q", 1, &RATES), at("q", 2, &scaled(1.6))], 8);
    let o = one(gate(1.5), &run, &no_baseline);
    assert_eq!(o.status, GateStatus::Passed, "{:?}", o.details);
    assert!(
        o.details[0].contains("1.60× at 2 producers"),
        "{:?}",
        o.details
    );

    let o = one(gate(2.0), &run, &no_baseline);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(o.details[0].ends_with("(FAIL)"), "{:?}", o.details);

    // 2 producers + 1 consumer on 2 cores: the figure says nothing about scaling.
    let small = report(run.results.clone(), 2);
    let o = one(gate(1.5), &small, &no_baseline);
    assert_eq!(o.status, GateStatus::Skipped, "{:?}", o.details);
    assert!(
        o.details[0].contains("skipped (2 cores: even 2 producers and 1 consumer need 3 threads)"),
        "{:?}",
        o.details
    );
}

/// A sweep over 1, 2, 4 and 8 producers whose rate grows up to 4 producers and collapses at 8.
fn sweep() -> Vec<TrialResult> {
    vec![
        at("q", 1, &RATES),
        at("q", 2, &scaled(1.7)),
        at("q", 4, &scaled(2.5)),
        at("q", 8, &scaled(0.8)),
    ]
}

/// Checks that `gate` over `run` ends as `status`, its first detail saying `says`.
fn expect(gate: Gate, run: &RunReport, status: GateStatus, says: &str) {
    let o = one(gate, run, &no_baseline);
    assert_eq!(o.status, status, "{:?}", o.details);
    assert!(o.details[0].contains(says), "{:?}", o.details);
}

fn scaling(up_to: UpTo, metric: Rate) -> Gate {
    Gate::Scaling {
        transports: vec!["q".into()],
        min: 1.5,
        up_to,
        metric,
    }
}

#[test]
fn scaling_up_to_the_cores_judges_the_most_producers_that_fit() {
    // 6 cores: 4 producers and the consumer fit, 8 do not.
    let run = report(sweep(), 6);
    expect(
        scaling(UpTo::Cores, Rate::Delivery),
        &run,
        GateStatus::Passed,
        "2.50× at 4 producers",
    );

    // 16 cores: every count fits, so the top one is judged, and it fails.
    expect(
        scaling(UpTo::Cores, Rate::Delivery),
        &report(sweep(), 16),
        GateStatus::Failed,
        "0.80× at 8 producers",
    );

    // 4 cores: 2 producers fit (3 threads), 4 do not (5).
    expect(
        scaling(UpTo::Cores, Rate::Delivery),
        &report(sweep(), 4),
        GateStatus::Passed,
        "1.70× at 2 producers",
    );

    // A sweep that skips 2 producers on 4 cores: nothing above 1 fits, and it says why.
    let gappy = vec![at("q", 1, &RATES), at("q", 4, &scaled(2.5))];
    expect(
        scaling(UpTo::Cores, Rate::Delivery),
        &report(gappy, 4),
        GateStatus::Skipped,
        "no producer count swept above 1 fits 4 cores (the least, 4, needs 5 threads)",
    );
}

#[test]
fn scaling_up_to_the_top_or_a_named_count() {
    let run = report(sweep(), 6);
    expect(
        scaling(UpTo::Top, Rate::Delivery),
        &run,
        GateStatus::Skipped,
        "oversubscribed: 9 threads on 6 cores at 8 producers",
    );

    expect(
        scaling(UpTo::Producers(2), Rate::Delivery),
        &run,
        GateStatus::Passed,
        "1.70× at 2 producers",
    );

    expect(
        scaling(UpTo::Producers(3), Rate::Delivery),
        &run,
        GateStatus::Failed,
        "no result at 3 producers",
    );
}

#[test]
fn scaling_on_the_submit_rate_judges_the_producers_not_the_consumer() {
    // The consumer delivers the same rate at every count; the producers' sends return sooner
    // with more of them, each sample's submit time a fraction of its elapsed time.
    let with_submit = |mut r: TrialResult, share: f64| {
        for s in &mut r.samples {
            s.submit_ns = Some((s.elapsed_ns as f64 * share) as u64);
        }
        r
    };
    let run = report(
        vec![
            with_submit(at("q", 1, &RATES), 1.0),
            with_submit(at("q", 2, &RATES), 0.5),
        ],
        4,
    );
    let o = one(scaling(UpTo::Cores, Rate::Delivery), &run, &no_baseline);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    expect(
        scaling(UpTo::Cores, Rate::Submit),
        &run,
        GateStatus::Passed,
        "submit rate 2.00× at 2 producers",
    );

    // Results that recorded no submit time cannot be judged on it.
    expect(
        scaling(UpTo::Cores, Rate::Submit),
        &report(sweep(), 4),
        GateStatus::Failed,
        "no submit rate recorded",
    );
}

#[test]
fn scaling_without_a_sweep_or_with_a_failed_point_cannot_pass() {
    let gate = Gate::Scaling {
        transports: vec![],
        min: 1.5,
        up_to: UpTo::Cores,
        metric: Rate::Delivery,
    };
    let o = one(
        gate.clone(),
        &report(vec![at("q", 1, &RATES)], 8),
        &no_baseline,
    );
    assert_eq!(o.status, GateStatus::Failed);
    assert!(
        o.details[0].contains("cannot be evaluated"),
        "{:?}",
        o.details
    );

    let mut hung = at("q", 4, &RATES);
    hung.verdict = Verdict::Hung;
    let o = one(
        gate,
        &report(vec![at("q", 1, &RATES), hung], 8),
        &no_baseline,
    );
    assert_eq!(o.status, GateStatus::Failed);
    assert!(
        o.details[0].contains("cannot be evaluated"),
        "{:?}",
        o.details
    );
}

#[test]
fn ratio_judges_one_transport_against_the_best_other_or_a_named_one() {
    let run = report(
        vec![
            at("mine", 1, &RATES),
            at("peer", 1, &scaled(0.9)),
            at("fast", 1, &scaled(1.2)),
        ],
        8,
    );
    let gate = |over: Over| Gate::Ratio {
        transport: "mine".into(),
        options: BTreeMap::new(),
        over,
        min: 1.0,
    };
    let o = one(gate(Over::Transport("peer".into())), &run, &no_baseline);
    assert_eq!(o.status, GateStatus::Passed, "{:?}", o.details);
    let o = one(gate(Over::Best), &run, &no_baseline);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(
        o.details.iter().any(|d| d.contains("fast")),
        "{:?}",
        o.details
    );
    let o = one(gate(Over::Transport("absent".into())), &run, &no_baseline);
    assert_eq!(o.status, GateStatus::Failed);
    assert!(
        o.details[0].contains("cannot be evaluated"),
        "{:?}",
        o.details
    );
}

#[test]
fn regression_fails_on_a_significant_slowdown_beyond_max_only() {
    let gate = Gate::Regression {
        baseline: "main".into(),
        max: 0.05,
        allow_unjudged: false,
    };
    let base = report(vec![at("q", 1, &RATES)], 8);
    let load = |_: &str| Ok(base.clone());
    let same = report(vec![at("q", 1, &scaled(0.99))], 8);
    let o = one(gate.clone(), &same, &load);
    assert_eq!(o.status, GateStatus::Passed, "{:?}", o.details);
    let slower = report(vec![at("q", 1, &scaled(0.8))], 8);
    let o = one(gate.clone(), &slower, &load);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(o.details[0].contains("-20.0%"), "{:?}", o.details);
    let o = one(gate, &slower, &no_baseline);
    assert_eq!(o.status, GateStatus::Failed);
    assert_eq!(o.details, ["cannot be evaluated: no baseline `main`"]);
}

#[test]
fn regression_cannot_pass_on_what_it_cannot_judge() {
    let gate = Gate::Regression {
        baseline: "main".into(),
        max: 0.05,
        allow_unjudged: false,
    };
    // Three samples a side: no ordering of them reaches p < 0.05.
    let base = report(vec![at("q", 1, &RATES[..3])], 8);
    let load = |_: &str| Ok(base.clone());
    let o = one(
        gate.clone(),
        &report(vec![at("q", 1, &RATES[..3])], 8),
        &load,
    );
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(o.details[0].contains("too few samples"), "{:?}", o.details);

    // A result that failed, and a run that matches nothing of the baseline.
    let base = report(vec![at("q", 1, &RATES)], 8);
    let load = |_: &str| Ok(base.clone());
    let mut failed = at("q", 1, &RATES);
    failed.verdict = Verdict::Fail;
    let o = one(gate.clone(), &report(vec![failed], 8), &load);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(
        o.details[0].contains("cannot be evaluated"),
        "{:?}",
        o.details
    );
    let o = one(gate, &report(vec![at("other", 1, &RATES)], 8), &load);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(
        o.details[0].contains("cannot be evaluated: no result matches one of `main`"),
        "{:?}",
        o.details
    );
}

#[test]
fn allowed_unjudged_points_pass_listed_and_regressions_still_fail() {
    let gate = Gate::Regression {
        baseline: "main".into(),
        max: 0.05,
        allow_unjudged: true,
    };
    let base = report(vec![at("q", 1, &RATES)], 8);
    let load = |_: &str| Ok(base.clone());
    // Nothing matches: passes, and says what was not judged.
    let o = one(
        gate.clone(),
        &report(vec![at("other", 1, &RATES)], 8),
        &load,
    );
    assert_eq!(o.status, GateStatus::Passed, "{:?}", o.details);
    assert!(
        o.details[0].contains("not judged (allowed): no result matches one of `main`"),
        "{:?}",
        o.details
    );
    // A real slowdown still fails.
    let o = one(gate, &report(vec![at("q", 1, &scaled(0.8))], 8), &load);
    assert_eq!(o.status, GateStatus::Failed, "{:?}", o.details);
    assert!(o.details[0].contains("-20.0%"), "{:?}", o.details);
}
