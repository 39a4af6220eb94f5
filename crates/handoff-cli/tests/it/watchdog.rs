//! End-to-end: the child-process executor judges progress. A slow transport runs past a short
//! watchdog interval and passes with a `slow` lint; a stuck one is `hung` about one interval
//! after it stopped, and the run goes on.

use assert_cmd::Command;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Runs `handoff run --format json --quiet --no-probes` with `args`; returns the exit code, the
/// report, and how long the run took.
fn run(args: &[&str]) -> (Option<i32>, Value, Duration) {
    let start = Instant::now();
    let out = Command::cargo_bin("handoff")
        .expect("binary built")
        // Nothing of these runs is worth keeping in a history.
        .args([
            "run",
            "--format",
            "json",
            "--quiet",
            "--no-probes",
            "--no-store",
        ])
        .args(args)
        .output()
        .unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    (out.status.code(), v, took)
}

#[test]
fn a_slow_transport_passes_in_a_child_process_and_is_flagged_slow() {
    // About a millisecond per message: some 2.5 s per sample against a 1 s watchdog interval.
    let (code, v, _) = run(&[
        "--transport",
        "faulty-slow",
        "--workload",
        "spsc",
        "--messages",
        "2500",
        "--samples",
        "1",
        "--warmup",
        "0",
        "--timeout-ms",
        "1000",
    ]);
    let r = &v["results"][0];
    assert_eq!(code, Some(0), "{r}");
    assert_eq!(r["verdict"], "pass", "{r}");
    assert_eq!(r["samples"][0]["messages"], 2500);
    assert!(r["samples"][0]["elapsed_ns"].as_u64().unwrap() > 1_000_000_000);
    let codes: Vec<&str> = r["lints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"slow"), "{codes:?}");
}

#[test]
fn a_stuck_transport_is_hung_in_a_child_process_about_one_interval_later() {
    let (code, v, took) = run(&[
        "--transport",
        "faulty-hang,crossbeam-bounded",
        "--workload",
        "spsc",
        "--messages",
        "5000",
        "--samples",
        "1",
        "--warmup",
        "0",
        "--timeout-ms",
        "1000",
    ]);
    assert_eq!(code, Some(1), "a hung trial exits 1");
    let results = v["results"].as_array().unwrap();
    let hung = results
        .iter()
        .find(|r| r["transport"] == "faulty-hang")
        .unwrap();
    assert_eq!(hung["verdict"], "hung", "{hung}");
    let why = hung["violation"].as_str().unwrap();
    assert!(why.starts_with("no message delivered for "), "{why}");
    assert!(why.contains(" of 5000 messages delivered"), "{why}");
    let good = results
        .iter()
        .find(|r| r["transport"] == "crossbeam-bounded")
        .unwrap();
    assert_eq!(good["verdict"], "pass", "the run goes on");
    // Loosely: one interval (1 s), plus a margin for starting processes on a busy machine.
    assert!(took < Duration::from_secs(1 + 8), "{took:?}");
}
