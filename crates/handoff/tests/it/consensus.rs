//! Consensus over real sessions: transports of one stream run one count and agree; a transport
//! whose own verification passes but whose stream differs is named.

use handoff::catalog::Catalog;
use handoff::plan::Plan;
use handoff::report::{RunReport, Verdict};
use handoff::session::{self, Event, SessionOptions};
use handoff_testing as testing;

/// Runs `suite` (text) in process and returns the report and the counts fixed by consensus.
fn run(suite: &str) -> (RunReport, Vec<(String, u64, usize)>) {
    let catalog: Catalog = testing::catalog();
    let plan = Plan::parse(suite, "consensus.toml", &catalog).unwrap();
    let opts = SessionOptions {
        consensus: plan.consensus,
        ..SessionOptions::in_process(&plan.name)
    };
    let mut fixed = Vec::new();
    let report = session::run(&catalog, plan.trials, &opts, &mut |ev| {
        if let Event::CountFixed {
            stream,
            messages,
            trials,
        } = ev
        {
            fixed.push((stream.to_string(), messages, trials));
        }
    });
    (report, fixed)
}

const REAL: &str = r#"
consensus = true
probes = false

[defaults]
samples = 2
warmup = 0
pin = false
timeout_ms = 10000
messages = 20000
payload = ["u64", "report64"]

[[benchmark]]
workload = "spsc"
transports = ["rtrb", "crossbeam-bounded", "std-mpsc", "handoff-spsc"]
"#;

#[test]
fn real_transports_with_one_fixed_count_deliver_the_same_stream() {
    let (report, _) = run(REAL);
    let c = report
        .consensus
        .as_ref()
        .expect("the suite asked for consensus");
    assert_eq!(c.groups.len(), 2, "one per payload: {c:?}");
    for g in &c.groups {
        assert_eq!(g.members.len(), 4, "{g:?}");
        assert_eq!(g.messages, 20_000);
        assert!(g.agreed(), "{g:?}");
    }
    assert_ne!(c.groups[0].digest, c.groups[1].digest, "payloads differ");
    assert!(!report.has_failures());
}

#[test]
fn a_stream_that_passes_verification_but_differs_fails_consensus_by_name() {
    let suite = REAL.replace(r#""handoff-spsc"]"#, r#""handoff-spsc", "faulty-shuffle"]"#);
    let (report, _) = run(&suite);
    let shuffle = report
        .results
        .iter()
        .find(|r| r.transport == "faulty-shuffle")
        .unwrap();
    // Its own verification passes: it promised no order, and every message arrived once, intact.
    assert_eq!(shuffle.verdict, Verdict::Pass, "{:?}", shuffle.violation);
    assert_eq!(shuffle.params.messages, 20_000);
    let c = report.consensus.as_ref().unwrap();
    for g in &c.groups {
        let dissent: Vec<&str> = g.dissenters().map(|m| m.label.as_str()).collect();
        assert_eq!(dissent, ["faulty-shuffle"], "{g:?}");
        // The majority is every FIFO transport, with the digest of the stream as sent.
        let majority: Vec<&str> = g.majority().map(|m| m.label.as_str()).collect();
        assert_eq!(majority.len(), 4, "{majority:?}");
        assert!(!majority.iter().any(|l| l.starts_with("faulty")));
        let rtrb = g
            .members
            .iter()
            .find(|m| m.label.starts_with("rtrb"))
            .unwrap();
        assert_eq!(g.digest.as_ref(), Some(&rtrb.digest));
    }
    assert!(report.consensus_failed());
    assert!(
        report.has_failures(),
        "a transport delivered another stream"
    );
}

#[test]
fn auto_counts_become_one_count_per_stream() {
    let suite = r#"
consensus = true
probes = false

[defaults]
samples = 2
warmup = 1
pin = false
timeout_ms = 10000
messages = "auto"
target_ms = 5
min_messages = 2000
max_messages = 2000000

[[benchmark]]
workload = "spsc"
transports = ["rtrb", "std-mpsc", "mutex-deque"]

[[benchmark]]
workload = "spsc"
batch = 64
transports = ["rtrb"]

[[benchmark]]
workload = "spsc"
payload = "report64"
transports = ["crossbeam-bounded"]
"#;
    let (report, fixed) = run(suite);
    let u64s: Vec<u64> = report.results[..4]
        .iter()
        .map(|r| r.params.messages)
        .collect();
    assert!(u64s.iter().all(|&n| n == u64s[0]), "{u64s:?}");
    assert!(report.results.iter().all(|r| r.verdict == Verdict::Pass));
    assert!(report.results.iter().all(|r| r.params.messages >= 2000));
    assert_eq!(
        fixed,
        [
            ("spsc · u64 · 1 → 1".to_string(), u64s[0], 4),
            (
                "spsc · report64 · 1 → 1".to_string(),
                report.results[4].params.messages,
                1
            ),
        ]
    );
    let c = report.consensus.unwrap();
    assert_eq!(c.groups.len(), 2);
    assert!(c.groups.iter().all(|g| g.agreed()));
    assert_eq!(c.groups[0].members.len(), 4);
}

#[test]
fn without_consensus_nothing_is_fixed_or_compared() {
    let (report, fixed) = run(&REAL.replace("consensus = true", ""));
    assert!(fixed.is_empty());
    assert_eq!(report.consensus, None);
}
