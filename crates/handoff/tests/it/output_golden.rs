//! Every output format renders one fixed, hand-built report exactly as stored in
//! `tests/golden/`: a change to the text of any format shows up here, line by line.
//!
//! The report covers every shape of table: streams (with capacities, options, an async driver,
//! a same-thread transport, a batch, a failing verdict), an mpsc sweep whose rows differ in
//! message count and samples, ping-pong, paced runs (with hops and refusals that cannot be
//! observed), ramps and pipelines, with lints both on every result and on some.
//!
//! After an intended change of the output, rewrite the stored files with
//! `HANDOFF_BLESS=1 cargo test -p handoff --test it output_golden` and review their diff.

use handoff::environment::Environment;
use handoff::gates::{GateOutcome, GateStatus};
use handoff::layout::LayoutMode;
use handoff::model::lint::{BeyondCause, Lint};
use handoff::open_loop::clock::Overhead;
use handoff::open_loop::ramp::{RampOutcome, RampStep, StepFigures};
use handoff::outcome::HopFigures;
use handoff::output::{render, Format};
use handoff::payload::PayloadKind;
use handoff::placement::Placement;
use handoff::plan::gates::{Gate, Over};
use handoff::probes::{self, Limits, Repetitions};
use handoff::report::{
    Latency, LimitDistance, PacedResult, Params, RampResult, RawSample, RunReport, TrialResult,
    Verdict, SCHEMA_VERSION,
};
use handoff::semantics::{
    Arity, Bound, ConsumerStyle, Locality, Ordering, Semantics, WaitStrategy,
};
use handoff::stats::modes::{Mode, Modes};
use handoff::stats::shared_regimes::SharedRegimes;
use handoff::stats::Summary;
use handoff::workload::{
    Delivery, Driver, Hop, MergeSource, Pacing, PipelineSpec, RampSpec, Reactor, WorkloadKind,
};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn summary(median: f64, spread: f64, n: usize) -> Summary {
    Summary {
        median,
        min: median * 0.9,
        max: median * 1.07,
        mean: median * 1.01,
        mad: median * spread,
        spread,
        n,
    }
}

fn semantics(producers: Arity, ordering: Ordering, bounded: bool) -> Semantics {
    Semantics {
        producers,
        consumers: Arity::One,
        ordering,
        bound: if bounded {
            Bound::Bounded {
                min_capacity: 1,
                power_of_two: false,
            }
        } else {
            Bound::Unbounded
        },
        wait: WaitStrategy::Block,
        batch: false,
        locality: Locality::CrossThread,
        consumer_style: ConsumerStyle::Pull,
        delivery: handoff::semantics::Delivery::ExactlyOnce,
    }
}

fn pinned() -> Placement {
    Placement {
        threads: 2,
        cores_available: 4,
        cores: vec![0, 2],
        pinned: true,
        ..Placement::default()
    }
}

fn latency(kind: &str, p50: u64, count: u64) -> Latency {
    Latency {
        kind: kind.into(),
        count,
        min: p50 / 2,
        p50,
        p90: p50 * 3 / 2,
        p95: Some(p50 * 5 / 2),
        p99: p50 * 6,
        p999: p50 * 40,
        p9999: p50 * 90,
        max: p50 * 250,
        mean: p50 as f64 * 1.3,
        histogram: "HISTFAAAAA==".into(),
    }
}

/// A passing closed-loop result at `tput` messages per second.
fn result(
    transport: &str,
    workload: WorkloadKind,
    capacity: Option<usize>,
    tput: f64,
) -> TrialResult {
    TrialResult {
        redelivered: 0,
        lost: 0,
        transport: transport.into(),
        workload,
        params: Params {
            defaults: Default::default(),
            capacity,
            messages: 2_000_000,
            messages_requested: "2000000".into(),
            target_ms: None,
            producers: 1,
            consumers: 1,
            driver: Driver::Threads,
            payload: PayloadKind::U64,
            payload_bytes: 8,
            batch: None,
            options: BTreeMap::new(),
            samples: 7,
            warmup: 2,
            timeout_ms: 20_000,
            pacing: Pacing::Closed,
            pipeline: None,
            fresh_process: false,
        },
        semantics: semantics(Arity::One, Ordering::GlobalFifo, capacity.is_some()),
        placement: pinned(),
        verdict: Verdict::Pass,
        violation: None,
        throughput: Some(summary(tput, 0.013, 7)),
        submit: None,
        ns_per_msg: Some(summary(1e9 / tput, 0.013, 7)),
        latency: None,
        failed_sends: 17,
        failed_recvs: 123_456,
        digest: Some("0123456789abcdef".into()),
        limit: Some(LimitDistance {
            reprobe: None,
            probe: "stream-bandwidth".into(),
            limit: 2.5e9,
            ratio: tput / 2.5e9,
        }),
        lints: vec![Lint::DebugBuild],
        samples: vec![RawSample {
            redelivered: 0,
            lost: 0,
            messages: 2_000_000,
            elapsed_ns: (2e6 / tput * 1e9) as u64,
            msgs_per_s: tput,
            ns_per_msg: 1e9 / tput,
            failed_sends: 17,
            failed_recvs: 123_456,
            layout: None,
            p50_ns: None,
            p99_ns: None,
            memory: None,
            submit_ns: None,
            cpu: None,
            windows: Vec::new(),
        }],
        paced: None,
        ramp: None,
        modes: None,
        same_worker: None,
        memory: None,
        cpu: None,
        printed: None,
        origin: Default::default(),
        code: None,
    }
}

fn not_passed(mut r: TrialResult, verdict: Verdict, why: &str) -> TrialResult {
    r.verdict = verdict;
    r.violation = Some(why.into());
    r.throughput = None;
    r.ns_per_msg = None;
    r.limit = None;
    r.samples.clear();
    r.digest = None;
    r.failed_sends = 0;
    r.failed_recvs = 0;
    r
}

fn spsc() -> Vec<TrialResult> {
    let mut out = Vec::new();
    let mut a = result("ring-a", WorkloadKind::Spsc, Some(1024), 61_500_000.0);
    a.lints.push(Lint::Outliers {
        slow: 1,
        samples: 7,
        slowest: 0.21,
    });
    out.push(a);
    let mut b = result("channel-b", WorkloadKind::Spsc, Some(64), 23_400_000.0);
    b.params.options.insert("wait".into(), "spin".into());
    b.lints.push(Lint::CapacityNeverFills {
        capacity: 64,
        messages: 50,
    });
    out.push(b);
    out.push(not_passed(
        result("leaky", WorkloadKind::Spsc, None, 1.0),
        Verdict::Fail,
        "producer 0: message 41 missing (expected seq 41, got 42)",
    ));
    let mut c = result("async-c", WorkloadKind::Spsc, Some(256), 9_800_000.0);
    c.params.driver = Driver::TokioMulti { workers: 2 };
    c.semantics.wait = WaitStrategy::Async;
    c.lints.push(Lint::Noisy {
        spread: 0.093,
        threshold: 0.05,
    });
    c.lints.push(Lint::BeyondLimit {
        ratio: 1.12,
        round_trip: false,
        cause: BeyondCause::ProbeGeometry,
    });
    out.push(c);
    // Samples in two regimes (two memory layouts): the median is marked, the lint names both.
    let mut two = result("ring-layout", WorkloadKind::Spsc, Some(1024), 150_000_000.0);
    two.modes = Some(Modes {
        low: Mode {
            median: 41_200_000.0,
            samples: 6,
            share: 0.4,
        },
        high: Mode {
            median: 283_000_000.0,
            samples: 9,
            share: 0.6,
        },
        ratio: 283.0 / 41.2,
        separation: 31.5,
        needed: 4.0 + 40.0 / 15.0,
    });
    two.lints.push(Lint::Bimodal {
        low: 41_200_000.0,
        low_share: 0.4,
        high: 283_000_000.0,
        high_share: 0.6,
        round_trip: false,
    });
    out.push(two);
    // Unordered, and it reordered: its own verdict passes, consensus names it.
    let mut d = result("bag", WorkloadKind::Spsc, None, 40_000_000.0);
    d.semantics.ordering = Ordering::None;
    d.digest = Some("fedcba9876543210".into());
    out.push(d);
    let mut cb = result("inline-callback", WorkloadKind::Spsc, None, 410_000_000.0);
    cb.semantics.locality = Locality::SameThread;
    cb.semantics.wait = WaitStrategy::None;
    cb.semantics.consumer_style = ConsumerStyle::Callback;
    cb.limit = None;
    cb.lints.push(Lint::SameThread);
    out.push(cb);
    let mut coop = result("async-c", WorkloadKind::Spsc, Some(256), 30_000_000.0);
    coop.params.driver = Driver::TokioCurrent;
    coop.semantics.locality = Locality::SameThread;
    coop.semantics.wait = WaitStrategy::Async;
    coop.limit = None;
    coop.lints.push(Lint::SameThreadCooperative);
    out.push(coop);
    out.push(not_passed(
        result("stuck", WorkloadKind::Spsc, Some(8), 1.0),
        Verdict::Hung,
        "no message delivered for 20.0 s (watchdog 20000 ms): 1 of 2 threads finished, about 41 of 2000000 messages delivered",
    ));

    // The same workload with a batch is a group of its own.
    let mut batch = result("ring-a", WorkloadKind::Spsc, Some(1024), 150_000_000.0);
    batch.params.batch = Some(64);
    batch.semantics.batch = true;
    out.push(batch);
    let mut emulated = result("channel-b", WorkloadKind::Spsc, Some(1024), 20_000_000.0);
    emulated.params.batch = Some(64);
    emulated.lints.push(Lint::BatchEmulated);
    out.push(emulated);
    out
}

/// An mpsc sweep: calibrated message counts and sample counts that differ per row.
fn mpsc_sweep() -> Vec<TrialResult> {
    let mut out = Vec::new();
    for (i, (name, tput)) in [("mpsc-x", 18_000_000.0), ("mpsc-y", 27_000_000.0)]
        .into_iter()
        .enumerate()
    {
        let mut r = result(name, WorkloadKind::Mpsc, Some(4096), tput);
        r.params.producers = 4;
        r.params.messages = 1_200_000 + 400_000 * i as u64;
        r.params.messages_requested = "auto(40 ms)".into();
        r.params.samples = 5 + 2 * i;
        r.semantics = semantics(Arity::Many, Ordering::PerProducerFifo, true);
        r.placement = Placement {
            threads: 5,
            cores_available: 4,
            oversubscribed: true,
            note: Some("more threads than cores".into()),
            ..Placement::default()
        };
        r.lints.insert(
            0,
            Lint::Oversubscribed {
                threads: 5,
                cores: 4,
            },
        );
        out.push(r);
    }
    let mut few = result("mpsc-z", WorkloadKind::Mpsc, Some(512), 9_000_000.0);
    few.params.producers = 4;
    few.params.messages = 800_000;
    few.params.messages_requested = "auto(40 ms)".into();
    few.params.samples = 2;
    few.semantics = semantics(Arity::Many, Ordering::PerProducerFifo, true);
    few.placement = Placement {
        note: Some("sched_setaffinity failed: EINVAL".into()),
        ..pinned()
    };
    few.placement.pinned = false;
    few.lints.insert(
        0,
        Lint::PinningFailed {
            detail: "sched_setaffinity failed: EINVAL".into(),
        },
    );
    few.lints.push(Lint::FewSamples { samples: 2 });
    out.push(few);
    let mut bad = not_passed(
        result("spsc-only", WorkloadKind::Mpsc, Some(512), 1.0),
        Verdict::Unsupported,
        "4 producers: this transport takes exactly one",
    );
    bad.params.producers = 4;
    bad.params.messages = 800_000;
    bad.params.messages_requested = "auto(40 ms)".into();
    out.push(bad);
    out
}

fn ping_pong() -> Vec<TrialResult> {
    let mut out = Vec::new();
    for (name, p50, count) in [("pp-fast", 180, 200_000), ("pp-slow", 950, 2_000)] {
        let mut r = result(name, WorkloadKind::PingPong, Some(1), 1e9 / p50 as f64);
        r.params.messages = 20_000;
        r.latency = Some(latency("round-trip", p50, count));
        r.limit = Some(LimitDistance {
            reprobe: None,
            probe: "cacheline-rtt-stamped".into(),
            limit: 97.0,
            ratio: p50 as f64 / 97.0,
        });
        out.push(r);
    }
    out[1].lints.push(Lint::TooFewForPercentile {
        percentile: 99.9,
        observations: 2_000,
        needed: 10_000,
    });
    out[1].modes = Some(Modes {
        low: Mode {
            median: 610.0,
            samples: 5,
            share: 5.0 / 7.0,
        },
        high: Mode {
            median: 2_400.0,
            samples: 2,
            share: 2.0 / 7.0,
        },
        ratio: 2_400.0 / 610.0,
        separation: 19.0,
        needed: 4.0 + 40.0 / 7.0,
    });
    out[1].lints.push(Lint::Bimodal {
        low: 610.0,
        low_share: 5.0 / 7.0,
        high: 2_400.0,
        high_share: 2.0 / 7.0,
        round_trip: true,
    });
    out[0].lints.push(Lint::ClockStep {
        step_ns: 20.0,
        p50_ns: 180,
    });
    let mut unpinned = result("pp-unpinned", WorkloadKind::PingPong, None, 1e6);
    unpinned.params.messages = 20_000;
    unpinned.latency = None;
    unpinned.limit = Some(LimitDistance {
        reprobe: None,
        probe: "cacheline-rtt".into(),
        limit: 85.0,
        ratio: 0.8,
    });
    unpinned.placement = Placement::default();
    unpinned.lints.insert(0, Lint::Unpinned);
    unpinned.lints.push(Lint::ProbeUnstable {
        probe: probes::RTT.into(),
        set_aside: vec![17.8],
        median: 85.0,
        repetitions: 9,
    });
    unpinned.lints.push(Lint::BeyondLimit {
        ratio: 0.8,
        round_trip: true,
        cause: BeyondCause::Disturbed,
    });
    out.push(unpinned);
    // Slow but moving: 5 M round trips of 12 µs, a minute per sample against a 20 s watchdog.
    let mut crawl = result("pp-crawl", WorkloadKind::PingPong, Some(1), 1e9 / 12_000.0);
    crawl.params.messages = 5_000_000;
    crawl.params.messages_requested = "5000000".into();
    crawl.samples[0].messages = 5_000_000;
    crawl.samples[0].elapsed_ns = 60_000_000_000;
    crawl.latency = Some(latency("round-trip", 12_000, 5_000_000));
    crawl.limit = Some(LimitDistance {
        reprobe: None,
        probe: "cacheline-rtt-stamped".into(),
        limit: 97.0,
        ratio: 12_000.0 / 97.0,
    });
    crawl.lints.push(Lint::Slow {
        median_ms: 60_000.0,
        watchdog_ms: 20_000,
    });
    out.push(crawl);
    // Faster than every cross-thread row because its tasks mostly took turns on one worker: it
    // is listed apart, not ranked first.
    let mut same_worker = result("pp-async", WorkloadKind::PingPong, Some(1), 1e9 / 120.0);
    same_worker.params.messages = 20_000;
    same_worker.params.driver = Driver::TokioMulti { workers: 2 };
    same_worker.semantics.wait = WaitStrategy::Async;
    same_worker.latency = Some(latency("round-trip", 120, 200_000));
    same_worker.limit = None;
    same_worker.same_worker = Some(0.92);
    same_worker.lints.push(Lint::SameWorker { share: 0.92 });
    out.push(same_worker);
    out.push(not_passed(
        result("pp-crash", WorkloadKind::PingPong, Some(1), 1.0),
        Verdict::Crashed,
        "consumer panicked: index out of bounds",
    ));
    out
}

fn hop(transport: &str, capacity: Option<usize>, p99: u64) -> HopFigures {
    HopFigures {
        transport: transport.into(),
        capacity,
        samples: 4_000,
        mean: p99 as f64 / 3.0,
        p99,
        max: p99 * 2,
        received: 1_000_000,
        wakeups: None,
    }
}

fn paced_result(rate: u64, achieved: f64, observable: bool, hops: Vec<HopFigures>) -> PacedResult {
    PacedResult {
        requested_rate: rate,
        achieved_rate: Some(summary(achieved, 0.002, 5)),
        refused: if observable { 12 } else { 0 },
        refused_wait_max_ns: if observable { 150_000 } else { 0 },
        refusals_observable: observable,
        pacer: "spin".into(),
        uncorrected: Some(latency(
            "one-way from actual send (uncorrected)",
            700,
            500_000,
        )),
        overhead: Overhead {
            clock_read_ns: 9.5,
            stamp_and_record_ns: 21.25,
        },
        sent: 500_000,
        delivered: 500_000,
        fires: Some(500_000),
        hops,
    }
}

/// `r` with no send refused.
fn no_refusals(r: &mut TrialResult) {
    if let Some(p) = r.paced.as_mut() {
        p.refused = 0;
        p.refused_wait_max_ns = 0;
    }
}

/// A passing open-loop result at `rate`.
fn open_loop(transport: &str, workload: WorkloadKind, pacing: Pacing) -> TrialResult {
    let mut r = result(transport, workload, Some(1024), 100_000.0);
    r.params.pacing = pacing;
    r.params.messages = 500_000;
    r.params.messages_requested = "auto(5000 ms)".into();
    r.params.samples = 5;
    r.params.warmup = 1;
    r.limit = None;
    r.failed_sends = 0;
    r.failed_recvs = 0;
    r.latency = Some(latency("one-way from intended send", 800, 500_000));
    r
}

fn paced() -> Vec<TrialResult> {
    let mut out = Vec::new();
    let mut a = open_loop("paced-a", WorkloadKind::Paced, Pacing::Rate(100_000));
    a.paced = Some(paced_result(
        100_000,
        99_990.0,
        true,
        vec![hop("paced-a", Some(1024), 3)],
    ));
    a.lints.push(Lint::Refused {
        refused: 12,
        rate: 100_000,
        max_wait_ns: 150_000,
        max_latency_ns: Some(200_000),
    });
    out.push(a);
    let mut b = open_loop("paced-b", WorkloadKind::Paced, Pacing::Rate(100_000));
    b.latency = Some(latency("one-way from intended send", 4_000, 500_000));
    b.paced = Some(paced_result(
        100_000,
        91_000.0,
        false,
        vec![hop("paced-b", None, 900)],
    ));
    b.lints.push(Lint::RateMissed {
        requested: 100_000,
        achieved: 91_000.0,
    });
    b.lints.push(Lint::RefusalsUnobservable);
    out.push(b);
    let mut c = open_loop("paced-c", WorkloadKind::Paced, Pacing::Rate(100_000));
    c.latency = Some(latency("one-way from intended send", 150, 500_000));
    c.paced = None;
    c.lints.push(Lint::TimingOverhead {
        overhead_ns: 21.25,
        p50_ns: 150,
    });
    out.push(c);
    out
}

fn step(requested: u64, sustained: bool, refinement: bool) -> RampStep {
    RampStep {
        figures: StepFigures {
            requested,
            achieved: requested as f64 * if sustained { 0.999 } else { 0.8 },
            refused: if sustained { 0 } else { 40 },
            delivered: requested / 5,
            p50: 600,
            p90: 900,
            p99: 2_000,
            p999: 9_000,
            max: 40_000,
            hop_fill: vec![Some(0.01), Some(0.6)],
            hop_depth: vec![0.6, 614.0],
        },
        sustained,
        reason: (!sustained).then(|| "40 sends refused".to_string()),
        refinement,
    }
}

fn pipeline_spec(delivery: Delivery, stage_work_ns: u64) -> PipelineSpec {
    PipelineSpec {
        hops: vec![
            Hop {
                transport: "hop-a".into(),
                capacity: 64,
            },
            Hop {
                transport: "hop-b".into(),
                capacity: 1024,
            },
        ],
        stage_work_ns,
        delivery,
        reactor: Default::default(),
        reactor_work_ns: 0,
        merge: None,
    }
}

fn ramps() -> Vec<TrialResult> {
    let spec = RampSpec {
        start: 1_000,
        max: 4_000_000,
        factor: 4,
        refine: 2,
        p99_bound_ns: Some(50_000),
        step_ms: 100,
    };
    let mut out = Vec::new();
    let mut a = open_loop("ramp-a", WorkloadKind::Ramp, Pacing::Ramp(spec.clone()));
    a.paced = Some(paced_result(
        256_000,
        255_800.0,
        true,
        vec![hop("ramp-a", Some(1024), 40)],
    ));
    no_refusals(&mut a);
    a.ramp = Some(RampResult {
        search: RampOutcome {
            steps: vec![
                step(64_000, true, false),
                step(256_000, true, false),
                step(1_024_000, false, false),
                step(1_024_000, false, false),
                step(512_000, false, true),
            ],
            sustained: Some(256_000),
            not_sustained: Some(512_000),
            ended: "refined".into(),
        },
        saturating_hop: Some("hop 1 (ramp-a)".into()),
    });
    out.push(a);
    let mut b = open_loop("ramp-b", WorkloadKind::Ramp, Pacing::Ramp(spec.clone()));
    b.ramp = Some(RampResult {
        search: RampOutcome {
            steps: vec![step(1_024_000, true, false), step(4_000_000, true, false)],
            sustained: Some(4_000_000),
            not_sustained: None,
            ended: "reached max".into(),
        },
        saturating_hop: None,
    });
    b.latency = None;
    b.lints.push(Lint::RampCeiling { max: 4_000_000 });
    out.push(b);
    let mut c = open_loop("ramp-c", WorkloadKind::Ramp, Pacing::Ramp(spec.clone()));
    c.ramp = Some(RampResult {
        search: RampOutcome {
            steps: vec![step(1_000, false, false), step(1_000, false, false)],
            sustained: None,
            not_sustained: Some(1_000),
            ended: "first step not sustained".into(),
        },
        saturating_hop: None,
    });
    out.push(c);
    out.push(not_passed(
        open_loop("ramp-d", WorkloadKind::Ramp, Pacing::Ramp(spec)),
        Verdict::Invalid,
        "unknown transport `ramp-d`",
    ));
    out
}

fn pipelines() -> Vec<TrialResult> {
    let mut out = Vec::new();
    let mut seq = open_loop("hop-a", WorkloadKind::Pipeline, Pacing::Rate(20_000));
    seq.params.pipeline = Some(pipeline_spec(Delivery::Sequential, 0));
    seq.paced = Some(paced_result(
        20_000,
        20_000.0,
        true,
        vec![hop("hop-a", Some(64), 1), hop("hop-b", Some(1024), 2)],
    ));
    seq.lints.push(Lint::Refused {
        refused: 12,
        rate: 20_000,
        max_wait_ns: 150_000,
        max_latency_ns: Some(200_000),
    });
    out.push(seq);
    let mut work = open_loop("hop-a", WorkloadKind::Pipeline, Pacing::Rate(20_000));
    work.params.pipeline = Some(pipeline_spec(Delivery::Sequential, 1_500));
    work.latency = Some(latency("one-way from intended send", 3_100, 500_000));
    work.paced = Some(paced_result(
        20_000,
        19_999.0,
        true,
        vec![hop("hop-a", Some(64), 5), hop("hop-b", Some(1024), 9)],
    ));
    no_refusals(&mut work);
    out.push(work);
    let mut latest = open_loop("hop-a", WorkloadKind::Pipeline, Pacing::Rate(20_000));
    latest.params.pipeline = Some(pipeline_spec(Delivery::Latest, 0));
    latest.semantics.ordering = Ordering::Latest;
    latest.paced = Some(paced_result(
        20_000,
        20_000.0,
        true,
        vec![hop("hop-a", Some(64), 0), hop("hop-b", None, 1)],
    ));
    no_refusals(&mut latest);
    if let Some(p) = latest.paced.as_mut() {
        (p.delivered, p.fires) = (310_000, Some(310_000));
    }
    out.push(latest);
    // A latest reactor on the sequential row's hops, a source merging into hop 2: every event
    // delivered, fewer fired.
    let mut reactor = open_loop("hop-a", WorkloadKind::Pipeline, Pacing::Rate(20_000));
    let mut spec = pipeline_spec(Delivery::Sequential, 0);
    spec.reactor = Reactor::Latest;
    spec.reactor_work_ns = 40_000;
    spec.merge = Some(MergeSource {
        hop: 2,
        rate: 2_000,
    });
    reactor.params.pipeline = Some(spec);
    reactor.latency = Some(latency("one-way from intended send", 41_000, 380_000));
    reactor.paced = Some(paced_result(
        20_000,
        20_000.0,
        true,
        vec![hop("hop-a", Some(64), 1), hop("hop-b", Some(1024), 3)],
    ));
    no_refusals(&mut reactor);
    if let Some(p) = reactor.paced.as_mut() {
        (p.sent, p.delivered, p.fires) = (550_000, 550_000, Some(380_000));
    }
    out.push(reactor);

    // A fan-out pipeline: every consumer gets every event.
    let mut fan = open_loop("bus", WorkloadKind::Pipeline, Pacing::Rate(20_000));
    fan.params.consumers = 3;
    fan.params.pipeline = Some(pipeline_spec(Delivery::Sequential, 0));
    fan.paced = Some(paced_result(
        20_000,
        20_000.0,
        true,
        vec![hop("hop-a", Some(64), 2), hop("hop-b", Some(1024), 4)],
    ));
    no_refusals(&mut fan);
    out.push(fan);
    out
}

/// The limits of the run: one bulk-timed round trip far faster than the others (set aside),
/// steady stamped round trips and bandwidth.
fn limits() -> Limits {
    let rtt = Repetitions::new(
        probes::RTT,
        vec![84.0, 85.0, 86.0, 85.5, 17.8, 84.5, 85.0, 86.5, 84.8],
    );
    let stamped = Repetitions::new(
        probes::RTT_STAMPED,
        vec![100.0, 98.0, 101.0, 99.0, 100.0, 102.0, 100.0, 97.0, 100.5],
    );
    let bw = Repetitions::new(probes::STREAM, vec![20.0e9, 19.8e9, 20.3e9, 20.1e9, 19.6e9]);
    Limits {
        at_s: None,
        cacheline_rtt_ns: rtt.summary().unwrap(),
        cacheline_rtt_stamped_ns: stamped.summary(),
        clock_step_ns: Some(20.0),
        stream_bytes_per_s: bw.summary().unwrap(),
        cores: vec![0, 2],
        pinned: true,
        note: Some("probe threads pinned to distinct physical cores".into()),
        repetitions: vec![rtt, stamped, bw],
    }
}

fn report() -> RunReport {
    let mut results = Vec::new();
    results.extend(spsc());
    results.extend(mpsc_sweep());
    results.extend(ping_pong());
    results.extend(paced());
    results.extend(ramps());
    results.extend(pipelines());
    // The run asked for consensus.
    let consensus = Some(handoff::consensus::judge(&results));
    // Two results slow in the same rounds: the machine's regime, named in the header.
    let ring = results
        .iter()
        .position(|r| r.transport == "ring-layout")
        .expect("fixture has ring-layout");
    RunReport {
        reprobes: Vec::new(),
        paired: None,
        schema_version: SCHEMA_VERSION,
        started_at: "2025-11-21T10:00:00Z".into(),
        duration_s: 93.25,
        suite: "suites/golden.toml".into(),
        environment: Environment {
            cpu_model: "Test CPU 3000".into(),
            logical_cpus: 4,
            physical_cores: 2,
            smt: true,
            os: "linux-x86_64".into(),
            kernel: "6.1.0".into(),
            virtualized: Some(false),
            governor: Some("performance".into()),
            rustc: "rustc 1.90.0".into(),
            build_profile: "debug".into(),
            tool_version: "0.1.0".into(),
            git_commit: "abc1234".into(),
            invariant_tsc: Some(true),
            clock_source: Some("tsc".into()),
            machine: None,
        },
        limits: Some(limits()),
        layout: Some(LayoutMode::Random { seed: 42 }),
        shared_regimes: Some(SharedRegimes {
            results: vec![ring, ring + 1],
            labels: vec!["ring-layout spsc".into(), "bag spsc".into()],
            rounds: 15,
            slow_rounds: vec![3, 4, 5, 6, 7, 8],
            agreement: 14.0 / 15.0,
        }),
        results,
        consensus,
        gates: vec![
            GateOutcome {
                gate: Gate::Scaling {
                    transports: vec!["ring-layout".into()],
                    min: 1.5,
                    up_to: handoff_model::gate::UpTo::Top,
                    metric: handoff_model::gate::Rate::Delivery,
                },
                description: "scaling ring-layout: top producer count ≥ 1.5× one producer".into(),
                status: GateStatus::Skipped,
                details: vec![
                    "ring-layout mpsc: skipped (oversubscribed: 101 threads on 2 cores at 100 producers)".into(),
                ],
            },
            GateOutcome {
                gate: Gate::Ratio {
                    transport: "ring-layout".into(),
                    options: Default::default(),
                    over: Over::Best,
                    min: 1.0,
                },
                description: "ratio: ring-layout ≥ 1× the best other transport at each point".into(),
                status: GateStatus::Failed,
                details: vec!["spsc u64 1p1c: ring-layout 0.80× bag (FAIL)".into()],
            },
        ],
    }
}

/// Renders the report and compares it with the stored file, or stores it when blessing.
fn check(format: Format, file: &str) {
    let mut out = Vec::new();
    render(&report(), format, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "golden", file]
        .iter()
        .collect();
    if std::env::var_os("HANDOFF_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with HANDOFF_BLESS=1 to store it",
            path.display()
        )
    });
    if text != expected {
        let first = text
            .lines()
            .zip(expected.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| text.lines().count().min(expected.lines().count()));
        panic!(
            "{format} output differs from {} at line {}:\n  got:      {:?}\n  expected: {:?}\n\nwhole output:\n{text}",
            path.display(),
            first + 1,
            text.lines().nth(first),
            expected.lines().nth(first),
        );
    }
}

#[test]
fn table_is_as_stored() {
    check(Format::Table, "report.txt");
}

#[test]
fn markdown_is_as_stored() {
    check(Format::Markdown, "report.md");
}

#[test]
fn csv_is_as_stored() {
    check(Format::Csv, "report.csv");
}

#[test]
fn json_is_as_stored() {
    check(Format::Json, "report.json");
}

/// The fixture holds every table shape and the lints the view footnotes, so the stored files
/// guard them all.
#[test]
fn the_fixture_covers_every_shape() {
    let r = report();
    for w in [
        WorkloadKind::Spsc,
        WorkloadKind::Mpsc,
        WorkloadKind::PingPong,
        WorkloadKind::Paced,
        WorkloadKind::Ramp,
        WorkloadKind::Pipeline,
    ] {
        assert!(r.results.iter().any(|x| x.workload == w), "{w}");
    }
    assert!(r.has_failures());
    let codes: std::collections::BTreeSet<&str> = r
        .results
        .iter()
        .flat_map(|x| x.lints.iter().map(Lint::code))
        .collect();
    assert_eq!(codes.len(), 23, "{codes:?}");
}
