//! Trials across the process boundary (`--placement processes`): every IPC transport with its
//! producers (or its ponger) in a peer process, every message verified; channels that cannot
//! cross refused with the reason; a peer that crashes or stalls reported as such while the run
//! goes on; and a parent killed with SIGKILL leaving no process, socket or shared-memory file
//! behind.
#![cfg(target_os = "linux")]

use assert_cmd::Command;
use serde_json::Value;
use std::time::{Duration, Instant};

use crate::support::marked;

/// Every IPC transport of the default build: those its catalog says cross processes (named
/// one by one in `handoff`'s `tests/it/ipc.rs`).
fn ipc() -> Vec<String> {
    handoff_transports::builtin()
        .entries()
        .iter()
        .filter(|e| e.crosses_processes())
        .map(|e| e.info().name.clone())
        .collect()
}

fn handoff() -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    cmd.arg("run")
        .args(["--no-store", "--no-probes", "--quiet"]);
    cmd
}

fn json_run(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = handoff()
        .args(["--format", "json", "--warmup", "0"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    (out.status.code(), v, stderr)
}

/// A JSON run of `transports` on `workload`, `messages` per sample, with `more` flags (the
/// placement among them).
fn trials(
    transports: &str,
    workload: &str,
    messages: &str,
    more: &[&str],
) -> (Option<i32>, Value, String) {
    let base = ["-t", transports, "-w", workload, "--messages", messages];
    json_run(&[&base[..], more].concat())
}

/// [`trials`] across processes, one sample.
fn across(transports: &str, workload: &str, more: &[&str]) -> (Option<i32>, Value, String) {
    let placed = ["--placement", "processes", "--samples", "1"];
    trials(transports, workload, "5000", &[&placed[..], more].concat())
}

fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

fn result<'a>(v: &'a Value, transport: &str, workload: &str) -> &'a Value {
    results(v)
        .iter()
        .find(|r| r["transport"] == transport && r["workload"] == workload)
        .unwrap_or_else(|| panic!("no {workload} result of {transport}"))
}

/// Each sample of `r` delivered exactly `n` messages (round trips).
fn delivered_exactly(r: &Value, n: u64) {
    let samples = r["samples"].as_array().unwrap();
    assert!(!samples.is_empty(), "{r}");
    for s in samples {
        assert_eq!(s["messages"].as_u64(), Some(n), "{s}");
    }
}

#[test]
fn every_ipc_transport_crosses_processes_with_every_message_verified() {
    let ipc = ipc();
    assert!(ipc.len() >= 6, "{ipc:?}");
    let all = ipc.join(",");
    let (code, v, stderr) = trials(
        &all,
        "spsc,ping-pong",
        "5000",
        &["--placement", "processes", "--samples", "2"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(results(&v).len(), ipc.len() * 2);
    for t in &ipc {
        for w in ["spsc", "ping-pong"] {
            let r = result(&v, t, w);
            assert_eq!(r["verdict"], "pass", "{r}");
            assert_eq!(r["semantics"]["locality"], "cross-process", "{r}");
            delivered_exactly(r, 5000);
            // Both processes' threads are recorded: the consumer's, then the peer's.
            assert_eq!(r["placement"]["threads"], 2, "{r}");
        }
        // Ping-pong is timed in the worker, round trip by round trip.
        let pp = result(&v, t, "ping-pong");
        assert!(pp["latency"]["p50"].as_f64().unwrap() > 0.0, "{pp}");
    }
}

/// iceoryx2, built into the tests' binary (the `iceoryx2` feature), runs both ways too.
#[test]
fn iceoryx2_runs_between_threads_and_between_processes() {
    let (code, v, stderr) = trials(
        "iceoryx2",
        "spsc,ping-pong",
        "3000",
        &[
            "--placement",
            "threads,processes",
            "--payload",
            "u64,bytes:4096",
            "--samples",
            "1",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(results(&v).len(), 8);
    for r in results(&v) {
        assert_eq!(r["verdict"], "pass", "{r}");
        delivered_exactly(r, 3000);
    }
    let crossed = results(&v)
        .iter()
        .filter(|r| r["semantics"]["locality"] == "cross-process")
        .count();
    assert_eq!(crossed, 4);
}

/// A normal iceoryx2 run leaves nothing: each channel's domain (its management segment in
/// `/dev/shm`, its directories under the temporary directory) goes with its last node.
#[test]
fn iceoryx2_leaves_nothing_behind_after_a_normal_run() {
    let scratch = tempfile::tempdir().unwrap();
    let out = handoff()
        .env("TMPDIR", scratch.path())
        .args([
            "-t",
            "iceoryx2",
            "-w",
            "spsc,ping-pong",
            "--messages",
            "2000",
        ])
        .args([
            "--placement",
            "threads,processes",
            "--samples",
            "2",
            "--warmup",
            "0",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left: Vec<String> = walkdir(scratch.path());
    assert_eq!(
        left,
        Vec::<String>::new(),
        "left in the temporary directory"
    );
    // Every process of the run is gone: a handoff domain in /dev/shm whose creating process is
    // gone is one a side failed to remove (a live one belongs to a test running beside this).
    let orphans: Vec<String> = std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.strip_prefix("iox2_handoff_")
                .and_then(|rest| rest.split('-').next())
                .is_some_and(|pid| !std::path::Path::new("/proc").join(pid).exists())
        })
        .collect();
    assert_eq!(orphans, Vec::<String>::new(), "left in /dev/shm");
}

/// Every path under `dir`, relative to it.
fn walkdir(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        out.push(e.path().display().to_string());
        if e.path().is_dir() {
            out.extend(walkdir(&e.path()));
        }
    }
    out
}

#[test]
fn the_same_mechanism_runs_between_threads_and_between_processes_side_by_side() {
    let (code, v, stderr) = trials(
        "uds-stream",
        "spsc",
        "5000",
        &["--placement", "threads,processes", "--samples", "1"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let localities: Vec<&str> = results(&v)
        .iter()
        .map(|r| r["semantics"]["locality"].as_str().unwrap())
        .collect();
    assert_eq!(localities, ["cross-thread", "cross-process"]);
    // The table marks the row that crossed.
    let out = handoff()
        .args([
            "-t",
            "uds-stream",
            "-w",
            "spsc",
            "--placement",
            "threads,processes",
        ])
        .args(["--messages", "5000", "--samples", "1", "--warmup", "0"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("uds-stream ⇄ process"), "{table}");
}

/// Several producers in the peer write one pipe (cut at `PIPE_BUF`) or one ring each of one
/// shared region (`shm-sharded`); the worker's consumer verifies every message per producer.
#[test]
fn several_producers_write_from_the_peer_process() {
    let (code, v, stderr) = trials(
        "pipe,shm-sharded",
        "mpsc",
        "6000",
        &[
            "--producers",
            "2,3",
            "--placement",
            "processes",
            "--samples",
            "1",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(results(&v).len(), 4, "{v}");
    for r in results(&v) {
        assert_eq!(r["verdict"], "pass", "{r}");
        assert_eq!(r["semantics"]["locality"], "cross-process", "{r}");
        delivered_exactly(r, 6000);
    }
}

/// An open-loop run crosses too: the injector paces and stamps in the peer, the sink verifies
/// and times in the worker, both on one clock; the hop's depth is counted across the boundary.
#[test]
fn a_paced_run_crosses_processes_with_every_event_verified_and_timed() {
    let (code, v, stderr) = trials(
        "shm-ring,uds-stream",
        "paced",
        "3000",
        &[
            "--rate",
            "100000",
            "--placement",
            "processes,threads",
            "--samples",
            "1",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(results(&v).len(), 4);
    for r in results(&v) {
        assert_eq!(r["verdict"], "pass", "{r}");
        delivered_exactly(r, 3000);
        let paced = &r["paced"];
        assert_eq!(paced["requested_rate"], 100000, "{r}");
        assert!(
            paced["achieved_rate"]["median"].as_f64().unwrap() > 0.0,
            "{r}"
        );
        assert_eq!(r["latency"]["count"], 3000, "{r}");
        // Every event reached the sink's counter, which the peer's injector reads for depth.
        assert_eq!(paced["hops"][0]["received"], 3000, "{r}");
    }
    let crossed: Vec<&Value> = results(&v)
        .iter()
        .filter(|r| r["semantics"]["locality"] == "cross-process")
        .collect();
    assert_eq!(crossed.len(), 2);
    // The kernel's clock source decides which clock both processes read; the run records it.
    assert!(
        v["environment"]["clock_source"].is_string(),
        "{}",
        v["environment"]
    );
}

#[test]
fn a_ramp_crosses_processes_step_by_step() {
    let (code, v, stderr) = across(
        "shm-ring",
        "ramp",
        &["--rate", "ramp", "--messages", "2000"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let r = result(&v, "shm-ring", "ramp");
    assert_eq!(r["verdict"], "pass", "{r}");
    assert_eq!(r["semantics"]["locality"], "cross-process", "{r}");
    let sustained = r["ramp"]["sustained"].as_u64();
    assert!(sustained.is_some_and(|s| s > 0), "{r}");
}

/// A pipeline of `hops` across processes, 2000 events at 100 000/s, one sample, with `more`
/// flags.
fn pipeline_across(hops: &str, more: &[&str]) -> (Option<i32>, Value, String) {
    let placed = ["--placement", "processes", "--samples", "1"];
    let pipe = [
        "-w",
        "pipeline",
        "--messages",
        "2000",
        "--rate",
        "100000",
        "--hops",
        hops,
    ];
    json_run(&[&placed[..], &pipe[..], more].concat())
}

/// The one result of a pipeline run.
fn only(v: &Value) -> &Value {
    let all = results(v);
    assert_eq!(all.len(), 1, "{v}");
    &all[0]
}

/// A pipeline whose middle hop crosses: the injector and the first stage in the peer, the
/// second stage and the sink in the worker. Every event is verified and timed, and every hop's
/// counters (which both processes map) saw every event.
#[test]
fn a_pipeline_whose_middle_hop_crosses_processes_delivers_every_event() {
    let (code, v, stderr) = pipeline_across("crossbeam-bounded,shm-ring,crossbeam-bounded", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let r = only(&v);
    assert_eq!(r["verdict"], "pass", "{r}");
    assert_eq!(r["semantics"]["locality"], "cross-process", "{r}");
    delivered_exactly(r, 2000);
    assert_eq!(r["latency"]["count"], 2000, "{r}");
    let hops = r["paced"]["hops"].as_array().unwrap();
    let names: Vec<&str> = hops
        .iter()
        .map(|h| h["transport"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["crossbeam-bounded", "shm-ring", "crossbeam-bounded"]
    );
    for h in hops {
        assert_eq!(h["received"], 2000, "{r}");
    }
}

/// A merge source runs in the process that holds the hop it feeds: the peer for the crossing
/// hop (which then has two writers in the peer), the worker for the hop after it.
#[test]
fn a_merge_source_runs_on_the_side_of_the_hop_it_feeds() {
    for hop in ["2", "3"] {
        let merge = ["--merge-hop", hop, "--merge-rate", "20000"];
        let (code, v, stderr) = pipeline_across("crossbeam-bounded,pipe,crossbeam-bounded", &merge);
        assert_eq!(code, Some(0), "{stderr}");
        let r = only(&v);
        assert_eq!(r["verdict"], "pass", "merge into hop {hop}: {r}");
        // The injector's 2000 events and the source's 400 (at a fifth of the rate).
        delivered_exactly(r, 2400);
        let hops = r["paced"]["hops"].as_array().unwrap();
        assert_eq!(hops[2]["received"], 2400, "{r}");
    }
}

/// The boundary lies across exactly one hop, the one whose transport can cross: a pipeline
/// with none, or with several, says so and the run goes on.
#[test]
fn a_pipeline_crosses_at_exactly_one_hop_and_says_why_otherwise() {
    for (hops, said) in [
        (
            "shm-ring,crossbeam-bounded,pipe",
            "hops 1 (shm-ring), 3 (pipe) can each cross",
        ),
        (
            "crossbeam-bounded,rtrb,crossbeam-bounded",
            "no hop of this pipeline can cross",
        ),
    ] {
        let (code, v, stderr) = pipeline_across(hops, &[]);
        // Its one trial could not run: nothing ran, which is bad input (exit 2), said why.
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("exit 2: nothing ran: "), "{stderr}");
        let r = only(&v);
        assert_eq!(r["verdict"], "unsupported", "{r}");
        let why = r["violation"].as_str().unwrap();
        assert!(why.contains(said), "{why}");
    }
}

#[test]
fn a_channel_inside_one_process_is_unsupported_across_processes_with_the_reason() {
    let (code, v, stderr) = across("crossbeam-bounded,pipe", "spsc", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let r = result(&v, "crossbeam-bounded", "spsc");
    assert_eq!(r["verdict"], "unsupported", "{r}");
    let why = r["violation"].as_str().unwrap();
    assert!(why.contains("cannot cross a process boundary"), "{why}");
    assert_eq!(result(&v, "pipe", "spsc")["verdict"], "pass");
}

#[test]
fn a_run_without_worker_processes_cannot_start_a_peer_and_says_so() {
    let (_, v, _) = across("pipe", "spsc", &["--in-process"]);
    let r = result(&v, "pipe", "spsc");
    assert_eq!(r["verdict"], "unsupported", "{r}");
    assert!(
        r["violation"]
            .as_str()
            .unwrap()
            .contains("worker processes"),
        "{r}"
    );
}

#[test]
fn a_peer_that_aborts_is_named_and_the_run_goes_on() {
    let (code, v, stderr) = across("faulty-peer-abort,pipe", "spsc", &[]);
    assert_eq!(code, Some(1), "{stderr}");
    let r = result(&v, "faulty-peer-abort", "spsc");
    assert_eq!(r["verdict"], "crashed", "{r}");
    let why = r["violation"].as_str().unwrap();
    assert!(why.contains("peer process"), "{why}");
    assert!(why.contains("SIGABRT"), "{why}");
    let ok = result(&v, "pipe", "spsc");
    assert_eq!(ok["verdict"], "pass", "{ok}");
    delivered_exactly(ok, 5000);
}

/// Nothing closes a shared mapping when a process dies: the ring's consumer must find out by
/// itself that the producer's process is gone. With a watchdog of a minute, a consumer that
/// did not would make the sample `hung`, not `crashed`.
#[test]
fn a_shared_memory_peer_that_aborts_is_found_out_by_the_ring() {
    let (code, v, stderr) = across("faulty-shm-peer-abort", "spsc", &["--timeout-ms", "60000"]);
    assert_eq!(code, Some(1), "{stderr}");
    let r = result(&v, "faulty-shm-peer-abort", "spsc");
    assert_eq!(r["verdict"], "crashed", "{r}");
    assert!(r["violation"].as_str().unwrap().contains("SIGABRT"), "{r}");
}

#[test]
fn a_peer_that_stops_sending_is_hung() {
    let (code, v, stderr) = across("faulty-peer-stall", "spsc", &["--timeout-ms", "1000"]);
    assert_eq!(code, Some(1), "{stderr}");
    let r = result(&v, "faulty-peer-stall", "spsc");
    assert_eq!(r["verdict"], "hung", "{r}");
}

#[test]
fn a_misspelt_placement_is_refused_with_the_closest_name() {
    let out = handoff()
        .args(["-t", "pipe", "-w", "spsc", "--placement", "proceses"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("processes"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The abstract Unix sockets bound by any of `pids` (they are named `@handoff-<pid>-<n>`).
fn abstract_sockets_of(pids: &[u32]) -> Vec<String> {
    let table = std::fs::read_to_string("/proc/net/unix").unwrap();
    table
        .lines()
        .filter_map(|l| l.split_whitespace().nth(7))
        .filter(|name| {
            pids.iter()
                .any(|p| name.starts_with(&format!("@handoff-{p}-")))
        })
        .map(str::to_string)
        .collect()
}

/// Names in `dir` that mention handoff, of files of the kind `keep` accepts.
fn handoff_files(dir: &std::path::Path, keep: fn(&std::fs::FileType) -> bool) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                keep(&e.file_type().ok()?).then_some(())?;
                e.file_name().into_string().ok()
            })
            .filter(|n| n.contains("handoff"))
            .collect()
        })
        .unwrap_or_default()
}

/// Any file (`/dev/shm` holds shared-memory segments only).
fn any(_: &std::fs::FileType) -> bool {
    true
}

/// A Unix socket's file (the run's journal in the temporary directory is meant to survive).
fn socket(t: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    t.is_socket()
}

#[test]
fn a_parent_killed_mid_trial_leaves_no_process_socket_or_segment_behind() {
    let mark = format!("{}-{}", std::process::id(), line!());
    let shm = std::path::Path::new("/dev/shm");
    let tmp = std::env::temp_dir();
    let (shm_before, tmp_before) = (handoff_files(shm, any), handoff_files(&tmp, socket));
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    // A ping-pong far longer than the test: the peer and its sockets are alive when the
    // parent is killed.
    let mut parent = std::process::Command::new(bin)
        .args(["run", "--no-store", "--no-probes", "--quiet"])
        .args([
            "-t",
            "uds-stream",
            "-w",
            "ping-pong",
            "--placement",
            "processes",
        ])
        .args([
            "--messages",
            "1000000000",
            "--samples",
            "1",
            "--warmup",
            "0",
        ])
        .env("HANDOFF_TEST_MARK", &mark)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let parent_pid = parent.id();
    // The parent, its worker and the worker's peer, with the channels' sockets open.
    let deadline = Instant::now() + Duration::from_secs(60);
    let pids = loop {
        let pids = marked(&mark);
        if pids.len() >= 3 && !abstract_sockets_of(&pids).is_empty() {
            break pids;
        }
        assert!(
            Instant::now() < deadline,
            "the peer never started: {pids:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    parent.kill().unwrap();
    parent.wait().unwrap();
    let killed = Instant::now();
    while !marked(&mark).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "still alive {:?} after the parent was killed: {:?}",
            killed.elapsed(),
            marked(&mark)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // A process whose memory is gone (no environment to read) may still be closing its
    // descriptors: its sockets go when it is fully gone.
    while !abstract_sockets_of(&pids).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "sockets left {:?} after the parent was killed: {:?}",
            killed.elapsed(),
            abstract_sockets_of(&pids)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let new = |before: &[String], now: Vec<String>| -> Vec<String> {
        now.into_iter().filter(|n| !before.contains(n)).collect()
    };
    assert_eq!(
        new(&shm_before, handoff_files(shm, any)),
        Vec::<String>::new()
    );
    assert_eq!(
        new(&tmp_before, handoff_files(&tmp, socket)),
        Vec::<String>::new()
    );
    // The journal of the killed run is meant to survive a kill; this test's own is removed.
    for name in handoff_files(&tmp, any) {
        if name.starts_with(&format!("handoff-run-{}-", parent_pid)) {
            let _ = std::fs::remove_file(tmp.join(name));
        }
    }
}
