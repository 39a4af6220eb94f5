//! Open-loop workloads: coordinated-omission correction, latest-value verification, the ramp's
//! search and pipelines, run in process with exact counts.
//!
//! Timing bounds here are deliberately generous: these tests check that each measurement sees
//! what it must see (a 50 ms stall, a planted knee), not how fast this machine is.
//!
//! A test binary of its own: its tests spin on the clock, one at a time, and no test of another
//! module may take their cores (cargo runs one test binary at a time).

use handoff::executor::{run_sample, SampleRequest};
use handoff::histogram;
use handoff::model::lint::Lint;
use handoff::outcome::{SampleStatus, ViolationKind};
use handoff::payload::PayloadKind;
use handoff::report::Verdict;
use handoff::session::{self, SessionOptions};
use handoff::workload::{
    Delivery, Hop, Messages, PacerMode, Pacing, PipelineSpec, RampSpec, TrialSpec, WorkloadKind,
};
use handoff_testing as testing;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

/// Open-loop tests spin on the clock; run one at a time so they do not steal each other's cores.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn paced(transport: &str, rate: u64) -> TrialSpec {
    TrialSpec {
        transport: transport.into(),
        workload: WorkloadKind::Paced,
        driver: Default::default(),
        payload: PayloadKind::U64,
        capacity: 1024,
        producers: 1,
        consumers: 1,
        messages: Messages::Fixed(2_000),
        batch: None,
        options: BTreeMap::new(),
        samples: 1,
        warmup: 0,
        timeout_ms: 10_000,
        pin: false,
        fresh_process: false,
        placement: Default::default(),
        pacing: Pacing::Rate(rate),
        pacer: PacerMode::Auto,
        pipeline: None,
        layout: None,
    }
}

fn pipeline(hops: &[&str], delivery: Delivery, rate: u64) -> TrialSpec {
    let caps = [64, 1024, 256];
    TrialSpec {
        transport: hops[0].into(),
        workload: WorkloadKind::Pipeline,
        pipeline: Some(PipelineSpec {
            hops: hops
                .iter()
                .zip(caps)
                .map(|(t, capacity)| Hop {
                    transport: t.to_string(),
                    capacity,
                })
                .collect(),
            stage_work_ns: 0,
            delivery,
            reactor: Default::default(),
            reactor_work_ns: 0,
            merge: None,
        }),
        ..paced(hops[0], rate)
    }
}

#[test]
fn a_stall_shows_in_the_corrected_histogram_only() {
    // 10 000 messages/s; the producer stalls once for 50 ms after message 500, so the ~500
    // messages due during the stall are sent late. Measured from their intended send time they
    // waited up to 50 ms; measured from their actual send they did not wait at all.
    let _serial = serial();
    let c = testing::catalog();
    let o = run_sample(&c, &paced("faulty-stall", 10_000), SampleRequest::of(2_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 2_000);
    let corrected = histogram::decode(o.latency.as_deref().unwrap()).unwrap();
    let p = o.paced.as_deref().unwrap();
    let uncorrected = histogram::decode(&p.uncorrected).unwrap();
    // Messages due in the first 30 ms of the stall waited at least 20 ms: about 300 of them. A
    // busy machine adds waits of its own, but rarely of 20 ms.
    let over_20ms = |h: &hdrhistogram::Histogram<u64>| h.count_between(20_000_000, u64::MAX);
    let late = over_20ms(&corrected);
    assert!(
        (150..=450).contains(&late),
        "about 300 messages were due over 20 ms before the stall ended; {late} show such a wait"
    );
    assert!(corrected.max() >= 40_000_000, "max {}", corrected.max());
    assert!(
        over_20ms(&uncorrected) < 30,
        "the uncorrected histogram must not show the stall: {} over 20 ms",
        over_20ms(&uncorrected)
    );
    assert!(uncorrected.max() < 40_000_000, "max {}", uncorrected.max());
    // The schedule was missed during the stall but caught up: the achieved rate stays close.
    assert!(p.achieved_rate > 5_000.0, "{}", p.achieved_rate);
}

#[test]
fn paced_run_keeps_its_rate_and_counts_no_refusals_below_capacity() {
    let _serial = serial();
    let c = testing::catalog();
    let o = run_sample(
        &c,
        &paced("crossbeam-bounded", 20_000),
        SampleRequest::of(4_000),
    );
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 4_000);
    let p = o.paced.as_deref().unwrap();
    assert!(p.refusals_observable);
    assert_eq!(p.requested_rate, 20_000);
    assert!(
        p.achieved_rate > 15_000.0 && p.achieved_rate < 20_500.0,
        "{}",
        p.achieved_rate
    );
    assert!(p.overhead.clock_read_ns > 0.0);
    assert_eq!(p.hops.len(), 1);
    // The injector's and the sink's CPU time is recorded (a per-thread CPU clock on unix).
    if cfg!(unix) {
        let cpu = o.cpu.expect("CPU time measured");
        assert!(cpu.producer_ns > 0 && cpu.consumer_ns > 0, "{cpu:?}");
    }
}

#[test]
fn refused_sends_at_a_fixed_rate_are_counted_timed_and_said() {
    // The planted knee refuses sends while the producer runs above 20 000/s; asked for 100 000/s
    // it is refused, each refused message is then sent blocking and still arrives.
    let _serial = serial();
    let mut spec = paced("faulty-knee", 100_000);
    spec.options.insert("knee".into(), "20000".into());
    spec.messages = Messages::Fixed(4_000);
    let r = &run_one(spec);
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.violation);
    let p = r.paced.as_ref().unwrap();
    assert!(p.refused > 0, "{p:?}");
    let max_latency = r.latency.as_ref().unwrap().max;
    // A refused message's wait for room is part of its latency from its intended send.
    assert!(p.refused_wait_max_ns <= max_latency, "{p:?} {max_latency}");
    // and so is it of its latency from its actual send, which bounds the producer's own reading.
    let uncorrected_max = p.uncorrected.as_ref().unwrap().max;
    assert!(p.refused_wait_max_ns <= uncorrected_max, "{p:?}");
    let said = r.lints.iter().find_map(|l| match l {
        Lint::Refused {
            refused,
            rate,
            max_wait_ns,
            max_latency_ns,
        } => Some((*refused, *rate, *max_wait_ns, *max_latency_ns)),
        _ => None,
    });
    assert_eq!(
        said,
        Some((p.refused, 100_000, p.refused_wait_max_ns, Some(max_latency))),
        "{:?}",
        r.lints
    );
}

#[test]
fn conflating_transports_are_refused_where_every_message_must_arrive() {
    let _serial = serial();
    let c = testing::catalog();
    let o = run_sample(&c, &paced("latest-cell", 1_000), SampleRequest::of(100));
    assert!(
        matches!(&o.status, SampleStatus::Unsupported(s) if s.contains("conflates")),
        "{o:?}"
    );
}

#[test]
fn latest_pipeline_passes_and_always_delivers_the_final_event() {
    let _serial = serial();
    let c = testing::catalog();
    let spec = pipeline(
        &["crossbeam-bounded", "latest-cell", "crossbeam-bounded"],
        Delivery::Latest,
        50_000,
    );
    let o = run_sample(&c, &spec, SampleRequest::of(5_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    let p = o.paced.as_deref().unwrap();
    assert_eq!(p.sent, 5_000);
    assert!(o.messages >= 1 && o.messages <= 5_000);
}

#[test]
fn latest_verification_catches_a_stale_value() {
    let _serial = serial();
    let c = testing::catalog();
    let spec = pipeline(
        &["crossbeam-bounded", "faulty-stale", "crossbeam-bounded"],
        Delivery::Latest,
        20_000,
    );
    let o = run_sample(&c, &spec, SampleRequest::of(1_000));
    match o.status {
        SampleStatus::Fail(v) => {
            assert_eq!(v.kind, ViolationKind::Stale);
            assert!(v.to_string().contains("stale value seq"), "{v}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sequential_pipeline_delivers_every_event_and_samples_each_hop() {
    let _serial = serial();
    let c = testing::catalog();
    let spec = pipeline(
        &[
            "crossbeam-bounded",
            "crossbeam-bounded",
            "crossbeam-bounded",
        ],
        Delivery::Sequential,
        20_000,
    );
    let o = run_sample(&c, &spec, SampleRequest::of(4_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 4_000);
    let p = o.paced.as_deref().unwrap();
    assert_eq!(p.hops.len(), 3);
    assert!(p.hops.iter().all(|h| h.samples > 0 && h.received == 4_000));
    assert_eq!(p.hops[0].capacity, Some(64));
}

#[test]
fn a_pipeline_hop_that_cannot_be_one_is_named() {
    let _serial = serial();
    let c = testing::catalog();
    let spec = pipeline(
        &["crossbeam-bounded", "disruptor", "crossbeam-bounded"],
        Delivery::Sequential,
        1_000,
    );
    let o = run_sample(&c, &spec, SampleRequest::of(100));
    assert!(
        matches!(&o.status, SampleStatus::Unsupported(s) if s.starts_with("hop 2 (disruptor)")),
        "{o:?}"
    );
}

#[test]
fn ramp_finds_a_planted_knee_within_one_refinement_step() {
    let _serial = serial();
    let knee = 45_000;
    let mut spec = paced("faulty-knee", 1_000);
    spec.workload = WorkloadKind::Ramp;
    spec.pacing = Pacing::Ramp(RampSpec {
        start: 2_500,
        factor: 2,
        refine: 3,
        max: 1_000_000,
        // Long enough for a rate 9% above the knee to exceed its slack (see `KNEE_SLACK`).
        step_ms: 400,
        p99_bound_ns: None,
    });
    spec.options.insert("knee".into(), knee.to_string());
    let r = &run_one(spec);
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.violation);
    let ramp = r.ramp.as_ref().unwrap();
    let (good, bad) = (
        ramp.search.sustained.unwrap(),
        ramp.search.not_sustained.unwrap(),
    );
    assert!(
        good <= knee && bad > knee,
        "knee {knee}/s should lie between {good}/s and {bad}/s"
    );
    // Coarse steps bracket it within ×2; three bisections narrow that to ×2^(1/8).
    let one_step = 2f64.powf(1.0 / 8.0) * 1.01;
    assert!(bad as f64 / good as f64 <= one_step, "{good} {bad}");
    assert!(ramp
        .search
        .steps
        .iter()
        .any(|s| !s.sustained && s.reason.as_deref().unwrap_or("").contains("refused")));
    assert_eq!(r.paced.as_ref().unwrap().requested_rate, good);
}

#[test]
fn several_injectors_fan_in_to_a_pipeline() {
    let _serial = serial();
    let c = testing::catalog();
    let mut spec = pipeline(
        &[
            "crossbeam-bounded",
            "crossbeam-bounded",
            "crossbeam-bounded",
        ],
        Delivery::Sequential,
        30_000,
    );
    spec.producers = 3;
    let o = run_sample(&c, &spec, SampleRequest::of(3_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 3_000);
    assert_eq!(o.paced.as_deref().unwrap().sent, 3_000);
    // Latest delivery owes each injector its final value, which another's could replace.
    spec.pipeline.as_mut().unwrap().hops[1].transport = "latest-cell".into();
    spec.pipeline.as_mut().unwrap().delivery = Delivery::Latest;
    let o = run_sample(&c, &spec, SampleRequest::of(300));
    assert!(matches!(o.status, SampleStatus::Invalid(_)), "{o:?}");
}

#[test]
fn fan_out_delivers_the_whole_stream_to_every_consumer() {
    let _serial = serial();
    let c = testing::catalog();
    for broadcast in ["bus", "crossbeam-fanout"] {
        // Paced: one hop, three consumers.
        let mut spec = paced(broadcast, 20_000);
        spec.consumers = 3;
        let o = run_sample(&c, &spec, SampleRequest::of(2_000));
        assert_eq!(o.status, SampleStatus::Pass, "{broadcast}: {o:?}");
        assert_eq!(
            o.messages, 2_000,
            "{broadcast}: every consumer saw every event"
        );
        let p = o.paced.as_deref().unwrap();
        assert_eq!(
            p.hops[0].received, 2_000,
            "{broadcast}: the slowest consumer too"
        );
        // One latency entry per delivery: three per event.
        let corrected = histogram::decode(o.latency.as_deref().unwrap()).unwrap();
        assert_eq!(corrected.len(), 6_000, "{broadcast}");

        // Pipeline: two hops of crossbeam, then the broadcast hop into two sinks.
        let mut spec = pipeline(
            &["crossbeam-bounded", "crossbeam-bounded", broadcast],
            Delivery::Sequential,
            20_000,
        );
        spec.consumers = 2;
        let o = run_sample(&c, &spec, SampleRequest::of(2_000));
        assert_eq!(o.status, SampleStatus::Pass, "{broadcast}: {o:?}");
        assert_eq!(o.messages, 2_000);
        let corrected = histogram::decode(o.latency.as_deref().unwrap()).unwrap();
        assert_eq!(corrected.len(), 4_000, "{broadcast}");
    }
}

#[test]
fn fan_out_names_the_consumer_that_lost_a_message() {
    let _serial = serial();
    let c = testing::catalog();
    let mut spec = paced("faulty-fanout", 20_000);
    spec.consumers = 3;
    let o = run_sample(&c, &spec, SampleRequest::of(500));
    match o.status {
        SampleStatus::Fail(v) => {
            assert_eq!(v.kind, ViolationKind::Order);
            assert_eq!(v.consumer, Some(2), "the last consumer's copy was damaged");
            assert!(v.to_string().starts_with("fan-out consumer 2: "), "{v}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn fan_out_needs_a_broadcast_transport_and_broadcasts_need_a_fan_out() {
    let _serial = serial();
    let c = testing::catalog();
    // A queue hands each message to one consumer: no fan-out.
    let mut spec = paced("crossbeam-bounded", 1_000);
    spec.consumers = 2;
    let o = run_sample(&c, &spec, SampleRequest::of(100));
    assert!(
        matches!(&o.status, SampleStatus::Unsupported(s) if s.contains("fan-out needs a broadcast transport")),
        "{o:?}"
    );
    // In a pipeline, the hop feeding the sinks is named.
    let mut spec = pipeline(&["bus", "crossbeam-bounded"], Delivery::Sequential, 1_000);
    spec.consumers = 2;
    let o = run_sample(&c, &spec, SampleRequest::of(100));
    assert!(
        matches!(&o.status, SampleStatus::Unsupported(s) if s.starts_with("hop 2 (crossbeam-bounded)")),
        "{o:?}"
    );
    // A broadcast as a closed-loop stream with several consumers would share nothing.
    let mut spec = paced("bus", 1_000);
    spec.workload = WorkloadKind::Mpmc;
    spec.pacing = Pacing::Closed;
    spec.consumers = 2;
    let o = run_sample(&c, &spec, SampleRequest::of(100));
    assert!(
        matches!(&o.status, SampleStatus::Unsupported(s) if s.contains("run a fan-out instead")),
        "{o:?}"
    );
    // bus has one producer: no fan-in into it.
    let mut spec = paced("bus", 1_000);
    spec.producers = 2;
    spec.consumers = 2;
    let o = run_sample(&c, &spec, SampleRequest::of(100));
    assert!(matches!(&o.status, SampleStatus::Unsupported(_)), "{o:?}");
}

#[test]
fn async_transports_are_hops_driven_from_threads() {
    let _serial = serial();
    let c = testing::catalog();
    // tokio-watch as the conflating hop of a latest pipeline.
    let spec = pipeline(
        &["crossbeam-bounded", "tokio-watch", "crossbeam-bounded"],
        Delivery::Latest,
        20_000,
    );
    let o = run_sample(&c, &spec, SampleRequest::of(2_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.paced.as_deref().unwrap().sent, 2_000);
    // A sequential chain of tokio-mpsc: its non-blocking send counts refusals, as on any hop.
    let spec = pipeline(
        &[
            "tokio-mpsc-bounded",
            "tokio-mpsc-bounded",
            "tokio-mpsc-bounded",
        ],
        Delivery::Sequential,
        20_000,
    );
    let o = run_sample(&c, &spec, SampleRequest::of(2_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 2_000);
    assert!(o.paced.as_deref().unwrap().refusals_observable);
    // tokio-broadcast fanning out to two sinks (256 slots: 50 ms of slack at this rate).
    let mut spec = pipeline(
        &["crossbeam-bounded", "crossbeam-bounded", "tokio-broadcast"],
        Delivery::Sequential,
        5_000,
    );
    spec.consumers = 2;
    let o = run_sample(&c, &spec, SampleRequest::of(1_000));
    assert_eq!(o.status, SampleStatus::Pass, "{o:?}");
    assert_eq!(o.messages, 1_000);
}

#[test]
fn every_hop_carries_the_whole_stamped_message() {
    // A hop must move the message it was given, send stamps included: a transport that hands
    // out a copy rebuilt from the header alone would zero the stamps and turn every latency into
    // the time since the sample began.
    use handoff::engine::pipeline::BoxedHop;
    use handoff::message::Message;
    use handoff::open_loop::Stamped;
    use handoff::payload::Word;
    use handoff::semantics::ConsumerStyle;
    use handoff::transport::ChannelConfig;
    let c = testing::catalog();
    let mut hops = Vec::new();
    for e in c.entries() {
        let info = e.info();
        if info.test_only || info.semantics.consumer_style == ConsumerStyle::Callback {
            continue;
        }
        // Room for every message: a broadcast ring that never waits (tokio's) would otherwise
        // overwrite what its receiver had not read yet.
        let capacity = info
            .semantics
            .bound
            .limits()
            .map_or(0, |(min_capacity, _)| min_capacity.max(256));
        let mut ends: BoxedHop<Stamped<Word>> = e
            .runner()
            .hop::<Word>(&ChannelConfig::new(capacity, 1, 1))
            .unwrap_or_else(|err| panic!("{}: {err}", info.name));
        let mut tx = ends.senders.pop().unwrap();
        let mut rx = ends.receivers.pop().unwrap();
        let producer = std::thread::spawn(move || {
            for seq in 0..200u64 {
                let mut m = Stamped::<Word>::build(0, seq);
                (m.intended_ns, m.sent_ns) = (1_000 + seq * 7, 2_000 + seq * 11);
                assert!(tx.send(m).is_ok());
            }
        });
        let mut received = 0;
        while let Some(m) = rx.recv() {
            let seq = m.seq();
            assert_eq!(
                (m.intended_ns, m.sent_ns),
                (1_000 + seq * 7, 2_000 + seq * 11),
                "{}: stamps of seq {seq}",
                info.name
            );
            received += 1;
        }
        producer.join().unwrap();
        assert!(received > 0, "{}", info.name);
        hops.push(info.name.clone());
    }
    for name in [
        "crossbeam-bounded",
        "bus",
        "latest-cell",
        "tokio-watch",
        "tokio-broadcast",
    ] {
        assert!(hops.iter().any(|h| h == name), "{name} not tried");
    }
}

/// Under every driver the stages and sinks of a pipeline are tasks awaiting async hops, fed by
/// the injector's thread: every event arrives, verified in order, and every hop a task awaited
/// counts its wake-ups (at most one per event received).
#[test]
fn a_pipeline_runs_its_stages_as_tasks_under_every_driver() {
    let _serial = serial();
    let c = handoff_transports::builtin();
    for driver in ["tokio-current", "tokio-multi:2", "may:2"] {
        let mut spec = pipeline(
            &[
                "tokio-mpsc-bounded",
                "async-channel-bounded",
                "tokio-mpsc-bounded",
            ],
            Delivery::Sequential,
            20_000,
        );
        spec.driver = driver.parse().unwrap();
        let o = run_sample(&c, &spec, SampleRequest::of(2_000));
        assert_eq!(o.status, SampleStatus::Pass, "{driver}: {:?}", o.status);
        assert_eq!(o.messages, 2_000, "{driver}");
        let paced = o.paced.expect("open-loop figures");
        assert_eq!(paced.sent, 2_000, "{driver}");
        assert_eq!(paced.hops.len(), 3, "{driver}");
        for h in &paced.hops {
            assert_eq!(h.received, 2_000, "{driver}: {}", h.transport);
            let w = h
                .wakeups
                .expect("an async hop awaited by a task counts its wake-ups");
            assert!(w <= h.received, "{driver}: {w} wake-ups");
        }
        assert_eq!(
            histogram::decode(o.latency.as_deref().unwrap())
                .unwrap()
                .len(),
            2_000,
            "{driver}"
        );
    }
    // A blocking transport cannot be awaited: refused, with the hop named.
    let mut spec = pipeline(&["tokio-mpsc-bounded", "rtrb"], Delivery::Sequential, 1_000);
    spec.driver = "tokio-multi:2".parse().unwrap();
    match run_sample(&c, &spec, SampleRequest::of(100)).status {
        SampleStatus::Unsupported(why) => {
            assert!(
                why.contains("hop 2 (rtrb)") && why.contains("async"),
                "{why}"
            )
        }
        other => panic!("{other:?}"),
    }
    // may's own channel blocks a tokio worker: refused there.
    let mut spec = pipeline(&["may-mpsc"], Delivery::Sequential, 1_000);
    spec.driver = "tokio-current".parse().unwrap();
    match run_sample(&c, &spec, SampleRequest::of(100)).status {
        SampleStatus::Unsupported(why) => assert!(why.contains("may"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// `sequential` and `latest` reactors over the same hops, the reactor busy four times as long
/// as the interval between events: every event arrives and is verified under both; sequential
/// fires each, latest fires fewer (it drains what arrived while busy) and times only what it
/// fires.
#[test]
fn a_latest_reactor_fires_fewer_times_than_a_sequential_one_on_the_same_hops() {
    use handoff::workload::Reactor;
    let _serial = serial();
    let c = testing::catalog();
    let hops = [
        "crossbeam-bounded",
        "crossbeam-bounded",
        "crossbeam-bounded",
    ];
    let mut fires = Vec::new();
    for reactor in [Reactor::Sequential, Reactor::Latest] {
        let mut spec = pipeline(&hops, Delivery::Sequential, 20_000);
        let p = spec.pipeline.as_mut().unwrap();
        p.reactor = reactor;
        p.reactor_work_ns = 200_000;
        let o = run_sample(&c, &spec, SampleRequest::of(1_000));
        assert_eq!(o.status, SampleStatus::Pass, "{reactor}: {:?}", o.status);
        assert_eq!(o.messages, 1_000, "{reactor}: every event is verified");
        let p = o.paced.as_deref().unwrap();
        assert_eq!(p.sent, 1_000, "{reactor}");
        let timed = histogram::decode(o.latency.as_deref().unwrap())
            .unwrap()
            .len();
        assert_eq!(timed, p.fires, "{reactor}: each fire is timed once");
        fires.push(p.fires);
    }
    assert_eq!(fires[0], 1_000, "sequential fires every event");
    assert!(
        fires[1] >= 1 && fires[1] < 1_000,
        "latest drains and fires once: {} fires",
        fires[1]
    );
}

/// A second source writes the middle hop beside the first stage, at half the injectors' rate:
/// every event of both streams reaches the sink, verified per source, under threads and as
/// tasks; only the injectors' events are timed.
#[test]
fn a_merge_source_feeds_a_middle_hop_and_every_event_of_both_arrives() {
    use handoff::workload::MergeSource;
    let _serial = serial();
    let c = handoff_transports::builtin();
    for (driver, hop) in [
        ("threads", "crossbeam-bounded"),
        ("tokio-multi:2", "tokio-mpsc-bounded"),
    ] {
        let mut spec = pipeline(&[hop, hop, hop], Delivery::Sequential, 20_000);
        spec.driver = driver.parse().unwrap();
        spec.pipeline.as_mut().unwrap().merge = Some(MergeSource {
            hop: 2,
            rate: 10_000,
        });
        let o = run_sample(&c, &spec, SampleRequest::of(2_000));
        assert_eq!(o.status, SampleStatus::Pass, "{driver}: {:?}", o.status);
        assert_eq!(o.messages, 3_000, "{driver}");
        let p = o.paced.as_deref().unwrap();
        assert_eq!((p.sent, p.fires), (3_000, 3_000), "{driver}");
        let received: Vec<u64> = p.hops.iter().map(|h| h.received).collect();
        assert_eq!(received, [2_000, 3_000, 3_000], "{driver}");
        let timed = histogram::decode(o.latency.as_deref().unwrap())
            .unwrap()
            .len();
        assert_eq!(
            timed, 2_000,
            "{driver}: the merge source's events are not timed"
        );
    }
}

/// A merge source outside the middle hops, or a latest reactor behind a conflating last hop,
/// is refused with the reason.
#[test]
fn a_pipeline_shape_that_cannot_run_is_refused_with_the_reason() {
    use handoff::workload::{MergeSource, Reactor};
    let _serial = serial();
    let c = testing::catalog();
    let invalid = |spec: &TrialSpec| match run_sample(&c, spec, SampleRequest::of(100)).status {
        SampleStatus::Invalid(why) => why,
        other => panic!("{other:?}"),
    };
    for hop in [1, 3] {
        let mut spec = pipeline(
            &["crossbeam-bounded", "crossbeam-bounded"],
            Delivery::Sequential,
            1_000,
        );
        spec.pipeline.as_mut().unwrap().merge = Some(MergeSource { hop, rate: 100 });
        let why = invalid(&spec);
        assert!(why.contains(&format!("not hop {hop}")), "{why}");
    }
    let mut spec = pipeline(
        &["crossbeam-bounded", "latest-cell"],
        Delivery::Latest,
        1_000,
    );
    spec.pipeline.as_mut().unwrap().reactor = Reactor::Latest;
    let why = invalid(&spec);
    assert!(why.contains("already keeps only the newest"), "{why}");
    // A one-writer transport cannot take the second source.
    let mut spec = pipeline(&["crossbeam-bounded", "rtrb"], Delivery::Sequential, 1_000);
    spec.pipeline.as_mut().unwrap().merge = Some(MergeSource { hop: 2, rate: 100 });
    match run_sample(&c, &spec, SampleRequest::of(100)).status {
        SampleStatus::Unsupported(why) | SampleStatus::Invalid(why) => {
            assert!(why.contains("hop 2 (rtrb)"), "{why}")
        }
        other => panic!("{other:?}"),
    }
}

/// Under `batch` the reactor runs once per batch, as `latest` does, but every event is timed:
/// fewer fires than events, one latency per event.
#[test]
fn a_batch_reactor_fires_once_per_batch_and_times_every_event() {
    use handoff::workload::Reactor;
    let _serial = serial();
    let c = testing::catalog();
    let mut spec = pipeline(&["crossbeam-bounded"; 3], Delivery::Sequential, 20_000);
    let p = spec.pipeline.as_mut().unwrap();
    p.reactor = Reactor::Batch;
    p.reactor_work_ns = 200_000;
    let o = run_sample(&c, &spec, SampleRequest::of(1_000));
    assert_eq!(o.status, SampleStatus::Pass, "{:?}", o.status);
    let p = o.paced.as_deref().unwrap();
    let timed = histogram::decode(o.latency.as_deref().unwrap())
        .unwrap()
        .len();
    assert_eq!(timed, 1_000, "every event of every batch is timed");
    assert!(
        p.fires >= 1 && p.fires < 1_000,
        "one run per batch: {} fires",
        p.fires
    );
}

/// Runs one trial in process and returns its result.
fn run_one(spec: TrialSpec) -> handoff::report::TrialResult {
    let report = session::run(
        &testing::catalog(),
        vec![spec],
        &SessionOptions::in_process("test"),
        &mut |_| {},
    );
    report.results.into_iter().next().unwrap()
}

/// A soak of 3 s in windows of 500 ms: six windows, the last holding the drain; what the
/// windows count adds up to what the sample sent and delivered, whatever the machine's speed.
#[test]
fn a_soak_is_measured_window_by_window_and_its_windows_add_up() {
    let _serial = serial();
    let mut spec = paced("crossbeam-bounded", 2_000);
    spec.messages = Messages::Soak {
        duration_ms: 3_000,
        window_ms: 500,
    };
    let r = run_one(spec);
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.violation);
    assert_eq!(r.samples.len(), 1);
    let s = &r.samples[0];
    assert_eq!(s.messages, 6_000, "rate × duration");
    let w = &s.windows;
    assert_eq!(w.len(), 6, "{w:?}");
    for (k, x) in w.iter().enumerate() {
        assert_eq!(x.start_ms, k as f64 * 500.0);
        if k < 5 {
            assert_eq!(x.length_ms, 500.0);
        } else {
            // Its last event was due half an interval before the end, and the drain is its.
            assert!(x.length_ms >= 450.0, "{x:?}");
        }
    }
    assert_eq!(w.iter().map(|x| x.delivered).sum::<u64>(), 6_000);
    assert_eq!(w.iter().map(|x| x.sent).sum::<u64>(), 6_000);
    assert_eq!(w.iter().map(|x| x.fired).sum::<u64>(), 6_000);
    assert_eq!(w[5].backlog, 0, "nothing in flight at the end");
    assert!(w
        .iter()
        .all(|x| x.fired == 0 || x.p50 <= x.p99 && x.p99 <= x.max));
    assert!(!r.lints.iter().any(|l| matches!(l, Lint::FewSamples { .. })));
}

/// A ramp with a duration soaks at the rate it sustained once its search has ended. The session
/// plans again between the two, its steps counted as run and its soak next, so that a progress
/// display knows the soak, not another step, is what is left.
#[test]
fn a_ramp_that_soaks_is_planned_again_when_its_search_ends() {
    let _serial = serial();
    let mut spec = paced("crossbeam-bounded", 1_000);
    spec.workload = WorkloadKind::Ramp;
    spec.pacing = Pacing::Ramp(RampSpec {
        start: 2_000,
        factor: 2,
        refine: 0,
        max: 8_000,
        step_ms: 100,
        p99_bound_ns: None,
    });
    spec.messages = Messages::Soak {
        duration_ms: 1_000,
        window_ms: 250,
    };
    let (mut plans, mut timed) = (Vec::new(), 0);
    let report = session::run(
        &testing::catalog(),
        vec![spec],
        &SessionOptions::in_process("test"),
        &mut |e| match e {
            session::Event::Planned { trials, .. } => plans.push((timed, trials[0])),
            session::Event::Sample { timed: true, .. } => timed += 1,
            _ => {}
        },
    );
    let r = &report.results[0];
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.violation);
    let search = &r.ramp.as_ref().unwrap().search;
    let steps = search.steps.len();
    assert_eq!(timed, steps + 1, "the steps, then the soak");
    // Planned before the search with the soak last, and again as soon as it ended.
    let (_, first) = plans[0];
    assert!(!first.searched && first.soaks == 1, "{first:?}");
    let (at, settled) = *plans.iter().find(|(_, p)| p.searched).unwrap();
    assert_eq!(at, steps, "planned again right after the last step");
    assert_eq!(settled.samples, steps + 1);
    assert_eq!(settled.soak, std::time::Duration::from_secs(1));
    assert_eq!(settled.scheduled_left(0, steps), Some(settled.soak));
    // The soak is the timed sample: the rate sustained for a second, in four windows.
    let best = search.sustained.unwrap();
    assert_eq!(r.samples.len(), 1);
    assert_eq!(r.samples[0].messages, best);
    assert_eq!(r.samples[0].windows.len(), 4);
}

/// A consumer that gets slower the longer it runs keeps up at first and then falls further
/// behind every window: the drift lint says so.
#[test]
fn a_consumer_that_slows_down_over_a_soak_drifts() {
    let _serial = serial();
    let mut spec = paced("faulty-degrade", 2_000);
    spec.messages = Messages::Soak {
        duration_ms: 4_000,
        window_ms: 500,
    };
    let r = run_one(spec);
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.violation);
    assert_eq!(r.samples[0].windows.len(), 8);
    let drifts: Vec<&Lint> = r
        .lints
        .iter()
        .filter(|l| matches!(l, Lint::Drift { .. }))
        .collect();
    assert!(!drifts.is_empty(), "{:?}", r.lints);
    assert!(
        drifts[0].to_string().starts_with("drift: "),
        "{}",
        drifts[0]
    );
}
