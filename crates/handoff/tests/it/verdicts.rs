//! The faulty transports get the right verdicts, in process, and a clean run keeps going.

use handoff::outcome::{SampleStatus, ViolationKind};
use handoff::payload::PayloadKind;
use handoff::report::Verdict;
use handoff::session::{self, SessionOptions};
use handoff::workload::{Messages, TrialSpec, WorkloadKind};
use handoff_testing as testing;
use std::collections::BTreeMap;

fn spec(transport: &str, workload: WorkloadKind, producers: usize) -> TrialSpec {
    TrialSpec {
        transport: transport.into(),
        workload,
        driver: Default::default(),
        payload: PayloadKind::U64,
        capacity: 64,
        producers,
        consumers: 1,
        messages: Messages::Fixed(2_000),
        batch: None,
        options: BTreeMap::new(),
        samples: 2,
        warmup: 0,
        timeout_ms: 1_000,
        pin: false,
        fresh_process: false,
        placement: Default::default(),
        pacing: Default::default(),
        pacer: Default::default(),
        pipeline: None,
        layout: None,
    }
}

fn sample(name: &str, producers: usize) -> SampleStatus {
    let c = testing::catalog();
    let w = if producers == 1 {
        WorkloadKind::Spsc
    } else {
        WorkloadKind::Mpsc
    };
    c.lookup(name)
        .unwrap()
        .runner()
        .run_sample(&spec(name, w, producers), 2_000)
        .status
}

#[test]
fn drop_is_an_order_failure_naming_the_missing_seq() {
    match sample("faulty-drop", 1) {
        SampleStatus::Fail(v) => {
            assert_eq!(v.kind, ViolationKind::Order);
            assert_eq!(v.to_string(), "producer 0: expected seq 9, got 10");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn duplicate_is_found() {
    match sample("faulty-dup", 2) {
        SampleStatus::Fail(v) => assert_eq!(v.kind, ViolationKind::Duplicate),
        other => panic!("{other:?}"),
    }
}

/// A message delivered twice is named a duplicate by every mode of the verifier, not an
/// order violation: one FIFO consumer (contiguous), several consumers of one FIFO stream
/// (increasing), no order (set), a conflating hop (latest).
#[test]
fn a_duplicate_is_named_a_duplicate_in_every_verification_mode() {
    use handoff::executor::{run_sample, SampleRequest};
    use handoff::workload::{Delivery, Hop, Pacing, PipelineSpec};
    let c = testing::catalog();
    let twice = |what: &str, status: SampleStatus| match status {
        SampleStatus::Fail(v) => {
            assert_eq!(v.kind, ViolationKind::Duplicate, "{what}: {v}");
            assert!(v.to_string().ends_with(" delivered twice"), "{what}: {v}");
        }
        other => panic!("{what}: {other:?}"),
    };
    // Contiguous: one FIFO consumer.
    twice("faulty-dup spsc", sample("faulty-dup", 1));
    // Increasing: two consumers share one FIFO stream, each checks its share off in a bitmap.
    let mut mpmc = spec("faulty-dup-mpmc", WorkloadKind::Mpmc, 1);
    mpmc.consumers = 2;
    twice(
        "faulty-dup-mpmc mpmc",
        run_sample(&c, &mpmc, SampleRequest::of(2_000)).status,
    );
    let mut mpmc = spec("faulty-dup-mpmc", WorkloadKind::Mpmc, 3);
    mpmc.consumers = 3;
    twice(
        "faulty-dup-mpmc mpmc p=3 c=3",
        run_sample(&c, &mpmc, SampleRequest::of(3_000)).status,
    );
    // Set: no order promised.
    twice(
        "faulty-dup-unordered spsc",
        sample("faulty-dup-unordered", 1),
    );
    twice(
        "faulty-dup-unordered mpsc",
        sample("faulty-dup-unordered", 2),
    );
    // Latest: the conflating hop of a pipeline delivers one value twice.
    let pipeline = TrialSpec {
        workload: WorkloadKind::Pipeline,
        pacing: Pacing::Rate(20_000),
        pipeline: Some(PipelineSpec {
            hops: [
                "crossbeam-bounded",
                "faulty-dup-latest",
                "crossbeam-bounded",
            ]
            .iter()
            .map(|t| Hop {
                transport: t.to_string(),
                capacity: 1024,
            })
            .collect(),
            stage_work_ns: 0,
            delivery: Delivery::Latest,
            reactor: Default::default(),
            reactor_work_ns: 0,
            merge: None,
        }),
        ..spec("crossbeam-bounded", WorkloadKind::Pipeline, 1)
    };
    twice(
        "faulty-dup-latest pipeline",
        run_sample(&c, &pipeline, SampleRequest::of(1_000)).status,
    );
}

#[test]
fn reorder_is_found() {
    match sample("faulty-reorder", 1) {
        SampleStatus::Fail(v) => assert_eq!(v.kind, ViolationKind::Order),
        other => panic!("{other:?}"),
    }
}

#[test]
fn hang_is_reported_hung_within_the_watchdog_interval_and_a_margin() {
    let start = std::time::Instant::now();
    match sample("faulty-hang", 1) {
        // The consumer stops at its tenth message; what it had published is said.
        SampleStatus::Hung(why) => {
            assert!(why.starts_with("no message delivered for "), "{why}");
            assert!(why.contains("(watchdog 1000 ms)"), "{why}");
            assert!(why.contains("1 of 2 threads finished"), "{why}");
            assert!(why.contains(" of 2000 messages delivered"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    // Loosely: one interval (1 s), plus a margin for a busy machine.
    assert!(start.elapsed() < std::time::Duration::from_secs(6));
}

#[test]
fn panic_is_reported_crashed_with_its_message() {
    match sample("faulty-panic", 1) {
        SampleStatus::Crashed(why) => assert!(why.contains("injected panic"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_session_keeps_every_other_result() {
    let c = testing::catalog();
    let specs = vec![
        spec("faulty-drop", WorkloadKind::Spsc, 1),
        spec("faulty-panic", WorkloadKind::Spsc, 1),
        spec("no-such-queue", WorkloadKind::Spsc, 1),
    ];
    let opts = SessionOptions::in_process("test");
    let report = session::run(&c, specs, &opts, &mut |_| {});
    let verdicts: Vec<Verdict> = report.results.iter().map(|r| r.verdict).collect();
    assert_eq!(
        verdicts,
        vec![Verdict::Fail, Verdict::Crashed, Verdict::Invalid]
    );
    assert!(report.results[2]
        .violation
        .as_deref()
        .unwrap()
        .contains("unknown transport"));
    assert!(report.has_failures());
}

/// An option that chooses how a transport waits shows in the result's semantics: the same queue
/// run with `wake=spin` and `wake=edge` reports two different wait strategies.
#[test]
fn a_wait_option_sets_the_reported_wait_strategy() {
    use handoff::semantics::WaitStrategy;
    let c = testing::catalog();
    let with = |key: &str, value: &str, transport: &str| {
        let mut s = spec(transport, WorkloadKind::Mpsc, 2);
        s.options.insert(key.into(), value.into());
        s
    };
    let specs = vec![
        with("wake", "spin", "handoff-mpsc"),
        with("wake", "edge", "handoff-mpsc"),
        with("wake", "every", "vyukov-mpsc"),
        spec("handoff-mpsc", WorkloadKind::Mpsc, 2),
    ];
    let opts = SessionOptions::in_process("test");
    let report = session::run(&c, specs, &opts, &mut |_| {});
    let waits: Vec<WaitStrategy> = report.results.iter().map(|r| r.semantics.wait).collect();
    assert_eq!(
        waits,
        vec![
            WaitStrategy::Spin,
            WaitStrategy::SpinThenPark,
            WaitStrategy::SpinThenPark,
            WaitStrategy::SpinThenPark
        ]
    );
    assert!(report.results.iter().all(|r| r.verdict == Verdict::Pass));
}

/// A clean sample of a threaded engine records both sides' CPU time (a per-thread CPU clock on
/// unix): streams with one and several producers, and ping-pong.
#[cfg(unix)]
#[test]
fn clean_samples_record_cpu_time_on_both_sides() {
    let c = testing::catalog();
    for (workload, producers) in [
        (WorkloadKind::Spsc, 1),
        (WorkloadKind::Mpsc, 2),
        (WorkloadKind::PingPong, 1),
    ] {
        let o = c
            .lookup("crossbeam-bounded")
            .unwrap()
            .runner()
            .run_sample(&spec("crossbeam-bounded", workload, producers), 2_000);
        assert!(o.status.is_pass(), "{workload}: {o:?}");
        let cpu = o.cpu.expect("CPU time measured");
        assert!(
            cpu.producer_ns > 0 && cpu.consumer_ns > 0,
            "{workload}: {cpu:?}"
        );
    }
}

/// A callback consumer on the transport's own thread counts for the consumer side (its sink
/// reads that thread's clock); a same-thread callback's time is the producer's already.
#[test]
fn callback_streams_record_the_consumer_where_it_has_a_thread_of_its_own() {
    let c = handoff_transports::builtin();
    for (name, own_thread) in [("disruptor", true), ("direct-callback", false)] {
        let o = c
            .lookup(name)
            .unwrap()
            .runner()
            .run_sample(&spec(name, WorkloadKind::Spsc, 1), 20_000);
        assert!(o.status.is_pass(), "{name}: {o:?}");
        let cpu = o.cpu.expect("CPU time measured");
        assert!(cpu.producer_ns > 0, "{name}: {cpu:?}");
        assert_eq!(cpu.consumer_ns > 0, own_thread, "{name}: {cpu:?}");
    }
}
