//! From a suite file to every output format, through a real (small, in-process) session.

use handoff::output::{render, Format};
use handoff::plan::Plan;
use handoff::prelude::*;
use handoff::report::{RunReport, Verdict};
use handoff::session::{self, SessionOptions};
use handoff_testing as testing;
use std::sync::mpsc;

/// A plain std channel: the passing reference beside the faulty ones.
struct StdStub;

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

impl Transport for StdStub {
    type Tx<M: Message> = Tx<M>;
    type Rx<M: Message> = Rx<M>;

    fn info(&self) -> TransportInfo {
        TransportInfo {
            name: "std-stub".into(),
            description: "std mpsc channel".into(),
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
            test_only: true,
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

const SUITE: &str = r#"
name = "smoke"
probes = false

[defaults]
samples = 2
warmup = 0
messages = 3000
timeout_ms = 5000
pin = false

[[benchmark]]
workload = "spsc"
transports = ["std-stub", "faulty-drop"]

[[benchmark]]
workload = "ping-pong"
transports = "std-stub"
"#;

fn run() -> RunReport {
    let mut catalog = testing::catalog();
    catalog.register(Entry::pull(StdStub));
    let suite = Plan::parse(SUITE, "smoke.toml", &catalog).unwrap();
    assert_eq!(suite.trials.len(), 3);
    let opts = SessionOptions {
        consensus: suite.consensus,
        ..SessionOptions::in_process(&suite.name)
    };
    session::run(&catalog, suite.trials, &opts, &mut |_| {})
}

#[test]
fn a_session_report_renders_in_every_format() {
    let report = run();
    let verdicts: Vec<(String, Verdict)> = report
        .results
        .iter()
        .map(|r| (format!("{} {}", r.transport, r.workload), r.verdict))
        .collect();
    assert_eq!(verdicts[0], ("std-stub spsc".into(), Verdict::Pass));
    assert_eq!(verdicts[1], ("faulty-drop spsc".into(), Verdict::Fail));

    let mut outputs = Vec::new();
    for f in Format::ALL {
        let mut out = Vec::new();
        render(&report, f, &mut out).unwrap();
        outputs.push((f, String::from_utf8(out).unwrap()));
    }
    if std::env::var_os("SHOW_OUTPUT").is_some() {
        for (_, text) in &outputs {
            println!("{text}");
        }
    }
    for (f, text) in &outputs {
        assert!(text.contains("std-stub"), "{f}:\n{text}");
        match f {
            Format::Table | Format::Markdown => {
                assert!(text.contains("spsc · payload u64 (8 B)"), "{f}:\n{text}");
                assert!(text.contains("3.00 k msgs/sample"), "{f}:\n{text}");
                assert!(
                    text.contains("faulty-drop: FAIL — producer 0: expected seq 9, got 10"),
                    "{f}:\n{text}"
                );
                assert!(
                    text.contains("limits: not measured")
                        || text.contains("**limits**: not measured"),
                    "{f}:\n{text}"
                );
            }
            Format::Json => {
                let back: RunReport = serde_json::from_str(text).unwrap();
                assert_eq!(back, report);
            }
            Format::Csv => assert_eq!(text.lines().count(), 1 + report.results.len()),
            Format::Bmf => {
                serde_json::from_str::<serde_json::Value>(text).unwrap();
            }
            Format::Html => {
                assert!(text.starts_with("<!DOCTYPE html>"), "{text}");
                assert!(text.contains("faulty-drop: FAIL — producer 0: expected seq 9, got 10"));
                assert!(text.contains("class=\"chart throughput\""), "{text}");
            }
        }
    }
}
