//! The run around the trials: worker processes and what transports do to them (printing,
//! leaking, never returning), a killed parent, a descriptor limit, and output that cannot be
//! written.

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
#[cfg(target_os = "linux")]
use crate::support::marked;

fn handoff() -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    cmd.arg("run")
        .args(["--no-store", "--no-probes", "--quiet"]);
    cmd
}

fn json_run(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = handoff()
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not json ({e}); stderr: {stderr}"));
    (out.status.code(), v, stderr)
}

fn result<'a>(v: &'a Value, transport: &str) -> &'a Value {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["transport"] == transport)
        .unwrap_or_else(|| panic!("no result of {transport}"))
}

fn lint_codes(r: &Value) -> Vec<String> {
    r["lints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_transport_that_prints_passes_and_what_it_printed_is_kept() {
    let (code, v, stderr) = json_run(&[
        "-t",
        "faulty-prints",
        "-w",
        "spsc",
        "--messages",
        "5000",
        "--samples",
        "3",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let r = result(&v, "faulty-prints");
    assert_eq!(r["verdict"], "pass", "{r}");
    let head: Vec<&str> = r["printed"]["head"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(head.contains(&"faulty-prints: channel built"), "{head:?}");
    assert!(
        head.contains(&"faulty-prints: and this on standard error"),
        "{head:?}"
    );
    assert!(r["printed"]["lines"].as_u64().unwrap() >= 20);
    assert!(lint_codes(r).contains(&"printed".to_string()));
}

/// rtrb's slots are mapped on their first write, inside the timed samples; handoff-spsc writes
/// every page of its ring when it is created. Counts of page faults, not times: what a busy
/// machine cannot change.
#[cfg(target_os = "linux")]
#[test]
fn a_ring_mapped_while_measured_is_flagged_page_faults_and_one_mapped_when_created_is_not() {
    let (code, v, stderr) = json_run(&[
        "-t",
        "rtrb,handoff-spsc",
        "-w",
        "spsc",
        "--payload",
        "report64",
        "--capacity",
        "1048576",
        "--messages",
        "300000",
        "--samples",
        "3",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let mapped_late = result(&v, "rtrb");
    let mapped_early = result(&v, "handoff-spsc");
    for r in [mapped_late, mapped_early] {
        assert_eq!(r["verdict"], "pass", "{r}");
        for s in r["samples"].as_array().unwrap() {
            assert!(s["cpu"]["page_faults"].is_u64(), "{s}");
        }
    }
    // A sample's first 300 000 messages of 64 bytes reach 4688 fresh pages of rtrb's ring; the
    // harness's own threads take a few dozen faults.
    let early = mapped_early["cpu"]["page_faults_per_msg"].as_f64().unwrap();
    assert!(early < 1e-3, "{mapped_early}");
    assert!(
        !lint_codes(mapped_early).contains(&"page-faults".to_string()),
        "{mapped_early}"
    );
    // Where the kernel backs every large allocation with huge pages, a 64 MiB ring is mapped in
    // a few dozen faults of 2 MiB, and there is nothing to flag.
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if thp.contains("[always]") {
        eprintln!("transparent huge pages always on: rtrb's faults not judged");
        return;
    }
    let late = mapped_late["cpu"]["page_faults_per_msg"].as_f64().unwrap();
    assert!(late > 10e-3, "{mapped_late}");
    assert!(
        lint_codes(mapped_late).contains(&"page-faults".to_string()),
        "{mapped_late}"
    );
}

#[test]
fn a_leak_is_named_and_a_clean_transport_is_not() {
    let (code, v, stderr) = json_run(&[
        "-t",
        "faulty-leaks,std-mpsc",
        "-w",
        "spsc",
        "--messages",
        "20000",
        "--samples",
        "5",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    let leaks = result(&v, "faulty-leaks");
    let clean = result(&v, "std-mpsc");
    assert!(
        lint_codes(leaks).contains(&"memory-growth".to_string()),
        "{leaks}"
    );
    assert!(
        !lint_codes(clean).contains(&"memory-growth".to_string()),
        "{clean}"
    );
    // 20 MiB kept per sample of 20 000 messages.
    let growth = leaks["memory"]["growth_per_sample"].as_f64().unwrap();
    assert!(growth > 15.0 * 1048576.0, "{growth}");
    for r in [leaks, clean] {
        assert!(r["memory"]["peak"].as_u64().unwrap() > 0, "{r}");
        for s in r["samples"].as_array().unwrap() {
            assert!(s["memory"]["after"].as_u64().unwrap() > 0, "{s}");
        }
    }
}

#[test]
fn a_crash_report_keeps_the_panic_message_ahead_of_a_long_backtrace() {
    let out = handoff()
        .args(["--format", "json", "-t", "faulty-panic", "-w", "spsc"])
        .args(["--messages", "1000", "--samples", "1"])
        // A full backtrace: two lines a frame, so it is longer than what is kept whatever the
        // build inlines and however deep the sample's randomised stack pad goes.
        .env("RUST_BACKTRACE", "full")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = result(&v, "faulty-panic");
    assert_eq!(r["verdict"], "crashed", "{r}");
    let printed = &r["printed"];
    let head = printed["head"].to_string();
    assert!(
        head.contains("injected panic at message 10"),
        "the message is among the first lines: {printed}"
    );
    // The backtrace is longer than what is kept: its last lines are kept, its middle counted.
    assert!(printed["lines"].as_u64().unwrap() > 24, "{printed}");
    assert_eq!(printed["head"].as_array().unwrap().len(), 12, "{printed}");
    assert_eq!(printed["tail"].as_array().unwrap().len(), 12, "{printed}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_killed_parent_leaves_no_worker_behind() {
    let mark = format!("{}-{}", std::process::id(), line!());
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    let mut parent = std::process::Command::new(bin)
        .args(["run", "--no-store", "--no-probes", "--quiet"])
        .args(["-t", "faulty-stuck-build", "-w", "spsc"])
        .args(["--messages", "100", "--samples", "1", "--warmup", "0"])
        .args(["--timeout-ms", "60000", "--format", "json"])
        .env("HANDOFF_TEST_MARK", &mark)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The parent, its worker stuck inside `channel()`, and the `sleep` the worker started.
    let deadline = Instant::now() + Duration::from_secs(30);
    while marked(&mark).len() < 3 {
        assert!(
            Instant::now() < deadline,
            "the worker never started: {:?}",
            marked(&mark)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    parent.kill().unwrap();
    parent.wait().unwrap();
    let killed = Instant::now();
    while !marked(&mark).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(2),
            "still alive {:?} after the parent was killed: {:?}",
            killed.elapsed(),
            marked(&mark)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_every_worker_and_names_the_journal() {
    let mark = format!("{}-{}", std::process::id(), line!());
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    let parent = std::process::Command::new(bin)
        .args(["run", "--no-store", "--no-probes", "--quiet"])
        .args(["-t", "std-mpsc,faulty-stuck-build", "-w", "spsc"])
        .args(["--messages", "100", "--samples", "1", "--warmup", "0"])
        .args(["--timeout-ms", "60000", "--format", "json"])
        .env("HANDOFF_TEST_MARK", &mark)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while marked(&mark).len() < 3 {
        assert!(Instant::now() < deadline, "the stuck worker never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    let interrupted = std::process::Command::new("kill")
        .args(["-INT", &parent.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let out = parent.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stderr.contains(".results.jsonl"), "{stderr}");
    let stopped = Instant::now();
    while !marked(&mark).is_empty() {
        assert!(
            stopped.elapsed() < Duration::from_secs(2),
            "still alive after Ctrl-C: {:?}",
            marked(&mark)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The journal holds what finished before the interruption: here, nothing yet, as the
    // trials of one group finish together.
    let journal = stderr
        .split_whitespace()
        .find(|w| w.ends_with(".results.jsonl"))
        .unwrap()
        .to_string();
    let _ = std::fs::remove_file(journal);
}

#[cfg(unix)]
#[test]
fn two_thousand_trials_run_under_a_low_descriptor_limit() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("many.toml");
    let capacities: Vec<String> = (1..=1000).map(|c| (c * 8).to_string()).collect();
    std::fs::write(
        &suite,
        format!(
            "[[benchmark]]\nworkload = \"spsc\"\ntransports = [\"std-mpsc\", \"crossbeam-bounded\"]\ncapacity = [{}]\nmessages = 200\nsamples = 1\nwarmup = 0\n",
            capacities.join(", ")
        ),
    )
    .unwrap();
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 256 && exec '{}' run --no-store --no-probes --quiet --format json '{}'",
            bin.display(),
            suite.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2000);
    let not_passed: Vec<&Value> = results.iter().filter(|r| r["verdict"] != "pass").collect();
    assert!(
        not_passed.is_empty(),
        "{} did not pass, e.g. {}",
        not_passed.len(),
        not_passed[0]
    );
}

#[test]
fn an_output_that_cannot_be_written_stops_the_run_before_any_trial() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir/report.json");
    let started = Instant::now();
    let out = handoff()
        .args(["-t", "std-mpsc", "-w", "spsc", "--samples", "50"])
        .arg("--out")
        .arg(&missing)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(5), "a trial ran");
    assert!(!dir.path().join("no-such-dir").exists());
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_is_an_error() {
    let bin = assert_cmd::cargo::cargo_bin("handoff");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec '{}' run --no-store --no-probes --quiet -t std-mpsc -w spsc --messages 1000 --samples 1 >&-",
            bin.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("standard output is closed"), "{stderr}");
}

#[cfg(target_os = "linux")]
#[test]
fn an_output_that_fails_at_the_end_leaves_every_result_in_the_journal() {
    let out = handoff()
        .args(["-t", "std-mpsc,crossbeam-bounded", "-w", "spsc"])
        .args(["--messages", "2000", "--samples", "2", "--out", "/dev/full"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("No space left"), "{stderr}");
    let journal = stderr
        .split_whitespace()
        .find(|w| w.ends_with(".results.jsonl"))
        .unwrap_or_else(|| panic!("no journal named: {stderr}"))
        .to_string();
    assert!(Path::new(&journal).is_file(), "{journal}");
    let shown = Command::cargo_bin("handoff")
        .unwrap()
        .args(["show", &journal, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(shown.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    assert_eq!(result(&v, "std-mpsc")["verdict"], "pass");
    std::fs::remove_file(&journal).unwrap();
}

#[test]
fn a_run_that_ends_well_leaves_no_journal() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = handoff()
        .args(["-t", "std-mpsc", "-w", "spsc", "--messages", "1000"])
        .args(["--samples", "1", "--format", "json", "--out"])
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["report.json"]);
}
