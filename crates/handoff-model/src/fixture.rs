//! Hand-built results for the tests of the lint rules: a passing closed-loop stream that no
//! rule flags, and the pieces the tests change in it.

use crate::environment::Environment;
use crate::limits::Limits;
use crate::open_loop::Overhead;
use crate::placement::Placement;
use crate::report::{Latency, PacedResult, Params, RawSample, TrialResult, Verdict};
use crate::semantics::{
    Arity, Bound, ConsumerStyle, Delivery, Locality, Ordering, Semantics, WaitStrategy,
};
use crate::stats::Summary;
use crate::workload::{Pacing, WorkloadKind};

/// A pinned, passing spsc result over a bounded cross-thread queue, five quiet samples.
pub fn stream() -> TrialResult {
    let r = TrialResult {
        redelivered: 0,
        lost: 0,
        transport: "queue".into(),
        workload: WorkloadKind::Spsc,
        params: Params {
            defaults: Default::default(),
            capacity: Some(1024),
            messages: 1_000_000,
            messages_requested: "1000000".into(),
            target_ms: None,
            producers: 1,
            consumers: 1,
            driver: Default::default(),
            payload: crate::payload::PayloadKind::U64,
            payload_bytes: 8,
            batch: None,
            options: Default::default(),
            samples: 5,
            warmup: 1,
            timeout_ms: 10_000,
            pacing: Pacing::Closed,
            pipeline: None,
            fresh_process: false,
        },
        semantics: Semantics {
            producers: Arity::One,
            consumers: Arity::One,
            ordering: Ordering::GlobalFifo,
            bound: Bound::Bounded {
                min_capacity: 1,
                power_of_two: false,
            },
            wait: WaitStrategy::Block,
            batch: false,
            locality: Locality::CrossThread,
            consumer_style: ConsumerStyle::Pull,
            delivery: Delivery::ExactlyOnce,
        },
        placement: Placement {
            threads: 2,
            cores_available: 4,
            cores: vec![0, 2],
            pinned: true,
            ..Placement::default()
        },
        verdict: Verdict::Pass,
        violation: None,
        throughput: None,
        submit: None,
        ns_per_msg: None,
        latency: None,
        failed_sends: 0,
        failed_recvs: 0,
        digest: None,
        limit: None,
        lints: Vec::new(),
        samples: Vec::new(),
        paced: None,
        ramp: None,
        modes: None,
        same_worker: None,
        memory: None,
        cpu: None,
        printed: None,
        origin: Default::default(),
        code: None,
    };
    with_rates(r, &[100e6, 101e6, 99e6, 100e6, 100.5e6])
}

/// `r` with timed samples at these rates (messages per second) and their summary.
pub fn with_rates(mut r: TrialResult, rates: &[f64]) -> TrialResult {
    r.samples = rates
        .iter()
        .map(|&msgs_per_s| RawSample {
            redelivered: 0,
            lost: 0,
            messages: r.params.messages,
            elapsed_ns: (r.params.messages as f64 / msgs_per_s * 1e9) as u64,
            msgs_per_s,
            ns_per_msg: 1e9 / msgs_per_s,
            failed_sends: 0,
            failed_recvs: 0,
            layout: None,
            p50_ns: None,
            p99_ns: None,
            memory: None,
            submit_ns: None,
            cpu: None,
            windows: Vec::new(),
        })
        .collect();
    r.throughput = Summary::of(rates);
    r
}

/// A paced result at `requested` messages per second that achieved `achieved`, refusals
/// observable, a cheap harness and a p50 of 10 µs.
pub fn paced(requested: u64, achieved: f64) -> TrialResult {
    let mut r = stream();
    r.workload = WorkloadKind::Paced;
    r.params.pacing = Pacing::Rate(requested);
    r.latency = Some(latency(10_000, 1_000_000));
    r.paced = Some(PacedResult {
        requested_rate: requested,
        achieved_rate: Summary::of(&[achieved]),
        refused: 0,
        refused_wait_max_ns: 0,
        refusals_observable: true,
        pacer: "spin".into(),
        uncorrected: None,
        overhead: Overhead {
            clock_read_ns: 10.0,
            stamp_and_record_ns: 20.0,
        },
        sent: 1_000_000,
        delivered: 1_000_000,
        fires: Some(1_000_000),
        hops: Vec::new(),
    });
    r
}

/// A ramp like a broker soak's under `--quick`: steps of 500 ms from 500/s, doubling, judged
/// against a p99 bound of 20 ms; 128 k/s sustained with a p99 of `step_p99_ns`, 256 k/s not (a
/// refused send, twice); then a soak of 20 s at 128 k/s in windows of 2 s, its p99
/// `soak_p99_ns`. The result's timed sample is the soak, as a ramp with a duration keeps it.
pub fn soaked_ramp(step_p99_ns: u64, soak_p99_ns: u64) -> TrialResult {
    use crate::open_loop::{RampOutcome, RampStep, SoakWindow, StepFigures};
    use crate::report::RampResult;
    use crate::workload::RampSpec;
    let (sustained, refused) = (128_000, 256_000);
    let mut r = paced(sustained, sustained as f64 * 0.999);
    r.workload = WorkloadKind::Ramp;
    r.params.pacing = Pacing::Ramp(RampSpec {
        start: 500,
        max: 1_024_000,
        factor: 2,
        refine: 0,
        p99_bound_ns: Some(20_000_000),
        step_ms: 500,
    });
    r.params.messages = sustained * 20;
    let step = |rate: u64, refused: u64, p99: u64| RampStep {
        figures: StepFigures {
            requested: rate,
            achieved: rate as f64 * 0.999,
            refused,
            delivered: rate / 2,
            p50: p99 / 4,
            p90: p99 / 2,
            p99,
            p999: p99 * 2,
            max: p99 * 4,
            hop_fill: Vec::new(),
            hop_depth: Vec::new(),
        },
        sustained: refused == 0,
        reason: (refused > 0).then(|| format!("{refused} sends refused")),
        refinement: false,
    };
    let mut steps: Vec<RampStep> = (0..8).map(|k| step(500 << k, 0, 1_000_000)).collect();
    steps.push(step(sustained, 0, step_p99_ns));
    steps.push(step(refused, 3, step_p99_ns * 2));
    steps.push(step(refused, 3, step_p99_ns * 2));
    r.ramp = Some(RampResult {
        search: RampOutcome {
            steps,
            sustained: Some(sustained),
            not_sustained: Some(refused),
            ended: "a step not sustained".into(),
        },
        saturating_hop: None,
    });
    let mut soak = latency(soak_p99_ns / 4, sustained * 20);
    soak.kind = "one-way from intended send".into();
    soak.p99 = soak_p99_ns;
    (soak.p999, soak.p9999, soak.max) = (soak_p99_ns * 2, soak_p99_ns * 3, soak_p99_ns * 4);
    r.latency = Some(soak);
    r.samples.truncate(1);
    r.samples[0].windows = (0..10)
        .map(|k| SoakWindow {
            start_ms: k as f64 * 2_000.0,
            length_ms: 2_000.0,
            sent: sustained * 2,
            delivered: sustained * 2,
            fired: sustained * 2,
            p50: soak_p99_ns / 4,
            p99: soak_p99_ns,
            max: soak_p99_ns * 4,
            backlog: 0,
            rss_bytes: None,
            uncommitted: None,
        })
        .collect();
    r
}

/// A latency with this p50 from `count` observations.
pub fn latency(p50: u64, count: u64) -> Latency {
    Latency {
        kind: "round-trip".into(),
        count,
        min: p50 / 2,
        p50,
        p90: p50,
        p95: Some(p50),
        p99: p50,
        p999: p50,
        p9999: p50,
        max: p50,
        mean: p50 as f64,
        histogram: String::new(),
    }
}

/// Limits with a bulk-timed round trip of 50 ns, optionally a stamped one and a timer step.
pub fn limits(stamped: Option<f64>, step: Option<f64>) -> Limits {
    let summary = |v: f64| Summary::of(&[v - 1.0, v, v + 1.0]).unwrap();
    Limits {
        at_s: None,
        cacheline_rtt_ns: summary(50.0),
        cacheline_rtt_stamped_ns: stamped.map(summary),
        clock_step_ns: step,
        stream_bytes_per_s: summary(20e9),
        cores: vec![0, 1],
        pinned: true,
        note: None,
        repetitions: Vec::new(),
    }
}

/// A release build on a plain machine.
pub fn environment() -> Environment {
    Environment {
        cpu_model: "Test CPU".into(),
        logical_cpus: 4,
        physical_cores: 4,
        smt: false,
        os: "linux-x86_64".into(),
        kernel: "6.1.0".into(),
        virtualized: Some(false),
        governor: None,
        rustc: "rustc 1.90.0".into(),
        build_profile: "release".into(),
        tool_version: "0.1.0".into(),
        git_commit: "abc1234".into(),
        invariant_tsc: Some(true),
        clock_source: Some("tsc".into()),
        machine: None,
    }
}

/// A run of these results on [`environment`], with nothing else measured.
pub fn report(results: Vec<TrialResult>) -> crate::report::RunReport {
    crate::report::RunReport {
        reprobes: Vec::new(),
        schema_version: crate::report::SCHEMA_VERSION,
        started_at: "2026-01-01T00:00:00Z".into(),
        duration_s: 1.0,
        suite: "test".into(),
        environment: environment(),
        limits: None,
        layout: None,
        results,
        consensus: None,
        shared_regimes: None,
        gates: Vec::new(),
        paired: None,
    }
}
