//! The suite files shipped in `suites/` parse and expand to what they promise.
//!
//! The real adapters are registered elsewhere; here every shipped name is a stub transport, so
//! only the files' syntax, names and structure are checked.

use handoff::payload::PayloadKind;
use handoff::plan::Plan;
use handoff::prelude::*;
use handoff::workload::{Driver, Messages, WorkloadKind};
use std::path::PathBuf;
use std::sync::mpsc;

/// The transport names the shipped suites use.
const SHIPPED: [&str; 26] = [
    "std-mpsc",
    "std-mpsc-poll",
    "std-sync-channel",
    "crossbeam-bounded",
    "crossbeam-unbounded",
    "crossbeam-array-queue",
    "crossbeam-seg-queue",
    "flume-bounded",
    "flume-unbounded",
    "kanal-bounded",
    "rtrb",
    "ringbuf",
    "mutex-deque",
    "disruptor",
    "direct-callback",
    "handoff-spsc",
    "handoff-mpsc",
    "vyukov-mpsc",
    "bus",
    "crossbeam-fanout",
    "uds-stream",
    "uds-seqpacket",
    "tcp-loopback",
    "pipe",
    "shm-ring",
    "shm-sharded",
];

/// The async transport names the shipped suites use.
const SHIPPED_ASYNC: [&str; 8] = [
    "tokio-mpsc-bounded",
    "tokio-mpsc-unbounded",
    "tokio-broadcast",
    "tokio-oneshot",
    "async-channel-bounded",
    "flume-async",
    "kanal-async",
    "may-mpsc",
];

/// A std channel registered under any name.
struct Stub(&'static str);

struct Tx<M>(mpsc::Sender<M>);
struct Rx<M>(mpsc::Receiver<M>);

impl<M: Message> Sender<M> for Tx<M> {
    fn send(&mut self, msg: M) -> Result<(), M> {
        self.0.send(msg).map_err(|e| e.0)
    }
}

impl<M: Message> Receiver<M> for Rx<M> {
    fn recv(&mut self) -> Option<M> {
        self.0.recv().ok()
    }
}

impl Transport for Stub {
    type Tx<M: Message> = Tx<M>;
    type Rx<M: Message> = Rx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: self.0.into(),
            description: "stub standing in for a shipped adapter".into(),
            semantics: Semantics {
                producers: Arity::Many,
                consumers: Arity::One,
                ordering: Ordering::PerProducerFifo,
                bound: Bound::Unbounded,
                wait: WaitStrategy::Block,
                batch: false,
                locality: Locality::CrossThread,
                consumer_style: ConsumerStyle::Pull,
                delivery: handoff::semantics::Delivery::ExactlyOnce,
            },
            options: vec![],
            test_only: false,
            origin: Default::default(),
        }
    }

    fn channel<M: Message>(
        &self,
        cfg: &ChannelConfig,
    ) -> Result<Endpoints<Tx<M>, Rx<M>>, BuildError> {
        let (tx, rx) = mpsc::channel();
        Ok(Endpoints {
            senders: (0..cfg.producers).map(|_| Tx(tx.clone())).collect(),
            receivers: vec![Rx(rx)],
        })
    }
}

fn catalog() -> Catalog {
    let mut c = Catalog::new();
    for name in SHIPPED.into_iter().chain(SHIPPED_ASYNC) {
        c.register(Entry::pull(Stub(name)));
    }
    c
}

fn load(name: &str) -> Plan {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../suites")
        .join(name);
    Plan::load(&path, &catalog()).unwrap_or_else(|e| panic!("{e}"))
}

fn transports(s: &Plan, w: WorkloadKind) -> Vec<&str> {
    let mut v: Vec<&str> = s
        .trials
        .iter()
        .filter(|t| t.workload == w)
        .map(|t| t.transport.as_str())
        .collect();
    v.dedup();
    v
}

#[test]
fn default_suite_covers_every_shipped_transport_within_budget() {
    let s = load("default.toml");
    assert_eq!(s.name, "default");
    assert!(s.probes);

    assert_eq!(transports(&s, WorkloadKind::Spsc), SHIPPED);
    let single_producer = [
        "rtrb",
        "ringbuf",
        "direct-callback",
        "handoff-spsc",
        "bus",
        "uds-stream",
        "uds-seqpacket",
        "tcp-loopback",
        "shm-ring",
    ];
    let multi: Vec<&str> = SHIPPED
        .into_iter()
        .filter(|n| !single_producer.contains(n))
        .collect();
    assert_eq!(transports(&s, WorkloadKind::Mpsc), multi);
    let pull: Vec<&str> = SHIPPED
        .into_iter()
        .filter(|n| !["disruptor", "direct-callback"].contains(n))
        .collect();
    assert_eq!(transports(&s, WorkloadKind::PingPong), pull);

    let mpsc: Vec<_> = s
        .trials
        .iter()
        .filter(|t| t.workload == WorkloadKind::Mpsc)
        .collect();
    assert_eq!(mpsc.len(), multi.len() * 4);
    assert_eq!(
        mpsc.iter().take(4).map(|t| t.producers).collect::<Vec<_>>(),
        [1, 2, 4, 8]
    );
    for t in &s.trials {
        assert_eq!(t.payload, PayloadKind::U64);
        assert_eq!(t.capacity, 1024);
        assert_eq!((t.samples, t.warmup), (5, 1));
        assert!(matches!(t.messages, Messages::Auto { .. }), "{}", t.label());
    }

    // The budget written in the file: about 7.5 sample-lengths per trial.
    let planned_ms = |s: &Plan| -> f64 {
        s.trials
            .iter()
            .map(|t| match t.messages {
                Messages::Auto { target_ms, .. } => {
                    (1.5 + (t.warmup + t.samples) as f64) * target_ms as f64
                }
                Messages::Fixed(_) | Messages::Soak { .. } => unreachable!(),
            })
            .sum()
    };
    // The file's own budget: about 21 s of planned samples of 25 ms, 3 s with --quick.
    assert!(planned_ms(&s) < 25_000.0, "{} ms", planned_ms(&s));
    let mut quick = s.clone();
    quick.quick();
    assert_eq!(quick.trials.len(), s.trials.len());
    assert!(planned_ms(&quick) < 3_500.0, "{} ms", planned_ms(&quick));
}

#[test]
fn spsc_suite_is_the_bake_off_under_consensus() {
    let s = load("spsc.toml");
    assert!(
        s.consensus,
        "every transport must have delivered the same stream"
    );
    // One stream per payload, each an `auto` count that consensus makes one after calibration.
    let streams: std::collections::BTreeSet<String> = s
        .trials
        .iter()
        .map(|t| {
            assert_eq!(t.workload, WorkloadKind::Spsc);
            assert!(matches!(t.messages, Messages::Auto { .. }), "{}", t.label());
            handoff::consensus::StreamKey::of_spec(t)
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        streams.into_iter().collect::<Vec<_>>(),
        [
            "spsc · event488 · 1 → 1",
            "spsc · report64 · 1 → 1",
            "spsc · u64 · 1 → 1"
        ]
    );
    // The default suite is a survey of every transport, not the bake-off: it compares no
    // digests, and keeps each transport's own calibrated count.
    assert!(!load("default.toml").consensus);
}

#[test]
fn streaming_suite_is_the_reference_scenario() {
    let s = load("streaming.toml");
    assert_eq!(s.name, "streaming");
    let rows: Vec<(String, usize, String)> = s
        .trials
        .iter()
        .map(|t| {
            assert_eq!(t.workload, WorkloadKind::Spsc);
            assert_eq!((t.producers, t.consumers), (1, 1));
            assert_eq!(t.messages, Messages::Fixed(100_000));
            (t.transport.clone(), t.capacity, t.payload.to_string())
        })
        .collect();
    let mut expected = Vec::new();
    for (name, caps) in [
        ("std-mpsc-poll", &[1024][..]),
        ("crossbeam-bounded", &[256, 1024, 8192][..]),
        ("disruptor", &[1024][..]),
        ("direct-callback", &[1024][..]),
    ] {
        for payload in ["event488", "event488+tails"] {
            for &cap in caps {
                expected.push((name.to_string(), cap, payload.to_string()));
            }
        }
    }
    assert_eq!(rows, expected);
}

/// The bodies suite sweeps the ingress scenario's body sizes, 100 B to 1 MiB, every one moved
/// the same way (a heap body by pointer), so the sweep compares like with like; and a ring of
/// them fits the memory budget the plan checks.
#[test]
fn bodies_suite_spans_100_bytes_to_1_mib_moved_alike() {
    use handoff::payload::{PayloadKind, MAX_BYTES};
    let s = load("bodies.toml");
    assert_eq!(s.name, "bodies");
    let mut sizes: Vec<usize> = Vec::new();
    for t in &s.trials {
        assert!(!t.payload.is_inline(), "{}", t.payload);
        let PayloadKind::Bytes(n) = t.payload else {
            panic!("{}", t.payload)
        };
        if !sizes.contains(&n) {
            sizes.push(n);
        }
        assert!(t.capacity * t.payload.touched_bytes() <= 64 * MAX_BYTES + 64 * 24);
    }
    assert_eq!(sizes, [100, 1000, 10_000, 150_000, MAX_BYTES]);
    assert_eq!(
        transports(&s, WorkloadKind::Spsc),
        [
            "handoff-spsc",
            "rtrb",
            "crossbeam-bounded",
            "std-sync-channel"
        ]
    );
    assert_eq!(
        transports(&s, WorkloadKind::Mpsc),
        ["handoff-mpsc", "crossbeam-bounded", "flume-bounded"]
    );
}

#[test]
fn pipeline_suite_is_the_reference_scenario() {
    use handoff::workload::{Delivery, Pacing};
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../suites/pipeline.toml");
    let s = Plan::load(&path, &handoff_transports::builtin()).unwrap_or_else(|e| panic!("{e}"));
    assert!(s
        .trials
        .iter()
        .all(|t| t.workload == WorkloadKind::Pipeline));
    // Four transports on every hop, the latest-value chain and two fan-outs, each paced at
    // 1000/s and ramped; and tokio's watch as the conflating hop, paced.
    assert_eq!(s.trials.len(), 15);
    for t in &s.trials {
        let p = t.pipeline.as_ref().unwrap();
        let caps: Vec<usize> = p.hops.iter().map(|h| h.capacity).collect();
        assert_eq!(caps, [64, 1024, 256]);
        assert!(matches!(t.pacing, Pacing::Rate(1000) | Pacing::Ramp(_)));
    }
    let crossbeam: Vec<_> = s
        .trials
        .iter()
        .filter(|t| {
            t.pipeline
                .as_ref()
                .unwrap()
                .hops
                .iter()
                .all(|h| h.transport == "crossbeam-bounded")
        })
        .collect();
    assert_eq!(crossbeam.len(), 2);
    let latest: Vec<_> = s
        .trials
        .iter()
        .filter(|t| t.pipeline.as_ref().unwrap().delivery == Delivery::Latest)
        .collect();
    assert_eq!(latest.len(), 3);
    assert_eq!(
        latest[0].pipeline.as_ref().unwrap().hops[1].transport,
        "latest-cell"
    );
    assert_eq!(
        latest[2].pipeline.as_ref().unwrap().hops[1].transport,
        "tokio-watch"
    );
    let fan_out: Vec<_> = s.trials.iter().filter(|t| t.consumers > 1).collect();
    assert_eq!(fan_out.len(), 4);
    for t in fan_out {
        let last = &t.pipeline.as_ref().unwrap().hops[2].transport;
        assert!(last == "bus" || last == "crossbeam-fanout", "{last}");
        assert_eq!(t.consumers, 2);
    }
    // Other trials keep one sink: `consumers` in [defaults] is for mpmc, never a fan-out.
    assert_eq!(s.trials.iter().filter(|t| t.consumers == 1).count(), 11);
}

#[test]
fn runtime_channels_suite_is_the_reference_scenario() {
    let s = load("runtime-channels.toml");
    assert_eq!(s.name, "runtime-channels");
    let may: Driver = "may:2".parse().unwrap();
    let drivers = [
        Driver::Threads,
        Driver::TokioCurrent,
        Driver::TokioMulti { workers: 2 },
        may,
    ];
    let blocking = [
        "crossbeam-bounded",
        "std-mpsc",
        "flume-bounded",
        "kanal-bounded",
    ];
    for t in &s.trials {
        assert_eq!((t.samples, t.warmup), (15, 1), "{}", t.label());
        assert_eq!(t.payload, PayloadKind::U64);
        // Blocking channels run on threads only; the tokio drivers are for async ones.
        if blocking.contains(&t.transport.as_str()) {
            assert_eq!(t.driver, Driver::Threads, "{}", t.label());
        } else {
            assert!(
                SHIPPED_ASYNC.contains(&t.transport.as_str()),
                "{}",
                t.label()
            );
        }
        // may's own channel parks a coroutine: under may and on threads only.
        if t.transport == "may-mpsc" {
            assert!([Driver::Threads, may].contains(&t.driver), "{}", t.label());
        }
        let (producers, messages) = match t.workload {
            WorkloadKind::Spsc => (1, 1_000_000),
            WorkloadKind::Mpsc => (32, 320_000),
            WorkloadKind::PingPong => (1, 10_000),
            other => panic!("no {other} in this suite"),
        };
        assert_eq!(t.producers, producers, "{}", t.label());
        assert_eq!(t.messages, Messages::Fixed(messages), "{}", t.label());
        if t.transport == "tokio-broadcast" {
            // No backpressure: the ring must hold a whole sample or the receiver lags.
            assert!(t.capacity as u64 >= messages, "{}", t.label());
        }
    }
    for w in [
        WorkloadKind::Spsc,
        WorkloadKind::Mpsc,
        WorkloadKind::PingPong,
    ] {
        for d in drivers {
            assert!(
                s.trials.iter().any(|t| t.workload == w && t.driver == d),
                "{w} has no {d} trial"
            );
        }
    }
    let oneshot: Vec<Driver> = s
        .trials
        .iter()
        .filter(|t| t.transport == "tokio-oneshot")
        .map(|t| {
            assert_eq!(t.workload, WorkloadKind::PingPong);
            t.driver
        })
        .collect();
    assert_eq!(oneshot, drivers);
}

/// The transports the `handoff` command adds to the built-in catalog from crates of their own
/// (not plugins), as it registers them when built without their features: by name, unavailable.
const COMMAND_PEERS: [&str; 5] = [
    "iceoryx2",
    "kafka",
    "redis-streams",
    "nats",
    "nats-jetstream",
];

// The options the broker transports declare when not built (`handoff_brokers::OPTIONS`, read
// from that crate's source: this crate cannot depend on it), so that a suite giving them parses.
include!("../../../handoff-brokers/src/options.rs");

/// The built-in catalog with [`COMMAND_PEERS`], as a suite written for the command sees it.
fn command_catalog() -> Catalog {
    let mut c = handoff_transports::builtin();
    for name in COMMAND_PEERS {
        let mut info = handoff::transport::TransportInfo::new(
            name,
            "registered by the handoff command",
            handoff::semantics::Semantics::spsc(),
        );
        let options = OPTIONS.iter().find(|(n, _)| *n == name);
        for option in options.map_or(&[][..], |(_, o)| *o) {
            info = info.with_option(handoff::transport::OptionSpec {
                name: option.to_string(),
                values: Vec::new(),
                help: String::new(),
                waits: Vec::new(),
            });
        }
        c.register(handoff::plugin::unavailable(
            info,
            "registered by the handoff command",
        ));
    }
    c
}

#[test]
fn every_shipped_suite_parses_expands_and_shortens() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../suites");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        // A suite with plugins (and the C++ peers) needs the `handoff` command's catalog: the
        // command's own tests run it end to end (handoff-cli, tests/it/plugins.rs).
        if !handoff::plan::plugins_of(&path).is_empty() {
            continue;
        }
        let plan = Plan::load(&path, &command_catalog()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!plan.trials.is_empty(), "{}", path.display());
        let mut quick = plan.clone();
        quick.quick();
        assert_eq!(quick.trials.len(), plan.trials.len(), "{}", path.display());
        assert!(quick.trials.iter().all(|t| t.samples <= 3 && t.warmup <= 1));
        seen += 1;
    }
    assert!(seen >= 6, "only {seen} suite files in {}", dir.display());
}
