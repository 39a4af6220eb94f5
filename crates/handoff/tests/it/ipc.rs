//! The IPC transports (the operating system's byte channels `uds-stream`, `uds-seqpacket`,
//! `tcp-loopback`, `pipe`, and the shared-memory rings `shm-ring` and `shm-sharded`) between
//! two threads of one process: exact counts for every workload and payload they carry, and the payloads and shapes they
//! cannot carry refused with the reason. Across two processes: `handoff-cli`'s `processes.rs`.

use handoff::executor::{run_sample, SampleRequest};
use handoff::outcome::SampleStatus;
use handoff::payload::PayloadKind;
use handoff::workload::{Messages, Pacing, TrialSpec, WorkloadKind};
use std::collections::BTreeMap;

/// Every IPC transport.
const IPC: [&str; 6] = [
    "uds-stream",
    "uds-seqpacket",
    "tcp-loopback",
    "pipe",
    "shm-ring",
    "shm-sharded",
];

/// The byte channels (a byte stream cannot refuse a whole send).
const BYTE_CHANNELS: [&str; 4] = ["uds-stream", "uds-seqpacket", "tcp-loopback", "pipe"];

fn spec(transport: &str, workload: WorkloadKind, payload: PayloadKind) -> TrialSpec {
    TrialSpec {
        transport: transport.into(),
        workload,
        driver: Default::default(),
        payload,
        capacity: 64,
        producers: 1,
        consumers: 1,
        messages: Messages::Fixed(5_000),
        batch: None,
        options: BTreeMap::new(),
        samples: 1,
        warmup: 0,
        timeout_ms: 20_000,
        pin: false,
        fresh_process: false,
        placement: Default::default(),
        pacing: Pacing::Closed,
        pacer: Default::default(),
        pipeline: None,
        layout: None,
    }
}

/// The IPC transports registered, each with its declared semantics.
#[test]
fn the_ipc_transports_are_registered_with_their_semantics() {
    let c = handoff_transports::builtin();
    let got: Vec<(String, String)> = IPC
        .iter()
        .map(|t| {
            let info = c.get(t).unwrap_or_else(|| panic!("{t} registered")).info();
            (info.name.clone(), info.semantics.summary())
        })
        .collect();
    let stream = "SPSC, FIFO, bounded, block, cross-thread, batch";
    assert_eq!(
        got,
        [
            ("uds-stream".to_string(), stream.to_string()),
            ("uds-seqpacket".into(), stream.into()),
            ("tcp-loopback".into(), stream.into()),
            (
                "pipe".into(),
                "MPSC, per-producer FIFO, bounded, block, cross-thread, batch".into()
            ),
            (
                "shm-ring".into(),
                "SPSC, FIFO, bounded (2^n), spin, cross-thread, batch".into()
            ),
            (
                "shm-sharded".into(),
                "MPSC, per-producer FIFO, bounded (2^n), spin, cross-thread, batch".into()
            ),
        ]
    );
    let nodelay = &c.get("tcp-loopback").unwrap().info().options;
    assert_eq!(nodelay.len(), 1);
    assert_eq!(
        (nodelay[0].name.as_str(), &nodelay[0].values[..]),
        ("nodelay", &["on".to_string(), "off".to_string()][..])
    );
}

fn status(spec: &TrialSpec, n: u64) -> (SampleStatus, u64) {
    let o = run_sample(&handoff_transports::builtin(), spec, SampleRequest::of(n));
    (o.status, o.messages)
}

/// Every message arrives once and in order, one at a time and in batches (one write per run),
/// for a word, a 64-byte report and a 4 KiB body.
#[test]
fn every_mechanism_delivers_an_exact_stream_of_every_plain_payload() {
    let payloads = ["u64", "report64", "bytes:4096"];
    for t in IPC {
        for p in payloads {
            for batch in [None, Some(64)] {
                let mut s = spec(t, WorkloadKind::Spsc, p.parse().unwrap());
                s.batch = batch;
                let label = s.label();
                assert_eq!(status(&s, 5_000), (SampleStatus::Pass, 5_000), "{label}");
            }
        }
    }
}

/// A pipe takes several writers; each writes whole messages of at most PIPE_BUF bytes (the
/// largest plain payload, a 4 KiB body, is exactly that), so their streams never interleave
/// inside a message.
#[test]
fn a_pipe_takes_several_writers_whose_messages_never_interleave() {
    for p in ["report64", "bytes:4096"] {
        for batch in [None, Some(100)] {
            let mut s = spec("pipe", WorkloadKind::Mpsc, p.parse().unwrap());
            s.producers = 4;
            s.batch = batch;
            let label = s.label();
            assert_eq!(status(&s, 8_000), (SampleStatus::Pass, 8_000), "{label}");
        }
    }
}

#[test]
fn every_mechanism_runs_ping_pong_and_a_paced_stream() {
    for t in IPC {
        let s = spec(t, WorkloadKind::PingPong, PayloadKind::U64);
        assert_eq!(status(&s, 1_000).0, SampleStatus::Pass, "{t} ping-pong");
        let mut s = spec(t, WorkloadKind::Paced, PayloadKind::U64);
        s.pacing = Pacing::Rate(20_000);
        let o = run_sample(&handoff_transports::builtin(), &s, SampleRequest::of(2_000));
        assert_eq!(
            (o.status, o.messages),
            (SampleStatus::Pass, 2_000),
            "{t} paced"
        );
        let paced = o.paced.expect("open-loop figures");
        assert_eq!(
            paced.refusals_observable,
            !BYTE_CHANNELS.contains(&t),
            "{t}: a byte stream cannot refuse a whole send; a full ring can"
        );
    }
}

/// A payload that owns heap memory has no wire form: refused, saying why.
#[test]
fn a_payload_with_heap_parts_is_refused_with_the_reason() {
    for t in IPC {
        for p in ["boxed:64", "event488+tails"] {
            match status(&spec(t, WorkloadKind::Spsc, p.parse().unwrap()), 100).0 {
                SampleStatus::Unsupported(why) => assert!(why.contains("heap"), "{t} {p}: {why}"),
                other => panic!("{t} {p}: {other:?}"),
            }
        }
    }
}

/// `tcp-loopback` declares `nodelay`, and both values run.
#[test]
fn tcp_runs_with_and_without_nodelay() {
    for v in ["on", "off"] {
        let mut s = spec("tcp-loopback", WorkloadKind::PingPong, PayloadKind::U64);
        s.options.insert("nodelay".into(), v.into());
        assert_eq!(status(&s, 200).0, SampleStatus::Pass, "nodelay={v}");
    }
}

/// The ring across its whole range of shapes: the smallest ring (two slots, freed one at a
/// time), rings whose capacity is not a multiple of a span of slots, runs longer than the ring,
/// and both waits; every message exactly once, in order.
#[test]
fn the_shared_memory_ring_delivers_exact_streams_at_every_size_and_wait() {
    for wait in ["spin", "block"] {
        for capacity in [2, 4, 64, 1024] {
            for p in ["u64", "report64", "bytes:4096"] {
                for batch in [None, Some(3), Some(5000)] {
                    let mut s = spec("shm-ring", WorkloadKind::Spsc, p.parse().unwrap());
                    s.capacity = capacity;
                    s.batch = batch;
                    s.options.insert("wait".into(), wait.into());
                    let label = s.label();
                    assert_eq!(status(&s, 20_000), (SampleStatus::Pass, 20_000), "{label}");
                }
            }
            let mut s = spec("shm-ring", WorkloadKind::PingPong, PayloadKind::U64);
            s.capacity = capacity;
            s.options.insert("wait".into(), wait.into());
            assert_eq!(
                status(&s, 2_000).0,
                SampleStatus::Pass,
                "ping-pong {wait} {capacity}"
            );
        }
    }
}

/// The sharded rings take several producers, one ring each, every message verified per
/// producer, one at a time and in runs (each run inside one ring), with producers that finish
/// at different times (the consumer keeps draining the others).
#[test]
fn the_sharded_rings_take_several_producers_one_ring_each() {
    for producers in [1, 2, 5] {
        for batch in [None, Some(64)] {
            for p in ["u64", "report64"] {
                let mut s = spec("shm-sharded", WorkloadKind::Mpsc, p.parse().unwrap());
                s.producers = producers;
                s.capacity = 16;
                s.batch = batch;
                let label = s.label();
                assert_eq!(status(&s, 20_000), (SampleStatus::Pass, 20_000), "{label}");
            }
        }
    }
}

/// The ring is single-producer: several producers are refused, saying so.
#[test]
fn the_shared_memory_ring_refuses_a_second_producer() {
    let mut s = spec("shm-ring", WorkloadKind::Mpsc, PayloadKind::U64);
    s.producers = 2;
    match status(&s, 100).0 {
        SampleStatus::Unsupported(why) => assert!(why.contains("producer"), "{why}"),
        other => panic!("{other:?}"),
    }
}
