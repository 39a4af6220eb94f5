//! Async transports under every driver, in process: exact counts, verdicts for faults, refusals
//! for combinations that cannot be run, and how results are labelled.

use handoff::catalog::{Catalog, Entry};
use handoff::model::lint::Lint;
use handoff::outcome::{SampleOutcome, SampleStatus};
use handoff::payload::PayloadKind;
use handoff::prelude::*;
use handoff::report::{Params, Verdict};
use handoff::session::{self, SessionOptions};
use handoff::workload::{Driver, Messages, TrialSpec, WorkloadKind};
use std::collections::BTreeMap;

/// Messages per sample in the stream runs.
const N: u64 = 20_000;

/// Every built-in driver: threads, both tokio flavours, and `may` green threads.
fn drivers() -> [Driver; 4] {
    [
        Driver::Threads,
        Driver::TokioCurrent,
        Driver::TokioMulti { workers: 2 },
        "may:2".parse().unwrap(),
    ]
}

/// Every async transport that delivers every message exactly once.
const EXACT: [&str; 7] = [
    "tokio-mpsc-bounded",
    "tokio-mpsc-unbounded",
    "tokio-broadcast",
    "tokio-oneshot",
    "async-channel-bounded",
    "flume-async",
    "kanal-async",
];

fn spec(transport: &str, workload: WorkloadKind, producers: usize, driver: Driver) -> TrialSpec {
    TrialSpec {
        transport: transport.into(),
        workload,
        driver,
        payload: PayloadKind::U64,
        // Broadcast applies no backpressure: its ring holds the whole sample.
        capacity: if transport == "tokio-broadcast" {
            1 << 16
        } else {
            64
        },
        producers,
        consumers: 1,
        messages: Messages::Fixed(N),
        batch: None,
        options: BTreeMap::new(),
        samples: 2,
        warmup: 0,
        timeout_ms: 20_000,
        pin: false,
        fresh_process: false,
        placement: Default::default(),
        pacing: Default::default(),
        pacer: Default::default(),
        pipeline: None,
        layout: None,
    }
}

fn sample(catalog: &Catalog, spec: &TrialSpec, messages: u64) -> SampleOutcome {
    catalog
        .lookup(&spec.transport)
        .unwrap()
        .runner()
        .run_sample_with(spec, messages, catalog.drivers())
}

#[test]
fn registered_async_transports_declare_their_semantics() {
    let expected = [
        (
            "tokio-mpsc-bounded",
            "MPSC, per-producer FIFO, bounded, async, cross-thread",
        ),
        (
            "tokio-mpsc-unbounded",
            "MPSC, per-producer FIFO, unbounded, async, cross-thread",
        ),
        (
            "tokio-broadcast",
            "MPMC broadcast, per-producer FIFO, bounded (2^n), overwrites when full, async, cross-thread",
        ),
        (
            "tokio-watch",
            "MPSC, latest value, unbounded, async, cross-thread",
        ),
        (
            "tokio-oneshot",
            "SPSC, FIFO, unbounded, async, cross-thread",
        ),
        (
            "async-channel-bounded",
            "MPMC, per-producer FIFO, bounded, async, cross-thread",
        ),
        (
            "flume-async",
            "MPMC, per-producer FIFO, bounded, async, cross-thread",
        ),
        (
            "kanal-async",
            "MPMC, per-producer FIFO, bounded, async, cross-thread",
        ),
        (
            "may-mpsc",
            "MPSC, per-producer FIFO, unbounded, async, cross-thread",
        ),
    ];
    let mut catalog = Catalog::new();
    handoff_transports::register_all(&mut catalog);
    let got: Vec<(&str, String)> = catalog
        .entries()
        .iter()
        .filter(|e| e.info().semantics.wait == WaitStrategy::Async)
        .map(|e| (e.info().name.as_str(), e.info().semantics.summary()))
        .collect();
    let expected: Vec<(&str, String)> = expected.iter().map(|(n, s)| (*n, s.to_string())).collect();
    assert_eq!(got, expected);
    // Every one but the latest-value cell is exercised below.
    assert!(expected
        .iter()
        .all(|(n, _)| EXACT.contains(n) || ["tokio-watch", "may-mpsc"].contains(n)));
}

/// `may`'s own channel parks a coroutine, so it runs on threads and under `may` and nowhere
/// else: exact there, refused with the reason on a tokio runtime.
#[test]
fn a_transport_tied_to_its_runtime_runs_there_and_is_refused_elsewhere() {
    let c = handoff_transports::builtin();
    for driver in [Driver::Threads, "may:2".parse().unwrap()] {
        for (w, p) in [(WorkloadKind::Spsc, 1), (WorkloadKind::Mpsc, 4)] {
            let s = spec("may-mpsc", w, p, driver);
            let o = sample(&c, &s, N);
            assert_eq!(o.status, SampleStatus::Pass, "{}", s.label());
            assert_eq!(o.messages, N, "{}", s.label());
        }
    }
    for driver in [Driver::TokioCurrent, Driver::TokioMulti { workers: 2 }] {
        let s = spec("may-mpsc", WorkloadKind::Spsc, 1, driver);
        match sample(&c, &s, 1000).status {
            SampleStatus::Unsupported(why) => assert!(why.contains("may"), "{why}"),
            other => panic!("{driver}: {other:?}"),
        }
    }
}

#[test]
fn async_transports_deliver_exact_streams_under_every_driver() {
    let c = handoff_transports::builtin();
    for name in EXACT {
        let sem = c.get(name).unwrap().info().semantics;
        assert_eq!(sem.wait, WaitStrategy::Async, "{name}");
        for driver in drivers() {
            let mut shapes = vec![(WorkloadKind::Spsc, 1)];
            if sem.producers == Arity::Many {
                shapes.push((WorkloadKind::Mpsc, 4));
            }
            for (w, p) in shapes {
                let s = spec(name, w, p, driver);
                let o = sample(&c, &s, N);
                assert_eq!(o.status, SampleStatus::Pass, "{}", s.label());
                assert_eq!(o.messages, N, "{}", s.label());
                assert!(o.elapsed_ns > 0, "{}", s.label());
            }
        }
    }
}

/// On threads each task's thread counts for its side; on a tokio runtime the runtime's threads
/// count as a whole, for neither side.
#[test]
fn every_driver_records_cpu_time_where_it_can_be_told_apart() {
    let c = handoff_transports::builtin();
    for driver in drivers() {
        let o = sample(
            &c,
            &spec("kanal-async", WorkloadKind::Spsc, 1, driver),
            1000,
        );
        assert!(o.status.is_pass(), "{driver}: {o:?}");
        let cpu = o.cpu.unwrap_or_else(|| panic!("{driver}: no CPU time"));
        if driver == Driver::Threads {
            assert!(
                cpu.producer_ns > 0 && cpu.consumer_ns > 0,
                "{driver}: {cpu:?}"
            );
            assert_eq!(cpu.runtime_ns, 0, "{driver}");
        } else {
            assert_eq!((cpu.producer_ns, cpu.consumer_ns), (0, 0), "{driver}");
            assert!(cpu.runtime_ns > 0, "{driver}: {cpu:?}");
        }
    }
}

#[test]
fn every_driver_gives_the_same_digest() {
    let c = handoff_transports::builtin();
    let digests: Vec<u64> = drivers()
        .iter()
        .map(|&d| sample(&c, &spec("kanal-async", WorkloadKind::Mpsc, 3, d), 3 * 1000).digest)
        .collect();
    assert!(digests.iter().all(|d| *d == digests[0]), "{digests:?}");
}

#[test]
fn multi_consumer_async_channels_split_the_stream_exactly_once() {
    let c = handoff_transports::builtin();
    for name in ["async-channel-bounded", "flume-async", "kanal-async"] {
        for driver in drivers() {
            let mut s = spec(name, WorkloadKind::Mpmc, 3, driver);
            s.consumers = 2;
            let o = sample(&c, &s, 3 * 5000);
            assert_eq!(o.status, SampleStatus::Pass, "{}", s.label());
            assert_eq!(o.messages, 3 * 5000, "{}", s.label());
        }
    }
}

#[test]
fn ping_pong_records_round_trips_under_every_driver() {
    let c = handoff_transports::builtin();
    for name in ["tokio-oneshot", "tokio-mpsc-bounded", "flume-async"] {
        for driver in drivers() {
            let s = spec(name, WorkloadKind::PingPong, 1, driver);
            let o = sample(&c, &s, 2000);
            assert_eq!(o.status, SampleStatus::Pass, "{}", s.label());
            assert_eq!(o.messages, 2000, "{}", s.label());
            let hist = handoff::histogram::decode(o.latency.as_deref().unwrap()).unwrap();
            assert_eq!(hist.len(), 2000, "{}", s.label());
        }
    }
}

#[test]
fn the_share_of_hand_offs_on_one_worker_is_exact_where_the_driver_fixes_it() {
    let c = handoff_transports::builtin();
    for name in ["tokio-mpsc-bounded", "kanal-async"] {
        for (w, p, n, handoffs) in [
            // Each round trip is two hand-offs, one each way.
            (WorkloadKind::PingPong, 1, 2000, 4000),
            (WorkloadKind::Spsc, 1, N, N),
            (WorkloadKind::Mpsc, 4, N, N),
        ] {
            for driver in drivers() {
                let s = spec(name, w, p, driver);
                let o = sample(&c, &s, n);
                assert_eq!(o.status, SampleStatus::Pass, "{}", s.label());
                let share = o.same_worker.expect("recorded under every driver");
                assert_eq!(share.observed, handoffs, "{}", s.label());
                match driver {
                    // A thread per task: no hand-off ever stays on one thread.
                    Driver::Threads => assert_eq!(share.same, 0, "{}", s.label()),
                    // One thread for every task: every hand-off stays on it.
                    Driver::TokioCurrent => assert_eq!(share.same, handoffs, "{}", s.label()),
                    // The scheduler's choice: only the count is certain.
                    Driver::TokioMulti { .. } | Driver::Registered { .. } => {
                        assert!(share.same <= handoffs, "{}", s.label())
                    }
                }
            }
        }
    }
    // The blocking engines do not record it.
    let mut s = spec("crossbeam-bounded", WorkloadKind::Spsc, 1, Driver::Threads);
    s.capacity = 64;
    assert_eq!(sample(&c, &s, 1000).same_worker, None);
}

#[test]
fn latest_value_transport_is_refused_where_every_message_counts() {
    let c = handoff_transports::builtin();
    assert_eq!(
        c.get("tokio-watch").unwrap().info().semantics.ordering,
        Ordering::Latest
    );
    // (mpmc is refused before that: the cell is declared with one consumer.)
    for w in [
        WorkloadKind::Spsc,
        WorkloadKind::Mpsc,
        WorkloadKind::PingPong,
    ] {
        let (p, n) = if w == WorkloadKind::Mpsc {
            (2, 2)
        } else {
            (1, 1)
        };
        let s = spec("tokio-watch", w, p, Driver::TokioCurrent);
        match sample(&c, &s, 100 * n).status {
            SampleStatus::Unsupported(why) => {
                assert!(why.contains("latest value"), "{w}: {why}")
            }
            other => panic!("{w}: {other:?}"),
        }
    }
}

#[test]
fn blocking_transports_are_refused_by_the_tokio_drivers() {
    let c = handoff_transports::builtin();
    for name in ["crossbeam-bounded", "disruptor"] {
        let s = spec(
            name,
            WorkloadKind::Spsc,
            1,
            Driver::TokioMulti { workers: 2 },
        );
        match sample(&c, &s, 1000).status {
            SampleStatus::Unsupported(why) => {
                assert!(why.contains("runs async transports only"), "{why}")
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn a_lagging_broadcast_receiver_counts_its_loss_and_a_flood_it_cannot_hold_is_refused() {
    let c = handoff_transports::builtin();
    // A ring of 16 under a flood of 1000 would be overwritten before the consumer runs: the
    // engine refuses it, saying why.
    let mut s = spec(
        "tokio-broadcast",
        WorkloadKind::Spsc,
        1,
        Driver::TokioCurrent,
    );
    s.capacity = 16;
    match sample(&c, &s, 1000).status {
        SampleStatus::Unsupported(why) => assert!(why.contains("no backpressure"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Driven past its capacity by hand, the receiver ends its stream and counts what it lost
    // (which the engine reports as a `consumer lagged` failure where a lag can still happen: a
    // paced fan-out).
    let ends = handoff_transports::TokioBroadcast
        .channel::<handoff::payload::Word>(&ChannelConfig::new(16, 1, 1))
        .unwrap();
    let (mut tx, mut rx) = (
        ends.senders.into_iter().next().unwrap(),
        ends.receivers.into_iter().next().unwrap(),
    );
    futures_lite::future::block_on(async {
        for seq in 0..40 {
            assert!(tx.send(handoff::payload::Word::build(0, seq)).await.is_ok());
        }
        assert!(
            rx.recv().await.is_none(),
            "a lagged receiver ends its stream"
        );
    });
    assert_eq!(rx.lost(), 24);
}

// ---------------------------------------------------------------------------------------------
// A user-written async transport that misbehaves on request.

/// `tokio::sync::mpsc` whose consumer panics or never ends, as its name says.
struct Misbehaving(&'static str);

struct Tx<M>(Option<tokio::sync::mpsc::Sender<M>>);
struct Rx<M> {
    rx: tokio::sync::mpsc::Receiver<M>,
    mode: &'static str,
}

impl<M: Message> AsyncSender<M> for Tx<M> {
    async fn send(&mut self, msg: M) -> Result<(), M> {
        match &self.0 {
            Some(tx) => tx.send(msg).await.map_err(|e| e.0),
            None => Err(msg),
        }
    }
}

impl<M: Message> AsyncReceiver<M> for Rx<M> {
    async fn recv(&mut self) -> Option<M> {
        let m = self.rx.recv().await?;
        if m.seq() == 10 {
            match self.mode {
                "async-panic" => panic!("consumer gave up at seq 10"),
                // Never wakes again.
                _ => std::future::pending::<()>().await,
            }
        }
        Some(m)
    }
}

impl AsyncTransport for Misbehaving {
    type Tx<M: Message> = Tx<M>;
    type Rx<M: Message> = Rx<M>;

    fn info(&self) -> TransportInfo {
        let mut info = handoff_transports::builtin()
            .get("tokio-mpsc-bounded")
            .unwrap()
            .info()
            .clone();
        info.name = self.0.into();
        info.test_only = true;
        info
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
        let (tx, rx) = tokio::sync::mpsc::channel(cfg.capacity);
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| Tx(Some(tx.clone()))).collect(),
            receivers: vec![Rx { rx, mode: self.0 }],
        })
    }
}

#[test]
fn a_panicking_task_crashes_the_sample_and_a_stuck_one_hangs_it() {
    let mut c = handoff_transports::builtin();
    c.register(Entry::asynchronous(Misbehaving("async-panic")));
    c.register(Entry::asynchronous(Misbehaving("async-hang")));
    for driver in drivers() {
        let s = spec("async-panic", WorkloadKind::Spsc, 1, driver);
        match sample(&c, &s, 1000).status {
            SampleStatus::Crashed(why) => assert!(why.contains("gave up at seq 10"), "{why}"),
            other => panic!("{driver}: {other:?}"),
        }
        let mut s = spec("async-hang", WorkloadKind::Spsc, 1, driver);
        s.timeout_ms = 300;
        match sample(&c, &s, 1000).status {
            SampleStatus::Hung(why) => assert!(
                why.starts_with("no message delivered for") && why.contains("(watchdog 300 ms)"),
                "{why}"
            ),
            other => panic!("{driver}: {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reports.

#[test]
fn current_thread_results_are_same_thread_cooperative_and_echo_the_driver() {
    let c = handoff_transports::builtin();
    let specs: Vec<TrialSpec> = drivers()[..3]
        .iter()
        .map(|&d| spec("tokio-mpsc-bounded", WorkloadKind::Spsc, 1, d))
        .collect();
    let opts = SessionOptions::in_process("test");
    let report = session::run(&c, specs, &opts, &mut |_| {});
    let [threads, current, multi] = &report.results[..] else {
        panic!("three results")
    };
    for r in &report.results {
        assert_eq!(r.verdict, Verdict::Pass, "{}", r.params.driver);
    }
    assert_eq!(threads.params.driver, Driver::Threads);
    assert_eq!(current.params.driver, Driver::TokioCurrent);
    assert_eq!(multi.params.driver, Driver::TokioMulti { workers: 2 });

    assert_eq!(current.semantics.locality, Locality::SameThread);
    assert!(current.lints.contains(&Lint::SameThreadCooperative));
    assert!(!current.lints.contains(&Lint::SameThread));
    // Every hand-off stayed on the one thread; that is said once, as same-thread-cooperative.
    assert_eq!(current.same_worker, Some(1.0));
    assert!(!current.lints.iter().any(|l| l.code() == "same-worker"));
    assert_eq!(threads.same_worker, Some(0.0));
    assert!(!threads.lints.iter().any(|l| l.code() == "same-worker"));
    // On a multi-thread runtime the label follows the share measured.
    assert_eq!(
        multi.lints.iter().any(|l| l.code() == "same-worker"),
        multi.same_worker.unwrap() > handoff::report::MOSTLY_SAME_WORKER
    );
    assert_eq!(current.placement.threads, 1);
    for r in [threads, multi] {
        assert_eq!(r.semantics.locality, Locality::CrossThread);
        assert!(!r.lints.contains(&Lint::SameThreadCooperative));
        assert_eq!(r.placement.threads, 2);
    }

    // A report written before drivers existed still loads, as threads.
    let mut json = serde_json::to_value(&threads.params).unwrap();
    json.as_object_mut().unwrap().remove("driver");
    let old: Params = serde_json::from_value(json).unwrap();
    assert_eq!(old.driver, Driver::Threads);
    assert_eq!(
        serde_json::to_value(&multi.params).unwrap()["driver"],
        "tokio-multi:2"
    );
}

#[test]
fn driver_names_parse_and_display() {
    for (text, d) in [
        ("threads", Driver::Threads),
        ("tokio-current", Driver::TokioCurrent),
        ("tokio-multi:3", Driver::TokioMulti { workers: 3 }),
    ] {
        assert_eq!(text.parse::<Driver>().unwrap(), d);
        assert_eq!(d.to_string(), text);
    }
    assert!(matches!(
        "tokio-multi".parse::<Driver>().unwrap(),
        Driver::TokioMulti { workers } if workers >= 1
    ));
    for (bad, needle) in [
        ("tokio-multi:0", "at least 1"),
        ("tokio-multi:two", "expected a worker count"),
        (
            "threads:2",
            "only `tokio-multi` and registered drivers take a worker count",
        ),
        ("Tokio Multi", "unknown driver"),
    ] {
        let e = bad.parse::<Driver>().unwrap_err().to_string();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    // A registered driver's name parses; whether it exists is the catalog's to say.
    let c = handoff_transports::builtin();
    let may: Driver = "may:3".parse().unwrap();
    assert_eq!(may.to_string(), "may:3");
    assert_eq!((may.name(), may.workers()), ("may", Some(3)));
    assert_eq!(c.drivers().check(may), Ok(()));
    let typo: Driver = "tokio-curent".parse().unwrap();
    let e = c.drivers().check(typo).unwrap_err().to_string();
    assert!(e.contains("did you mean `tokio-current`"), "{e}");
    let s = spec("kanal-async", WorkloadKind::Spsc, 1, Driver::TokioCurrent);
    assert!(
        s.label().ends_with(" driver=tokio-current"),
        "{}",
        s.label()
    );
    assert!(!spec("kanal-async", WorkloadKind::Spsc, 1, Driver::Threads)
        .label()
        .contains("driver"));
}
