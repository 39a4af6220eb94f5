//! The broker transports against real brokers: Redis, NATS (with JetStream) and Kafka, started
//! on 127.0.0.1 by `scripts/brokers start`, which the test command runs before these tests (they
//! are `#[ignore]`d in a plain `cargo test`, like the PostgreSQL tests, and run with
//! `--include-ignored`). Every message is verified as for any queue; a broker that does not
//! answer makes its trials unsupported while the run goes on; a broker stopped mid-trial crashes
//! that trial with the broker's error, the run goes on, and once the broker is started again the
//! next run passes.
#![cfg(target_os = "linux")]

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const NEEDS: &str = "needs the brokers of scripts/brokers (the test command starts them)";

/// Every broker transport.
fn brokers() -> Vec<&'static str> {
    handoff_brokers::NAMES.to_vec()
}

fn handoff() -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    cmd.arg("run")
        .args(["--no-store", "--no-probes", "--quiet", "--format", "json"]);
    cmd
}

/// A JSON run with `args`: exit code, report, standard error.
fn json_run(cmd: &mut Command, args: &[&str]) -> (Option<i32>, Value, String) {
    let out = cmd.args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    (out.status.code(), v, stderr)
}

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().expect("results")
}

fn of<'a>(v: &'a Value, transport: &str) -> Vec<&'a Value> {
    results(v)
        .iter()
        .filter(|r| r["transport"] == transport)
        .collect()
}

fn lint_codes(r: &Value) -> Vec<String> {
    r["lints"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|l| l["code"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/brokers")
}

#[test]
#[ignore = "needs the brokers of scripts/brokers (the test command starts them)"]
fn every_broker_delivers_every_message_of_a_stream_and_says_where_it_ran() {
    let names = brokers().join(",");
    let (code, v, stderr) = json_run(
        &mut handoff(),
        &[
            "-t",
            &names,
            "-w",
            "mpsc",
            "--producers",
            "1,2",
            "--payload",
            "u64,report64",
            "--messages",
            "3000",
            "--samples",
            "2",
            "--warmup",
            "0",
        ],
    );
    assert_eq!(code, Some(0), "{NEEDS}; stderr: {stderr}");
    for name in brokers() {
        let rows = of(&v, name);
        assert_eq!(rows.len(), 4, "{name}: one and two producers, two payloads");
        for r in rows {
            assert_eq!(r["verdict"], "pass", "{name}: {r}");
            assert_eq!(r["semantics"]["locality"], "broker", "{name}");
            assert!(
                r["semantics"]["delivery"] == "at-least-once"
                    || r["semantics"]["delivery"] == "at-most-once",
                "{name} declares how it delivers: {}",
                r["semantics"]
            );
            assert!(
                lint_codes(r).contains(&"broker-shares-cores".to_string()),
                "{name}: {:?}",
                lint_codes(r)
            );
            // Every message arrived once: nothing redelivered, and nothing lost even where
            // losses are allowed, at this pace.
            let delivered: u64 = r["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["messages"].as_u64().unwrap())
                .sum();
            assert_eq!(delivered, 2 * 3000, "{name}: {r}");
            assert!(r.get("redelivered").is_none(), "{name}: {r}");
        }
    }
}

#[test]
#[ignore = "needs the brokers of scripts/brokers (the test command starts them)"]
fn every_broker_answers_ping_pong_and_a_paced_stream() {
    let names = brokers().join(",");
    for workload in [
        &["-w", "ping-pong"][..],
        &["-w", "paced", "--rate", "2000"][..],
    ] {
        let common = [
            "-t",
            &names,
            "--messages",
            "400",
            "--samples",
            "2",
            "--warmup",
            "0",
        ];
        let (code, v, stderr) = json_run(&mut handoff(), &[&common[..], workload].concat());
        assert_eq!(code, Some(0), "{NEEDS}; stderr: {stderr}");
        for name in brokers() {
            let rows = of(&v, name);
            assert_eq!(rows.len(), 1, "{name}");
            let r = rows[0];
            assert_eq!(r["verdict"], "pass", "{name}: {r}");
            let p50 = r["latency"]["p50"].as_u64().unwrap_or(0);
            // A hop through a broker on loopback costs at least a microsecond.
            assert!(p50 >= 1_000, "{name}: p50 {p50} ns: {r}");
        }
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on.
fn silent_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    port
}

#[test]
fn a_broker_that_does_not_answer_leaves_its_trials_unsupported_and_the_run_going() {
    let port = silent_port().to_string();
    let names = format!("{},crossbeam-bounded", brokers().join(","));
    let mut cmd = handoff();
    for var in [
        "HANDOFF_REDIS_PORT",
        "HANDOFF_NATS_PORT",
        "HANDOFF_KAFKA_PORT",
    ] {
        cmd.env(var, &port);
    }
    let (code, v, stderr) = json_run(
        &mut cmd,
        &[
            "-t",
            &names,
            "-w",
            "spsc",
            "--messages",
            "2000",
            "--samples",
            "1",
            "--warmup",
            "0",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    for name in brokers() {
        let r = of(&v, name)[0];
        assert_eq!(r["verdict"], "unsupported", "{name}: {r}");
        let why = r["violation"].as_str().unwrap();
        assert!(
            why.starts_with(&format!(
                "no broker at 127.0.0.1:{port} (scripts/brokers start "
            )),
            "{name}: {why}"
        );
    }
    assert_eq!(of(&v, "crossbeam-bounded")[0]["verdict"], "pass");

    // Named alone, a broker transport that cannot run is a run with nothing to measure.
    let mut cmd = handoff();
    cmd.env("HANDOFF_KAFKA_PORT", &port);
    let (code, v, stderr) = json_run(
        &mut cmd,
        &[
            "-t",
            "kafka",
            "-w",
            "spsc",
            "--messages",
            "2000",
            "--samples",
            "1",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "exit 2: nothing ran: kafka spsc (unsupported: no broker at 127.0.0.1:{port}"
        )),
        "{stderr}"
    );
    assert_eq!(of(&v, "kafka")[0]["verdict"], "unsupported");
}

/// A Redis of this test's own (port and directory), so that stopping it disturbs no other test.
struct OwnRedis {
    port: String,
    dir: tempfile::TempDir,
}

impl OwnRedis {
    fn script(&self, action: &str) -> std::process::Output {
        std::process::Command::new("bash")
            .arg(scripts())
            .args([action, "redis"])
            .env("HANDOFF_REDIS_PORT", &self.port)
            .env("HANDOFF_BROKERS_DIR", self.dir.path())
            .output()
            .unwrap()
    }

    fn start(&self) {
        let out = self.script("start");
        assert!(
            out.status.success(),
            "scripts/brokers start redis: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Keys in the server (a trial's stream is one), or `None` if it does not answer.
    fn keys(&self) -> Option<u64> {
        let out = std::process::Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port, "dbsize"])
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stdout).trim().parse().ok()
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.script("stop");
    }
}

#[test]
#[ignore = "needs the brokers of scripts/brokers (the test command starts them)"]
fn a_broker_stopped_mid_trial_crashes_that_trial_and_a_restarted_one_passes() {
    let redis = OwnRedis {
        port: silent_port().to_string(),
        dir: tempfile::tempdir().unwrap(),
    };
    redis.start();
    // A trial far longer than the test waits: it is stopped as soon as its stream exists.
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("handoff"))
        .args([
            "run",
            "--no-store",
            "--no-probes",
            "--quiet",
            "--format",
            "json",
        ])
        .args(["-t", "redis-streams,crossbeam-bounded", "-w", "spsc"])
        .args(["--messages", "5000000", "--samples", "1", "--warmup", "0"])
        .env("HANDOFF_REDIS_PORT", &redis.port)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let begun = Instant::now();
    while redis.keys().unwrap_or(0) == 0 {
        assert!(
            begun.elapsed() < Duration::from_secs(120),
            "the trial's stream never appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = redis.script("stop");
    assert!(out.status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    assert_eq!(
        out.status.code(),
        Some(1),
        "a crashed trial fails the run: {stderr}"
    );
    let r = of(&v, "redis-streams")[0];
    assert_eq!(r["verdict"], "crashed", "{r}");
    let why = r["violation"].as_str().unwrap();
    assert!(
        why.contains(&format!("127.0.0.1:{}", redis.port)),
        "the broker's error names it: {why}"
    );
    assert_eq!(
        of(&v, "crossbeam-bounded")[0]["verdict"],
        "pass",
        "the run went on"
    );

    redis.start();
    let mut cmd = handoff();
    cmd.env("HANDOFF_REDIS_PORT", &redis.port);
    let (code, v, stderr) = json_run(
        &mut cmd,
        &[
            "-t",
            "redis-streams",
            "-w",
            "spsc",
            "--messages",
            "2000",
            "--samples",
            "1",
            "--warmup",
            "0",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(of(&v, "redis-streams")[0]["verdict"], "pass");
}

/// The pipeline scenario's Kafka soak, as `--quick` runs it with soaks of 6 s in windows of
/// 0.6 s (the command line's `--duration` and `--window` over the suite's; `--quick`'s own 20 s
/// soaks would add a minute of waiting and nothing this test checks): every trial passes, each
/// soak is measured in its windows (what they delivered adds up to what the sample did), the
/// accumulator strategies differ as they must (a batch times every event, latest only what it
/// fires), and the HTML report of the run draws latency over time.
#[test]
#[ignore = "needs the brokers of scripts/brokers (the test command starts them)"]
fn the_kafka_soak_runs_quick_with_its_windows_and_its_chart() {
    let suite = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../suites/kafka-soak.toml");
    let args = [
        suite.to_str().unwrap(),
        "--quick",
        "--duration",
        "6s",
        "--window",
        "600ms",
    ];
    let (code, v, stderr) = json_run(&mut handoff(), &args);
    assert_eq!(code, Some(0), "{stderr}");
    let rs = results(&v);
    assert_eq!(
        rs.len(),
        4,
        "latest and batch, at 1000/s and at the ramp's rate"
    );
    for r in rs {
        assert_eq!(r["verdict"], "pass", "{r}");
        assert_eq!(r["params"]["options"]["commit"], "processed");
        let s = &r["samples"][0];
        let windows = s["windows"].as_array().expect("a soak's windows");
        assert_eq!(windows.len(), 10, "6 s in windows of 0.6 s");
        let delivered: u64 = windows
            .iter()
            .map(|w| w["delivered"].as_u64().unwrap())
            .sum();
        assert_eq!(delivered, s["messages"].as_u64().unwrap());
        // The broker's own count of what the group has not committed, at every window's end.
        for w in windows {
            assert!(w["uncommitted"].is_u64(), "{w}");
        }
        assert!(lint_codes(r).contains(&"broker-shares-cores".to_string()));
        let reactor = r["params"]["pipeline"]["reactor"].as_str().unwrap();
        let fires = r["paced"]["fires"].as_u64().unwrap();
        let timed = r["latency"]["count"].as_u64().unwrap();
        match reactor {
            "batch" => assert_eq!(timed, s["messages"].as_u64().unwrap(), "{r}"),
            "latest" => assert_eq!(timed, fires, "{r}"),
            other => panic!("reactor {other}"),
        }
    }
    let json = std::env::temp_dir().join(format!("handoff-kafka-soak-{}.json", std::process::id()));
    std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
    let html = Command::cargo_bin("handoff")
        .unwrap()
        .args(["show", "--format", "html"])
        .arg(&json)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&json);
    let page = String::from_utf8_lossy(&html.stdout);
    assert_eq!(
        page.matches("class=\"chart soak\"").count(),
        2,
        "one per table"
    );
}

/// A soak over each broker that keeps a count of what its consumer has not acknowledged shows
/// that count at every window's end; a queue keeps none.
#[test]
#[ignore = "needs the brokers of scripts/brokers (the test command starts them)"]
fn a_soak_over_a_broker_shows_what_the_broker_holds_unacknowledged() {
    let (code, v, stderr) = json_run(
        &mut handoff(),
        &[
            "-t",
            "redis-streams,nats-jetstream,crossbeam-bounded",
            "-w",
            "paced",
            "--rate",
            "1000",
            "--duration",
            "3s",
            "--window",
            "500ms",
            "--samples",
            "1",
            "--warmup",
            "0",
        ],
    );
    assert_eq!(code, Some(0), "{NEEDS}; stderr: {stderr}");
    for (name, kept) in [
        ("redis-streams", true),
        ("nats-jetstream", true),
        ("crossbeam-bounded", false),
    ] {
        let rows = of(&v, name);
        let r = rows[0];
        assert_eq!(r["verdict"], "pass", "{name}: {r}");
        let windows = r["samples"][0]["windows"].as_array().expect("windows");
        assert_eq!(windows.len(), 6, "{name}: 3 s in windows of 500 ms");
        for w in windows {
            assert_eq!(w["uncommitted"].is_u64(), kept, "{name}: {w}");
        }
    }
}

/// Kafka's own end-to-end latency tool runs against the same broker as handoff's Kafka
/// ping-pong, and the script prints both side by side (and keeps them in target/kafka-e2e).
#[test]
#[ignore = "needs the brokers of scripts/brokers (the test command starts them)"]
fn kafkas_own_latency_tool_runs_beside_the_ping_pong() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka-e2e");
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    let out = std::process::Command::new("bash")
        .arg(&script)
        .arg("300")
        .env("HANDOFF_BIN", &bin)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let figures = |row: &str| -> Vec<f64> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("no `{row}` row: {stdout}"));
        line[row.len()..]
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let tool = figures("EndToEndLatency, one way (whole ms)");
    let ours = figures("handoff ping-pong, round trip");
    assert_eq!((tool.len(), ours.len()), (4, 4), "{stdout}");
    // Both measured something: a mean above zero, percentiles in order.
    for f in [&tool, &ours] {
        assert!(f[0] > 0.0 && f[1] <= f[2] && f[2] <= f[3], "{stdout}");
    }
    // The tool's percentiles are whole milliseconds.
    assert!(tool[1..].iter().all(|x| x.fract() == 0.0), "{stdout}");
    // And the reader is told which rows to set side by side.
    assert!(
        stdout.contains("How to read: the tool times one hop")
            && stdout.contains("set its half\n(the last row) beside the tool's one-way row"),
        "{stdout}"
    );
    // And the bad argument gets a clear refusal.
    let bad = std::process::Command::new("bash")
        .arg(&script)
        .arg("lots")
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("RECORDS must be a whole number"));
}

/// Without `HANDOFF_BIN`, `scripts/kafka-e2e` runs `target/release/handoff` when it has the kafka
/// transport; when it does not, it says so before building one with the `brokers` feature
/// (which replaces the default build) and never builds silently. Run on a copy of the script
/// whose broker script, Kafka jars, `handoff` and `cargo` are stand-ins: no broker is needed.
#[test]
fn kafka_e2e_says_when_it_builds_the_command() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    for dir in [
        "scripts",
        "target/release",
        "target/brokers-cache/kafka-4.4.0/libs",
        "bin",
    ] {
        std::fs::create_dir_all(r.join(dir)).unwrap();
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/kafka-e2e");
    std::fs::copy(&script, r.join("scripts/kafka-e2e")).unwrap();
    let write = |path: &str, text: &str| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(r.join(path), text).unwrap();
        std::fs::set_permissions(r.join(path), std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write("scripts/brokers", "#!/bin/sh\nexit 0\n");
    // Kafka's tool fails at once (no broker is asked anything).
    write("bin/java", "#!/bin/sh\necho 'no broker here' >&2\nexit 1\n");
    // `cargo build` records its arguments and fails, so the script stops right after it.
    write(
        "bin/cargo",
        "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/../cargo-args\"\nexit 1\n",
    );
    // A `handoff` whose list shows kafka unavailable, as a default build's does.
    write(
        "target/release/handoff",
        "#!/bin/sh\nprintf '  kafka                  MPSC\\n                         Kafka\\n                         UNAVAILABLE: built without the `brokers` feature\\n  rtrb   SPSC\\n'\n",
    );
    let path = format!(
        "{}:{}",
        r.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = || {
        std::process::Command::new("bash")
            .arg(r.join("scripts/kafka-e2e"))
            .arg("100")
            .env("PATH", &path)
            .env_remove("HANDOFF_BIN")
            .output()
            .unwrap()
    };
    let out = run();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("kafka-e2e: target/release/handoff has no kafka transport: building it with the brokers feature"),
        "{stderr}"
    );
    let args = std::fs::read_to_string(r.join("cargo-args")).expect("cargo was called");
    assert!(args.contains("--features brokers"), "{args}");
    // A `handoff` that has kafka is used as it is: no build (then the stand-in Java fails).
    std::fs::remove_file(r.join("cargo-args")).unwrap();
    write(
        "target/release/handoff",
        "#!/bin/sh\nprintf '  kafka                  MPSC\\n                         Kafka\\n                         option acks=all\\n'\n",
    );
    let out = run();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("EndToEndLatency failed"), "{stderr}");
    assert!(!stderr.contains("building it"), "{stderr}");
    assert!(!r.join("cargo-args").exists(), "cargo was called: {stderr}");
}
