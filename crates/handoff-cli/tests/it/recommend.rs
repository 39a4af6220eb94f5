//! `handoff recommend` end to end: over a stored fixture whose right answer is known, over a
//! real paced run in the history store, and with every kind of bad input.

use assert_cmd::Command;
use handoff::report::{RunReport, TrialResult};
use handoff::semantics::{Bound, WaitStrategy};
use handoff_model::cpu::{CpuFigures, SampleCpu};
use handoff_model::fixture;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("recommend-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn handoff(store: &Path) -> Command {
    let mut cmd = Command::cargo_bin("handoff").expect("binary built");
    cmd.env("HANDOFF_STORE", store);
    cmd
}

/// A paced result at 1,000/s with this p99 and consumer-side cores (five samples).
fn paced(transport: &str, p99_us: u64, consumer_cores: f64, wait: WaitStrategy) -> TrialResult {
    let mut r = fixture::with_rates(fixture::paced(1000, 1000.0), &[1000.0; 5]);
    r.transport = transport.into();
    r.semantics.wait = wait;
    let mut lat = fixture::latency(p99_us * 100, 50_000);
    lat.p99 = p99_us * 1000;
    r.latency = Some(lat);
    for (i, s) in r.samples.iter_mut().enumerate() {
        s.p99_ns = Some(p99_us * 1000 + i as u64 * 10);
        s.cpu = Some(SampleCpu {
            producer_ns: s.elapsed_ns,
            consumer_ns: (s.elapsed_ns as f64 * consumer_cores) as u64,
            runtime_ns: 0,
            page_faults: None,
        });
    }
    r.cpu = Some(CpuFigures {
        producer_cores: 1.0,
        consumer_cores,
        ns_per_msg: 1e6,
        runtime_cores: 0.0,
        page_faults_per_msg: None,
        samples: 5,
    });
    r
}

/// The reference question's fixture: at 1,000/s the spinning ring has the lowest p99 and a
/// core busy; of the two parking channels the bounded one is faster.
fn fixture_file(name: &str) -> PathBuf {
    let mut unbounded = paced("std-mpsc", 60, 0.01, WaitStrategy::SpinThenPark);
    unbounded.semantics.bound = Bound::Unbounded;
    let report: RunReport = fixture::report(vec![
        paced("rtrb", 5, 0.99, WaitStrategy::Spin),
        paced("crossbeam-bounded", 40, 0.02, WaitStrategy::SpinThenPark),
        unbounded,
    ]);
    let path = scratch(name);
    std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
    path
}

#[test]
fn the_known_answer_comes_with_its_reasons_in_every_format() {
    let file = fixture_file("known.json");
    let store = scratch("fixture.sqlite");
    let out = handoff(&store)
        .args([
            "recommend",
            file.to_str().unwrap(),
            "--rate",
            "1000",
            "--p99",
            "100us",
            "--cpu",
            "0.5",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("## Use `crossbeam-bounded cap=1024`"),
        "{text}"
    );
    assert!(text.contains("**Runner-up:** `std-mpsc`"), "{text}");
    assert!(
        text.contains("no: 0.99 cores busy, over the 0.5 budget (a waiting side spins)"),
        "{text}"
    );
    // Requiring unbounded leaves the one unbounded channel.
    let out = handoff(&store)
        .args([
            "recommend",
            file.to_str().unwrap(),
            "--rate",
            "1k",
            "--require",
            "unbounded,fifo",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("## Use `std-mpsc`"));
    // HTML and JSON to files.
    for (format, needle) in [
        (
            "html",
            "<h1>Use <code>crossbeam-bounded cap=1024</code></h1>",
        ),
        ("json", "\"pick\": 0"),
    ] {
        let to = scratch(&format!("rec.{format}"));
        handoff(&store)
            .args([
                "recommend",
                file.to_str().unwrap(),
                "--rate",
                "1000",
                "--cpu",
                "0.5",
                "-f",
                format,
                "--out",
                to.to_str().unwrap(),
            ])
            .assert()
            .success();
        let written = std::fs::read_to_string(&to).unwrap();
        assert!(written.contains(needle), "{format}: {written}");
    }
}

#[test]
fn bad_constraints_and_runs_that_cannot_answer_are_exit_2_and_say_why() {
    let file = fixture_file("bad.json");
    let store = scratch("bad.sqlite");
    let closed = scratch("closed.json");
    std::fs::write(
        &closed,
        serde_json::to_string(&fixture::report(vec![fixture::stream()])).unwrap(),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    for (args, expect) in [
        (vec![f, "--rate", "fast"], "--rate `fast`: a rate in messages per second"),
        (vec![f, "--p99", "100"], "--p99 `100`: a duration with its unit"),
        (vec![f, "--cpu=-1"], "--cpu `-1`: a positive number of cores"),
        (vec![f, "--require", "bounde"], "unknown requirement `bounde`; did you mean `bounded`"),
        (vec![f, "--prefer", "latncy"], "unknown objective `latncy`; did you mean `latency`"),
        (vec![f, "--payload", "report46"], "did you mean `report64`"),
        (vec![f, "--producers", "0"], "--producers `0`: a count from 1 to 1024"),
        (vec![f, "-f", "pdf"], "unknown recommendation format `pdf`"),
        (vec![f, "--rate", "5000"], "all below the 5000/s asked: latency and CPU at a lower rate say nothing of a higher one; run, for example: handoff run -t crossbeam-bounded,rtrb,std-mpsc -w paced --rate 5000"),
        (vec![closed.to_str().unwrap(), "--p99", "1ms"], "a latency budget needs paced results"),
        (vec!["12345"], "unknown run id 12345"),
    ] {
        let mut all = vec!["recommend"];
        all.extend(args.iter().copied());
        let out = handoff(&store).args(&all).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(expect), "{all:?}: expected `{expect}` in {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A real paced run, recorded, then recommended from by `latest`: what is measured decides,
/// so only the shape of the answer is checked here.
#[test]
fn a_stored_paced_run_is_recommended_from() {
    let store = scratch("stored.sqlite");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", store.display()));
    }
    handoff(&store)
        .args([
            "run",
            "-t",
            "crossbeam-bounded,std-mpsc",
            "-w",
            "paced",
            "--rate",
            "2000",
            "--messages",
            "400",
            "--samples",
            "3",
            "--warmup",
            "0",
            "--no-probes",
            "--quiet",
        ])
        .assert()
        .success();
    let out = handoff(&store)
        .args(["recommend", "latest", "--rate", "1000", "--cpu", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("## Use `") || text.starts_with("## Nothing"),
        "{text}"
    );
    assert!(text.contains("paced results at 2000/s"), "{text}");
    assert!(
        text.contains("the figures are from 2000/s, a busier hand-off than asked"),
        "{text}"
    );
    for t in ["crossbeam-bounded cap=1024", "std-mpsc"] {
        assert!(text.contains(&format!("| {t} |")), "{t}: {text}");
    }
}
