//! End-to-end tests of the `handoff` command.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A history store of this test binary's own (emptied once per test process), so that no
/// test records into the user's store.
fn test_store() -> &'static Path {
    static STORE: OnceLock<PathBuf> = OnceLock::new();
    STORE.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-tests");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("history.sqlite");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        path
    })
}

fn handoff() -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    cmd.env("HANDOFF_STORE", test_store());
    cmd
}

fn json_run(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = handoff()
        .args(["run", "--format", "json", "--quiet"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    (out.status.code(), v, stderr)
}

fn verdicts(v: &Value) -> Vec<(String, String)> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["transport"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const TRANSPORTS: [&str; 17] = [
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
    "bus",
    "crossbeam-fanout",
];

#[test]
fn list_names_every_transport_and_hides_the_faulty_ones() {
    let out = handoff()
        .arg("list")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for t in TRANSPORTS {
        assert!(text.contains(t), "{t} missing from list");
    }
    assert!(text.contains("same-thread"));
    assert!(!text.contains("faulty-drop"));
    // Which transports can run across two processes is part of what each declares.
    let line_of = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}"))
            .to_string()
    };
    let catalog = handoff_transports::builtin();
    let mut crossing = 0;
    for e in catalog.entries() {
        let line = line_of(&e.info().name);
        assert_eq!(
            line.contains("crosses processes"),
            e.crosses_processes(),
            "{line}"
        );
        crossing += usize::from(e.crosses_processes());
    }
    // The IPC transports (named one by one in `handoff`'s `tests/it/ipc.rs`).
    assert_eq!(crossing, 6);
    handoff()
        .args(["list", "--all"])
        .assert()
        .success()
        .stdout(predicate::str::contains("faulty-drop"));
}

#[test]
fn quick_default_suite_covers_the_catalog_and_passes() {
    let (code, v, stderr) = json_run(&["--quick"]);
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert_eq!(v["schema_version"], 1);
    assert!(v["environment"]["cpu_model"].is_string());
    assert!(v["limits"]["cacheline_rtt_ns"]["median"].as_f64().unwrap() > 0.0);
    let results = v["results"].as_array().unwrap();
    for r in results {
        assert_eq!(r["verdict"], "pass", "{}", r);
        assert!(r["throughput"]["median"].as_f64().unwrap() > 0.0);
        assert!(!r["samples"].as_array().unwrap().is_empty());
    }
    let covered = |workload: &str| -> Vec<String> {
        results
            .iter()
            .filter(|r| r["workload"] == workload)
            .map(|r| r["transport"].as_str().unwrap().to_string())
            .collect()
    };
    for t in TRANSPORTS {
        assert!(
            covered("spsc").contains(&t.to_string()),
            "{t} not run on spsc"
        );
    }
    let mpsc = covered("mpsc");
    for t in [
        "std-mpsc",
        "crossbeam-bounded",
        "flume-bounded",
        "kanal-bounded",
        "mutex-deque",
        "disruptor",
    ] {
        assert!(mpsc.contains(&t.to_string()), "{t} not run on mpsc");
    }
    assert!(covered("ping-pong").len() >= 10);
    let producers: Vec<u64> = results
        .iter()
        .filter(|r| r["workload"] == "mpsc" && r["transport"] == "std-mpsc")
        .map(|r| r["params"]["producers"].as_u64().unwrap())
        .collect();
    assert_eq!(producers, vec![1, 2, 4, 8]);
    let pp = results
        .iter()
        .find(|r| r["workload"] == "ping-pong")
        .unwrap();
    assert!(pp["latency"]["p99"].as_u64().unwrap() >= pp["latency"]["p50"].as_u64().unwrap());
    assert!(pp["latency"]["histogram"].as_str().unwrap().len() > 10);
    // A ping-pong p50 is set against the round trip stamped by the same timer, which the
    // limits carry with the timer's step.
    assert_eq!(pp["limit"]["probe"], "cacheline-rtt-stamped");
    assert!(
        v["limits"]["cacheline_rtt_stamped_ns"]["min"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(v["limits"]["clock_step_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn faulty_transports_get_their_verdicts_and_the_run_goes_on() {
    let (code, v, stderr) = json_run(&[
        "--transport",
        "faulty-drop,faulty-dup,faulty-reorder,faulty-hang,faulty-panic,faulty-abort,crossbeam-bounded",
        "--workload",
        "spsc",
        "--messages",
        "5000",
        "--samples",
        "2",
        "--timeout-ms",
        "1500",
        "--no-probes",
    ]);
    assert_eq!(code, Some(1), "a failing verdict exits 1; stderr: {stderr}");
    // Standard error says why in one line, whatever went to standard output.
    let cause: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("handoff: exit 1: "))
        .collect();
    assert_eq!(cause.len(), 1, "{stderr}");
    assert!(
        cause[0].contains("6 trials failed: faulty-drop spsc (FAIL)")
            && cause[0].ends_with("and 3 more"),
        "{stderr}"
    );
    let got = verdicts(&v);
    let expect = [
        ("faulty-drop", "fail"),
        ("faulty-dup", "fail"),
        ("faulty-reorder", "fail"),
        ("faulty-hang", "hung"),
        ("faulty-panic", "crashed"),
        ("faulty-abort", "crashed"),
        ("crossbeam-bounded", "pass"),
    ];
    for (t, verdict) in expect {
        assert!(
            got.contains(&(t.to_string(), verdict.to_string())),
            "{t}: expected {verdict}, got {got:?}"
        );
    }
    let results = v["results"].as_array().unwrap();
    let violation = |t: &str| {
        results.iter().find(|r| r["transport"] == t).unwrap()["violation"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        violation("faulty-drop"),
        "producer 0: expected seq 9, got 10"
    );
    assert!(violation("faulty-dup").contains("delivered twice"));
    assert!(
        violation("faulty-abort").contains("SIGABRT"),
        "{}",
        violation("faulty-abort")
    );
    assert!(violation("faulty-panic").contains("injected panic"));
    let good = results
        .iter()
        .find(|r| r["transport"] == "crossbeam-bounded")
        .unwrap();
    assert_eq!(
        good["samples"].as_array().unwrap().len(),
        2,
        "the healthy transport kept its samples"
    );
}

#[test]
fn the_table_shows_verdicts_and_violations() {
    handoff()
        .args([
            "run",
            "--quiet",
            "--no-probes",
            "-t",
            "faulty-drop,rtrb",
            "--messages",
            "5000",
            "--samples",
            "2",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"))
        .stdout(predicate::str::contains("expected seq 9, got 10"))
        .stdout(predicate::str::contains("rtrb"));
}

#[test]
fn consensus_names_the_transport_that_delivered_another_stream_and_fails_the_run() {
    let args = [
        "run",
        "--quiet",
        "--no-probes",
        "--consensus",
        "-t",
        "rtrb,crossbeam-bounded,faulty-shuffle",
        "-w",
        "spsc",
        "--messages",
        "5000",
        "--samples",
        "2",
    ];
    let out = handoff().args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("handoff: exit 1: consensus failed for 1 stream (faulty-shuffle")
            && stderr.contains("delivered another stream than the others)"),
        "{stderr}"
    );
    // Its own verification passed; consensus is what failed.
    assert!(!text.contains("FAIL —"), "{text}");
    assert!(
        text.contains("consensus FAILED: faulty-shuffle delivered another stream"),
        "{text}"
    );
    assert!(text.contains("than the 2 others"), "{text}");

    // The same run without the faulty transport agrees and passes.
    let (code, v, stderr) = json_run(&[
        "--no-probes",
        "--consensus",
        "-t",
        "rtrb,crossbeam-bounded",
        "-w",
        "spsc",
        "--messages",
        "5000",
        "--samples",
        "2",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let group = &v["consensus"]["groups"][0];
    assert_eq!(group["members"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(group["messages"], 5000);
}

#[test]
fn consensus_refuses_counts_it_cannot_compare() {
    bad_input(
        &[
            "run",
            "--consensus",
            "-t",
            "rtrb",
            "-w",
            "spsc",
            "--messages",
            "1000,2000",
        ],
        "one message count",
    );
    bad_input(
        &["run", "--consensus", "-t", "rtrb", "-w", "ramp"],
        "--consensus: consensus compares",
    );
}

fn bad_input(args: &[&str], expect: &str) {
    let out = handoff().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "args {args:?}; stderr: {stderr}"
    );
    assert!(
        stderr.contains(expect),
        "args {args:?}: expected `{expect}` in: {stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "panic trace for {args:?}: {stderr}"
    );
}

/// A selection runs what it can: each transport that cannot run what was asked is skipped with
/// one line per cause on standard error and an `unsupported` row without sample counts or
/// lints; only a transport named alone, or a plan of which nothing can run, is refused.
#[test]
fn a_selection_skips_what_a_transport_cannot_run() {
    // Few round trips: with the brokers up, the catalog's Kafka answers a ping in about 11 ms.
    let quick = [
        "--no-store",
        "--no-probes",
        "--messages",
        "200",
        "--samples",
        "1",
        "--warmup",
        "0",
    ];
    // Every transport of the catalog: the callback and conflating ones cannot ping-pong.
    let (code, v, stderr) = json_run(&[&["-w", "ping-pong"][..], &quick].concat());
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(
        stderr
            .contains("disruptor skipped (1 trial, unsupported): ping-pong needs a pull consumer"),
        "stderr: {stderr}"
    );
    let rows = v["results"].as_array().unwrap();
    let disruptor = rows
        .iter()
        .find(|r| r["transport"] == "disruptor")
        .expect("an unsupported row for the disruptor");
    assert_eq!(disruptor["verdict"], "unsupported");
    assert_eq!(disruptor["lints"].as_array().map_or(0, Vec::len), 0);
    assert!(rows
        .iter()
        .any(|r| r["transport"] == "crossbeam-bounded" && r["verdict"] == "pass"));

    // A capacity below one transport's minimum skips that transport only.
    let (code, v, stderr) = json_run(
        &[
            &["-t", "atomic-queue-spsc,crossbeam-bounded", "-w", "spsc"][..],
            &["--capacity", "1024"],
            &quick,
        ]
        .concat(),
    );
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(
        stderr.contains("atomic-queue-spsc skipped (1 trial, unsupported): capacity 1024 is below"),
        "stderr: {stderr}"
    );
    assert_eq!(
        verdicts(&v),
        vec![
            ("atomic-queue-spsc".to_string(), "unsupported".to_string()),
            ("crossbeam-bounded".to_string(), "pass".to_string()),
        ]
    );

    // Named alone, or nothing left to run: refused before anything runs.
    bad_input(
        &["run", "-t", "disruptor", "-w", "ping-pong"],
        "impossible parameters",
    );
    bad_input(
        &["run", "-t", "disruptor,direct-callback", "-w", "ping-pong"],
        "nothing to run",
    );
}

#[test]
fn bad_input_gets_specific_errors_and_exit_2() {
    bad_input(
        &["run", "-t", "crosbeam-bounded"],
        "did you mean `crossbeam-bounded`",
    );
    bad_input(&["run", "-t", "rtrb", "-w", "spcs"], "did you mean `spsc`");
    bad_input(
        &["run", "-t", "rtrb", "-p", "bytes:2MiB"],
        "from 8 bytes to 1 MiB",
    );
    bad_input(&["run", "-t", "rtrb", "-p", "report46"], "did you mean");
    bad_input(
        &["run", "-t", "rtrb", "--capacity", "0"],
        "capacity 0 is below",
    );
    bad_input(
        &["run", "-t", "disruptor", "--capacity", "1000"],
        "not a power of two",
    );
    bad_input(
        &["run", "-t", "rtrb", "-w", "mpsc", "--producers", "4"],
        "single-producer",
    );
    bad_input(
        &["run", "-t", "rtrb", "--samples", "0"],
        "must be at least 1",
    );
    bad_input(
        &["run", "-t", "rtrb", "--messages", "lots"],
        "expected \"auto\" or a count",
    );
    bad_input(
        &["run", "-t", "rtrb", "--rate", "1000"],
        "--rate does not apply to workload `spsc` (",
    );
    // The command line's advice is the command line's, not a suite file's.
    bad_input(
        &["run", "-t", "rtrb", "--rate", "1000"],
        "; drop it, or run `spsc` in a run of its own",
    );
    bad_input(
        &["run", "-t", "rtrb", "-w", "ping-pong", "--consumers", "2"],
        "--consumers does not apply to workload `ping-pong`",
    );
    bad_input(
        &[
            "run",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../suites/spsc.toml"),
            "--producers",
            "4",
        ],
        "`producers` applies to none of the suite's workloads",
    );
    bad_input(
        &[
            "run",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../suites/spsc.toml"),
            "--option",
            "wake=edge",
        ],
        "put it in the file",
    );
    bad_input(&["run", "-t", "rtrb", "-o", "wake=edge"], "option");
    bad_input(
        &["run", "-t", "rtrb", "--format", "jsn"],
        "did you mean `json`",
    );
    bad_input(
        &["run", "-t", "kanal-async", "--driver", "tokio-curent"],
        "did you mean `tokio-current`",
    );
    bad_input(
        &[
            "run",
            "-t",
            "crossbeam-bounded",
            "--driver",
            "tokio-multi:2",
        ],
        "runs async transports only",
    );
    bad_input(&["run", "-t", "tokio-watch"], "latest value");
    bad_input(
        &["run", "-t", "crossbeam-bounded", "-w", "paced", "-c", "2"],
        "fan-out needs a broadcast transport",
    );
    bad_input(
        &["run", "-t", "bus", "-w", "mpmc", "-c", "2"],
        "run a fan-out instead",
    );
}

#[test]
fn a_sweep_bomb_is_refused_at_once_with_what_multiplies_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.toml");
    let sixty: Vec<String> = (1..=60).map(|n| n.to_string()).collect();
    let v = sixty.join(", ");
    std::fs::write(
        &path,
        format!("[[benchmark]]\nworkload = \"mpsc\"\ntransports = [\"crossbeam-bounded\"]\ncapacity = [{v}]\nproducers = [{v}]\nmessages = [{v}]\nbatch = [{v}]\n"),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let start = std::time::Instant::now();
    bad_input(
        &["run", p],
        &format!("{p}:1:1: benchmark 1 expands to 12,960,000 trials: capacity (60) × producers (60) × batch (60) × messages (60); the limit is 10,000 (--max-trials to raise it)"),
    );
    // Counted, not expanded: no trial was made (13 M trials took seconds and gigabytes).
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // A list of 700,000 values is refused as it is read.
    let names = vec!["\"crossbeam-bounded\""; 700_000].join(", ");
    std::fs::write(
        &path,
        format!("[[benchmark]]\nworkload = \"spsc\"\ntransports = [{names}]\n"),
    )
    .unwrap();
    let start = std::time::Instant::now();
    bad_input(
        &["run", p],
        &format!("{p}:3:14: `transports` lists more than 10,000 values"),
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // The flag raises the limit, and the flags' own sweeps count the same way.
    bad_input(
        &[
            "run",
            "-t",
            "rtrb,crossbeam-bounded",
            "--capacity",
            "64,128",
            "--max-trials",
            "3",
        ],
        "command line: the flags expand to 4 trials: transports (2) × capacity (2); the limit is 3 (--max-trials to raise it)",
    );
    bad_input(
        &["run", "-t", "rtrb", "--capacity", "64,128,256", "--max-trials", "2"],
        "command line: --capacity: `capacity` lists 3 values, more than the trial limit of 2 allows",
    );
    bad_input(
        &["run", "-t", "rtrb", "--max-trials", "0"],
        "must be at least 1",
    );
    bad_input(
        &["run", "-t", "rtrb", "--max-trials", "1000001"],
        "must be at most 1000000",
    );
}

#[test]
fn every_parameter_out_of_its_range_is_exit_2_before_anything_runs() {
    for (args, expect) in [
        (&["--samples", "10001"][..], "must be at most 10000"),
        (&["--warmup", "1001"], "must be at most 1000"),
        (&["--timeout-ms", "3600001"], "must be at most 3600000"),
        (&["--capacity", "18446744073709551615"], "must be at most 4294967296"),
        (&["--capacity", "64,64"], "`capacity` lists `64` twice"),
        (&["--messages", "1e30"], "1e30 is not an integer; expected \"auto\" or a count of messages from 1 to 281474976710655"),
        (&["--messages", "281474976710656"], "must be at most 281474976710655"),
        (&["--batch", "1048577"], "must be at most 1048576"),
        (&["-w", "mpsc", "--producers", "1025"], "must be at most 1024"),
        (&["-w", "mpmc", "-c", "1025"], "must be at most 1024"),
        (&["-w", "paced", "--rate", "1000000001"], "must be at most 1000000000"),
        (&["-w", "pipeline", "--stage-work-ns", "18446744074000000000"], "must be at most 1000000000"),
        (&["-w", "pipeline", "--hop-capacity", "64,0,64"], "must be at least 1"),
        (&["-w", "mpmc", "--messages", "1000000000000"], "verifier bitmap"),
        (&["-p", "bytes:4096", "--capacity", "4294967296"], "17.6 TB ring; the memory budget is"),
    ] {
        let mut all = vec!["run", "-t", "crossbeam-bounded"];
        all.extend_from_slice(args);
        bad_input(&all, expect);
    }
    bad_input(
        &["run", "-t", "kanal-async", "--driver", "tokio-multi:100000"],
        "at most 1024 worker threads",
    );
    bad_input(
        &["run", "-t", "rtrb,rtrb"],
        "`transports` lists `rtrb` twice",
    );
}

#[test]
fn options_that_do_not_apply_are_refused_alike() {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/../../suites/default.toml");
    // With a suite that has mpsc (and so producers), `-w spsc` keeps only trials where
    // `--producers` cannot apply; `--consumers` is refused the same way.
    bad_input(
        &["run", default, "-w", "spsc", "--producers", "4"],
        "`producers` applies to none of the trials that --transport, --workload and --driver keep",
    );
    bad_input(
        &["run", default, "-w", "spsc", "-c", "2"],
        "`consumers` applies to none of the trials that --transport, --workload and --driver keep",
    );
    bad_input(
        &["run", "-t", "rtrb", "-w", "spsc", "-c", "2"],
        "--consumers does not apply to workload `spsc`",
    );
    bad_input(
        &["run", "-t", "rtrb", "-w", "spsc", "--producers", "4"],
        "--producers does not apply to workload `spsc`",
    );
    // A latest pipeline needs a conflating hop: refused before anything runs.
    bad_input(
        &[
            "run",
            "-t",
            "rtrb",
            "-w",
            "pipeline",
            "--delivery",
            "latest",
        ],
        "delivery \"latest\" needs a conflating hop",
    );
    bad_input(
        &[
            "run",
            "-w",
            "pipeline",
            "--hops",
            "rtrb,rtrb,rtrb",
            "--delivery",
            "latest",
        ],
        "delivery \"latest\" needs a conflating hop",
    );
}

#[test]
fn async_transports_are_listed_and_run_under_every_driver() {
    let out = handoff().arg("list").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for t in [
        "tokio-mpsc-bounded",
        "tokio-mpsc-unbounded",
        "tokio-broadcast",
        "tokio-watch",
        "tokio-oneshot",
        "async-channel-bounded",
        "flume-async",
        "kanal-async",
    ] {
        assert!(text.contains(t), "{t} missing from list");
    }
    assert!(text.contains("async"));
    let (code, v, stderr) = json_run(&[
        "-t",
        "tokio-mpsc-bounded",
        "--driver",
        "threads,tokio-current,tokio-multi:2",
        "--messages",
        "20000",
        "--samples",
        "2",
        "--no-probes",
    ]);
    assert_eq!(code, Some(0), "stderr: {stderr}");
    let drivers: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["verdict"], "pass", "{r}");
            r["params"]["driver"].as_str().unwrap()
        })
        .collect();
    assert_eq!(drivers, ["threads", "tokio-current", "tokio-multi:2"]);
}

#[test]
fn quick_runtime_channels_suite_passes() {
    let suite = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../suites/runtime-channels.toml"
    );
    let (code, v, stderr) = json_run(&[suite, "--quick", "--no-probes"]);
    assert_eq!(code, Some(0), "stderr: {stderr}");
    let results = v["results"].as_array().unwrap();
    for r in results {
        assert_eq!(r["verdict"], "pass", "{r}");
        assert!(r["throughput"]["median"].as_f64().unwrap() > 0.0);
    }
    let current = results
        .iter()
        .filter(|r| r["params"]["driver"] == "tokio-current")
        .collect::<Vec<_>>();
    assert!(!current.is_empty());
    for r in current {
        assert_eq!(r["semantics"]["locality"], "same-thread", "{r}");
    }
    let oneshot = results
        .iter()
        .filter(|r| r["transport"] == "tokio-oneshot")
        .collect::<Vec<_>>();
    // Threads, tokio current-thread and multi-thread, may.
    assert_eq!(oneshot.len(), 4);
    let may_channel: Vec<_> = results
        .iter()
        .filter(|r| r["transport"] == "may-mpsc")
        .map(|r| r["params"]["driver"].as_str().unwrap())
        .collect();
    assert!(!may_channel.is_empty());
    assert!(
        may_channel.iter().all(|d| ["threads", "may:2"].contains(d)),
        "{may_channel:?}"
    );
    for r in oneshot {
        assert_eq!(r["workload"], "ping-pong");
        assert!(r["latency"]["p50"].as_u64().unwrap() > 0);
    }
}

#[test]
fn malformed_suite_files_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.toml");
    std::fs::write(&path, "name = \"x\"\n\n[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\", \"crossbeam-bounde\"]\n").unwrap();
    let p = path.to_str().unwrap();
    bad_input(&["run", p], &format!("{p}:5:"));
    bad_input(&["run", p], "did you mean `crossbeam-bounded`");
    std::fs::write(
        &path,
        "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"rtrb\"\ncapacity = 3\n",
    )
    .unwrap();
    bad_input(&["run", p], &format!("{p}:"));
    bad_input(
        &["run", "/nonexistent/suite.toml"],
        "/nonexistent/suite.toml",
    );
}

#[test]
fn formats_and_out_file() {
    let dir = tempfile::tempdir().unwrap();
    for (fmt, needle) in [
        ("markdown", "| transport"),
        ("csv", "transport,workload"),
        ("json", "\"schema_version\""),
    ] {
        let out = dir.path().join(format!("r.{fmt}"));
        handoff()
            .args([
                "run",
                "--quiet",
                "--no-probes",
                "-t",
                "crossbeam-bounded",
                "--messages",
                "20000",
                "--samples",
                "2",
            ])
            .args(["--format", fmt, "--out", out.to_str().unwrap()])
            .assert()
            .success();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains(needle), "{fmt}: {text}");
    }
}

#[test]
fn the_layout_seed_is_recorded_per_sample_and_reproduces_the_run() {
    let args = [
        "-t",
        "rtrb",
        "-w",
        "spsc",
        "--messages",
        "20000",
        "--samples",
        "3",
        "--warmup",
        "0",
        "--no-probes",
        "--layout-seed",
        "7",
    ];
    let seeds = |v: &Value| -> Vec<u64> {
        v["results"][0]["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["layout"]["seed"].as_u64().expect("a seed per sample"))
            .collect()
    };
    let (code, first, stderr) = json_run(&args);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(first["layout"]["mode"], "random");
    assert_eq!(first["layout"]["seed"], 7);
    assert_eq!(seeds(&first).len(), 3);
    let (_, again, _) = json_run(&args);
    assert_eq!(seeds(&again), seeds(&first));

    let (code, fixed, stderr) = json_run(&[
        "-t",
        "rtrb",
        "-w",
        "spsc",
        "--messages",
        "20000",
        "--samples",
        "2",
        "--no-probes",
        "--layout",
        "fixed",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(fixed["layout"]["mode"], "fixed");
    assert!(fixed["results"][0]["samples"][0].get("layout").is_none());

    handoff()
        .args([
            "run",
            "-t",
            "rtrb",
            "--layout",
            "fixed",
            "--layout-seed",
            "3",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--layout-seed"));
}

#[test]
fn live_tables_come_before_the_header_and_the_run_wide_lines_after_it() {
    let run = |flag: &str| {
        let out = handoff()
            .args([
                "run",
                flag,
                "--quiet",
                "--no-probes",
                "--consensus",
                "-t",
                "crossbeam-bounded,std-mpsc",
                "-w",
                "spsc,ping-pong",
                "--messages",
                "5000",
                "--samples",
                "2",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert_eq!(out.status.code(), Some(0), "{flag}: {text}");
        text
    };
    let live = run("--live");
    let whole = run("--no-live");
    let header = live.find("run: suite").expect("a header");
    let consensus = live.find("consensus:").expect("consensus lines");
    for title in ["spsc · payload", "ping-pong · payload"] {
        let table = live.find(title).expect(title);
        assert!(table < header, "{title}'s table before the header:\n{live}");
    }
    assert!(header < consensus, "consensus after the header:\n{live}");
    // Every row once, as in the whole report.
    let rows = |text: &str, t: &str| {
        text.lines()
            .filter(|l| l.starts_with(&format!(" {t} ")))
            .count()
    };
    for t in ["crossbeam-bounded", "std-mpsc"] {
        assert_eq!(rows(&live, t), 2, "{t}:\n{live}");
        assert_eq!(rows(&whole, t), 2, "{t}:\n{whole}");
    }
    // The whole report starts with its header.
    assert!(whole.trim_start().starts_with("run: suite"), "{whole}");
}

#[test]
fn live_tables_are_the_table_format_on_standard_output() {
    handoff()
        .args([
            "run",
            "--live",
            "--format",
            "json",
            "-t",
            "rtrb",
            "--no-probes",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--live writes the table format as it comes; --format json is written whole at the end",
        ));
    handoff()
        .args([
            "run",
            "--live",
            "--out",
            "x.txt",
            "-t",
            "rtrb",
            "--no-probes",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out"));
}

#[test]
fn a_refused_flag_value_is_one_line() {
    for (args, says) in [
        (&["run", "-w", "spcs"][..], "did you mean `spsc`"),
        (&["run", "--payload", "u46"][..], "unknown payload"),
        (
            &["run", "--no-such-flag"][..],
            "unexpected argument '--no-such-flag'",
        ),
    ] {
        let out = handoff().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("For more information"),
            "{args:?}: {stderr}"
        );
    }
}
